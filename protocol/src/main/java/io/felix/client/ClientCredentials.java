package io.felix.client;

/** A SCRAM-SHA-256 user name and password. {@link #toString()} leaves the password out. */
public record ClientCredentials(String user, String password) {
  public ClientCredentials {
    if (user == null || user.isEmpty() || password == null || password.isEmpty()) {
      throw new IllegalArgumentException("credentials: user and password must not be empty");
    }
  }

  @Override
  public String toString() {
    return "ClientCredentials[user=" + user + "]";
  }
}

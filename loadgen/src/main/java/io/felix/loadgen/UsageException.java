package io.felix.loadgen;

/** Bad command-line input; the message names the flag and the problem. The felix command exits with code 2. */
public final class UsageException extends Exception {
  public UsageException(String message) {
    super(message);
  }
}

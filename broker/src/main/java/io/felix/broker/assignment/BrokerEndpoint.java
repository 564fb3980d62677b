package io.felix.broker.assignment;

/**
 * Where a broker can be reached: by the other brokers on {@code host} (replication listener, admin HTTP port),
 * by clients on {@code clientHost:clientPort} (the client protocol; the advertised address, which is {@code host}
 * and the bound port unless felix.broker.advertised-host / advertised-client-port say otherwise), and by clients
 * outside the brokers' network on {@code externalClientHost:externalClientPort} when the broker has an external
 * listener ({@code externalClientPort} 0 when not: those clients are told the internal address).
 */
public record BrokerEndpoint(int id, String host, int clientPort, int replicationPort, int adminPort,
    String clientHost, String externalClientHost, int externalClientPort) {

  /** Clients reach the broker on {@code host}, as the brokers do. */
  public BrokerEndpoint(int id, String host, int clientPort, int replicationPort, int adminPort) {
    this(id, host, clientPort, replicationPort, adminPort, host);
  }

  /** No external listener. */
  public BrokerEndpoint(int id, String host, int clientPort, int replicationPort, int adminPort, String clientHost) {
    this(id, host, clientPort, replicationPort, adminPort, clientHost, "", 0);
  }

  public String clientAddress() {
    return clientHost + ":" + clientPort;
  }

  /** The host a client on {@code listener} is told (the internal one when this broker has no external listener). */
  public String clientHost(ClientListenerName listener) {
    return external(listener) ? externalClientHost : clientHost;
  }

  /** The port a client on {@code listener} is told (the internal one when this broker has no external listener). */
  public int clientPort(ClientListenerName listener) {
    return external(listener) ? externalClientPort : clientPort;
  }

  public String clientAddress(ClientListenerName listener) {
    return clientHost(listener) + ":" + clientPort(listener);
  }

  private boolean external(ClientListenerName listener) {
    return listener == ClientListenerName.EXTERNAL && externalClientPort > 0;
  }
}

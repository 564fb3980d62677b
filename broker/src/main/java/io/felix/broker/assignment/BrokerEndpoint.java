package io.felix.broker.assignment;

/**
 * Where a broker can be reached: by the other brokers on {@code host} (replication listener, admin HTTP port),
 * by clients on {@code clientHost:clientPort} (the client protocol; the advertised address, which is {@code host}
 * and the bound port unless felix.broker.advertised-host / advertised-client-port say otherwise).
 */
public record BrokerEndpoint(int id, String host, int clientPort, int replicationPort, int adminPort,
    String clientHost) {

  /** Clients reach the broker on {@code host}, as the brokers do. */
  public BrokerEndpoint(int id, String host, int clientPort, int replicationPort, int adminPort) {
    this(id, host, clientPort, replicationPort, adminPort, host);
  }

  public String clientAddress() {
    return clientHost + ":" + clientPort;
  }
}

package io.felix.broker.assignment;

/**
 * Where a broker can be reached: its client listener (the protobuf client protocol), its replication
 * listener (broker-to-broker record data) and its admin HTTP port, all on {@code host}.
 */
public record BrokerEndpoint(int id, String host, int clientPort, int replicationPort, int adminPort) {

  public String clientAddress() {
    return host + ":" + clientPort;
  }
}

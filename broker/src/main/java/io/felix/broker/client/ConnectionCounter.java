package io.felix.broker.client;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Open client connections, in all and per client address, against {@code max-connections} and
 * {@code max-connections-per-address}. Thread-safe.
 */
final class ConnectionCounter {
  private final int maxConnections;
  private final int maxPerAddress;
  private final Map<InetAddress, Integer> perAddress = new HashMap<>();
  private int open;

  ConnectionCounter(ClientLimits limits) {
    this.maxConnections = limits.maxConnections();
    this.maxPerAddress = limits.maxConnectionsPerAddress();
  }

  /** Counts the connection and returns empty, or returns why it is refused (and counts nothing). */
  synchronized Optional<String> admit(InetAddress address) {
    if (open >= maxConnections) {
      return Optional.of("the broker already has " + open + " client connections (max-connections " + maxConnections
          + ")");
    }
    int fromAddress = perAddress.getOrDefault(address, 0);
    if (fromAddress >= maxPerAddress) {
      return Optional.of(address.getHostAddress() + " already has " + fromAddress
          + " connections to this broker (max-connections-per-address " + maxPerAddress + ")");
    }
    open++;
    perAddress.put(address, fromAddress + 1);
    return Optional.empty();
  }

  synchronized void closed(InetAddress address) {
    open--;
    perAddress.computeIfPresent(address, (a, n) -> n <= 1 ? null : n - 1);
  }

  synchronized int open() {
    return open;
  }
}

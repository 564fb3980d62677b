package io.felix.client;

import java.util.ArrayList;
import java.util.List;

/**
 * The scripted brokers and clients one test starts, closed in reverse order after it: the client tests' shared
 * fixture (each test class chooses its own client settings).
 */
final class ScriptedBrokers implements AutoCloseable {
  private final List<AutoCloseable> closeables = new ArrayList<>();

  ScriptedBroker broker(int id) throws Exception {
    ScriptedBroker b = new ScriptedBroker(id);
    closeables.add(b);
    return b;
  }

  FelixClient client(ClientSettings settings) {
    FelixClient c = new FelixClient(settings);
    closeables.add(c);
    return c;
  }

  /** The brokers' addresses, in order, for a bootstrap list. */
  static List<HostPort> addresses(ScriptedBroker... brokers) {
    List<HostPort> addresses = new ArrayList<>();
    for (ScriptedBroker b : brokers) {
      addresses.add(b.address());
    }
    return addresses;
  }

  @Override
  public void close() throws Exception {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
  }
}

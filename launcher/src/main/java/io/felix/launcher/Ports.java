package io.felix.launcher;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/** Whether something listens on a port of 127.0.0.1 (a connection is accepted). */
final class Ports {
  private Ports() {}

  static boolean inUse(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(LocalLayout.HOST, port), 500);
      return true;
    } catch (IOException free) {
      return false;
    }
  }
}

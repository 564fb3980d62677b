package io.felix.launcher;

import java.io.IOException;

/**
 * A port of the layout was taken by another process: free when checked, or bound by someone else before a broker
 * could. The caller may pick another FELIX_PORT_OFFSET (see {@link LocalCluster#startOnFreePorts}).
 */
public final class PortTakenException extends IOException {
  public PortTakenException(String message) {
    super(message);
  }
}

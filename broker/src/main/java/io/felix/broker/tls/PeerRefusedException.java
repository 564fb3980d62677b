package io.felix.broker.tls;

/**
 * A peer refused for who it is (its certificate or its cluster-secret proof), not for a fault: the message says
 * why; no stack trace, since the refusal is an expected outcome that is logged as one line.
 */
public final class PeerRefusedException extends RuntimeException {
  public PeerRefusedException(String message) {
    super(message, null, false, false);
  }
}

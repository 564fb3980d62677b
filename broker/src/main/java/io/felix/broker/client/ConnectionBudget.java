package io.felix.broker.client;

import java.util.concurrent.CompletionStage;

/**
 * The request bytes one client connection holds: its own budget ({@code max-in-flight-bytes-per-connection}) and
 * its share of the broker's ({@code max-queued-request-bytes}), taken in that order, so a connection waiting for
 * its own budget holds none of the broker's.
 *
 * <p>When the connection ends, {@link #close} gives back whatever of the broker's budget it still holds (a frame
 * admitted but dropped by the closing stream would otherwise hold it for ever); later releases and grants of a
 * closed connection then touch the broker's budget no more than once per byte.
 */
final class ConnectionBudget {
  /** What one frame holds: its bytes in the connection's budget and in the broker's. */
  record Reservation(long own, long broker) {}

  private final RequestBudget brokerBudget;
  private final RequestBudget own;
  private long heldOfBroker;
  private boolean closed;

  ConnectionBudget(RequestBudget brokerBudget, long perConnection) {
    this.brokerBudget = brokerBudget;
    this.own = new RequestBudget(perConnection);
  }

  CompletionStage<Reservation> acquire(long bytes) {
    return own.acquire(bytes).thenCompose(ownBytes -> brokerBudget.acquire(bytes)
        .thenApply(brokerBytes -> granted(ownBytes, brokerBytes)));
  }

  /**
   * Gives the broker's share back first, in the reverse order of taking: the connection's next frame, waiting for
   * its own budget, must not take the broker's bytes while this frame's are still counted there.
   */
  void release(Reservation reservation) {
    boolean giveBack;
    synchronized (this) {
      giveBack = !closed;
      if (giveBack) {
        heldOfBroker -= reservation.broker();
      }
    }
    if (giveBack) {
      brokerBudget.release(reservation.broker());
    }
    own.release(reservation.own());
  }

  void close() {
    long held;
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      held = heldOfBroker;
      heldOfBroker = 0;
    }
    brokerBudget.release(held);
  }

  private Reservation granted(long ownBytes, long brokerBytes) {
    boolean late;
    synchronized (this) {
      late = closed;
      if (!late) {
        heldOfBroker += brokerBytes;
      }
    }
    if (late) {
      brokerBudget.release(brokerBytes); // the connection ended while this frame waited
    }
    return new Reservation(ownBytes, brokerBytes);
  }
}

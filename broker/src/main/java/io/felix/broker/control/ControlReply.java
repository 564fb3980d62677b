package io.felix.broker.control;

import io.felix.broker.wire.ControlMessage;

/** The singleton's answer to an operator command: done (with a short description) or rejected with a reason. */
public sealed interface ControlReply extends ControlMessage {

  /** Why a command was refused; the admin API maps each to its HTTP status. */
  enum Refusal {
    /** A malformed or invalid value: 400. */
    INVALID,
    /** An unknown stream or broker: 404. */
    NOT_FOUND,
    /** A name that exists or an operation that conflicts with the current state: 409. */
    CONFLICT
  }

  /**
   * @param tableVersion the assignment table version once the command's decision was stored; 0 when it changed
   *     nothing. A broker's own table at that version or above shows the change (the admin API's lists read it).
   */
  record Done(String message, long tableVersion) implements ControlReply {

    public Done(String message) {
      this(message, 0);
    }

    @Override
    public ControlReply storedAt(long tableVersion) {
      return new Done(message, tableVersion);
    }
  }

  record Rejected(Refusal refusal, String error) implements ControlReply {}

  static ControlReply done(String message) {
    return new Done(message);
  }

  /** This reply, for a decision stored at assignment table {@code tableVersion}; a refusal stays as it is. */
  default ControlReply storedAt(long tableVersion) {
    return this;
  }

  static ControlReply invalid(String error) {
    return new Rejected(Refusal.INVALID, error);
  }

  static ControlReply notFound(String error) {
    return new Rejected(Refusal.NOT_FOUND, error);
  }

  static ControlReply conflict(String error) {
    return new Rejected(Refusal.CONFLICT, error);
  }
}

package io.felix.protocol.scram;

/** A SCRAM message that is malformed or does not check out; the message says which part. */
public final class ScramException extends RuntimeException {
  public ScramException(String message) {
    super(message);
  }
}

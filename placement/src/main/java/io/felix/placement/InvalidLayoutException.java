package io.felix.placement;

/**
 * A snapshot that placement cannot plan for: unknown broker or group, duplicate ids, a replication factor larger
 * than the brokers that could host it, a negative shard count. The message names the problem; nothing was planned.
 */
public final class InvalidLayoutException extends IllegalArgumentException {

  public InvalidLayoutException(String message) {
    super(message);
  }
}

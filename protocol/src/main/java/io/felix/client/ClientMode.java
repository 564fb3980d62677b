package io.felix.client;

/** How the client reaches shard leaders. */
public enum ClientMode {
  /** Metadata from any bootstrap broker; every batch goes straight to its shard's leader. */
  CLUSTER,
  /**
   * Every request goes to one broker (the first reachable bootstrap address), which forwards batches for shards
   * it does not lead. The client still reads metadata from it, to know each stream's shards.
   */
  PLAIN
}

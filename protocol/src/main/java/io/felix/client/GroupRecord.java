package io.felix.client;

/** A record a {@link GroupConsumer} polled: its shard of the subscribed stream, and the record. */
public record GroupRecord(int shard, FetchedRecord record) {
  public long offset() {
    return record.offset();
  }
}

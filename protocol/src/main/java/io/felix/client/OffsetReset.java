package io.felix.client;

/** What a consumer's fetch does when its offset is outside the shard's log (retention deleted it, or it is beyond). */
public enum OffsetReset {
  /** Fetch again from the log start offset: read everything still kept. */
  EARLIEST,
  /** Fetch again from the commit offset: only records committed from now on. */
  LATEST,
  /** Fail with {@link OffsetOutOfRangeException}, which names both offsets; the caller decides. */
  NONE
}

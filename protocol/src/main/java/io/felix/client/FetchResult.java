package io.felix.client;

import java.util.List;

/**
 * Committed records of one shard from the requested offset on.
 *
 * @param nextOffset the offset to fetch next: one past the last record returned, or past the epoch markers the
 *     broker stepped over, or the requested offset when the broker read nothing
 * @param commitOffset the shard's commit offset (high watermark) when the broker answered
 */
public record FetchResult(
    String stream, int shard, List<FetchedRecord> records, long nextOffset, long commitOffset, long logStartOffset) {}

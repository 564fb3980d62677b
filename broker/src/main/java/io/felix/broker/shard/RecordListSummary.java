package io.felix.broker.shard;

/**
 * What the log needs to know about a produced batch (an encoded client RecordList): how many records and their
 * timestamps. Built by {@code io.felix.broker.client.RecordListCheck}, which validates the batch as it scans it.
 */
public record RecordListSummary(int count, long firstTimestamp, long maxTimestamp) {}

package io.felix.broker.log;

/**
 * KIP-279's answer to "where does epoch E end in your log": the largest epoch of the log that is at most E, and the
 * offset where it ends (the start of the next epoch, or the log end). {@code epoch == -1} when the log has no epoch
 * at or below E; then {@code endOffset} is the log start offset.
 */
public record EpochEnd(long epoch, long endOffset) {}

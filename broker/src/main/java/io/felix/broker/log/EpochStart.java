package io.felix.broker.log;

/** A leader epoch and the offset of its first batch in a log. */
public record EpochStart(long epoch, long startOffset) {}

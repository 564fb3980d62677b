package io.felix.client;

/** Where an acknowledged record was stored. */
public record RecordMetadata(String stream, int shard, long offset) {}

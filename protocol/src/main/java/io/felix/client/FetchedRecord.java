package io.felix.client;

import io.felix.protocol.client.Header;
import java.util.List;

/**
 * One committed record. An absent key reads as an empty array (proto3 cannot tell them apart, so the producer
 * treats an empty key as no key too).
 */
public record FetchedRecord(long offset, byte[] key, byte[] value, List<Header> headers, long timestampMs) {}

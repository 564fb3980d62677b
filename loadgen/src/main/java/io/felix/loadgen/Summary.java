package io.felix.loadgen;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What {@code produce --json} writes, and what {@code consume --verify --expect} reads back. Per producer: the
 * acknowledged sequences as inclusive ranges, the ones that failed with an unknown outcome ({@code uncertain}:
 * may be stored) and the ones that certainly were not stored ({@code not_appended}). Latencies in milliseconds.
 */
public record Summary(
    String stream,
    long runId,
    String mode,
    String acks,
    int recordSize,
    int producerCount,
    double elapsedSeconds,
    long sent,
    long acked,
    long failedNotAppended,
    long failedUncertain,
    long retries,
    double recordsPerSecond,
    double megabytesPerSecond,
    Map<String, Double> latencyMs,
    List<ProducerResult> producers) {

  public record ProducerResult(
      int producer, long sent, long ackedCount, List<long[]> acked, List<Long> uncertain, List<Long> notAppended) {}

  static final ObjectMapper JSON = new ObjectMapper()
      .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
      .enable(SerializationFeature.INDENT_OUTPUT);

  void write(Path file) throws IOException {
    JSON.writeValue(file.toFile(), this);
  }

  static Summary read(Path file) throws IOException {
    return JSON.readValue(file.toFile(), Summary.class);
  }
}

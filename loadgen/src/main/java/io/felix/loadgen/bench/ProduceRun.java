package io.felix.loadgen.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@code loadgen produce} as a child process of this same jar, with its progress lines shown indented,
 * and reads the JSON summary it writes. A separate process so that the benchmark measures the brokers and
 * the producer the way a user runs them, and the load generator's own CPU stays out of the bench's JVM.
 */
final class ProduceRun {

  /** What the benchmark reports of one run. */
  record Result(long records, double recordsPerSecond, double megabytesPerSecond, double p99Millis, long errors,
      JsonNode raw) {}

  private static final ObjectMapper JSON = new ObjectMapper();

  private ProduceRun() {}

  /** @param acks the produce's --acks level (quorum, all, leader) */
  static Result run(String bootstrap, String stream, String mode, String acks, Duration duration, int recordSize,
      int producers, Path jsonFile) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx512m",
        "-cp", System.getProperty("java.class.path"), "io.felix.cli.Felix", "produce",
        "--bootstrap", bootstrap, "--stream", stream, "--mode", mode, "--record-size", Integer.toString(recordSize),
        "--rate", "0", "--duration", duration.toSeconds() + "s", "--producers", Integer.toString(producers),
        "--acks", acks, "--json", jsonFile.toString()));
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    try (var lines = p.inputReader().lines()) {
      lines.forEach(l -> System.out.println("    | " + l));
    }
    if (!p.waitFor(duration.toSeconds() + 120, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("produce did not finish within " + (duration.toSeconds() + 120) + " s");
    }
    if (p.exitValue() != 0 || !Files.isRegularFile(jsonFile)) {
      throw new IOException("produce exited with " + p.exitValue() + " and no summary at " + jsonFile);
    }
    JsonNode s = JSON.readTree(jsonFile.toFile());
    // The fields of loadgen produce's --json summary (io.felix.loadgen.Summary, snake case).
    return new Result(s.path("acked").asLong(), s.path("records_per_second").asDouble(),
        s.path("megabytes_per_second").asDouble(), s.path("latency_ms").path("p99").asDouble(),
        s.path("failed_not_appended").asLong() + s.path("failed_uncertain").asLong(), s);
  }
}

package io.felix.broker.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kcat (librdkafka, Debian package {@code kcat}) against three Felix brokers: it lists the metadata, produces a
 * file's lines and consumes them back, each line once and each partition in file order. Fails, saying so, when
 * kcat is not installed.
 */
@Tag("cluster")
class KcatClusterTest {

  @Test
  void kcatListsMetadataAndRoundTripsAFile(@TempDir Path dir) throws Exception {
    assertTrue(kcatInstalled(), "kcat is not installed on this machine: apt-get install -y kcat (CI installs it)");
    try (KafkaTestCluster kafka = KafkaTestCluster.start(3, Map.of());
         Admin admin = kafka.admin()) {
      admin.createTopics(List.of(new NewTopic("lines", 3, (short) 3))).all().get();
      String bootstrap = kafka.bootstrap();

      // Metadata lists the brokers the singleton holds reachable: a broker whose heartbeats a loaded machine delays is
      // left out until it is back, and its partitions show no leader until their failover, so kcat asks again.
      String metadata = run(dir, "kcat", "-b", bootstrap, "-L", "-t", "lines");
      for (long deadline = System.nanoTime() + 30_000_000_000L;
          (!metadata.contains("3 brokers:") || metadata.contains("leader -1")) && System.nanoTime() < deadline; ) {
        Thread.sleep(500);
        metadata = run(dir, "kcat", "-b", bootstrap, "-L", "-t", "lines");
      }
      assertTrue(metadata.contains("3 brokers:"), metadata);
      assertFalse(metadata.contains("leader -1"), metadata);
      assertTrue(metadata.contains("topic \"lines\" with 3 partitions:"), metadata);
      for (int p = 0; p < 3; p++) {
        assertTrue(metadata.contains("partition " + p + ", leader "), metadata);
      }

      List<String> lines = new ArrayList<>();
      for (int i = 0; i < 500; i++) {
        lines.add("line-" + i + " " + "x".repeat(i % 40));
      }
      Path file = Files.write(dir.resolve("in.txt"), lines, StandardCharsets.UTF_8);
      run(dir, "kcat", "-b", bootstrap, "-t", "lines", "-P", "-l", "-X", "enable.idempotence=true",
          "-X", "acks=all", file.toString());

      String out = run(dir, "kcat", "-b", bootstrap, "-t", "lines", "-C", "-e", "-q", "-o", "beginning",
          "-f", "%p\t%o\t%s\n");
      Map<Integer, List<Long>> offsets = new HashMap<>();
      Map<Integer, List<Integer>> indexes = new HashMap<>();
      List<String> read = new ArrayList<>();
      for (String row : out.split("\n")) {
        if (row.isEmpty()) {
          continue;
        }
        String[] f = row.split("\t", 3);
        int partition = Integer.parseInt(f[0]);
        offsets.computeIfAbsent(partition, x -> new ArrayList<>()).add(Long.parseLong(f[1]));
        indexes.computeIfAbsent(partition, x -> new ArrayList<>()).add(lines.indexOf(f[2]));
        read.add(f[2]);
      }
      assertEquals(lines.size(), read.size(), "every line read once");
      assertEquals(new java.util.HashSet<>(lines), new java.util.HashSet<>(read));
      for (int p : offsets.keySet()) {
        List<Long> o = offsets.get(p);
        for (int i = 0; i < o.size(); i++) {
          assertEquals((long) i, o.get(i), "partition " + p + " offsets run from 0 without gaps");
        }
        List<Integer> sorted = new ArrayList<>(indexes.get(p));
        sorted.sort(Integer::compare);
        assertEquals(sorted, indexes.get(p), "partition " + p + " holds its lines in file order");
      }
    }
  }

  static boolean kcatInstalled() {
    try {
      Process p = new ProcessBuilder("kcat", "-V").redirectErrorStream(true).start();
      p.getInputStream().readAllBytes();
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException | InterruptedException e) {
      return false;
    }
  }

  private static String run(Path dir, String... command) throws Exception {
    Path err = Files.createTempFile(dir, "kcat", ".err");
    Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
    p.getOutputStream().close();
    byte[] out = p.getInputStream().readAllBytes();
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", command) + " did not finish");
    assertEquals(0, p.exitValue(), String.join(" ", command) + " failed: " + Files.readString(err));
    return new String(out, StandardCharsets.UTF_8);
  }
}

package io.felix.broker.group;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.felix.broker.BrokerCluster;
import io.felix.broker.node.BrokerNode;
import io.felix.client.ClientMode;
import io.felix.client.HostPort;
import io.felix.loadgen.ConsumeOptions;
import io.felix.loadgen.ConsumeRun;
import io.felix.loadgen.ProduceRun;
import io.felix.loadgen.Summary;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.FutureTask;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code consume --group G --members 3 --churn 1s --verify} while a producer writes: members leave (commit, then
 * leave) and join every second, and together they read every acknowledged record exactly once, because a shard is
 * granted to its next member only after its holder committed and released it.
 */
@Tag("cluster")
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class GroupConsumeVerifyClusterTest {
  private static final String STREAM = "events";

  @TempDir Path dir;

  @Test
  void membersThatComeAndGoTogetherReadEveryAcknowledgedRecordOnce() throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(3, Map.of("felix.groups.offsets-shards", 3))) {
      BrokerNode via = cluster.live().get(0);
      cluster.awaitBrokersLive(via, 3);
      assertEquals(201, cluster.post(via, "/v1/streams",
          "{\"name\":\"" + STREAM + "\",\"shards\":6,\"replication_factor\":3}").status());
      cluster.awaitReady();
      List<HostPort> bootstrap = HostPort.parseList(String.join(",",
          cluster.live().stream().map(b -> b.endpoint().clientAddress()).toList()));

      Path json = dir.resolve("consume.json");
      ByteArrayOutputStream printed = new ByteArrayOutputStream();
      ConsumeOptions group = new ConsumeOptions(bootstrap, STREAM, ClientMode.CLUSTER, false, true, null, json,
          Duration.ofSeconds(5), 1024 * 1024, "verifiers", null, 3, Duration.ofSeconds(1), null);
      FutureTask<Integer> consuming = new FutureTask<>(
          () -> new ConsumeRun(group, new PrintStream(printed, true, StandardCharsets.UTF_8)).run());
      new Thread(consuming, "group-consume").start();

      ProduceRun load = ProduceRun.steady(bootstrap, STREAM, 400, 2);
      FutureTask<Summary> producing = new FutureTask<>(load::produce);
      new Thread(producing, "group-produce").start();
      Thread.sleep(8_000);
      load.stop();
      Summary produced = producing.get();
      int code = consuming.get(90, TimeUnit.SECONDS);

      String output = printed.toString(StandardCharsets.UTF_8);
      JsonNode report = new ObjectMapper().readTree(json.toFile());
      assertEquals(0, produced.failedUncertain(), "every record's outcome is known");
      assertTrue(produced.acked() > 1_000, "acknowledged " + produced.acked());
      java.util.regex.Matcher members = java.util.regex.Pattern.compile("(\\d+) members in all").matcher(output);
      assertTrue(members.find() && Integer.parseInt(members.group(1)) >= 8, "members came and went: " + output);
      assertEquals(0, code, output);
      assertEquals(produced.acked(), report.get("records").asLong(), "each acknowledged record read once: " + output);
      for (JsonNode p : report.get("verify").get("producers")) {
        assertEquals(0, p.get("duplicated").asLong(), p.toString());
        assertEquals(0, p.get("missing").asLong(), p.toString());
        assertEquals(0, p.get("out_of_order").asLong(), p.toString());
      }
    }
  }
}

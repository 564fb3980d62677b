package io.felix.broker.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.metrics.BrokerMetrics;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The Grafana dashboard beside the compose file queries only metrics a broker exports: every series name in its
 * panels' expressions appears in a broker's /metrics page once each kind of metric has a value.
 */
class GrafanaDashboardTest {

  private static final Pattern SERIES = Pattern.compile("\\b((?:felix|process|jvm)_[a-z_]+)");

  @Test
  void everyPanelQueriesSeriesTheBrokerExports() throws Exception {
    JsonNode dashboard = new ObjectMapper().readTree(
        ComposeSettings.repositoryRoot().resolve("docker/grafana-dashboard.json").toFile());
    Set<String> queried = new TreeSet<>();
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        Matcher m = SERIES.matcher(target.path("expr").asText());
        while (m.find()) {
          queried.add(m.group(1));
        }
      }
    }
    assertEquals(12, dashboard.path("panels").size(), "panels in the dashboard");

    Set<String> exported = exportedSeries();
    Set<String> missing = queried.stream().filter(name -> !exported.contains(name))
        .collect(Collectors.toCollection(TreeSet::new));
    assertTrue(missing.isEmpty(), "the dashboard queries series no broker exports: " + missing);
  }

  /** The series names on a /metrics page where every Felix metric has been given a value. */
  private static Set<String> exportedSeries() {
    BrokerMetrics metrics = new BrokerMetrics(0, "a");
    ShardId shard = new ShardId("orders", 0);
    metrics.recordAppended("orders", 1, 10);
    metrics.produceAnswered("quorum", true, Duration.ofMillis(2));
    metrics.replicationLag(shard, 1, 3);
    metrics.commitOffset(shard, 5);
    metrics.logStartOffset(shard, 0);
    metrics.replicasInSync(shard, 2, 3);
    metrics.batchForwarded(1, 10);
    metrics.assignmentsApplied(new AssignmentTable(1, Map.of(), Map.of("orders", 1), new TreeMap<>()));
    metrics.movesInFlight(0);
    metrics.moveFinished(true);
    metrics.placementPassRun();
    Set<String> names = new TreeSet<>();
    metrics.scrape().lines().filter(l -> !l.startsWith("#") && !l.isBlank())
        .map(l -> l.split("[{ ]", 2)[0]).forEach(names::add);
    return names;
  }
}

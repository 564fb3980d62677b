package io.felix.broker.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.group.GroupLag;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.Test;

class MetricsRouteTest {

  @Test
  void getMetricsServesThePrometheusTextOfThisBroker() throws Exception {
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "metrics-route-test");
    try {
      BrokerMetrics metrics = new BrokerMetrics(3, "b");
      metrics.recordAppended("orders", 7, 700);
      // The on-demand series: the first scrape's refresh reports one group's lag, later refreshes fail.
      AtomicInteger refreshes = new AtomicInteger();
      Supplier<CompletionStage<?>> refresh = () -> {
        if (refreshes.incrementAndGet() > 1) {
          return CompletableFuture.failedFuture(new IllegalStateException("coordinator busy"));
        }
        metrics.groupsCoordinated(List.of(new GroupLag("billing", "orders", 2, 40, 10)));
        return CompletableFuture.completedFuture(null);
      };
      ServerBinding binding = Http.get(system).newServerAt("127.0.0.1", 0).bind(MetricsRoute.create(metrics, refresh))
          .toCompletableFuture().get(10, TimeUnit.SECONDS);
      int port = binding.localAddress().getPort();
      HttpClient client = HttpClient.newHttpClient();

      HttpResponse<String> response = client.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(200, response.statusCode());
      assertEquals("text/plain; version=0.0.4; charset=utf-8",
          response.headers().firstValue("Content-Type").orElseThrow().toLowerCase(java.util.Locale.ROOT));
      assertTrue(response.body().lines().anyMatch("felix_records_appended_total{stream=\"orders\"} 7.0"::equals),
          response.body());
      assertTrue(response.body().lines().anyMatch("felix_broker_info{broker=\"3\",zone=\"b\"} 1.0"::equals));
      String lag = "felix_group_lag_records{group=\"billing\",shard=\"2\",stream=\"orders\"} 10.0";
      assertTrue(response.body().lines().anyMatch(lag::equals), response.body());
      assertTrue(response.body().lines().anyMatch(
          "felix_group_committed_offset{group=\"billing\",shard=\"2\",stream=\"orders\"} 40.0"::equals));

      HttpResponse<String> afterFailedRefresh = client.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).GET().build(),
          HttpResponse.BodyHandlers.ofString());
      assertEquals(200, afterFailedRefresh.statusCode(), "a failed refresh still serves the metrics");
      assertTrue(afterFailedRefresh.body().lines().anyMatch(lag::equals), "and keeps the last group series");

      HttpResponse<String> post = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
          .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(405, post.statusCode());
    } finally {
      system.terminate();
      system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void eachActorSystemHasItsOwnBrokerMetricsNamedFromItsConfig() throws Exception {
    ActorSystem<Void> first = ActorSystem.create(Behaviors.empty(), "metrics-a",
        com.typesafe.config.ConfigFactory.parseString("felix.broker { id = 4, zone = \"c\" }")
            .withFallback(com.typesafe.config.ConfigFactory.load()));
    ActorSystem<Void> second = ActorSystem.create(Behaviors.empty(), "metrics-b",
        com.typesafe.config.ConfigFactory.parseString("felix.broker { id = 5, zone = \"\" }")
            .withFallback(com.typesafe.config.ConfigFactory.load()));
    try {
      assertTrue(BrokerMetrics.of(first) == BrokerMetrics.of(first), "one instance per ActorSystem");
      BrokerMetrics.of(first).recordAppended("s", 1, 1);
      assertTrue(BrokerMetrics.of(first).scrape().contains("felix_broker_info{broker=\"4\",zone=\"c\"} 1.0"));
      assertTrue(BrokerMetrics.of(second).scrape().contains("felix_broker_info{broker=\"5\",zone=\"\"} 1.0"));
      assertTrue(!BrokerMetrics.of(second).scrape().contains("felix_records_appended_total{"),
          "the second broker counts nothing of the first");
    } finally {
      first.terminate();
      second.terminate();
      first.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
      second.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }
}

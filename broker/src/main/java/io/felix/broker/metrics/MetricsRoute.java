package io.felix.broker.metrics;

import static org.apache.pekko.http.javadsl.server.Directives.completeWithFuture;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.path;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.ContentType;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpEntities;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * {@code GET /metrics}: the broker's metrics in the Prometheus text format (0.0.4), for the admin HTTP server
 * to concatenate with its other routes. Rendered on every request (a scrape is a few KiB and cheap), after
 * {@code refresh} has updated the series that are computed on demand (the lag of the groups this broker
 * coordinates); a refresh that fails leaves those series as they were.
 */
public final class MetricsRoute {

  private MetricsRoute() {}

  public static Route create(BrokerMetrics metrics, Supplier<CompletionStage<?>> refresh) {
    ContentType contentType = ContentTypes.parse(metrics.contentType());
    return path("metrics", () -> get(() -> completeWithFuture(refresh.get().handle((done, failed) ->
        HttpResponse.create().withEntity(
            HttpEntities.create(contentType, metrics.scrape().getBytes(StandardCharsets.UTF_8)))))));
  }
}

package io.felix.broker.http;

import io.felix.broker.control.ControlSettings;
import io.felix.broker.control.ControlView;
import io.felix.broker.control.PlacementSnapshots;
import io.felix.placement.ClusterSnapshot;
import io.felix.placement.InvalidLayoutException;
import io.felix.placement.Simulator;
import io.felix.placement.json.SimulateJson;
import java.util.HashSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.http.javadsl.model.StatusCodes;

/**
 * {@code POST /v1/placement/simulate}: the placement library's simulate JSON in and out, against a posted
 * layout or, with an empty body, the live cluster (its state, reachable brokers and moves in flight). Runs
 * the pure simulator on the HTTP thread pool: nothing is proposed to the singleton.
 */
final class PlacementSimulation {

  /** Bounds the work one request can cause; a real layout converges in far fewer passes. */
  static final int MAX_PASSES = 10_000;

  private final ControlSettings settings;

  PlacementSimulation(ControlSettings settings) {
    this.settings = settings;
  }

  CompletionStage<AdminRoutes.Response> posted(String body) {
    ClusterSnapshot snapshot;
    try {
      snapshot = SimulateJson.readSnapshot(body);
    } catch (InvalidLayoutException e) {
      return CompletableFuture.completedFuture(
          new AdminRoutes.Response(StatusCodes.BAD_REQUEST, AdminJson.error(e.getMessage())));
    }
    return run(snapshot);
  }

  CompletionStage<AdminRoutes.Response> live(ControlView view) {
    return run(PlacementSnapshots.of(view.state(), new HashSet<>(view.available()), settings));
  }

  private static CompletionStage<AdminRoutes.Response> run(ClusterSnapshot snapshot) {
    return CompletableFuture.supplyAsync(() -> new AdminRoutes.Response(StatusCodes.OK,
        SimulateJson.resultToJson(Simulator.run(snapshot, MAX_PASSES))));
  }
}

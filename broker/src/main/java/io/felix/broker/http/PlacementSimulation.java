package io.felix.broker.http;

import io.felix.broker.control.ControlSettings;
import io.felix.broker.control.ControlView;
import io.felix.broker.control.PlacementSnapshots;
import io.felix.placement.ClusterSnapshot;
import io.felix.placement.InvalidLayoutException;
import io.felix.placement.Simulator;
import io.felix.placement.json.SimulateJson;
import io.felix.placement.Group;
import java.util.HashSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.apache.pekko.http.javadsl.model.StatusCodes;

/**
 * {@code POST /v1/placement/simulate}: the placement library's simulate JSON in and out, against a posted
 * layout or, with an empty body, the live cluster (its state, reachable brokers and moves in flight). Nothing is
 * proposed to the singleton. A posted layout is bounded (shards, brokers) so that one request cannot exhaust the
 * broker's memory, and simulations run one at a time on their own thread so that they cannot take every core
 * from the broker's actors.
 */
final class PlacementSimulation {

  /** Bounds the work one request can cause; a real layout converges in far fewer passes. */
  static final int MAX_PASSES = 10_000;
  /** Twice the size of the placement benchmark's largest cluster. */
  static final int MAX_SHARDS = 200_000;
  static final int MAX_BROKERS = 1_000;

  /** One simulation at a time per JVM, on a daemon thread: a queue of requests waits rather than competes. */
  private static final ExecutorService SIMULATOR = Executors.newSingleThreadExecutor(r -> {
    Thread t = new Thread(r, "felix-placement-simulation");
    t.setDaemon(true);
    return t;
  });

  private final ControlSettings settings;

  PlacementSimulation(ControlSettings settings) {
    this.settings = settings;
  }

  CompletionStage<AdminRequests.Response> posted(String body) {
    ClusterSnapshot snapshot;
    try {
      snapshot = SimulateJson.readSnapshot(body);
    } catch (InvalidLayoutException e) {
      return CompletableFuture.completedFuture(
          new AdminRequests.Response(StatusCodes.BAD_REQUEST, AdminJson.error(400, e.getMessage())));
    }
    long shards = snapshot.groups().stream().mapToLong(Group::shards).sum();
    if (shards > MAX_SHARDS || snapshot.brokers().size() > MAX_BROKERS) {
      String problem = shards > MAX_SHARDS
          ? "groups: a simulation takes at most " + MAX_SHARDS + " shards in all, got " + shards
          : "brokers: a simulation takes at most " + MAX_BROKERS + " brokers, got " + snapshot.brokers().size();
      return CompletableFuture.completedFuture(
          new AdminRequests.Response(StatusCodes.BAD_REQUEST, AdminJson.error(400, problem)));
    }
    return run(snapshot);
  }

  CompletionStage<AdminRequests.Response> live(ControlView view) {
    return run(PlacementSnapshots.of(view.state(), new HashSet<>(view.available()), settings));
  }

  private static CompletionStage<AdminRequests.Response> run(ClusterSnapshot snapshot) {
    return CompletableFuture.supplyAsync(() -> new AdminRequests.Response(StatusCodes.OK,
        SimulateJson.resultToJson(Simulator.run(snapshot, MAX_PASSES))), SIMULATOR);
  }
}

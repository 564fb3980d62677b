package io.felix.broker.http;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.felix.broker.control.ControlSettings;
import io.felix.broker.testing.FuzzInput;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Seeded fuzzing of the admin API's largest JSON reader, the posted layout of POST /v1/placement/simulate
 * (mutated valid layouts, random bytes, deep nesting): every body is answered 200 or 400 within 10 s, never an
 * exception, a hang or an unbounded simulation. {@code -Dfelix.fuzz.seconds=N} runs longer.
 */
@Timeout(value = 30, unit = TimeUnit.MINUTES) // -Dfelix.fuzz.seconds may ask for long runs
class AdminJsonFuzzTest {
  private static final List<String> LAYOUTS = List.of("""
      {"brokers": [{"id": 0}, {"id": 1}, {"id": 2, "zone": "b"}],
       "groups": [{"name": "perf-quorum", "shards": 12, "replication_factor": 3}]}""", """
      {"brokers": [{"id": 0, "state": "draining"}, {"id": 1, "max_shards": 4}, {"id": 2}],
       "groups": [{"name": "x", "shards": 3, "replication_factor": 2}]}""");

  @Test
  void everyMutatedLayoutIsAnsweredOkOrBadRequestInBoundedTime() throws Exception {
    FuzzInput fuzz = new FuzzInput("the admin API's simulate JSON");
    PlacementSimulation simulation =
        new PlacementSimulation(ControlSettings.fromConfig(ConfigFactory.defaultReference()));
    long end = System.nanoTime() + FuzzInput.duration(6).toNanos();
    int bodies = 0;
    while (System.nanoTime() < end) {
      String body = fuzz.mutate(LAYOUTS.get(fuzz.random().nextInt(LAYOUTS.size())));
      AdminRequests.Response response = simulation.posted(body).toCompletableFuture().get(10, TimeUnit.SECONDS);
      int status = response.status().intValue();
      assertTrue(status == 200 || status == 400, "status " + status + " for " + abbreviate(body) + "; seed "
          + fuzz.seed());
      bodies++;
    }
    System.out.println("simulate JSON: " + bodies + " fuzzed bodies");
  }

  private static String abbreviate(String body) {
    return body.length() <= 200 ? body : body.substring(0, 200) + "...";
  }
}

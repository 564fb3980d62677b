package io.felix.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The supervisor's backoff, on an injected clock. */
class RestartBackoffTest {
  private long now;
  private final RestartBackoff backoff = new RestartBackoff(() -> now);

  private Duration runFor(Duration run) {
    backoff.started();
    now += run.toNanos();
    Duration wait = backoff.exited();
    now += wait.toNanos();
    return wait;
  }

  @Test
  void aBrokerThatKeepsFailingWaitsOneSecondDoubledUpToThirty() {
    List<Long> waits = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      waits.add(runFor(Duration.ofSeconds(2)).toSeconds());
    }
    assertEquals(List.of(1L, 2L, 4L, 8L, 16L, 30L, 30L, 30L), waits);
  }

  @Test
  void aRunOfThirtySecondsOrMoreStartsTheCountAgain() {
    runFor(Duration.ofSeconds(1));
    runFor(Duration.ofSeconds(1));
    assertEquals(Duration.ofSeconds(4), runFor(Duration.ofSeconds(29)));
    assertEquals(Duration.ofSeconds(1), runFor(Duration.ofSeconds(30)));
    assertEquals(Duration.ofSeconds(2), runFor(Duration.ofMillis(10)));
  }

  @Test
  void anExitIsDescribedWithItsSignal() {
    assertEquals("status 137 (SIGKILL)", ExitStatus.describe(137));
    assertEquals("status 143 (SIGTERM)", ExitStatus.describe(143));
    assertEquals("status 1", ExitStatus.describe(1));
    assertEquals("status 135 (signal 7)", ExitStatus.describe(135));
  }
}

package io.felix.loadgen.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The placement benchmark's precondition and its summary figures. */
class PlacementBenchTest {

  @Test
  void theDesignNotesPreconditionFillsTwoBrokersToTheShareOfSixtyOneShards() {
    // 49 other shards + the 12-shard stream = 61; share = ceil(61 / 3) = 21: brokers 0 and 1 full, 7 on broker 2.
    assertEquals(Map.of(0, 21, 1, 21, 2, 7), PlacementBench.fillTwoToTheirShare(List.of(0, 1, 2), 49));
    assertEquals(49, PlacementBench.OTHER_STREAMS.values().stream().mapToInt(i -> i).sum());
  }

  @Test
  void aSpreadIsTheMedianAndRangeOfItsMeasurements() {
    assertEquals(new Spread(3.0, 1.0, 9.0), Spread.of(List.of(9.0, 1.0, 3.0)));
    assertEquals(new Spread(2.5, 1.0, 9.0), Spread.of(List.of(9.0, 1.0, 3.0, 2.0)));
    assertEquals("2.50 [1.00-9.00]", Spread.of(List.of(9.0, 1.0, 3.0, 2.0)).format("%.2f"));
  }
}

package io.felix.broker.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.felix.broker.assignment.StreamConfig;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A broker lists the streams from its assignment table exactly as the singleton lists them from its state. */
class StreamListTest {

  private final PlacementDecisions decisions = new PlacementDecisions(PlacementDecisionsTest.SETTINGS);

  @Test
  void theStreamsOfATableAreTheSingletonsStreamsWithTheirShardsReplicationFactorIncarnationAndSettings() {
    ControlState state = PlacementDecisionsTest.threeBrokers();
    state = PlacementDecisionsTest.replay(state,
        decisions.createStream(state, Set.of(0, 1, 2), "orders", 12, 3).events());
    state = PlacementDecisionsTest.replay(state, decisions.createStream(state, Set.of(0, 1, 2), "audit", 4, 2,
        new StreamConfig(86_400_000L, null, 1_048_576L)).events());
    state = PlacementDecisionsTest.replay(state,
        decisions.createStream(state, Set.of(0, 1, 2), "clicks", 1, 1).events());

    StreamList singletons = StreamList.of(state);
    assertEquals(3, singletons.streams().size());
    assertEquals(singletons, StreamList.of(state.table()));
  }
}

package io.felix.broker.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.control.PlacementEvent.LeaderPromoted;
import io.felix.broker.control.PlacementEvent.StreamDeleted;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Tables travel as changes: a holder that holds the base version rebuilds exactly the singleton's table from the
 * change, one that holds another version rebuilds nothing (and asks for the whole table), and a change too large for
 * one message is not made.
 */
class TableDeltasTest {

  private final PlacementDecisions decisions = new PlacementDecisions(PlacementDecisionsTest.SETTINGS);

  private ControlState withStreams() {
    ControlState state = PlacementDecisionsTest.threeBrokers();
    state = PlacementDecisionsTest.replay(state,
        decisions.createStream(state, Set.of(0, 1, 2), "a", 12, 3).events());
    return PlacementDecisionsTest.replay(state, decisions.createStream(state, Set.of(0, 1, 2), "b", 6, 3).events());
  }

  @Test
  void aChangeCarriesOnlyTheShardsThatChangedAndRebuildsTheSameTable() {
    ControlState before = withStreams();
    ShardId promoted = new ShardId("a", 3);
    int newLeader = before.shards().get(promoted).replicas().stream()
        .filter(b -> b != before.shards().get(promoted).leader()).findFirst().orElseThrow();
    ControlState after = before.apply(new PlacementEvent.FailoverDecided(List.of(),
        List.of(new LeaderPromoted(promoted, newLeader, 2, before.shards().get(promoted).leader()))))
        .apply(new StreamDeleted("b"));

    AssignmentHolder.PublishDelta delta = TableDeltas.between(before.table(), after.table()).orElseThrow();

    assertEquals(before.tableVersion(), delta.baseVersion());
    assertEquals(Set.of(promoted), delta.changes().shards().keySet(), "only the promoted shard");
    assertEquals(6, delta.removed().size(), "b's six shards");
    assertEquals(Optional.of(after.table()), TableDeltas.apply(before.table(), delta));
    assertEquals(Optional.empty(), TableDeltas.apply(after.table(), delta), "not the base: nothing is rebuilt");
  }

  @Test
  void aChangeOfMoreShardsThanOneMessageHoldsIsSentWhole() {
    ControlState state = withStreams();
    ControlState bigger = PlacementDecisionsTest.replay(state,
        decisions.createStream(state, Set.of(0, 1, 2), "big", TableChunks.ENTRIES_PER_CHUNK + 1, 3).events());
    assertTrue(TableDeltas.between(state.table(), bigger.table()).isEmpty());
    AssignmentTable same = state.table();
    assertEquals(Set.of(), TableDeltas.between(same, same).orElseThrow().changes().shards().keySet());
  }
}

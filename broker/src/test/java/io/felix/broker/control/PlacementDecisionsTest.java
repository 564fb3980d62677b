package io.felix.broker.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigFactory;
import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.control.PlacementDecisions.Decision;
import io.felix.broker.control.PlacementEvent.BrokerJoined;
import io.felix.broker.control.PlacementEvent.MoveStarted;
import io.felix.broker.control.PlacementEvent.ShardPlaced;
import io.felix.broker.control.PlacementEvent.StreamCreated;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Decide, then apply: each decision is checked by its events, then by the state they fold into. */
class PlacementDecisionsTest {

  static final ControlSettings SETTINGS = ControlSettings.fromConfig(ConfigFactory.defaultReference());
  final PlacementDecisions decisions = new PlacementDecisions(SETTINGS);

  static ControlState threeBrokers() {
    ControlState state = ControlState.EMPTY;
    for (int id = 0; id < 3; id++) {
      state = state.apply(new BrokerJoined(id, "", 0, new BrokerEndpoint(id, "127.0.0.1", 7000 + id, 7100 + id, 8000 + id)));
    }
    return state;
  }

  static ControlState replay(ControlState state, List<PlacementEvent> events) {
    for (PlacementEvent event : events) {
      state = state.apply(event);
    }
    return state;
  }

  @Test
  void newTwelveShardStreamIsPlacedFourFourFourAtEpochOne() {
    Decision decision = decisions.createStream(threeBrokers(), Set.of(0, 1, 2), "perf-quorum", 12, 3);
    assertEquals(1, decision.events().size(), "one event, with every shard's placement");
    StreamCreated created = (StreamCreated) decision.events().get(0);
    assertEquals(new StreamCreated("perf-quorum", 12, 3, created.incarnation(), null, created.placed()), created);
    assertEquals(12, created.placed().size());
    assertNotEquals(ShardAssignment.legacyIncarnation("perf-quorum"), created.incarnation(), "a fresh incarnation");
    ControlState state = replay(threeBrokers(), decision.events());
    for (int broker = 0; broker < 3; broker++) {
      assertEquals(4, state.leadersOn(broker), "broker " + broker);
      assertEquals(12, state.replicasOn(broker));
    }
    for (ShardPlaced placed : created.placed()) {
      assertEquals(1, placed.epoch());
    }
    assertEquals(3 + 1, state.tableVersion(), "one new table for the whole stream");
    assertEquals(12, state.table().shards().size());
  }

  @Test
  void aStreamThatWouldTakeABrokerPastItsReplicaCapacityIsRefusedNamingTheBroker() {
    ControlState state = ControlState.EMPTY;
    for (int id = 0; id < 3; id++) {
      state = state.apply(new BrokerJoined(id, "", 0, new BrokerEndpoint(id, "127.0.0.1", 7000 + id, 7100 + id,
          8000 + id), id == 1 ? 20 : 0)); // broker 1 says it can host 20 replicas; the others say nothing
    }
    ControlState withTwelve = replay(state, decisions.createStream(state, Set.of(0, 1, 2), "a", 12, 3).events());
    assertEquals(12, withTwelve.replicasOn(1));

    Decision tooMany = decisions.createStream(withTwelve, Set.of(0, 1, 2), "b", 9, 3);
    assertRefused(tooMany, ControlReply.Refusal.INVALID);
    assertEquals("shards: 9 new shards would put 9 replicas on broker 1, which hosts 12 of the 20 replicas it can hold"
        + " (felix.control.max-replicas-per-broker, derived from its open-file limit and heap unless set): raise the"
        + " broker's limits, add brokers, or create fewer shards", ((ControlReply.Rejected) tooMany.reply()).error());
    assertEquals(List.of(), tooMany.events(), "nothing is decided");

    Decision fits = decisions.createStream(withTwelve, Set.of(0, 1, 2), "b", 8, 3);
    assertEquals(20, replay(withTwelve, fits.events()).replicasOn(1), "up to exactly its capacity");
    Decision growTooMuch = decisions.changeStream(withTwelve, Set.of(0, 1, 2), "a", io.felix.broker.assignment.StreamConfig.DEFAULTS, 21);
    assertRefused(growTooMuch, ControlReply.Refusal.INVALID);
  }

  @Test
  void streamsBeyondTheClusterWideShardLimitOrNameLengthAreRefusedNamingTheLimit() {
    PlacementDecisions limited = new PlacementDecisions(ControlSettings.fromConfig(ConfigFactory.parseString(
        "felix.control { max-shards-per-stream = 12, max-shards = 20, max-stream-name-length = 8 }")
        .withFallback(ConfigFactory.defaultReference())));
    ControlState state = replay(threeBrokers(), limited.createStream(threeBrokers(), Set.of(0, 1, 2), "s", 12, 3).events());
    assertEquals(12, state.table().shards().size());
    Decision tooMany = limited.createStream(state, Set.of(0, 1, 2), "t", 9, 3);
    assertRefused(tooMany, ControlReply.Refusal.INVALID);
    assertEquals("shards: the cluster holds 12 shards; 9 more would exceed the limit of 20 (felix.control.max-shards)",
        ((ControlReply.Rejected) tooMany.reply()).error());
    assertEquals(8, replay(state, limited.createStream(state, Set.of(0, 1, 2), "t", 8, 3).events())
        .streams().get("t").shards());
    Decision longName = limited.createStream(state, Set.of(0, 1, 2), "ninechars", 1, 3);
    assertRefused(longName, ControlReply.Refusal.INVALID);
    assertEquals("name: 9 characters exceed the limit of 8 (felix.control.max-stream-name-length)",
        ((ControlReply.Rejected) longName.reply()).error());
    assertRefused(limited.createStream(state, Set.of(0, 1, 2), "u", 13, 3), ControlReply.Refusal.INVALID);
  }

  @Test
  void refusedCommandsDecideNoEvents() {
    ControlState state = replay(threeBrokers(), decisions.createStream(threeBrokers(), Set.of(0, 1, 2), "s", 3, 3).events());
    assertRefused(decisions.createStream(state, Set.of(0, 1, 2), "s", 3, 3), ControlReply.Refusal.CONFLICT);
    assertRefused(decisions.createStream(state, Set.of(0, 1), "t", 3, 3), ControlReply.Refusal.INVALID);
    assertRefused(decisions.deleteStream(state, "nope"), ControlReply.Refusal.NOT_FOUND);
    assertRefused(decisions.remove(state, 1), ControlReply.Refusal.CONFLICT);
    assertRefused(decisions.drain(state, 5), ControlReply.Refusal.NOT_FOUND);
    ShardAssignment s0 = state.shards().get(new ShardId("s", 0));
    assertRefused(decisions.startMove(state, Set.of(0, 1, 2), "s", 0, s0.leader(), 1), ControlReply.Refusal.CONFLICT);
    int other = (s0.leader() + 1) % 3;
    assertRefused(decisions.startMove(state, Set.of(s0.leader()), "s", 0, other, 1), ControlReply.Refusal.CONFLICT);
  }

  @Test
  void manualMoveToAReplicaIsATransferAndRespectsTheConcurrencyLimit() {
    ControlState state = replay(threeBrokers(), decisions.createStream(threeBrokers(), Set.of(0, 1, 2), "s", 3, 3).events());
    ShardAssignment s0 = state.shards().get(new ShardId("s", 0));
    int to = (s0.leader() + 1) % 3;
    Decision move = decisions.startMove(state, Set.of(0, 1, 2), "s", 0, to, 42);
    assertEquals(List.of(new MoveStarted(1, s0.id(), s0.leader(), to, false, "manual", 42)), move.events());
    state = replay(state, move.events());
    ShardAssignment s1 = state.shards().get(new ShardId("s", 1));
    assertRefused(decisions.startMove(state, Set.of(0, 1, 2), "s", 1, (s1.leader() + 1) % 3, 43),
        ControlReply.Refusal.CONFLICT);
    // Paused placement plans no moves, yet the manual move stays in flight.
    state = replay(state, decisions.pause(state, 44).events());
    assertTrue(state.paused());
    assertEquals(1, state.moves().size());
  }

  @Test
  void undrainingABrokerLetsItTakeShardsAgain() {
    ControlState state = threeBrokers();
    assertRefused(decisions.undrain(state, 5), ControlReply.Refusal.NOT_FOUND);
    assertEquals(List.of(), decisions.undrain(state, 2).events(), "broker 2 is not draining: nothing to decide");
    state = replay(state, decisions.drain(state, 2).events());
    assertTrue(state.brokers().get(2).draining());
    Decision undrain = decisions.undrain(state, 2);
    assertEquals(List.of(new PlacementEvent.BrokerUndrained(2)), undrain.events());
    state = replay(state, undrain.events());
    assertEquals(false, state.brokers().get(2).draining());
    Decision placed = decisions.createStream(state, Set.of(0, 1, 2), "after", 3, 3);
    assertEquals(1, replay(state, placed.events()).leadersOn(2), "an undrained broker gets its share of a new stream");
  }

  private static void assertRefused(Decision decision, ControlReply.Refusal refusal) {
    assertEquals(List.of(), decision.events());
    assertEquals(refusal, assertInstanceOf(ControlReply.Rejected.class, decision.reply()).refusal());
  }

  /** Three one-replica shards all led by broker 0: a pass balances them by moving two away. */
  private static ControlState threeShardsOnBrokerZero() {
    ControlState state = replay(threeBrokers(), List.of(new StreamCreated("s", 3, 1, ShardAssignment.legacyIncarnation("s"))));
    for (int shard = 0; shard < 3; shard++) {
      state = state.apply(new ShardPlaced(new ShardId("s", shard), List.of(0), 0, 1));
    }
    return state;
  }

  private static Set<ShardId> movedBy(PlacementDecisions.Pass pass) {
    return pass.events().stream().filter(e -> e instanceof MoveStarted).map(e -> ((MoveStarted) e).shard())
        .collect(java.util.stream.Collectors.toSet());
  }

  @Test
  void aPassStartsNoMoveOfAShardThatIsFailingOverOrWhoseLeaderIsNotReachable() {
    ControlState state = threeShardsOnBrokerZero();
    Set<ShardId> moved = movedBy(decisions.pass(state, Set.of(0, 1, 2), Set.of(), 10_000));
    assertTrue(!moved.isEmpty(), "the layout needs moves: " + moved);

    // The same pass while those shards fail over (as after every broker restarted): none of them is moved.
    PlacementDecisions.Pass failingOver = decisions.pass(state, Set.of(0, 1, 2), moved, 10_000);
    for (ShardId id : moved) {
      assertTrue(!movedBy(failingOver).contains(id), id + " is failing over: " + failingOver.events());
    }
    // Nor while their leader is not reachable (not restarted yet).
    assertEquals(Set.of(), movedBy(decisions.pass(state, Set.of(1, 2), Set.of(), 10_000)));
  }
}

package io.felix.broker.control;

import static io.felix.broker.control.PlacementDecisionsTest.SETTINGS;
import static io.felix.broker.control.PlacementDecisionsTest.replay;
import static io.felix.broker.control.PlacementDecisionsTest.threeBrokers;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.felix.broker.assignment.StreamConfig;
import io.felix.broker.control.PlacementDecisions.Decision;
import io.felix.broker.control.PlacementEvent.StreamConfigChanged;
import io.felix.broker.control.PlacementEvent.StreamCreated;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** A stream's own settings: persisted at creation and by PATCH, and carried to the brokers in the table. */
class StreamSettingsDecisionsTest {
  private final PlacementDecisions decisions = new PlacementDecisions(SETTINGS);

  private ControlState withStream(StreamConfig config) {
    Decision created = decisions.createStream(threeBrokers(), Set.of(0, 1, 2), "kept", 3, 3, config);
    assertEquals(config, ((StreamCreated) created.events().get(0)).config());
    return replay(threeBrokers(), created.events());
  }

  @Test
  void aStreamsOwnSettingsAreInTheTableAndDefaultsAreLeftOut() {
    StreamConfig own = new StreamConfig(60_000L, null, 4096L);
    ControlState state = withStream(own);
    assertEquals(Map.of("kept", own), state.table().streamConfigs());
    assertEquals(own, state.table().streamConfig("kept"));

    ControlState plain = withStream(StreamConfig.DEFAULTS);
    assertEquals(Map.of(), plain.table().streamConfigs());
    assertEquals(StreamConfig.DEFAULTS, plain.table().streamConfig("kept"));
  }

  @Test
  void aChangeReplacesOnlyTheSettingsItNamesAsOnePersistedEvent() {
    ControlState state = withStream(new StreamConfig(60_000L, null, 4096L));
    long version = state.tableVersion();

    Decision change = decisions.changeStream(state, Set.of(0, 1, 2), "kept", new StreamConfig(null, 1_000_000L, null), null);
    StreamConfig expected = new StreamConfig(60_000L, 1_000_000L, 4096L);
    assertEquals(List.of(new StreamConfigChanged("kept", expected)), change.events());
    ControlState changed = replay(state, change.events());
    assertEquals(expected, changed.streams().get("kept").config());
    assertEquals(expected, changed.table().streamConfig("kept"));
    assertEquals(version + 1, changed.table().version(), "the change is pushed as a new table");

    Decision again = decisions.changeStream(changed, Set.of(0, 1, 2), "kept", new StreamConfig(null, 1_000_000L, null), 3);
    assertEquals(List.of(), again.events(), "a change that changes nothing persists nothing");
    assertEquals(ControlReply.Refusal.NOT_FOUND, ((ControlReply.Rejected) decisions.changeStream(changed, Set.of(0, 1, 2), "other",
        new StreamConfig(1L, null, null), null).reply()).refusal());
  }

  @Test
  void raisingTheShardCountPlacesTheNewShardsByTheSameRulesAsANewStream() {
    ControlState state = withStream(StreamConfig.DEFAULTS); // 3 shards, one leader per broker
    Decision grow = decisions.changeStream(state, Set.of(0, 1, 2), "kept", StreamConfig.DEFAULTS, 9);
    assertEquals(new PlacementEvent.StreamShardsAdded("kept", 9), grow.events().get(0));
    assertEquals(2, grow.events().size(), "the count, then shards 3..8 placed at epoch 1 in one event");
    assertEquals(6, ((PlacementEvent.ShardsPlaced) grow.events().get(1)).placed().size());
    ControlState grown = replay(state, grow.events());
    assertEquals(9, grown.streams().get("kept").shards());
    assertEquals(9, grown.table().streams().get("kept"));
    for (int broker = 0; broker < 3; broker++) {
      assertEquals(3, grown.leadersOn(broker), "broker " + broker + " leads a third, as a new 9-shard stream would");
      assertEquals(9, grown.replicasOn(broker));
    }
    for (int shard = 3; shard < 9; shard++) {
      io.felix.broker.assignment.ShardAssignment a = grown.shards().get(new io.felix.broker.assignment.ShardId("kept",
          shard));
      assertEquals(1, a.leaderEpoch());
      assertEquals(state.streams().get("kept").incarnation(), a.incarnation());
    }
    assertEquals(ControlReply.Refusal.INVALID, ((ControlReply.Rejected) decisions.changeStream(grown, Set.of(0, 1, 2),
        "kept", StreamConfig.DEFAULTS, 4).reply()).refusal(), "a stream never loses shards");
  }

  @Test
  void badSettingsAreRefusedNamingEveryOne() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> new StreamConfig(0L, -5L, 10L));
    assertEquals("retention_ms must be -1 (unlimited) or at least 1, got 0; retention_bytes must be -1 (unlimited) "
        + "or at least 0, got -5; segment_bytes must be between 1024 and 2147483647, got 10", e.getMessage());
  }
}

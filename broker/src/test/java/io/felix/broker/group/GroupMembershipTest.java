package io.felix.broker.group;

import io.felix.broker.testing.ManualClock;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.felix.broker.group.GroupMembership.Joined;
import io.felix.broker.group.GroupMembership.Outcome;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class GroupMembershipTest {

  private final ManualClock clock = new ManualClock(1_000);
  private final AtomicInteger ids = new AtomicInteger();
  private final GroupMembership group = new GroupMembership("g", clock, () -> "m" + ids.incrementAndGet());

  @Test
  void theRangeAssignorGivesContiguousRangesTheFirstMembersOneMore() {
    assertEquals(Map.of("a", List.of(0, 1, 2), "b", List.of(3, 4), "c", List.of(5, 6)),
        RangeAssignor.assign(new TreeSet<>(List.of("c", "a", "b")), 7));
    assertEquals(Map.of("a", List.of(0), "b", List.of(1), "c", List.of()),
        RangeAssignor.assign(new TreeSet<>(List.of("c", "a", "b")), 2));
  }

  @Test
  void aShardIsRevokedFromItsHolderBeforeItIsAssignedToAnotherMember() {
    Joined first = group.join("", "s", 6, 10_000);
    assertEquals(new Joined(Outcome.OK, "m1", 1, List.of(0, 1, 2, 3, 4, 5)), first);
    // m2's target is 3-5, but m1 still holds them (it has not heard of generation 2): m2 is granted nothing yet.
    assertEquals(new Joined(Outcome.OK, "m2", 2, List.of()), group.join("", "s", 6, 10_000));
    assertEquals(Outcome.OK, group.heartbeat("m2", 2, 6), "nothing released yet: no reason to join again");
    assertEquals(Outcome.NOT_OWNER, group.mayCommit("m2", 2, "s", List.of(3)));
    assertEquals(List.of(0, 1, 2, 3, 4, 5), group.members().get(0).shards());

    // m1's heartbeat tells it to join again; its rejoin releases 3-5, and m2's next heartbeat sends it to take them.
    assertEquals(Outcome.REBALANCE_IN_PROGRESS, group.heartbeat("m1", 1, 6));
    assertEquals(new Joined(Outcome.OK, "m1", 2, List.of(0, 1, 2)), group.join("m1", "s", 6, 10_000));
    assertEquals(Outcome.OK, group.heartbeat("m1", 2, 6));
    assertEquals(Outcome.REBALANCE_IN_PROGRESS, group.heartbeat("m2", 2, 6));
    assertEquals(new Joined(Outcome.OK, "m2", 2, List.of(3, 4, 5)), group.join("m2", "s", 6, 10_000));
    assertEquals(Outcome.OK, group.heartbeat("m2", 2, 6));
    assertEquals(2, group.generation(), "granting released shards is no new generation");
  }

  @Test
  void aMemberCommitsWhatItHoldsUntilItJoinsAgainAndNothingElse() {
    group.join("", "s", 4, 10_000);
    assertEquals(Outcome.OK, group.mayCommit("m1", 1, "s", List.of(0, 3)));
    group.join("", "s", 4, 10_000);
    // Generation 2 exists, but m1 still holds every shard and nobody else reads them: its commit stands.
    assertEquals(Outcome.OK, group.mayCommit("m1", 1, "s", List.of(0, 3)));
    group.join("m1", "s", 4, 10_000);
    assertEquals(Outcome.ILLEGAL_GENERATION, group.mayCommit("m1", 1, "s", List.of(0)));
    assertEquals(Outcome.OK, group.mayCommit("m1", 2, "s", List.of(0, 1)));
    assertEquals(Outcome.NOT_OWNER, group.mayCommit("m1", 2, "s", List.of(2)));
    assertEquals(Outcome.WRONG_STREAM, group.mayCommit("m2", 2, "other", List.of(2)));
    assertEquals(Outcome.UNKNOWN_MEMBER, group.mayCommit("m9", 2, "s", List.of(2)));
    assertEquals(Outcome.GROUP_ACTIVE, group.mayCommit("", -1, "s", List.of(2)));
  }

  @Test
  void aMemberThatMissesItsSessionTimeoutIsRemovedAndItsShardsReassigned() {
    group.join("", "s", 4, 3_000);
    group.join("", "s", 4, 3_000);
    clock.advance(2_000);
    assertEquals(Outcome.OK, group.heartbeat("m2", 2, 4));
    clock.advance(1_000);
    assertEquals(List.of(), group.expire(), "m1 is silent exactly its session timeout: not yet expired");
    clock.advance(1);
    assertEquals(List.of("m1"), group.expire());
    assertEquals(3, group.generation());
    assertEquals(Outcome.UNKNOWN_MEMBER, group.heartbeat("m1", 2, 4));
    assertEquals(Outcome.REBALANCE_IN_PROGRESS, group.heartbeat("m2", 2, 4));
    assertEquals(new Joined(Outcome.OK, "m2", 3, List.of(0, 1, 2, 3)), group.join("m2", "s", 4, 3_000));
  }

  @Test
  void leavingRebalancesAndAnEmptyGroupTakesAdministrativeCommitsAndAnotherStream() {
    group.join("", "s", 2, 10_000);
    group.join("", "s", 2, 10_000);
    assertEquals(new Joined(Outcome.WRONG_STREAM, "", 2, List.of()), group.join("", "t", 2, 10_000));
    assertEquals(Outcome.OK, group.leave("m1"));
    assertEquals(Outcome.UNKNOWN_MEMBER, group.leave("m1"));
    assertEquals(3, group.generation());
    assertEquals(List.of(), group.members().get(0).shards(), "m2 takes m1's shards when it joins again");
    assertEquals(List.of(0, 1), group.join("m2", "s", 2, 10_000).shards());
    group.leave("m2");
    assertEquals(Outcome.OK, group.mayCommit("", -1, "s", List.of(0)));
    assertEquals(Outcome.OK, group.join("", "t", 3, 10_000).outcome());
  }

  @Test
  void moreShardsRebalanceAtTheNextHeartbeat() {
    group.join("", "s", 2, 10_000);
    group.join("", "s", 2, 10_000);
    assertEquals(Outcome.REBALANCE_IN_PROGRESS, group.heartbeat("m2", 2, 4));
    assertEquals(new Joined(Outcome.OK, "m2", 3, List.of(2, 3)), group.join("m2", "s", 4, 10_000));
  }
}

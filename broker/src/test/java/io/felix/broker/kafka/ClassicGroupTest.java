package io.felix.broker.kafka;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** The classic group state machine on a manual clock. */
class ClassicGroupTest {
  private final AtomicLong now = new AtomicLong(1_000_000);
  private final AtomicInteger ids = new AtomicInteger();
  private final ClassicGroup group = new ClassicGroup("g", new ClassicGroup.Timing(Duration.ofSeconds(1),
      Duration.ofMinutes(5), Duration.ofMinutes(5), Duration.ofMillis(300)), now::get,
      () -> Integer.toString(ids.incrementAndGet()));

  private static JoinGroupRequestData join(String memberId, String... protocols) {
    JoinGroupRequestData r = new JoinGroupRequestData().setGroupId("g").setMemberId(memberId)
        .setSessionTimeoutMs(6000).setRebalanceTimeoutMs(10_000).setProtocolType("consumer");
    for (String p : protocols) {
      r.protocols().add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName(p)
          .setMetadata(("meta-" + memberId + "-" + p).getBytes(StandardCharsets.UTF_8)));
    }
    return r;
  }

  /** Joins a new member: MEMBER_ID_REQUIRED first, then the join with the given id, parked until the rebalance. */
  private CompletableFuture<JoinGroupResponseData> newMember(String clientId, String... protocols) {
    CompletableFuture<JoinGroupResponseData> first = new CompletableFuture<>();
    group.join(join("", protocols), (short) 9, clientId, "/h", first);
    assertEquals(Errors.MEMBER_ID_REQUIRED.code(), first.join().errorCode());
    CompletableFuture<JoinGroupResponseData> second = new CompletableFuture<>();
    group.join(join(first.join().memberId(), protocols), (short) 9, clientId, "/h", second);
    return second;
  }

  private SyncGroupResponseData sync(String member, int generation, List<String> assignTo) {
    SyncGroupRequestData r = new SyncGroupRequestData().setGroupId("g").setMemberId(member).setGenerationId(generation);
    for (String m : assignTo) {
      r.assignments().add(new SyncGroupRequestData.SyncGroupRequestAssignment().setMemberId(m)
          .setAssignment(("for-" + m).getBytes(StandardCharsets.UTF_8)));
    }
    CompletableFuture<SyncGroupResponseData> reply = new CompletableFuture<>();
    group.sync(r, reply);
    return reply.getNow(null);
  }

  @Test
  void firstGenerationWaitsTheInitialDelayThenTheLeaderAssignsEveryMember() {
    CompletableFuture<JoinGroupResponseData> a = newMember("a", "range", "sticky");
    CompletableFuture<JoinGroupResponseData> b = newMember("b", "sticky", "range");
    CompletableFuture<JoinGroupResponseData> c = newMember("c", "range");
    group.tick();
    assertFalse(a.isDone(), "the initial rebalance delay holds the first generation");
    now.addAndGet(300);
    group.tick();
    JoinGroupResponseData leader = a.join();
    assertEquals(1, leader.generationId());
    assertEquals("range", leader.protocolName(), "the only protocol every member supports");
    assertEquals(leader.memberId(), leader.leader());
    assertEquals(3, leader.members().size(), "the leader gets every member's metadata");
    assertEquals(0, b.join().members().size());
    assertEquals(ClassicGroup.State.COMPLETING_REBALANCE, group.state());

    String bId = b.join().memberId();
    CompletableFuture<SyncGroupResponseData> bSync = new CompletableFuture<>();
    group.sync(new SyncGroupRequestData().setGroupId("g").setMemberId(bId).setGenerationId(1), bSync);
    assertFalse(bSync.isDone(), "a follower waits for the leader's assignment");
    SyncGroupResponseData leaderSync = sync(leader.memberId(), 1,
        List.of(leader.memberId(), bId, c.join().memberId()));
    assertEquals("for-" + leader.memberId(), new String(leaderSync.assignment(), StandardCharsets.UTF_8));
    assertEquals("for-" + bId, new String(bSync.join().assignment(), StandardCharsets.UTF_8));
    assertEquals(ClassicGroup.State.STABLE, group.state());
    assertEquals(Errors.NONE, group.heartbeat(bId, 1));
    assertEquals(Errors.ILLEGAL_GENERATION, group.heartbeat(bId, 0));
    assertEquals(Errors.UNKNOWN_MEMBER_ID, group.heartbeat("nobody", 1));
  }

  @Test
  void aLeavingMemberStartsARebalanceThatWaitsForTheOthersAndAllowsTheirCommits() {
    CompletableFuture<JoinGroupResponseData> a = newMember("a", "range");
    CompletableFuture<JoinGroupResponseData> b = newMember("b", "range");
    now.addAndGet(300);
    group.tick();
    String aId = a.join().memberId();
    String bId = b.join().memberId();
    sync(aId, 1, List.of(aId, bId));
    assertEquals(Errors.NONE, group.leave(bId));
    assertEquals(ClassicGroup.State.PREPARING_REBALANCE, group.state());
    assertEquals(Errors.REBALANCE_IN_PROGRESS, group.heartbeat(aId, 1));
    assertEquals(Errors.NONE, group.mayCommit(aId, 1), "a member commits what it read before it rejoins");
    assertEquals(Errors.UNKNOWN_MEMBER_ID, group.mayCommit(bId, 1));
    assertEquals(Errors.UNKNOWN_MEMBER_ID, group.mayCommit("", -1), "no outside commits while members exist");
    CompletableFuture<JoinGroupResponseData> again = new CompletableFuture<>();
    group.join(join(aId, "range"), (short) 9, "a", "/h", again);
    assertEquals(2, again.join().generationId(), "the rebalance completes once every remaining member joined");
    assertEquals(Errors.REBALANCE_IN_PROGRESS, group.mayCommit(aId, 2), "not while assignments are handed out");
    assertEquals(Errors.ILLEGAL_GENERATION, group.mayCommit(aId, 1));
  }

  @Test
  void aMemberThatStopsHeartbeatingIsRemovedAfterItsSessionTimeout() {
    CompletableFuture<JoinGroupResponseData> a = newMember("a", "range");
    CompletableFuture<JoinGroupResponseData> b = newMember("b", "range");
    now.addAndGet(300);
    group.tick();
    String aId = a.join().memberId();
    String bId = b.join().memberId();
    sync(aId, 1, List.of(aId, bId));
    now.addAndGet(4000);
    assertEquals(Errors.NONE, group.heartbeat(aId, 1));
    now.addAndGet(2001);
    group.tick();
    assertEquals(Errors.REBALANCE_IN_PROGRESS, group.heartbeat(aId, 1), "b's session expired: a rebalance began");
    assertEquals(Errors.UNKNOWN_MEMBER_ID, group.heartbeat(bId, 1));
  }

  @Test
  void aMemberThatDoesNotRejoinInTimeIsDroppedFromTheRebalance() {
    CompletableFuture<JoinGroupResponseData> a = newMember("a", "range");
    CompletableFuture<JoinGroupResponseData> b = newMember("b", "range");
    now.addAndGet(300);
    group.tick();
    String aId = a.join().memberId();
    String bId = b.join().memberId();
    sync(aId, 1, List.of(aId, bId));
    CompletableFuture<JoinGroupResponseData> c = newMember("c", "range");
    CompletableFuture<JoinGroupResponseData> aAgain = new CompletableFuture<>();
    group.join(join(aId, "range"), (short) 9, "a", "/h", aAgain);
    now.addAndGet(5000);
    assertEquals(Errors.REBALANCE_IN_PROGRESS, group.heartbeat(bId, 1));
    now.addAndGet(5000);
    group.tick();
    assertEquals(2, aAgain.join().generationId());
    assertEquals(2, aAgain.join().members().size(), "b missed the rebalance timeout: only a and c remain");
    assertTrue(c.isDone());
    assertEquals(Errors.UNKNOWN_MEMBER_ID, group.heartbeat(bId, 2));
  }

  @Test
  void joinsThatCannotAgreeOnAProtocolOrSessionAreRefused() {
    newMember("a", "range");
    CompletableFuture<JoinGroupResponseData> other = new CompletableFuture<>();
    group.join(join("", "roundrobin"), (short) 9, "b", "/h", other);
    assertEquals(Errors.INCONSISTENT_GROUP_PROTOCOL.code(), other.join().errorCode());
    CompletableFuture<JoinGroupResponseData> tooShort = new CompletableFuture<>();
    group.join(join("", "range").setSessionTimeoutMs(10), (short) 9, "b", "/h", tooShort);
    assertEquals(Errors.INVALID_SESSION_TIMEOUT.code(), tooShort.join().errorCode());
    CompletableFuture<JoinGroupResponseData> stranger = new CompletableFuture<>();
    group.join(join("made-up", "range"), (short) 9, "b", "/h", stranger);
    assertEquals(Errors.UNKNOWN_MEMBER_ID.code(), stranger.join().errorCode());
  }
}

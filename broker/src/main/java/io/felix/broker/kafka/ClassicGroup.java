package io.felix.broker.kafka;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroupMember;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.SyncGroupRequestData;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.Errors;

/**
 * One consumer group of Kafka's classic protocol (JoinGroup, SyncGroup, Heartbeat, LeaveGroup), with the
 * assignment computed by the group's leader member (client-side assignors), as Kafka's group coordinator keeps it.
 *
 * <p>States and transitions:
 * <pre>
 *   EMPTY                --join-->                         PREPARING_REBALANCE (waits initial-rebalance-delay)
 *   STABLE | COMPLETING  --join, leave, session expired--> PREPARING_REBALANCE
 *   PREPARING_REBALANCE  --every member joined, or the rebalance deadline (members that did not join are
 *                          removed)-->                     COMPLETING_REBALANCE, generation + 1 (EMPTY if none left)
 *   COMPLETING_REBALANCE --the leader's SyncGroup-->       STABLE (every member gets its assignment)
 *   COMPLETING_REBALANCE --no leader SyncGroup by the deadline--> PREPARING_REBALANCE
 * </pre>
 * A new member first gets MEMBER_ID_REQUIRED with its id (KIP-394) and joins with it. Commits are allowed from a
 * member of the current generation while the group is STABLE or PREPARING_REBALANCE (so a member commits what it
 * read before it gives up its partitions), and from outside the group (generation -1, no member id) only while it
 * is EMPTY. Owned by one actor ({@link KafkaGroupCoordinator}); the clock is injected; not thread-safe.
 */
final class ClassicGroup {
  enum State {
    EMPTY("Empty"), PREPARING_REBALANCE("PreparingRebalance"), COMPLETING_REBALANCE("CompletingRebalance"),
    STABLE("Stable");

    /** Kafka's name of the state, as DescribeGroups and ListGroups report it. */
    final String kafkaName;

    State(String kafkaName) {
      this.kafkaName = kafkaName;
    }
  }

  /** The timing rules of every group (from felix.kafka-listener). */
  record Timing(Duration minSession, Duration maxSession, Duration maxRebalance, Duration initialDelay) {}

  private static final class Member {
    final String id;
    final String clientId;
    final String clientHost;
    int sessionTimeoutMs;
    int rebalanceTimeoutMs;
    LinkedHashMap<String, byte[]> protocols = new LinkedHashMap<>();
    byte[] assignment = new byte[0];
    long lastHeartbeat;
    CompletableFuture<JoinGroupResponseData> awaitingJoin;
    CompletableFuture<SyncGroupResponseData> awaitingSync;

    Member(String id, String clientId, String clientHost) {
      this.id = id;
      this.clientId = clientId;
      this.clientHost = clientHost;
    }
  }

  private final String groupId;
  private final Timing timing;
  private final LongSupplier clock;
  private final Supplier<String> ids;
  private final LinkedHashMap<String, Member> members = new LinkedHashMap<>();
  /** Ids handed out with MEMBER_ID_REQUIRED, not joined yet, with when they lapse. */
  private final Map<String, Long> pendingIds = new LinkedHashMap<>();
  private State state = State.EMPTY;
  private int generation;
  private String protocolType;
  private String protocol;
  private String leader;
  private long rebalanceDeadline;
  private long joinNotBefore;
  private long syncDeadline;

  ClassicGroup(String groupId, Timing timing, LongSupplier clock, Supplier<String> ids) {
    this.groupId = groupId;
    this.timing = timing;
    this.clock = clock;
    this.ids = ids;
  }

  State state() {
    return state;
  }

  int generation() {
    return generation;
  }

  String protocolType() {
    return protocolType;
  }

  int memberCount() {
    return members.size();
  }

  /** Whether the group holds nothing worth keeping (no member, no member id about to join). */
  boolean idle() {
    return members.isEmpty() && pendingIds.isEmpty();
  }

  void join(JoinGroupRequestData r, short version, String clientId, String clientHost,
      CompletableFuture<JoinGroupResponseData> reply) {
    long now = clock.getAsLong();
    if (r.sessionTimeoutMs() < timing.minSession().toMillis() || r.sessionTimeoutMs() > timing.maxSession().toMillis()) {
      reply.complete(joinError(Errors.INVALID_SESSION_TIMEOUT, r.memberId()));
      return;
    }
    if (r.protocolType() == null || r.protocolType().isEmpty() || r.protocols().isEmpty()
        || (!members.isEmpty() && !r.protocolType().equals(protocolType)) || !sharesProtocol(r)) {
      reply.complete(joinError(Errors.INCONSISTENT_GROUP_PROTOCOL, r.memberId()));
      return;
    }
    String memberId = r.memberId();
    if (memberId.isEmpty()) {
      memberId = clientId + "-" + ids.get();
      if (version >= 4) {
        pendingIds.put(memberId, now + r.sessionTimeoutMs());
        reply.complete(joinError(Errors.MEMBER_ID_REQUIRED, memberId));
        return;
      }
    } else if (!members.containsKey(memberId) && pendingIds.remove(memberId) == null) {
      reply.complete(joinError(Errors.UNKNOWN_MEMBER_ID, memberId));
      return;
    }
    Member m = members.computeIfAbsent(memberId, id -> new Member(id, clientId, clientHost));
    m.sessionTimeoutMs = r.sessionTimeoutMs();
    m.rebalanceTimeoutMs = version == 0 ? r.sessionTimeoutMs() : r.rebalanceTimeoutMs();
    m.protocols = new LinkedHashMap<>();
    r.protocols().forEach(p -> m.protocols.put(p.name(), p.metadata()));
    m.lastHeartbeat = now;
    if (m.awaitingJoin != null) {
      m.awaitingJoin.complete(joinError(Errors.REBALANCE_IN_PROGRESS, memberId));
    }
    m.awaitingJoin = reply;
    protocolType = r.protocolType();
    prepareRebalance(now);
    tryCompleteJoin(now);
  }

  void sync(SyncGroupRequestData r, CompletableFuture<SyncGroupResponseData> reply) {
    Member m = members.get(r.memberId());
    if (m == null) {
      reply.complete(syncError(Errors.UNKNOWN_MEMBER_ID));
      return;
    }
    if (r.generationId() != generation) {
      reply.complete(syncError(Errors.ILLEGAL_GENERATION));
      return;
    }
    if ((r.protocolType() != null && !r.protocolType().equals(protocolType))
        || (r.protocolName() != null && !r.protocolName().equals(protocol))) {
      reply.complete(syncError(Errors.INCONSISTENT_GROUP_PROTOCOL));
      return;
    }
    m.lastHeartbeat = clock.getAsLong();
    switch (state) {
      case PREPARING_REBALANCE, EMPTY -> reply.complete(syncError(Errors.REBALANCE_IN_PROGRESS));
      case STABLE -> reply.complete(syncAnswer(m));
      case COMPLETING_REBALANCE -> {
        if (m.awaitingSync != null) {
          m.awaitingSync.complete(syncError(Errors.REBALANCE_IN_PROGRESS));
        }
        m.awaitingSync = reply;
        if (m.id.equals(leader)) {
          Map<String, byte[]> given = new LinkedHashMap<>();
          r.assignments().forEach(a -> given.put(a.memberId(), a.assignment()));
          for (Member each : members.values()) {
            each.assignment = given.getOrDefault(each.id, new byte[0]);
          }
          state = State.STABLE;
          for (Member each : members.values()) {
            if (each.awaitingSync != null) {
              each.awaitingSync.complete(syncAnswer(each));
              each.awaitingSync = null;
            }
          }
        }
      }
    }
  }

  Errors heartbeat(String memberId, int generationId) {
    Member m = members.get(memberId);
    if (m == null) {
      return Errors.UNKNOWN_MEMBER_ID;
    }
    if (generationId != generation) {
      return Errors.ILLEGAL_GENERATION;
    }
    m.lastHeartbeat = clock.getAsLong();
    return state == State.PREPARING_REBALANCE ? Errors.REBALANCE_IN_PROGRESS : Errors.NONE;
  }

  /** Removes the member; its answer (UNKNOWN_MEMBER_ID when it is not in the group). */
  Errors leave(String memberId) {
    Member m = members.remove(memberId);
    if (m == null) {
      return pendingIds.remove(memberId) != null ? Errors.NONE : Errors.UNKNOWN_MEMBER_ID;
    }
    fail(m, Errors.UNKNOWN_MEMBER_ID);
    if (m.id.equals(leader)) {
      leader = null;
    }
    long now = clock.getAsLong();
    prepareRebalance(now);
    tryCompleteJoin(now);
    return Errors.NONE;
  }

  /** Whether an OffsetCommit from {@code memberId} at {@code generationId} may be stored now. */
  Errors mayCommit(String memberId, int generationId) {
    if (generationId < 0 && (memberId == null || memberId.isEmpty())) {
      return members.isEmpty() ? Errors.NONE : Errors.UNKNOWN_MEMBER_ID;
    }
    Member m = members.get(memberId);
    if (m == null) {
      return Errors.UNKNOWN_MEMBER_ID;
    }
    if (generationId != generation) {
      return Errors.ILLEGAL_GENERATION;
    }
    if (state == State.COMPLETING_REBALANCE) {
      return Errors.REBALANCE_IN_PROGRESS;
    }
    m.lastHeartbeat = clock.getAsLong();
    return Errors.NONE;
  }

  /** Expires sessions and lapsed member ids, and ends rebalances whose time is up. */
  void tick() {
    long now = clock.getAsLong();
    pendingIds.values().removeIf(lapse -> now - lapse >= 0);
    boolean removed = false;
    for (Iterator<Member> it = members.values().iterator(); it.hasNext(); ) {
      Member m = it.next();
      if (m.awaitingJoin == null && now - m.lastHeartbeat > m.sessionTimeoutMs) {
        it.remove();
        fail(m, Errors.UNKNOWN_MEMBER_ID);
        removed = true;
        if (m.id.equals(leader)) {
          leader = null;
        }
      }
    }
    if (removed) {
      prepareRebalance(now);
    }
    if (state == State.PREPARING_REBALANCE && now - rebalanceDeadline >= 0) {
      members.values().removeIf(m -> m.awaitingJoin == null);
      completeJoin(now);
    } else if (state == State.COMPLETING_REBALANCE && now - syncDeadline >= 0) {
      prepareRebalance(now);
    }
    tryCompleteJoin(now);
  }

  /** The group as DescribeGroups shows it. */
  DescribedGroup describe() {
    DescribedGroup d = new DescribedGroup().setGroupId(groupId).setErrorCode(Errors.NONE.code())
        .setGroupState(state.kafkaName).setProtocolType(protocolType == null ? "" : protocolType)
        .setProtocolData(protocol == null || state != State.STABLE ? "" : protocol);
    for (Member m : members.values()) {
      byte[] metadata = protocol == null ? new byte[0] : m.protocols.getOrDefault(protocol, new byte[0]);
      d.members().add(new DescribedGroupMember().setMemberId(m.id).setClientId(m.clientId)
          .setClientHost(m.clientHost).setMemberMetadata(state == State.STABLE ? metadata : new byte[0])
          .setMemberAssignment(state == State.STABLE ? m.assignment : new byte[0]));
    }
    return d;
  }

  /** Answers every parked request (the broker stopped coordinating the group): they find the coordinator again. */
  void abandon() {
    for (Member m : members.values()) {
      fail(m, Errors.NOT_COORDINATOR);
    }
    members.clear();
    pendingIds.clear();
  }

  private void prepareRebalance(long now) {
    if (state == State.PREPARING_REBALANCE) {
      return;
    }
    if (state == State.COMPLETING_REBALANCE) {
      for (Member m : members.values()) {
        if (m.awaitingSync != null) {
          m.awaitingSync.complete(syncError(Errors.REBALANCE_IN_PROGRESS));
          m.awaitingSync = null;
        }
      }
    }
    boolean fresh = state == State.EMPTY;
    state = State.PREPARING_REBALANCE;
    long rebalance = members.values().stream().mapToLong(m -> m.rebalanceTimeoutMs).max().orElse(0);
    rebalanceDeadline = now + Math.min(rebalance, timing.maxRebalance().toMillis());
    joinNotBefore = fresh ? now + timing.initialDelay().toMillis() : now;
  }

  private void tryCompleteJoin(long now) {
    if (state == State.PREPARING_REBALANCE && now - joinNotBefore >= 0
        && members.values().stream().allMatch(m -> m.awaitingJoin != null)) {
      completeJoin(now);
    }
  }

  private void completeJoin(long now) {
    generation++;
    if (members.isEmpty()) {
      state = State.EMPTY;
      protocol = null;
      leader = null;
      return;
    }
    protocol = chooseProtocol();
    if (leader == null || !members.containsKey(leader)) {
      leader = members.keySet().iterator().next();
    }
    state = State.COMPLETING_REBALANCE;
    long rebalance = members.values().stream().mapToLong(m -> m.rebalanceTimeoutMs).max().orElse(0);
    syncDeadline = now + Math.min(rebalance, timing.maxRebalance().toMillis());
    List<JoinGroupResponseData.JoinGroupResponseMember> all = new ArrayList<>();
    for (Member m : members.values()) {
      all.add(new JoinGroupResponseData.JoinGroupResponseMember().setMemberId(m.id)
          .setMetadata(m.protocols.get(protocol)));
    }
    for (Member m : members.values()) {
      m.lastHeartbeat = now;
      JoinGroupResponseData answer = new JoinGroupResponseData().setErrorCode(Errors.NONE.code())
          .setGenerationId(generation).setProtocolType(protocolType).setProtocolName(protocol).setLeader(leader)
          .setMemberId(m.id).setMembers(m.id.equals(leader) ? all : List.of());
      m.awaitingJoin.complete(answer);
      m.awaitingJoin = null;
    }
  }

  /** The protocol every member supports that most members prefer (Kafka's vote); ties go to the earlier one. */
  private String chooseProtocol() {
    List<String> candidates = new ArrayList<>(members.values().iterator().next().protocols.keySet());
    for (Member m : members.values()) {
      candidates.retainAll(m.protocols.keySet());
    }
    Map<String, Integer> votes = new LinkedHashMap<>();
    candidates.forEach(c -> votes.put(c, 0));
    for (Member m : members.values()) {
      m.protocols.keySet().stream().filter(candidates::contains).findFirst()
          .ifPresent(p -> votes.merge(p, 1, Integer::sum));
    }
    return votes.entrySet().stream().max((a, b) -> Integer.compare(a.getValue(), b.getValue()))
        .map(Map.Entry::getKey).orElseThrow();
  }

  /** Whether the joining member shares a protocol with every other member (so a vote can pick one). */
  private boolean sharesProtocol(JoinGroupRequestData r) {
    List<String> offered = new ArrayList<>();
    r.protocols().forEach(p -> offered.add(p.name()));
    for (Member m : members.values()) {
      if (!Objects.equals(m.id, r.memberId())) {
        offered.retainAll(m.protocols.keySet());
      }
    }
    return !offered.isEmpty();
  }

  private static void fail(Member m, Errors error) {
    if (m.awaitingJoin != null) {
      m.awaitingJoin.complete(joinError(error, m.id));
      m.awaitingJoin = null;
    }
    if (m.awaitingSync != null) {
      m.awaitingSync.complete(syncError(error));
      m.awaitingSync = null;
    }
  }

  private SyncGroupResponseData syncAnswer(Member m) {
    return new SyncGroupResponseData().setErrorCode(Errors.NONE.code()).setProtocolType(protocolType)
        .setProtocolName(protocol).setAssignment(m.assignment);
  }

  private static JoinGroupResponseData joinError(Errors error, String memberId) {
    return new JoinGroupResponseData().setErrorCode(error.code()).setGenerationId(-1).setMemberId(memberId)
        .setLeader("").setProtocolName("");
  }

  private static SyncGroupResponseData syncError(Errors error) {
    return new SyncGroupResponseData().setErrorCode(error.code()).setAssignment(new byte[0]);
  }
}

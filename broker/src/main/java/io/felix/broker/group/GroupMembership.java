package io.felix.broker.group;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * The membership state machine of one consumer group on its coordinator: who is a member, the generation, and
 * which shards of the group's stream each member owns. Pure (no actors, no I/O); the time comes from the injected
 * clock, so tests drive session timeouts without sleeping.
 *
 * <p>Every change of membership (a member joins, leaves, misses its session timeout) or of the stream's shard count
 * raises the generation and recomputes the assignment at once ({@link RangeAssignor}); members still on the older
 * generation learn of it from their next heartbeat ({@link Outcome#REBALANCE_IN_PROGRESS}) and join again. Until
 * then two members may read the same shard, which duplicates at most the uncommitted records: the older one's
 * commits are refused ({@link Outcome#ILLEGAL_GENERATION}), so committed offsets only come from a shard's current
 * owner.
 */
public final class GroupMembership {

  public enum Outcome {
    OK,
    UNKNOWN_MEMBER,
    ILLEGAL_GENERATION,
    REBALANCE_IN_PROGRESS,
    /** A join or commit names another stream than the group (with members) consumes. */
    WRONG_STREAM,
    /** A commit for a shard the member does not own in the current generation. */
    NOT_OWNER,
    /** An administrative commit (no member) while the group has members. */
    GROUP_ACTIVE
  }

  /** The answer to a join: on {@link Outcome#OK} the member's id, the generation and its shards. */
  public record Joined(Outcome outcome, String memberId, int generation, List<Integer> shards) {}

  /** A member as the admin API shows it. */
  public record MemberView(String memberId, List<Integer> shards, long sessionTimeoutMs, long lastHeartbeatMillis) {}

  private record Member(String id, long sessionTimeoutMs, long lastSeenMillis) {
    Member seen(long now) {
      return new Member(id, sessionTimeoutMs, now);
    }
  }

  private final String group;
  private final Clock clock;
  private final Supplier<String> newMemberId;
  private final TreeMap<String, Member> members = new TreeMap<>();
  private Map<String, List<Integer>> assignment = Map.of();
  private String stream;
  private int shardCount;
  private int generation;

  public GroupMembership(String group, Clock clock, Supplier<String> newMemberId) {
    this.group = group;
    this.clock = clock;
    this.newMemberId = newMemberId;
  }

  public String group() {
    return group;
  }

  public int generation() {
    return generation;
  }

  /** The stream the group consumes; empty before the first join. */
  public Optional<String> stream() {
    return Optional.ofNullable(stream);
  }

  public boolean isEmpty() {
    return members.isEmpty();
  }

  /**
   * A member joins ({@code memberId} empty: a new member, given a fresh id) or joins again after a rebalance (its
   * id). {@code shardCount} is the stream's current shard count: a change rebalances.
   */
  public Joined join(String memberId, String joinStream, int shardCount, long sessionTimeoutMs) {
    if (stream != null && !stream.equals(joinStream) && !members.isEmpty()) {
      return new Joined(Outcome.WRONG_STREAM, memberId, generation, List.of());
    }
    long now = clock.millis();
    boolean changed = false;
    if (memberId.isEmpty()) {
      memberId = newMemberId.get();
      members.put(memberId, new Member(memberId, sessionTimeoutMs, now));
      changed = true;
    } else {
      Member known = members.get(memberId);
      if (known == null) {
        return new Joined(Outcome.UNKNOWN_MEMBER, memberId, generation, List.of());
      }
      members.put(memberId, known.seen(now));
    }
    stream = joinStream;
    if (changed || shardCount != this.shardCount) {
      this.shardCount = shardCount;
      rebalance();
    }
    return new Joined(Outcome.OK, memberId, generation, assignment.getOrDefault(memberId, List.of()));
  }

  /** A member's heartbeat; {@code shardCount} as in {@link #join}. A known member's session is renewed. */
  public Outcome heartbeat(String memberId, int memberGeneration, int shardCount) {
    Member known = members.get(memberId);
    if (known == null) {
      return Outcome.UNKNOWN_MEMBER;
    }
    members.put(memberId, known.seen(clock.millis()));
    if (shardCount != this.shardCount) {
      this.shardCount = shardCount;
      rebalance();
    }
    return memberGeneration == generation ? Outcome.OK : Outcome.REBALANCE_IN_PROGRESS;
  }

  public Outcome leave(String memberId) {
    if (members.remove(memberId) == null) {
      return Outcome.UNKNOWN_MEMBER;
    }
    rebalance();
    return Outcome.OK;
  }

  /** Removes every member whose session timed out (no heartbeat or join for its session timeout); their ids. */
  public List<String> expire() {
    long now = clock.millis();
    List<String> expired = new ArrayList<>();
    for (Member m : members.values()) {
      if (now - m.lastSeenMillis() > m.sessionTimeoutMs()) {
        expired.add(m.id());
      }
    }
    if (!expired.isEmpty()) {
      expired.forEach(members::remove);
      rebalance();
    }
    return expired;
  }

  /**
   * Whether this commit may be stored: a member's only in its current generation and for shards it owns; an
   * administrative one ({@code memberId} empty) only while the group has no members.
   */
  public Outcome mayCommit(String memberId, int memberGeneration, String commitStream, Collection<Integer> shards) {
    if (memberId.isEmpty()) {
      return members.isEmpty() ? Outcome.OK : Outcome.GROUP_ACTIVE;
    }
    if (!members.containsKey(memberId)) {
      return Outcome.UNKNOWN_MEMBER;
    }
    if (memberGeneration != generation) {
      return Outcome.ILLEGAL_GENERATION;
    }
    if (!commitStream.equals(stream)) {
      return Outcome.WRONG_STREAM;
    }
    List<Integer> owned = assignment.getOrDefault(memberId, List.of());
    return owned.containsAll(shards) ? Outcome.OK : Outcome.NOT_OWNER;
  }

  /** The members in id order with their shards. */
  public List<MemberView> members() {
    List<MemberView> views = new ArrayList<>();
    for (Member m : members.values()) {
      views.add(new MemberView(m.id(), assignment.getOrDefault(m.id(), List.of()), m.sessionTimeoutMs(),
          m.lastSeenMillis()));
    }
    return views;
  }

  private void rebalance() {
    generation++;
    assignment = RangeAssignor.assign(new TreeSet<>(members.keySet()), shardCount);
  }
}

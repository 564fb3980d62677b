package io.felix.broker.group;

import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * The membership state machine of one consumer group on its coordinator: who is a member, the generation, and
 * which shards of the group's stream each member holds. Pure (no actors, no I/O); the time comes from the injected
 * clock, so tests drive session timeouts without sleeping.
 *
 * <p>Every change of membership (a member joins, leaves, misses its session timeout) or of the stream's shard count
 * raises the generation and recomputes the target assignment ({@link RangeAssignor}). A shard is revoked before it
 * is assigned: a member holds the shards it was granted at its last join until it joins again, and a join grants
 * only the member's target shards that no other member holds. So two live members never read the same shard. A
 * member learns from its heartbeat ({@link Outcome#REBALANCE_IN_PROGRESS}) that its generation is over, or that a
 * shard it waits for was released; it stops reading, may still commit what it holds, and joins again. A member
 * that leaves or misses its session timeout releases its shards at once (one that is still alive cannot commit
 * any more, so the next owner re-reads at most what it had not committed).
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

  /** A member as the admin API shows it: the shards it holds (reads) now. */
  public record MemberView(String memberId, List<Integer> shards, long sessionTimeoutMs, long lastHeartbeatMillis) {}

  /**
   * @param joinedGeneration the generation of its last join: its commits carry it
   * @param held the shards granted at its last join, which no other member is granted until it joins again
   */
  private record Member(String id, long sessionTimeoutMs, long lastSeenMillis, int joinedGeneration,
      List<Integer> held) {
    Member seen(long now) {
      return new Member(id, sessionTimeoutMs, now, joinedGeneration, held);
    }
  }

  private final String group;
  private final Clock clock;
  private final Supplier<String> newMemberId;
  private final TreeMap<String, Member> members = new TreeMap<>();
  /** The target assignment of the current generation; a member holds its part once no other member does. */
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
   * id): it is granted its target shards that no other member holds (the rest at a later join, once released).
   * {@code shardCount} is the stream's current shard count: a change rebalances.
   */
  public Joined join(String memberId, String joinStream, int shardCount, long sessionTimeoutMs) {
    if (stream != null && !stream.equals(joinStream) && !members.isEmpty()) {
      return new Joined(Outcome.WRONG_STREAM, memberId, generation, List.of());
    }
    long now = clock.millis();
    boolean changed = false;
    if (memberId.isEmpty()) {
      memberId = newMemberId.get();
      members.put(memberId, new Member(memberId, sessionTimeoutMs, now, generation, List.of()));
      changed = true;
    } else if (!members.containsKey(memberId)) {
      return new Joined(Outcome.UNKNOWN_MEMBER, memberId, generation, List.of());
    }
    stream = joinStream;
    if (changed || shardCount != this.shardCount) {
      this.shardCount = shardCount;
      rebalance();
    }
    List<Integer> granted = grantable(memberId);
    members.put(memberId, new Member(memberId, members.get(memberId).sessionTimeoutMs(), now, generation, granted));
    return new Joined(Outcome.OK, memberId, generation, granted);
  }

  /**
   * A member's heartbeat; {@code shardCount} as in {@link #join}. A known member's session is renewed. It is told to
   * join again when its generation is over or a target shard it does not hold yet has been released.
   */
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
    boolean current = memberGeneration == generation && known.joinedGeneration() == generation;
    return current && grantable(memberId).equals(known.held()) ? Outcome.OK : Outcome.REBALANCE_IN_PROGRESS;
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
   * Whether this commit may be stored: a member's only for shards it holds, in the generation of its last join
   * (a member that has heard of a rebalance may commit what it read before it joins again: no one else holds those
   * shards yet); an administrative one ({@code memberId} empty) only while the group has no members.
   */
  public Outcome mayCommit(String memberId, int memberGeneration, String commitStream, Collection<Integer> shards) {
    if (memberId.isEmpty()) {
      return members.isEmpty() ? Outcome.OK : Outcome.GROUP_ACTIVE;
    }
    Member member = members.get(memberId);
    if (member == null) {
      return Outcome.UNKNOWN_MEMBER;
    }
    if (memberGeneration != member.joinedGeneration()) {
      return Outcome.ILLEGAL_GENERATION;
    }
    if (!commitStream.equals(stream)) {
      return Outcome.WRONG_STREAM;
    }
    return member.held().containsAll(shards) ? Outcome.OK : Outcome.NOT_OWNER;
  }

  /** The members in id order with their shards. */
  public List<MemberView> members() {
    List<MemberView> views = new ArrayList<>();
    for (Member m : members.values()) {
      views.add(new MemberView(m.id(), m.held(), m.sessionTimeoutMs(), m.lastSeenMillis()));
    }
    return views;
  }

  private void rebalance() {
    generation++;
    assignment = RangeAssignor.assign(new TreeSet<>(members.keySet()), shardCount);
  }

  /** The member's target shards that no other member holds. */
  private List<Integer> grantable(String memberId) {
    Set<Integer> heldByOthers = new HashSet<>();
    members.values().stream().filter(m -> !m.id().equals(memberId)).forEach(m -> heldByOthers.addAll(m.held()));
    return assignment.getOrDefault(memberId, List.of()).stream().filter(s -> !heldByOthers.contains(s)).toList();
  }
}

package io.felix.broker.group;

import io.felix.broker.group.GroupMembership.Outcome;
import io.felix.protocol.Errors;
import io.felix.protocol.client.CommitOffsetsRequest;
import io.felix.protocol.client.CommitOffsetsResponse;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.FetchOffsetsRequest;
import io.felix.protocol.client.FetchOffsetsResponse;
import io.felix.protocol.client.HeartbeatRequest;
import io.felix.protocol.client.HeartbeatResponse;
import io.felix.protocol.client.JoinGroupRequest;
import io.felix.protocol.client.JoinGroupResponse;
import io.felix.protocol.client.LeaveGroupResponse;
import io.felix.protocol.client.Record;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import io.felix.protocol.client.ShardOffset;
import io.felix.protocol.offsets.OffsetKey;
import io.felix.protocol.offsets.OffsetValue;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.ToIntFunction;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * The coordinator of one consumer group, on the broker leading the group's shard of the offsets store at
 * {@code epoch}: membership and assignment ({@link GroupMembership}), and the group's committed offsets, rebuilt
 * from the store when the leader took over and kept current by its own commits. A commit is answered only once
 * stored on a majority of the offsets shard's replicas at this coordinator's epoch; one stored at another epoch
 * (leadership changed meanwhile) is answered NOT_COORDINATOR, so the client asks the new coordinator.
 */
public final class GroupCoordinator extends AbstractBehavior<GroupCoordinator.Command> {

  public sealed interface Command {}

  /** A JoinGroup, Heartbeat, LeaveGroup, CommitOffsets or FetchOffsets for this group. */
  public record Handle(Request request, CompletableFuture<Response> reply) implements Command {}

  public record Describe(CompletableFuture<GroupView> reply) implements Command {}

  private enum CheckSessions implements Command { INSTANCE }

  private record CommitStored(CommitOffsetsRequest request, CompletableFuture<Response> reply, long[] at,
      Throwable failure) implements Command {}

  /** What a coordinator needs from its broker. */
  public record Context(int brokerId, int offsetsShard, long epoch, OffsetsStore store, GroupSettings settings,
      ToIntFunction<String> shardCount, Clock clock) {}

  private final ActorContext<Command> context;
  private final Context env;
  private final GroupMembership membership;
  /** Committed offsets of this group per (stream, shard), with their place in the offsets log. */
  private final Map<OffsetKey, OffsetsStore.Stored> committed;
  /**
   * Commits accepted but not yet stored. FetchOffsets waits for them: a commit accepted from a shard's owner just
   * before a rebalance must be visible to the shard's next owner, or it would read again what was committed.
   */
  private int commitsInFlight;
  private final List<Handle> fetchesWaiting = new ArrayList<>();

  private GroupCoordinator(ActorContext<Command> context, TimerScheduler<Command> timers, String group, Context env,
      Map<OffsetKey, OffsetsStore.Stored> loaded) {
    super(context);
    this.context = context;
    this.env = env;
    this.membership = new GroupMembership(group, env.clock(), () -> "member-" + UUID.randomUUID());
    this.committed = new HashMap<>(loaded);
    timers.startTimerWithFixedDelay(CheckSessions.INSTANCE, env.settings().sessionCheckInterval());
  }

  /** @param loaded the group's committed offsets as the load of the offsets shard found them */
  public static Behavior<Command> create(String group, Context env, Map<OffsetKey, OffsetsStore.Stored> loaded) {
    return Behaviors.setup(context -> Behaviors.withTimers(
        timers -> new GroupCoordinator(context, timers, group, env, loaded)));
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Handle.class, this::onHandle)
        .onMessage(CommitStored.class, this::onCommitStored)
        .onMessage(Describe.class, d -> {
          d.reply().complete(view());
          return this;
        })
        .onMessageEquals(CheckSessions.INSTANCE, () -> {
          List<String> expired = membership.expire();
          if (!expired.isEmpty()) {
            context.getLog().info("group {}: members {} missed their session timeout; generation {} reassigns"
                + " the shards", membership.group(), expired, membership.generation());
          }
          return this;
        })
        .build();
  }

  private Behavior<Command> onHandle(Handle h) {
    Request r = h.request();
    switch (r.getBodyCase()) {
      case JOIN_GROUP -> h.reply().complete(join(r.getJoinGroup()));
      case HEARTBEAT -> h.reply().complete(heartbeat(r.getHeartbeat()));
      case LEAVE_GROUP -> {
        Outcome outcome = membership.leave(r.getLeaveGroup().getMemberId());
        if (outcome == Outcome.OK) {
          context.getLog().info("group {}: member {} left; generation {}", membership.group(),
              r.getLeaveGroup().getMemberId(), membership.generation());
        }
        h.reply().complete(outcome == Outcome.OK
            ? Response.newBuilder().setLeaveGroup(LeaveGroupResponse.getDefaultInstance()).build()
            : refused(outcome, r.getLeaveGroup().getMemberId()));
      }
      case COMMIT_OFFSETS -> commit(r.getCommitOffsets(), h.reply());
      case FETCH_OFFSETS -> {
        if (commitsInFlight > 0) {
          fetchesWaiting.add(h);
        } else {
          h.reply().complete(fetchOffsets(r.getFetchOffsets()));
        }
      }
      default -> h.reply().complete(error(ErrorCode.INVALID_REQUEST, "not a group request: " + r.getBodyCase()));
    }
    return this;
  }

  private Response join(JoinGroupRequest join) {
    int shards = env.shardCount().applyAsInt(join.getStream());
    if (shards < 0) {
      return error(ErrorCode.UNKNOWN_STREAM, "no stream named '" + join.getStream() + "'");
    }
    long session = env.settings().sessionTimeoutMs(join.getSessionTimeoutMs());
    int before = membership.generation();
    GroupMembership.Joined joined = membership.join(join.getMemberId(), join.getStream(), shards, session);
    if (joined.outcome() != Outcome.OK) {
      return refused(joined.outcome(), join.getMemberId());
    }
    if (joined.generation() != before) {
      context.getLog().info("group {}: member {} joined; generation {} over {} members", membership.group(),
          joined.memberId(), joined.generation(), membership.members().size());
    }
    return Response.newBuilder().setJoinGroup(JoinGroupResponse.newBuilder().setMemberId(joined.memberId())
        .setGeneration(joined.generation()).addAllShards(joined.shards()).setSessionTimeoutMs((int) session)).build();
  }

  private Response heartbeat(HeartbeatRequest beat) {
    String stream = membership.stream().orElse("");
    Outcome outcome = membership.heartbeat(beat.getMemberId(), beat.getGeneration(),
        Math.max(0, env.shardCount().applyAsInt(stream)));
    return outcome == Outcome.OK ? Response.newBuilder().setHeartbeat(HeartbeatResponse.getDefaultInstance()).build()
        : refused(outcome, beat.getMemberId());
  }

  private void commit(CommitOffsetsRequest commit, CompletableFuture<Response> reply) {
    int shards = env.shardCount().applyAsInt(commit.getStream());
    if (shards < 0) {
      reply.complete(error(ErrorCode.UNKNOWN_STREAM, "no stream named '" + commit.getStream() + "'"));
      return;
    }
    List<Integer> shardList = new ArrayList<>();
    for (ShardOffset o : commit.getOffsetsList()) {
      if (o.getShard() < 0 || o.getShard() >= shards || o.getOffset() < 0) {
        reply.complete(error(ErrorCode.INVALID_REQUEST, "commit of shard " + o.getShard() + " at offset "
            + o.getOffset() + ": stream '" + commit.getStream() + "' has shards 0.." + (shards - 1)
            + " and offsets are >= 0"));
        return;
      }
      shardList.add(o.getShard());
    }
    Outcome outcome = membership.mayCommit(commit.getMemberId(), commit.getGeneration(), commit.getStream(),
        shardList);
    if (outcome != Outcome.OK) {
      reply.complete(refused(outcome, commit.getMemberId()));
      return;
    }
    if (shardList.isEmpty()) {
      reply.complete(Response.newBuilder().setCommitOffsets(CommitOffsetsResponse.getDefaultInstance()).build());
      return;
    }
    long now = env.clock().millis();
    List<Record> records = new ArrayList<>();
    for (ShardOffset o : commit.getOffsetsList()) {
      records.add(Record.newBuilder().setKey(key(commit.getStream(), o.getShard()).toByteString())
          .setValue(OffsetValue.newBuilder().setOffset(o.getOffset()).setGeneration(commit.getGeneration())
              .setMemberId(commit.getMemberId()).setCommitTimestampMs(now).build().toByteString())
          .setTimestampMs(now).build());
    }
    commitsInFlight++;
    context.pipeToSelf(env.store().append(env.offsetsShard(), records),
        (at, failure) -> new CommitStored(commit, reply, at, failure));
  }

  private Behavior<Command> onCommitStored(CommitStored stored) {
    answerCommit(stored);
    if (--commitsInFlight == 0) {
      fetchesWaiting.forEach(h -> h.reply().complete(fetchOffsets(h.request().getFetchOffsets())));
      fetchesWaiting.clear();
    }
    return this;
  }

  private void answerCommit(CommitStored stored) {
    if (stored.failure() != null) {
      Throwable cause = stored.failure() instanceof CompletionException c && c.getCause() != null
          ? c.getCause() : stored.failure();
      ErrorCode code = cause instanceof OffsetsStore.StoreException s ? s.code : ErrorCode.TIMEOUT;
      stored.reply().complete(error(code, "the commit of group " + membership.group() + " was not stored: "
          + cause.getMessage()));
      return;
    }
    long base = stored.at()[0];
    long epoch = stored.at()[1];
    if (epoch != env.epoch()) {
      // Stored by a later leadership of this broker: the coordinator of that epoch (which loads the shard anew)
      // answers for the group, not this one.
      stored.reply().complete(error(ErrorCode.NOT_COORDINATOR, "the offsets shard " + env.offsetsShard()
          + " changed leadership (epoch " + env.epoch() + " -> " + epoch + "); ask FindCoordinator again"));
      return;
    }
    CommitOffsetsRequest commit = stored.request();
    for (int i = 0; i < commit.getOffsetsCount(); i++) {
      ShardOffset o = commit.getOffsets(i);
      OffsetValue value = OffsetValue.newBuilder().setOffset(o.getOffset()).setGeneration(commit.getGeneration())
          .setMemberId(commit.getMemberId()).build();
      OffsetKey key = key(commit.getStream(), o.getShard());
      OffsetsStore.Stored before = committed.get(key);
      if (before == null || before.logOffset() < base + i) {
        committed.put(key, new OffsetsStore.Stored(base + i, value));
      }
    }
    stored.reply().complete(Response.newBuilder().setCommitOffsets(CommitOffsetsResponse.getDefaultInstance())
        .build());
  }

  private Response fetchOffsets(FetchOffsetsRequest fetch) {
    int shards = env.shardCount().applyAsInt(fetch.getStream());
    if (shards < 0) {
      return error(ErrorCode.UNKNOWN_STREAM, "no stream named '" + fetch.getStream() + "'");
    }
    FetchOffsetsResponse.Builder b = FetchOffsetsResponse.newBuilder();
    committedOffsets(fetch.getStream(), shards)
        .forEach((shard, offset) -> b.addOffsets(ShardOffset.newBuilder().setShard(shard).setOffset(offset)));
    return Response.newBuilder().setFetchOffsets(b).build();
  }

  /** Every shard of {@code stream} with its committed offset, -1 where none is committed. */
  private Map<Integer, Long> committedOffsets(String stream, int shards) {
    Map<Integer, Long> offsets = new TreeMap<>();
    for (int shard = 0; shard < shards; shard++) {
      OffsetsStore.Stored s = committed.get(key(stream, shard));
      offsets.put(shard, s == null ? -1L : s.value().getOffset());
    }
    return offsets;
  }

  private GroupView view() {
    String stream = membership.stream().orElseGet(() -> committed.keySet().stream().map(OffsetKey::getStream)
        .findFirst().orElse(""));
    int shards = Math.max(0, env.shardCount().applyAsInt(stream));
    return new GroupView(membership.group(), env.brokerId(), stream, membership.generation(), membership.members(),
        committedOffsets(stream, shards));
  }

  private OffsetKey key(String stream, int shard) {
    return OffsetKey.newBuilder().setGroup(membership.group()).setStream(stream).setShard(shard).build();
  }

  private Response refused(Outcome outcome, String memberId) {
    String group = membership.group();
    return switch (outcome) {
      case UNKNOWN_MEMBER -> error(ErrorCode.UNKNOWN_MEMBER,
          "'" + memberId + "' is not a member of group " + group + "; join again without a member id");
      case ILLEGAL_GENERATION -> error(ErrorCode.ILLEGAL_GENERATION,
          "group " + group + " is at generation " + membership.generation() + "; join again");
      case REBALANCE_IN_PROGRESS -> error(ErrorCode.REBALANCE_IN_PROGRESS,
          "group " + group + " was rebalanced to generation " + membership.generation() + "; join again");
      case WRONG_STREAM -> error(ErrorCode.INVALID_REQUEST,
          "group " + group + " consumes stream '" + membership.stream().orElse("") + "'");
      case NOT_OWNER -> error(ErrorCode.INVALID_REQUEST,
          "member " + memberId + " does not own every shard it commits in generation " + membership.generation());
      case GROUP_ACTIVE -> error(ErrorCode.INVALID_REQUEST,
          "group " + group + " has members; offsets can be reset only while it has none");
      case OK -> throw new IllegalArgumentException("not a refusal");
    };
  }

  private static Response error(ErrorCode code, String message) {
    return Errors.response(0, Errors.of(code, message));
  }
}

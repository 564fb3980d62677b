package io.felix.broker.group;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.assignment.CacheConfig;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.assignment.StreamConfig;
import io.felix.broker.client.GroupRequestSink;
import io.felix.broker.control.ControlReply;
import io.felix.broker.control.PlacementController;
import io.felix.broker.shard.ReplicaRegistry;
import io.felix.protocol.Errors;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.FindCoordinatorResponse;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import io.felix.protocol.offsets.OffsetKey;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.TimerScheduler;

/**
 * One per broker: answers FindCoordinator from the assignment table, and routes every other group request to the
 * group's {@link GroupCoordinator} when this broker leads the group's shard of the offsets store
 * ({@link OffsetsStore#shardOf}); otherwise NOT_COORDINATOR naming the leader.
 *
 * <p>On first leading a shard at an epoch it rebuilds that shard's committed offsets ({@link OffsetsStore#load})
 * before any of its groups is served (requests wait meanwhile), and when the table shows the shard led elsewhere or
 * at another epoch it stops that shard's coordinators, so no coordinator outlives the leadership it was built on.
 * The offsets stream itself is created through the placement singleton the first time a group needs it.
 */
public final class GroupManager extends AbstractBehavior<GroupManager.Command> {

  public sealed interface Command {}

  public record Handle(Request request, CompletableFuture<Response> reply) implements Command {}

  /** The groups this broker coordinates now. */
  public record DescribeAll(CompletableFuture<List<GroupView>> reply) implements Command {}

  private record ShardLoaded(int shard, long epoch, OffsetsStore.Loaded loaded, Throwable failure)
      implements Command {}

  private record StreamCreateAnswered(ControlReply reply, Throwable failure) implements Command {}

  private enum CheckLeadership implements Command { INSTANCE }

  /** An offsets shard this broker leads at {@code epoch}: loading (loaded null, requests waiting) or serving. */
  private static final class LedShard {
    final long epoch;
    OffsetsStore.Loaded loaded;
    final List<Handle> waiting = new ArrayList<>();
    final Map<String, ActorRef<GroupCoordinator.Command>> coordinators = new HashMap<>();

    LedShard(long epoch) {
      this.epoch = epoch;
    }
  }

  private static final int MAX_GROUP_NAME_LENGTH = 255;

  private final ActorContext<Command> context;
  private final ReplicaRegistry registry;
  private final ActorRef<PlacementController.Command> singleton;
  private final GroupSettings settings;
  private final OffsetsStore store;
  private final Clock clock;
  private final Map<Integer, LedShard> led = new HashMap<>();
  private boolean creatingStream;
  private long coordinatorsSpawned;

  private GroupManager(ActorContext<Command> context, TimerScheduler<Command> timers, ReplicaRegistry registry,
      ActorRef<PlacementController.Command> singleton, GroupSettings settings, Clock clock) {
    super(context);
    this.context = context;
    this.registry = registry;
    this.singleton = singleton;
    this.settings = settings;
    this.store = new OffsetsStore(registry, settings.commitTimeout());
    this.clock = clock;
    timers.startTimerWithFixedDelay(CheckLeadership.INSTANCE, Duration.ofSeconds(1));
  }

  public static Behavior<Command> create(ReplicaRegistry registry, ActorRef<PlacementController.Command> singleton,
      GroupSettings settings, Clock clock) {
    return Behaviors.setup(context -> Behaviors.withTimers(
        timers -> new GroupManager(context, timers, registry, singleton, settings, clock)));
  }

  /** The client listener's way in: each group request becomes a {@link Handle}. */
  public static GroupRequestSink sink(ActorRef<Command> manager) {
    return request -> {
      CompletableFuture<Response> reply = new CompletableFuture<>();
      manager.tell(new Handle(request, reply));
      return reply;
    };
  }

  @Override
  public Receive<Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(Handle.class, this::onHandle)
        .onMessage(ShardLoaded.class, this::onShardLoaded)
        .onMessage(StreamCreateAnswered.class, this::onStreamCreateAnswered)
        .onMessage(DescribeAll.class, this::onDescribeAll)
        .onMessageEquals(CheckLeadership.INSTANCE, () -> {
          dropLostShards(registry.table());
          return this;
        })
        .build();
  }

  private Behavior<Command> onHandle(Handle h) {
    String group = groupOf(h.request());
    if (group.isEmpty() || group.length() > MAX_GROUP_NAME_LENGTH) {
      h.reply().complete(error(ErrorCode.INVALID_REQUEST,
          "group: must be 1.." + MAX_GROUP_NAME_LENGTH + " characters, got " + group.length()));
      return this;
    }
    AssignmentTable table = registry.table();
    Integer offsetsShards = table.streams().get(OffsetsStore.STREAM);
    if (offsetsShards == null) {
      createOffsetsStream(table);
      h.reply().complete(error(ErrorCode.NOT_COORDINATOR,
          "the offsets store " + OffsetsStore.STREAM + " is being created; retry"));
      return this;
    }
    int shard = OffsetsStore.shardOf(group, offsetsShards);
    Optional<ShardAssignment> assignment = table.shard(new ShardId(OffsetsStore.STREAM, shard));
    int leader = assignment.map(ShardAssignment::leader).orElse(ShardAssignment.NO_LEADER);
    if (h.request().hasFindCoordinator()) {
      h.reply().complete(findCoordinator(table, group, leader));
      return this;
    }
    if (leader != registry.brokerId() || registry.replica(new ShardId(OffsetsStore.STREAM, shard)).isEmpty()) {
      h.reply().complete(notCoordinator(table, group, leader));
      return this;
    }
    dropLostShards(table);
    long epoch = assignment.get().leaderEpoch();
    LedShard state = led.get(shard);
    if (state == null) {
      state = new LedShard(epoch);
      led.put(shard, state);
      context.getLog().info("leading {}/{} at epoch {}: loading its committed offsets", OffsetsStore.STREAM,
          shard, epoch);
      context.pipeToSelf(store.load(shard), (loaded, failure) -> new ShardLoaded(shard, epoch, loaded, failure));
    }
    if (state.loaded == null) {
      state.waiting.add(h);
    } else {
      coordinator(shard, state, group).tell(new GroupCoordinator.Handle(h.request(), h.reply()));
    }
    return this;
  }

  private Behavior<Command> onShardLoaded(ShardLoaded done) {
    LedShard state = led.get(done.shard());
    if (state == null || state.epoch != done.epoch()) {
      return this; // leadership changed while loading; a newer load (or none) is in charge
    }
    if (done.failure() != null) {
      Throwable cause = done.failure() instanceof CompletionException c && c.getCause() != null
          ? c.getCause() : done.failure();
      context.getLog().warn("loading {}/{} at epoch {} failed ({}); the next group request loads it again",
          OffsetsStore.STREAM, done.shard(), done.epoch(), cause.getMessage());
      led.remove(done.shard());
      for (Handle h : state.waiting) {
        h.reply().complete(error(ErrorCode.NOT_COORDINATOR, "the coordinator could not load the offsets of "
            + OffsetsStore.STREAM + "/" + done.shard() + ": " + cause.getMessage()));
      }
      return this;
    }
    state.loaded = done.loaded();
    context.getLog().info("loaded {}/{} at epoch {}: {} committed offsets below offset {}", OffsetsStore.STREAM,
        done.shard(), done.epoch(), done.loaded().offsets().size(), done.loaded().barrierOffset());
    for (Handle h : state.waiting) {
      coordinator(done.shard(), state, groupOf(h.request()))
          .tell(new GroupCoordinator.Handle(h.request(), h.reply()));
    }
    state.waiting.clear();
    return this;
  }

  private ActorRef<GroupCoordinator.Command> coordinator(int shard, LedShard state, String group) {
    return state.coordinators.computeIfAbsent(group, g -> {
      Map<OffsetKey, OffsetsStore.Stored> offsets = new HashMap<>();
      state.loaded.offsets().forEach((key, stored) -> {
        if (key.getGroup().equals(g)) {
          offsets.put(key, stored);
        }
      });
      GroupCoordinator.Context env = new GroupCoordinator.Context(registry.brokerId(), shard, state.epoch, store,
          settings, this::shardCount, clock);
      return context.spawn(GroupCoordinator.create(g, env, offsets),
          "group-" + (++coordinatorsSpawned) + "-" + URLEncoder.encode(g, StandardCharsets.UTF_8));
    });
  }

  /** Stops the coordinators of every shard this broker no longer leads at the epoch they were built on. */
  private void dropLostShards(AssignmentTable table) {
    led.entrySet().removeIf(e -> {
      Optional<ShardAssignment> now = table.shard(new ShardId(OffsetsStore.STREAM, e.getKey()));
      boolean kept = now.isPresent() && now.get().leader() == registry.brokerId()
          && now.get().leaderEpoch() == e.getValue().epoch;
      if (!kept) {
        context.getLog().info("no longer leading {}/{} at epoch {}: stopping its {} group coordinators",
            OffsetsStore.STREAM, e.getKey(), e.getValue().epoch, e.getValue().coordinators.size());
        e.getValue().coordinators.values().forEach(context::stop);
        for (Handle h : e.getValue().waiting) {
          h.reply().complete(error(ErrorCode.NOT_COORDINATOR, "leadership of " + OffsetsStore.STREAM + "/"
              + e.getKey() + " changed while loading; ask FindCoordinator again"));
        }
      }
      return !kept;
    });
  }

  private Behavior<Command> onDescribeAll(DescribeAll d) {
    dropLostShards(registry.table());
    List<CompletableFuture<GroupView>> views = new ArrayList<>();
    for (LedShard state : led.values()) {
      for (ActorRef<GroupCoordinator.Command> c : state.coordinators.values()) {
        CompletableFuture<GroupView> view = new CompletableFuture<>();
        c.tell(new GroupCoordinator.Describe(view));
        views.add(view);
      }
    }
    CompletableFuture.allOf(views.toArray(CompletableFuture[]::new))
        .orTimeout(settings.commitTimeout().toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
        .whenComplete((ok, failure) -> {
          if (failure != null) {
            d.reply().completeExceptionally(failure);
          } else {
            d.reply().complete(views.stream().map(CompletableFuture::join).toList());
          }
        });
    return this;
  }

  private void createOffsetsStream(AssignmentTable table) {
    if (creatingStream) {
      return;
    }
    creatingStream = true;
    int rf = Math.max(1, Math.min(settings.offsetsReplicationFactor(), table.brokers().size()));
    // A cache without expiry: its leader compacts sealed segments to the newest commit per (group, stream, shard),
    // as Kafka compacts __consumer_offsets; retention would forget offsets, so there is none.
    StreamConfig keepForever = new StreamConfig(-1L, -1L, null, new CacheConfig(0));
    context.getLog().info("creating the offsets store {} ({} shards, replication factor {})", OffsetsStore.STREAM,
        settings.offsetsShards(), rf);
    context.pipeToSelf(AskPattern.<PlacementController.Command, ControlReply>ask(singleton,
            replyTo -> new PlacementController.CreateStream(OffsetsStore.STREAM, settings.offsetsShards(), rf,
                keepForever, replyTo), settings.commitTimeout(), context.getSystem().scheduler()),
        StreamCreateAnswered::new);
  }

  private Behavior<Command> onStreamCreateAnswered(StreamCreateAnswered answer) {
    creatingStream = false;
    if (answer.failure() != null) {
      context.getLog().warn("creating {} got no answer from the placement singleton ({}); the next group request"
          + " asks again", OffsetsStore.STREAM, answer.failure().getMessage());
    } else if (answer.reply() instanceof ControlReply.Rejected r && r.refusal() != ControlReply.Refusal.CONFLICT) {
      context.getLog().warn("creating {} was refused: {}", OffsetsStore.STREAM, r.error());
    }
    return this;
  }

  private int shardCount(String stream) {
    Integer shards = registry.table().streams().get(stream);
    return shards == null || stream.isEmpty() ? -1 : shards;
  }

  private Response findCoordinator(AssignmentTable table, String group, int leader) {
    Optional<BrokerEndpoint> endpoint = table.broker(leader);
    if (endpoint.isEmpty()) {
      return error(ErrorCode.NOT_COORDINATOR, "group " + group + " has no coordinator now (its offsets shard has"
          + " no leader); retry");
    }
    return Response.newBuilder().setFindCoordinator(FindCoordinatorResponse.newBuilder().setCoordinatorId(leader)
        .setHost(endpoint.get().clientHost()).setPort(endpoint.get().clientPort())).build();
  }

  private Response notCoordinator(AssignmentTable table, String group, int leader) {
    String address = table.broker(leader).map(BrokerEndpoint::clientAddress).orElse("");
    return Errors.response(0, Errors.of(ErrorCode.NOT_COORDINATOR,
        "broker " + registry.brokerId() + " does not coordinate group " + group
            + (leader == ShardAssignment.NO_LEADER ? "" : "; broker " + leader + " does"))
        .toBuilder().setLeaderId(leader).setLeaderAddress(address).build());
  }

  static String groupOf(Request request) {
    return switch (request.getBodyCase()) {
      case FIND_COORDINATOR -> request.getFindCoordinator().getGroup();
      case JOIN_GROUP -> request.getJoinGroup().getGroup();
      case HEARTBEAT -> request.getHeartbeat().getGroup();
      case LEAVE_GROUP -> request.getLeaveGroup().getGroup();
      case COMMIT_OFFSETS -> request.getCommitOffsets().getGroup();
      case FETCH_OFFSETS -> request.getFetchOffsets().getGroup();
      default -> "";
    };
  }

  private static Response error(ErrorCode code, String message) {
    return Errors.response(0, Errors.of(code, message));
  }
}

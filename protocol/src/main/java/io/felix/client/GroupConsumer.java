package io.felix.client;

import io.felix.protocol.Errors;
import io.felix.protocol.client.CommitOffsetsRequest;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.FetchOffsetsRequest;
import io.felix.protocol.client.FindCoordinatorRequest;
import io.felix.protocol.client.HeartbeatRequest;
import io.felix.protocol.client.JoinGroupRequest;
import io.felix.protocol.client.JoinGroupResponse;
import io.felix.protocol.client.LeaveGroupRequest;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import io.felix.protocol.client.ShardOffset;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A member of a consumer group: {@link #subscribe} to a stream as a group, then {@link #poll} records of the shards
 * the group's coordinator assigns to this member, and {@link #commitSync}/{@link #commitAsync} the positions of the
 * records polled (or let auto-commit do it). Delivery is at least once: after a rebalance or a crash the shard's
 * next owner starts at the last committed offset, so the records polled but not yet committed are read again.
 *
 * <p>In cluster mode the coordinator is found with FindCoordinator (asked of the bootstrap brokers) and talked to
 * directly; in plain mode every group request goes to the client's one broker, which forwards it to the
 * coordinator. Fetches go through the {@link FelixClient} (in plain mode through its one broker too). A
 * background thread sends heartbeats; when one answers that the group was rebalanced (or the member is unknown,
 * e.g. after a coordinator failover) the next poll stops reading, commits (with auto-commit on) and joins again:
 * the coordinator grants a shard only once its previous holder has joined again, so two members never read one
 * shard. It keeps its position on shards it keeps and starts newly granted shards at their committed offsets.
 *
 * <p>poll and commit are for one thread; heartbeats run on their own.
 */
public final class GroupConsumer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(GroupConsumer.class);

  private final FelixClient client;
  private final GroupConsumerOptions options;
  private final ScheduledExecutorService heartbeats;
  private String stream;
  private String group;
  private volatile HostPort coordinator;
  private int bootstrapTurn;
  // Membership, guarded by this.
  private String memberId = "";
  private int generation = -1;
  private boolean joinNeeded = true;
  /** Assigned shards and the next offset to read in each (-1: start where {@code options.reset} says). */
  private final Map<Integer, Long> positions = new TreeMap<>();
  private long lastAutoCommitNanos = System.nanoTime();
  private boolean closed;

  public GroupConsumer(FelixClient client, GroupConsumerOptions options) {
    this.client = client;
    this.options = options;
    this.heartbeats = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "felix-group-heartbeat");
      t.setDaemon(true);
      return t;
    });
  }

  /** Joins {@code group} consuming {@code stream}; the assignment comes with the first poll. */
  public synchronized void subscribe(String stream, String group) {
    if (this.group != null) {
      throw new IllegalStateException("already subscribed to " + this.stream + " as group " + this.group);
    }
    this.stream = stream;
    this.group = group;
    long every = options.heartbeatInterval().toMillis();
    heartbeats.scheduleWithFixedDelay(this::heartbeat, every, every, TimeUnit.MILLISECONDS);
  }

  public synchronized Set<Integer> assignment() {
    return Set.copyOf(positions.keySet());
  }

  public synchronized int generation() {
    return generation;
  }

  public synchronized String memberId() {
    return memberId;
  }

  /**
   * Records of the assigned shards from their positions on, waiting up to {@code timeout} for some; joins (again)
   * first when the group was rebalanced. The positions move past what it returns.
   */
  public List<GroupRecord> poll(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    do {
      autoCommitIfDue();
      Map<Integer, Long> from = ensureJoined(deadline);
      if (from.isEmpty()) {
        sleepUntil(Math.min(deadline, System.nanoTime() + options.maxWait().toNanos()));
        continue;
      }
      int gen = generation();
      long waitMs = Math.max(0, Math.min(options.maxWait().toMillis(),
          TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
      Map<Integer, CompletableFuture<FetchResult>> fetches = new TreeMap<>();
      from.forEach((shard, offset) -> fetches.put(shard, client.fetch(stream, shard,
          offset < 0 ? startOffset() : offset, options.maxBytesPerShard(), (int) waitMs, options.reset())));
      Map<Integer, FetchResult> results = new TreeMap<>();
      fetches.forEach((shard, f) -> {
        FetchResult result = await(f, waitMs);
        if (result != null) {
          results.put(shard, result);
        }
      });
      List<GroupRecord> records = new ArrayList<>();
      synchronized (this) {
        results.forEach((shard, result) -> {
          // A rebalance while fetching: what was read for shards no longer ours (or re-read) is dropped.
          if (generation != gen || !from.get(shard).equals(positions.get(shard))) {
            return;
          }
          result.records().forEach(r -> records.add(new GroupRecord(shard, r)));
          positions.put(shard, result.nextOffset());
        });
      }
      if (!records.isEmpty()) {
        return records;
      }
    } while (System.nanoTime() < deadline && !isClosed());
    return List.of();
  }

  /** Commits the positions of every record polled so far; fails when the group was rebalanced meanwhile. */
  public void commitSync() {
    try {
      commitAsync().get();
    } catch (ExecutionException e) {
      throw FelixException.from(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw FelixException.clientClosed("interrupted while committing");
    }
  }

  /**
   * As {@link #commitSync}, answered later. Between a rebalance and this member's next join it still holds its
   * shards (no other member reads them yet), so the commit stands. Fails with the broker's ILLEGAL_GENERATION,
   * UNKNOWN_MEMBER or NOT_OWNER when this member no longer holds them: those records will be read again by the
   * shards' new owners.
   */
  public CompletableFuture<Void> commitAsync() {
    CommitOffsetsRequest.Builder commit;
    synchronized (this) {
      commit = CommitOffsetsRequest.newBuilder().setGroup(group).setMemberId(memberId).setGeneration(generation)
          .setStream(stream);
      positions.forEach((shard, offset) -> {
        if (offset >= 0) {
          commit.addOffsets(ShardOffset.newBuilder().setShard(shard).setOffset(offset));
        }
      });
      if (commit.getOffsetsCount() == 0) {
        return CompletableFuture.completedFuture(null);
      }
      if (memberId.isEmpty()) {
        // The coordinator forgot this member (session timeout, failover): its shards may be someone else's now.
        return CompletableFuture.failedFuture(FelixException.broker(Errors.of(ErrorCode.UNKNOWN_MEMBER,
            "this consumer is no longer a member of group " + group + "; nothing committed")));
      }
    }
    return coordinatorRequest(Request.newBuilder().setCommitOffsets(commit), deadlineFromNow())
        .thenAccept(r -> {
          if (Errors.isError(r)) {
            memberStale(r.getError().getCode());
            throw FelixException.broker(r.getError()).withContext("commit of group " + group);
          }
        });
  }

  /** Commits (with auto-commit on), leaves the group so its shards are reassigned at once, stops heartbeats. */
  @Override
  public void close() {
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
    }
    heartbeats.shutdownNow();
    if (group == null) {
      return;
    }
    if (options.autoCommit()) {
      try {
        commitSync();
      } catch (RuntimeException e) {
        log.info("group {}: the final commit failed ({}); the next owner reads those records again", group,
            e.getMessage());
      }
    }
    String leaving = memberId();
    if (!leaving.isEmpty()) {
      try {
        coordinatorRequest(Request.newBuilder().setLeaveGroup(LeaveGroupRequest.newBuilder().setGroup(group)
            .setMemberId(leaving)), deadlineFromNow()).get(client.settings().requestTimeout().toMillis(),
            TimeUnit.MILLISECONDS);
      } catch (Exception e) {
        log.info("group {}: leaving failed ({}); the coordinator removes {} after its session timeout", group,
            e.getMessage(), leaving);
      }
    }
  }

  private synchronized boolean isClosed() {
    return closed;
  }

  private long startOffset() {
    return options.reset() == OffsetReset.EARLIEST ? 0 : Long.MAX_VALUE / 2;
  }

  private void autoCommitIfDue() {
    if (!options.autoCommit() || System.nanoTime() - lastAutoCommitNanos < options.autoCommitInterval().toNanos()) {
      return;
    }
    lastAutoCommitNanos = System.nanoTime();
    commitAsync().exceptionally(e -> {
      log.debug("group {}: auto-commit failed: {}", group, e.getMessage());
      return null;
    });
  }

  /** Joins when needed; the positions to fetch from (empty when nothing is assigned or the join failed). */
  private Map<Integer, Long> ensureJoined(long deadline) {
    synchronized (this) {
      if (group == null) {
        throw new IllegalStateException("subscribe first");
      }
      if (!joinNeeded) {
        return new TreeMap<>(positions);
      }
    }
    if (options.autoCommit()) {
      // The shards this member holds are released by the join; what it read of them is committed first.
      try {
        commitSync();
      } catch (RuntimeException e) {
        log.debug("group {}: commit before joining again failed: {}", group, e.getMessage());
      }
    }
    JoinGroupRequest.Builder join = JoinGroupRequest.newBuilder().setGroup(group).setMemberId(memberId())
        .setStream(stream).setSessionTimeoutMs((int) options.sessionTimeout().toMillis());
    Response r = awaitResponse(coordinatorRequest(Request.newBuilder().setJoinGroup(join), deadline));
    if (r == null) {
      return Map.of();
    }
    if (Errors.isError(r)) {
      memberStale(r.getError().getCode());
      if (r.getError().getCode() != ErrorCode.UNKNOWN_MEMBER) {
        log.warn("group {}: join failed: {}", group, Errors.format(r.getError()));
      }
      return Map.of();
    }
    JoinGroupResponse joined = r.getJoinGroup();
    Response committed = awaitResponse(coordinatorRequest(Request.newBuilder().setFetchOffsets(
        FetchOffsetsRequest.newBuilder().setGroup(group).setStream(stream)), deadline));
    if (committed == null || Errors.isError(committed)) {
      return Map.of();
    }
    Map<Integer, Long> offsets = new TreeMap<>();
    committed.getFetchOffsets().getOffsetsList().forEach(o -> offsets.put(o.getShard(), o.getOffset()));
    synchronized (this) {
      // A member holds its shards from one join to the next, and no other member is granted them meanwhile: a
      // shard granted again was this member's all along, so its position (records polled, maybe not committed)
      // stands. A new member id (the coordinator forgot the old one) starts from the committed offsets.
      boolean sameMember = memberId.equals(joined.getMemberId());
      Map<Integer, Long> kept = new TreeMap<>();
      for (int shard : joined.getShardsList()) {
        Long mine = sameMember ? positions.get(shard) : null;
        kept.put(shard, mine != null && mine >= 0 ? mine : offsets.getOrDefault(shard, -1L));
      }
      positions.clear();
      positions.putAll(kept);
      memberId = joined.getMemberId();
      generation = joined.getGeneration();
      joinNeeded = false;
      log.info("group {}: member {} at generation {} owns shards {} of {}", group, memberId, generation,
          positions.keySet(), stream);
      return new TreeMap<>(positions);
    }
  }

  private void heartbeat() {
    HeartbeatRequest.Builder beat;
    synchronized (this) {
      if (joinNeeded || closed) {
        return;
      }
      beat = HeartbeatRequest.newBuilder().setGroup(group).setMemberId(memberId).setGeneration(generation);
    }
    Response r = awaitResponse(coordinatorRequest(Request.newBuilder().setHeartbeat(beat), deadlineFromNow()));
    if (r != null && Errors.isError(r)) {
      memberStale(r.getError().getCode());
    }
  }

  /** After a group error: rejoin at the next poll (as a new member when this one is unknown). */
  private synchronized void memberStale(ErrorCode code) {
    switch (code) {
      case UNKNOWN_MEMBER -> {
        memberId = "";
        joinNeeded = true;
      }
      case REBALANCE_IN_PROGRESS, ILLEGAL_GENERATION -> joinNeeded = true;
      default -> { }
    }
  }

  /**
   * Sends a group request to the coordinator, finding it first; NOT_COORDINATOR and connection failures forget the
   * coordinator and try again until {@code deadline}. Completes with the coordinator's answer (group errors too).
   */
  private CompletableFuture<Response> coordinatorRequest(Request.Builder request, long deadline) {
    CompletableFuture<Response> result = new CompletableFuture<>();
    attempt(request, deadline, 0, result);
    return result;
  }

  private void attempt(Request.Builder request, long deadline, int attempt, CompletableFuture<Response> result) {
    CompletableFuture<Response> sent = client.settings().mode() == ClientMode.PLAIN
        ? client.sendToPlainBroker(request.clone().setForwardIfNotCoordinator(true))
        : coordinator().thenCompose(target -> client.send(target, request.clone()));
    sent.whenComplete((r, e) -> {
      ErrorCode code = r != null && Errors.isError(r) ? r.getError().getCode() : ErrorCode.NONE;
      boolean retry = e != null ? FelixException.from(e).retriable()
          : code == ErrorCode.NOT_COORDINATOR || code == ErrorCode.TIMEOUT
              || code == ErrorCode.NOT_ENOUGH_REPLICAS;
      if (!retry) {
        if (e != null) {
          result.completeExceptionally(e);
        } else {
          result.complete(r);
        }
        return;
      }
      coordinator = null;
      long backoff = client.settings().backoffNanos(attempt + 1);
      if (System.nanoTime() + backoff >= deadline || isClosed() && !request.hasLeaveGroup()
          && !request.hasCommitOffsets()) {
        if (e != null) {
          result.completeExceptionally(e);
        } else {
          result.complete(r);
        }
        return;
      }
      CompletableFuture.delayedExecutor(backoff, TimeUnit.NANOSECONDS)
          .execute(() -> attempt(request, deadline, attempt + 1, result));
    });
  }

  private CompletableFuture<HostPort> coordinator() {
    HostPort known = coordinator;
    if (known != null) {
      return CompletableFuture.completedFuture(known);
    }
    List<HostPort> bootstrap = client.settings().bootstrap();
    HostPort ask = bootstrap.get(Math.floorMod(bootstrapTurn++, bootstrap.size()));
    return client.send(ask, Request.newBuilder().setFindCoordinator(FindCoordinatorRequest.newBuilder()
        .setGroup(group))).thenApply(r -> {
          if (Errors.isError(r)) {
            throw FelixException.broker(r.getError()).withContext("FindCoordinator for group " + group);
          }
          HostPort found = new HostPort(r.getFindCoordinator().getHost(), r.getFindCoordinator().getPort());
          coordinator = found;
          return found;
        });
  }

  private long deadlineFromNow() {
    return System.nanoTime() + client.settings().requestTimeout().toNanos();
  }

  private Response awaitResponse(CompletableFuture<Response> f) {
    try {
      return f.get(client.settings().requestTimeout().toMillis() * 3, TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      log.debug("group {}: request failed: {}", group, e.getMessage());
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  private static <T> T await(CompletableFuture<T> f, long waitMs) {
    try {
      return f.get(waitMs + 30_000, TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  private static void sleepUntil(long nanos) {
    long ms = TimeUnit.NANOSECONDS.toMillis(nanos - System.nanoTime());
    if (ms > 0) {
      try {
        Thread.sleep(ms);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}

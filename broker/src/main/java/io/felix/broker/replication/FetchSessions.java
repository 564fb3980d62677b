package io.felix.broker.replication;

import io.felix.broker.assignment.ShardId;
import io.felix.broker.shard.LeaderFetchers;
import io.felix.broker.shard.ReplicaRegistry;
import io.felix.broker.shard.ShardReplica;
import io.felix.broker.transport.ReplicationSettings;
import io.felix.broker.transport.ReplicationTransport;
import io.felix.protocol.replication.FetchSessionAnswer;
import io.felix.protocol.replication.FetchSessionRequest;
import io.felix.protocol.replication.ReplicaFetch;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;

/**
 * This broker's fetch sessions, both ways: a {@link LeaderFetcher} for every other broker (this broker fetching the
 * shards it follows there) and a {@link FollowerSession} for every broker that fetches from this one. Replicas reach
 * the fetchers through {@link LeaderFetchers}; {@link ReplicationInbound} hands them the session frames. The actors
 * are created on first use, under the system guardian (so they outlive the replicas while the system stops).
 * Thread-safe.
 */
public final class FetchSessions implements LeaderFetchers {
  private final ActorSystem<?> system;
  private final int selfId;
  private final Supplier<ReplicationTransport> transport;
  private final ReplicationSettings settings;
  private final ReplicaRegistry registry;
  private final Map<Integer, ActorRef<LeaderFetcher.Command>> fetchers = new ConcurrentHashMap<>();
  private final Map<Integer, AtomicLong> lastAnswers = new ConcurrentHashMap<>();
  private final Map<Integer, ActorRef<FollowerSession.Command>> sessions = new ConcurrentHashMap<>();

  public FetchSessions(ActorSystem<?> system, int selfId, Supplier<ReplicationTransport> transport,
      ReplicationSettings settings, ReplicaRegistry registry) {
    this.system = system;
    this.selfId = selfId;
    this.transport = transport;
    this.settings = settings;
    this.registry = registry;
  }

  @Override
  public void follow(int leaderBroker, ShardId id, ActorRef<ShardReplica.Command> replica, ReplicaFetch position) {
    fetcher(leaderBroker).tell(new LeaderFetcher.Follow(id, replica, position));
  }

  @Override
  public void unfollow(int leaderBroker, ShardId id, ActorRef<ShardReplica.Command> replica) {
    ActorRef<LeaderFetcher.Command> fetcher = fetchers.get(leaderBroker);
    if (fetcher != null) {
      fetcher.tell(new LeaderFetcher.Unfollow(id, replica));
    }
  }

  @Override
  public long lastAnswerNanos(int leaderBroker) {
    AtomicLong last = lastAnswers.get(leaderBroker);
    return last == null ? Long.MIN_VALUE : last.get();
  }

  @Override
  public void brokers(Set<Integer> brokers) {
    for (int b : brokers) {
      if (b != selfId) {
        fetcher(b);
      }
    }
  }

  /** A fetch-session request of {@code fromBroker} arrived (a transport thread). */
  void onRequest(int fromBroker, FetchSessionRequest request) {
    sessions.computeIfAbsent(fromBroker, b -> system.systemActorOf(
        FollowerSession.create(selfId, b, transport, registry, settings), "follower-session-" + b, Props.empty()))
        .tell(new FollowerSession.RequestArrived(request));
  }

  /** The answer of {@code fromBroker} to one of this broker's requests arrived (a transport thread). */
  void onAnswer(int fromBroker, FetchSessionAnswer answer) {
    ActorRef<LeaderFetcher.Command> fetcher = fetchers.get(fromBroker);
    if (fetcher != null) {
      fetcher.tell(new LeaderFetcher.AnswerArrived(answer));
    }
  }

  private ActorRef<LeaderFetcher.Command> fetcher(int leaderBroker) {
    if (leaderBroker == selfId || leaderBroker < 0) {
      throw new IllegalArgumentException("broker " + selfId + " cannot fetch from broker " + leaderBroker);
    }
    return fetchers.computeIfAbsent(leaderBroker, b -> system.systemActorOf(LeaderFetcher.create(selfId, b,
        transport, settings, lastAnswers.computeIfAbsent(b, x -> new AtomicLong(Long.MIN_VALUE))),
        "leader-fetcher-" + b, Props.empty()));
  }
}

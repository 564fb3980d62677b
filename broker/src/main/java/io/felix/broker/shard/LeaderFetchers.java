package io.felix.broker.shard;

import io.felix.broker.assignment.ShardId;
import io.felix.protocol.replication.ReplicaFetch;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * This broker's fetchers, one per leader broker (kept by {@code io.felix.broker.replication}): a follower replica
 * tells the fetcher of its leader's broker where its log is, and gets the leader's answers for its shard as
 * {@link ShardReplica.FetchResultArrived}. The fetcher sends only what changed, in one request for all the shards
 * it fetches. Thread-safe.
 */
public interface LeaderFetchers {

  /**
   * The position of {@code replica}'s log ({@code position} as the leader will check it): a new fetch id starts the
   * shard anew at the leader, the same one is an ack and progress report. Replaces what {@code id} followed before
   * (another leader broker included, which then stops fetching it).
   */
  void follow(int leaderBroker, ShardId id, ActorRef<ShardReplica.Command> replica, ReplicaFetch position);

  /** {@code replica} no longer fetches {@code id} from {@code leaderBroker} (ignored when another replica does). */
  void unfollow(int leaderBroker, ShardId id, ActorRef<ShardReplica.Command> replica);

  /**
   * When {@code leaderBroker} last answered this broker's fetch session (the broker's monotonic nanoseconds), or
   * {@link Long#MIN_VALUE} when it never did.
   */
  long lastAnswerNanos(int leaderBroker);

  /** The brokers of the newest assignment table: every other one gets a fetcher (a session that proves it alive). */
  void brokers(Set<Integer> brokers);

  /** Fetches nothing (a registry without a data plane, tests of other parts). */
  LeaderFetchers NONE = new LeaderFetchers() {
    @Override
    public void follow(int leaderBroker, ShardId id, ActorRef<ShardReplica.Command> replica, ReplicaFetch position) {}

    @Override
    public void unfollow(int leaderBroker, ShardId id, ActorRef<ShardReplica.Command> replica) {}

    @Override
    public long lastAnswerNanos(int leaderBroker) {
      return Long.MIN_VALUE;
    }

    @Override
    public void brokers(Set<Integer> brokers) {}
  };
}

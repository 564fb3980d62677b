package io.felix.broker.control;

import io.felix.broker.assignment.BrokerRole;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.shard.ReplicaDirectory;
import io.felix.broker.shard.ReplicaRoleBoard;
import io.felix.broker.shard.ReplicaStatuses;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.javadsl.ActorContext;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.cluster.Member;
import org.apache.pekko.cluster.typed.Cluster;

/**
 * Reaches every broker's data plane {@link ReplicaDirectory} (found through the Receptionist) on behalf of the
 * placement singleton, in batches: the fences and describes asked per shard are gathered per broker until
 * {@link #flush}, then sent as one {@link ReplicaDirectory.FenceShards} and one
 * {@link ReplicaDirectory.DescribeReplicas} per broker (split past {@link #MAX_SHARDS_PER_MESSAGE}, so an answer
 * stays well inside one Artery frame). Each answers with one {@link ReplicaStatuses}, delivered to the singleton as
 * {@link PlacementController.ReplicasAnswered}; {@link #answered} tells which epochs a fence request carried. The
 * roles asked for ({@link #describeRole}) go to each broker's {@link ReplicaRoleBoard} instead, under negative
 * request ids. A directory or board is matched to its broker id by the cluster role of the member at its address.
 */
public final class DirectoryProbe implements ReplicaProbe {

  /** At most this many shards per message: a status is under 100 bytes, so an answer stays under 200 KiB. */
  static final int MAX_SHARDS_PER_MESSAGE = 2_000;

  private final ActorContext<PlacementController.Command> context;
  private final Duration timeout;
  private final ActorRef<ReplicaStatuses> answers;
  private Set<ActorRef<ReplicaDirectory.Command>> directories = Set.of();
  private final Map<Integer, ActorRef<ReplicaDirectory.Command>> byBroker = new HashMap<>();
  private Set<ActorRef<ReplicaRoleBoard.Command>> boards = Set.of();
  private final Map<Integer, ActorRef<ReplicaRoleBoard.Command>> boardByBroker = new HashMap<>();
  private final Map<Integer, Map<ShardId, Long>> fences = new TreeMap<>();
  private final Map<Integer, Set<ShardId>> describes = new TreeMap<>();
  private final Map<Integer, Set<ShardId>> roleDescribes = new TreeMap<>();
  /** The epochs of each fence request not answered yet, by request id; old ones are dropped (see {@link #flush}). */
  private final TreeMap<Long, Map<ShardId, Long>> fencesInFlight = new TreeMap<>();
  /** The shards each roles-only request asked about, not answered yet, by request id; old ones are dropped. */
  private final TreeMap<Long, List<ShardId>> rolesInFlight = new TreeMap<>();
  private long nextRequestId = 1;

  public DirectoryProbe(ActorContext<PlacementController.Command> context, ActorRef<Receptionist.Listing> listings,
      Duration timeout) {
    this.context = context;
    this.timeout = timeout;
    this.answers = context.messageAdapter(ReplicaStatuses.class, PlacementController.ReplicasAnswered::new);
    context.getSystem().receptionist().tell(Receptionist.subscribe(ReplicaDirectory.SERVICE_KEY, listings));
    context.getSystem().receptionist().tell(Receptionist.subscribe(ReplicaRoleBoard.SERVICE_KEY, listings));
  }

  @Override
  public void listed(Receptionist.Listing listing) {
    if (listing.isForKey(ReplicaDirectory.SERVICE_KEY)) {
      directories = listing.getServiceInstances(ReplicaDirectory.SERVICE_KEY);
      byBroker.clear();
    }
    if (listing.isForKey(ReplicaRoleBoard.SERVICE_KEY)) {
      boards = listing.getServiceInstances(ReplicaRoleBoard.SERVICE_KEY);
      boardByBroker.clear();
    }
  }

  @Override
  public boolean fence(int brokerId, ShardId shard, long epoch) {
    if (directoryOf(brokerId) == null) {
      return false;
    }
    fences.computeIfAbsent(brokerId, b -> new HashMap<>()).put(shard, epoch);
    return true;
  }

  @Override
  public boolean describe(int brokerId, ShardId shard) {
    return queue(directoryOf(brokerId) != null, describes, brokerId, shard);
  }

  /** Role questions go to the brokers' role boards under negative request ids: {@link #answersRolesOnly}. */
  @Override
  public boolean describeRole(int brokerId, ShardId shard) {
    return queue(boardOf(brokerId) != null, roleDescribes, brokerId, shard);
  }

  /** Queues a question about {@code shard} for the broker's next message, if its actor is known. */
  private static boolean queue(boolean known, Map<Integer, Set<ShardId>> questions, int brokerId, ShardId shard) {
    if (known) {
      questions.computeIfAbsent(brokerId, b -> new LinkedHashSet<>()).add(shard);
    }
    return known;
  }

  @Override
  public void flush() {
    long timeoutMillis = timeout.toMillis();
    fences.forEach((brokerId, epochs) -> {
      ActorRef<ReplicaDirectory.Command> directory = directoryOf(brokerId);
      for (Map<ShardId, Long> part : parts(epochs)) {
        long id = nextRequestId++;
        fencesInFlight.put(id, part);
        if (directory != null) {
          directory.tell(new ReplicaDirectory.FenceShards(id, part, timeoutMillis, answers));
        }
      }
    });
    describes.forEach((brokerId, shards) -> {
      ActorRef<ReplicaDirectory.Command> directory = directoryOf(brokerId);
      for (List<ShardId> part : parts(shards)) {
        if (directory != null) {
          directory.tell(new ReplicaDirectory.DescribeReplicas(nextRequestId++, part, timeoutMillis, answers));
        }
      }
    });
    roleDescribes.forEach((brokerId, shards) -> {
      ActorRef<ReplicaRoleBoard.Command> board = boardOf(brokerId);
      for (List<ShardId> part : parts(shards)) {
        if (board != null) {
          long id = -(nextRequestId++);
          rolesInFlight.put(id, part);
          board.tell(new ReplicaRoleBoard.DescribeRoles(id, part, true, answers));
        }
      }
    });
    fences.clear();
    describes.clear();
    roleDescribes.clear();
    // An answer comes within the timeout or not at all; keep the ids of a few rounds, never an unbounded table.
    while (fencesInFlight.size() > 10_000) {
      fencesInFlight.pollFirstEntry();
    }
    while (rolesInFlight.size() > 10_000) {
      rolesInFlight.pollLastEntry(); // the oldest: role requests count down from -1
    }
  }

  @Override
  public List<ShardId> rolesAsked(long requestId) {
    List<ShardId> asked = rolesInFlight.remove(requestId);
    return asked == null ? List.of() : asked;
  }

  @Override
  public Map<ShardId, Long> answered(long requestId) {
    Map<ShardId, Long> epochs = fencesInFlight.remove(requestId);
    return epochs == null ? Map.of() : epochs;
  }

  /** The shards in order, cut into messages of at most {@link #MAX_SHARDS_PER_MESSAGE}. */
  private static List<List<ShardId>> parts(Set<ShardId> shards) {
    List<ShardId> all = new ArrayList<>(shards);
    List<List<ShardId>> parts = new ArrayList<>();
    for (int from = 0; from < all.size(); from += MAX_SHARDS_PER_MESSAGE) {
      parts.add(all.subList(from, Math.min(all.size(), from + MAX_SHARDS_PER_MESSAGE)));
    }
    return parts;
  }

  private static List<Map<ShardId, Long>> parts(Map<ShardId, Long> epochs) {
    List<Map<ShardId, Long>> parts = new ArrayList<>();
    Map<ShardId, Long> part = new HashMap<>();
    for (Map.Entry<ShardId, Long> e : epochs.entrySet()) {
      part.put(e.getKey(), e.getValue());
      if (part.size() == MAX_SHARDS_PER_MESSAGE) {
        parts.add(part);
        part = new HashMap<>();
      }
    }
    if (!part.isEmpty()) {
      parts.add(part);
    }
    return parts;
  }

  private ActorRef<ReplicaDirectory.Command> directoryOf(int brokerId) {
    return actorOf(brokerId, byBroker, directories);
  }

  private ActorRef<ReplicaRoleBoard.Command> boardOf(int brokerId) {
    return actorOf(brokerId, boardByBroker, boards);
  }

  /** The broker's actor among {@code listed}, resolved once and then kept in {@code known}; null if not listed. */
  private <T> ActorRef<T> actorOf(int brokerId, Map<Integer, ActorRef<T>> known, Set<ActorRef<T>> listed) {
    ActorRef<T> found = known.get(brokerId);
    if (found != null) {
      return found;
    }
    Map<Integer, ActorRef<T>> resolved = resolve(context.getSystem(), listed);
    known.putAll(resolved);
    return resolved.get(brokerId);
  }

  /**
   * Broker id of each of the brokers' actors (their directories, their role boards), from the cluster role of the
   * member at the actor's address.
   */
  public static <T> Map<Integer, ActorRef<T>> resolve(
      org.apache.pekko.actor.typed.ActorSystem<?> system, Set<ActorRef<T>> actors) {
    Cluster cluster = Cluster.get(system);
    Map<Address, Integer> brokerAt = new HashMap<>();
    for (Member member : cluster.state().getMembers()) {
      BrokerRole.idOf(member.getRoles()).ifPresent(id -> brokerAt.put(member.address(), id));
    }
    Address self = cluster.selfMember().address();
    Map<Integer, ActorRef<T>> out = new HashMap<>();
    for (ActorRef<T> actor : actors) {
      Address address = actor.path().address();
      Integer id = brokerAt.get(address.hasGlobalScope() ? address : self);
      if (id != null) {
        out.put(id, actor);
      }
    }
    return out;
  }
}

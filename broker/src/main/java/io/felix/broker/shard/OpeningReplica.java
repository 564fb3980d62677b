package io.felix.broker.shard;

import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.log.ReplicaState;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.concurrent.CompletableFuture;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.PostStop;
import org.apache.pekko.actor.typed.javadsl.AbstractBehavior;
import org.apache.pekko.actor.typed.javadsl.Receive;
import org.apache.pekko.actor.typed.javadsl.StashBuffer;

/**
 * The first behaviour of a shard replica: its log and {@code replica.state} open on Pekko's blocking-IO dispatcher
 * while every message to the replica waits in its stash, then it takes its role ({@link ShardReplica#roleFor}) and
 * handles them in the order they came, as if the log had opened at once.
 *
 * <p>Why off the actor's thread: opening reads the log's files (recovery of its last segment, its epochs and
 * producer state), and thousands of replicas start together (a stream of 10,000 shards created, a broker restarted).
 * On the replica dispatcher, which has one thread per core, those opens would hold every replica of the broker
 * until they are all done; on their own dispatcher (felix.replica-open-dispatcher) they run many at a time, the
 * replicas already open keep serving, and their state writes (on the blocking-IO dispatcher) do not wait behind
 * the opens still queued.
 *
 * <p>The stash is as unbounded as the mailbox the messages would otherwise have waited in: nothing is dropped, and
 * the wait lasts one open. A client's produce is the exception: it is answered at once
 * ({@link ShardReplica#refuseProduceWhileBusy}). The directory answers for a replica in this behaviour itself ({@link ReplicaRole#STARTING}).
 */
final class OpeningReplica extends AbstractBehavior<ShardReplica.Command> {

  /** The log opened ({@code opened}), or could not be ({@code failure}). */
  record LogOpened(ReplicaWiring.OpenedLog opened, String failure) implements ShardReplica.Command {}

  /** Where logs open: not behind the blocking-IO dispatcher's state writes, nor those behind opens (reference.conf). */
  private static final DispatcherSelector OPEN_DISPATCHER =
      DispatcherSelector.fromConfig("felix.replica-open-dispatcher");

  private final ReplicaWiring wiring;
  private final ShardAssignment assignment;
  private final ActorRef<ReplicaDirectory.Command> directory;
  private final StashBuffer<ShardReplica.Command> stash;
  private final CompletableFuture<ReplicaWiring.OpenedLog> opening;

  private OpeningReplica(ReplicaWiring wiring, ShardAssignment assignment,
      ActorRef<ReplicaDirectory.Command> directory) {
    super(wiring.actor());
    this.wiring = wiring;
    this.assignment = assignment;
    this.directory = directory;
    this.stash = wiring.stash();
    this.opening = CompletableFuture.supplyAsync(() -> {
      try {
        return wiring.openLog(assignment);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }, wiring.actor().getSystem().dispatchers().lookup(OPEN_DISPATCHER));
    wiring.actor().pipeToSelf(opening, (opened, failure) -> new LogOpened(opened, failure == null ? null
        : ShardReplica.causeOf(failure).getMessage()));
  }

  /** Starts opening the log of the replica wired by {@code wiring}, assigned {@code assignment}. */
  static Behavior<ShardReplica.Command> create(ReplicaWiring wiring, ShardAssignment assignment,
      ActorRef<ReplicaDirectory.Command> directory) {
    return new OpeningReplica(wiring, assignment, directory);
  }

  @Override
  public Receive<ShardReplica.Command> createReceive() {
    return newReceiveBuilder()
        .onMessage(LogOpened.class, this::onLogOpened)
        .onMessage(ShardReplica.Command.class, this::onWhileOpening)
        .onSignal(PostStop.class, this::onPostStop)
        .build();
  }

  private Behavior<ShardReplica.Command> onWhileOpening(ShardReplica.Command command) {
    if (command instanceof ShardReplica.ClientProduce p) {
      ShardReplica.refuseProduceWhileBusy(p, wiring.id(), wiring.registry());
      return this;
    }
    stash.stash(command);
    return this;
  }

  private Behavior<ShardReplica.Command> onLogOpened(LogOpened done) {
    if (done.failure() != null) {
      getContext().getLog().error("replica {} on broker {} failed: its log in {} cannot be opened: {}", wiring.id(),
          wiring.brokerId(), wiring.opener().dir(), done.failure());
      directory.tell(new ReplicaDirectory.ReplicaOpened(wiring.id(), true));
      return stash.unstashAll(FailedReplica.afterOpenFailed(wiring, assignment, done.failure()));
    }
    ReplicaContext ctx = wiring.contextFor(done.opened());
    directory.tell(new ReplicaDirectory.ReplicaOpened(wiring.id(), false));
    ReplicaState state = ctx.state();
    getContext().getLog().debug("replica {} on broker {} opened: log end {}, last epoch {}, promised epoch {}{}",
        ctx.id, ctx.brokerId, ctx.log.logEndOffset(), ctx.log.lastEpoch(), state.promisedEpoch(),
        state.recovering() ? ", new or wiped: it vouches for nothing until it has caught up with a leader" : "");
    return stash.unstashAll(ShardReplica.roleFor(ctx, assignment));
  }

  /** Stopped before the open finished (its broker shuts down): the log is closed once it is open. */
  private Behavior<ShardReplica.Command> onPostStop(PostStop signal) {
    opening.thenAccept(opened -> {
      try {
        opened.log().close();
      } catch (IOException ignored) {
        // the replica is gone; a log that cannot close is recovered from its files when it opens next
      }
    });
    return this;
  }
}

package io.felix.broker.node;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.apache.pekko.cluster.typed.JoinSeedNodes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a broker joins its cluster through the configured seed nodes.
 *
 * <p>Pekko lets the first seed node form a new cluster when no other seed answers within
 * {@code seed-node-timeout} (5 s). That is right for the very first start, but a first seed node that is
 * restarted while the others run (a crash, a kill, a rolling restart) may not hear from them that quickly on a
 * loaded machine: it would then form a second cluster beside the first, with a second placement singleton on the
 * same journal. So a broker that has been a member before ({@value #MARKER} in its data directory, written once
 * it is up) forms a cluster at once only when no other seed's process listens on its cluster port (every broker
 * was stopped); otherwise it asks the other seeds, and forms the cluster only when none has answered within
 * {@code felix.cluster.rejoin-timeout} (brokers running but not members: they were stopped and are starting too).
 */
final class ClusterJoin {
  private static final Logger log = LoggerFactory.getLogger(ClusterJoin.class);

  /** Written, and fsynced, once this broker is up in a cluster. */
  static final String MARKER = "cluster-member";

  /** What to do at start; {@code seeds} is what to send as JoinSeedNodes. */
  record Plan(List<Address> seeds, boolean mayFormAfterTimeout) {}

  private ClusterJoin() {}

  /**
   * @param wasMember whether this broker has been up in a cluster before (its data directory says so)
   */
  static Plan plan(List<Address> seeds, Address self, boolean wasMember) {
    boolean firstSeed = !seeds.isEmpty() && seeds.get(0).equals(self);
    if (!firstSeed || !wasMember) {
      return new Plan(seeds, false);
    }
    // Without itself in the list, Pekko's seed process retries the other seeds and never forms a cluster.
    return new Plan(seeds.stream().filter(a -> !a.equals(self)).toList(), seeds.size() > 1);
  }

  /** Starts joining the seeds, and records membership in {@code dataDir} once this broker is up. */
  static void start(ActorSystem<?> system, List<Address> seeds, Path dataDir, Duration rejoinTimeout) {
    Cluster cluster = Cluster.get(system);
    Address self = cluster.selfMember().address();
    Path marker = dataDir.resolve(MARKER);
    org.apache.pekko.cluster.Cluster.get(org.apache.pekko.actor.typed.javadsl.Adapter.toClassic(system))
        .registerOnMemberUp(() -> writeMarker(marker));
    Plan plan = plan(seeds, self, Files.exists(marker));
    if (plan.seeds().isEmpty()) {
      cluster.manager().tell(new Join(self));
      return;
    }
    if (plan.mayFormAfterTimeout() && plan.seeds().stream().noneMatch(ClusterJoin::listening)) {
      // No other seed's process even listens: no cluster is running to be joined (every broker was stopped).
      log.info("Broker was a cluster member before; no other seed node is running: forming the cluster again");
      cluster.manager().tell(new Join(self));
      return;
    }
    cluster.manager().tell(new JoinSeedNodes(plan.seeds()));
    if (plan.mayFormAfterTimeout()) {
      log.info("Broker was a cluster member before and is the first seed node: joining the running cluster through"
          + " {}; forming a new one only if none answers within {}", plan.seeds(), rejoinTimeout);
      system.scheduler().scheduleOnce(rejoinTimeout, () -> {
        if (cluster.selfMember().status().equals(MemberStatus.removed())) { // never joined: no cluster answered
          log.warn("No seed node answered within {}: every broker was down; forming the cluster again", rejoinTimeout);
          cluster.manager().tell(new Join(self));
        }
      }, system.executionContext());
    }
  }

  /** Whether a process accepts connections on the seed's cluster port (a broker is running there). */
  private static boolean listening(Address seed) {
    if (seed.getHost().isEmpty() || seed.getPort().isEmpty()) {
      return false;
    }
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(seed.getHost().get(), seed.getPort().get()), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private static void writeMarker(Path marker) {
    try (FileChannel channel = FileChannel.open(marker, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
      channel.force(true);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + marker, e);
    }
  }
}

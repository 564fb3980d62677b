package io.felix.broker.node;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.cluster.typed.Cluster;
import org.apache.pekko.cluster.typed.Join;
import org.apache.pekko.cluster.typed.JoinSeedNodes;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a broker joins its cluster through the configured seed nodes.
 *
 * <p>Only the first seed node may form a new cluster. Pekko's first-seed process asks the other seeds every
 * second: it joins the first that answers as a member, forms a new cluster at once when every other seed answers
 * that it is not a member (they are all starting), and forms one when some stay silent past
 * {@code seed-node-timeout}. Pekko's 5 s is too short on a loaded machine: a first seed restarted while the
 * cluster runs (a crash, a kill, a replaced disk, which also loses anything it wrote about having been a member)
 * would form a second cluster beside the first, with a second placement singleton on the same journal. So the
 * first seed's {@code seed-node-timeout} is {@code felix.cluster.rejoin-timeout} (set by {@link NodeConfig}), and
 * when no other seed's process even listens on its cluster port (every broker is stopped: nothing to ask and no
 * cluster to split from) the first seed forms the cluster at once instead of waiting that long.
 */
final class ClusterJoin {
  private static final Logger log = LoggerFactory.getLogger(ClusterJoin.class);

  private ClusterJoin() {}

  /** Whether {@code self} is the first of the seed nodes: the one broker that may form a new cluster. */
  static boolean isFirstSeed(List<Address> seeds, Address self) {
    return !seeds.isEmpty() && seeds.get(0).equals(self);
  }

  /**
   * Whether this broker forms the cluster at once rather than running Pekko's seed-node process.
   *
   * @param anotherSeedListens whether some other seed's process accepts connections on its cluster port
   */
  static boolean formsAtOnce(List<Address> seeds, Address self, boolean anotherSeedListens) {
    return isFirstSeed(seeds, self) && (seeds.size() == 1 || !anotherSeedListens);
  }

  /** Starts joining the seeds (or forms the cluster, as {@link #formsAtOnce} decides). */
  static void start(ActorSystem<?> system, List<Address> seeds) {
    Cluster cluster = Cluster.get(system);
    Address self = cluster.selfMember().address();
    boolean anotherSeedListens = isFirstSeed(seeds, self)
        && seeds.stream().filter(a -> !a.equals(self)).anyMatch(ClusterJoin::listening);
    if (formsAtOnce(seeds, self, anotherSeedListens)) {
      log.info("First seed node, and no other seed node is running: forming the cluster");
      cluster.manager().tell(new Join(self));
      return;
    }
    cluster.manager().tell(new JoinSeedNodes(seeds));
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
}

package io.felix.broker.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.List;
import org.apache.pekko.actor.Address;
import org.apache.pekko.actor.AddressFromURIString;
import org.junit.jupiter.api.Test;

class ClusterJoinTest {
  private static final Address B0 = AddressFromURIString.parse("pekko://felix@127.0.0.1:2551");
  private static final Address B1 = AddressFromURIString.parse("pekko://felix@127.0.0.1:2552");
  private static final Address B2 = AddressFromURIString.parse("pekko://felix@127.0.0.1:2553");
  private static final List<Address> SEEDS = List.of(B0, B1, B2);

  @Test
  void theFirstSeedFormsAtOnceOnlyWhenNoOtherSeedRuns() {
    assertTrue(ClusterJoin.formsAtOnce(SEEDS, B0, false));
    assertFalse(ClusterJoin.formsAtOnce(SEEDS, B0, true), "another seed runs: ask it first (it may be a member)");
  }

  @Test
  void otherSeedsNeverFormAClusterThemselves() {
    assertFalse(ClusterJoin.formsAtOnce(SEEDS, B1, false));
    assertFalse(ClusterJoin.formsAtOnce(SEEDS, B2, true));
  }

  @Test
  void aLoneSeedFormsAtOnce() {
    assertTrue(ClusterJoin.formsAtOnce(List.of(B0), B0, true));
  }

  @Test
  void onlyTheFirstSeedWaitsTheRejoinTimeoutBeforeFormingAlone() {
    assertEquals(17_000, seedNodeTimeoutMillis(2551));
    assertEquals(3_000, seedNodeTimeoutMillis(2552), "the join retry interval: a later seed asks its seeds that often");
  }

  private static long seedNodeTimeoutMillis(int port) {
    Config config = NodeConfig.derive(ConfigFactory.parseString("""
        felix.cluster {
          port = %d
          rejoin-timeout = 17s
          join-retry-interval = 3s
          seed-nodes = ["pekko://felix@127.0.0.1:2551", "pekko://felix@127.0.0.1:2552", "pekko://felix@127.0.0.1:2553"]
        }
        felix.persistence.url = "jdbc:h2:file:/tmp/felix-cluster-join-test"
        """.formatted(port)));
    return config.getDuration("pekko.cluster.seed-node-timeout").toMillis();
  }
}

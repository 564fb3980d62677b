package io.felix.broker.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
  void theFirstSeedOnItsFirstStartMayFormTheClusterAsPekkoDoes() {
    assertEquals(new ClusterJoin.Plan(SEEDS, false), ClusterJoin.plan(SEEDS, B0, false));
  }

  @Test
  void aRestartedFirstSeedAsksTheOthersAndFormsAClusterOnlyAfterTheRejoinTimeout() {
    assertEquals(new ClusterJoin.Plan(List.of(B1, B2), true), ClusterJoin.plan(SEEDS, B0, true));
  }

  @Test
  void otherSeedsNeverFormAClusterThemselves() {
    assertEquals(new ClusterJoin.Plan(SEEDS, false), ClusterJoin.plan(SEEDS, B1, true));
    assertEquals(new ClusterJoin.Plan(SEEDS, false), ClusterJoin.plan(SEEDS, B2, false));
  }

  @Test
  void aLoneSeedThatWasAMemberRejoinsItselfAtOnce() {
    assertEquals(new ClusterJoin.Plan(List.of(), false), ClusterJoin.plan(List.of(B0), B0, true));
  }
}

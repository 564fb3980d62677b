package io.felix.broker.control;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.felix.broker.control.BrokerLiveness.BrokerMember;
import java.util.List;
import java.util.Set;
import org.apache.pekko.actor.Address;
import org.apache.pekko.cluster.MemberStatus;
import org.apache.pekko.cluster.UniqueAddress;
import org.junit.jupiter.api.Test;

/** Which members a broker downs on the data plane's evidence that their process is gone. */
class ClosedPeerDowningTest {

  private final ClosedPeerDowning downing = new ClosedPeerDowning(0);

  @Test
  void aMemberWhoseConnectionClosedIsDownedOnceWhileAMajorityStillReachesThisBroker() {
    List<BrokerMember> all = List.of(up(0, 1), up(1, 1), up(2, 1));
    assertEquals(List.of(), downing.check(all, Set.of()));

    assertEquals(List.of(incarnation(2, 1)), downing.check(all, Set.of(2)),
        "brokers 0 and 1 are two of three: a majority");
    assertEquals(List.of(), downing.check(all, Set.of(2)), "each incarnation is downed once");
  }

  @Test
  void aBrokerCutOffFromTheOthersDownsNobody() {
    List<BrokerMember> all = List.of(up(0, 1), up(1, 1), up(2, 1));
    downing.check(all, Set.of());
    assertEquals(List.of(), downing.check(all, Set.of(1, 2)), "only broker 0 itself vouches: a minority");
    assertEquals(List.of(), downing.check(List.of(up(0, 1), unreachable(1, 1), up(2, 1)), Set.of(2)),
        "broker 1 is unreachable: broker 0 alone is no majority of three");
  }

  @Test
  void aRestartedIncarnationIsNotDownedOnTheEvidenceAboutTheOldOneNorIsAMemberNeverSeenBefore() {
    downing.check(List.of(up(0, 1), up(1, 1)), Set.of());
    // Broker 2 joins while broker 0 still has a refused connection from before it listened: no evidence about it.
    assertEquals(List.of(), downing.check(List.of(up(0, 1), up(1, 1), up(2, 1)), Set.of(2)));
    assertEquals(List.of(), downing.check(List.of(up(0, 1), up(1, 1), up(2, 1)), Set.of(2)),
        "the closure was already there when broker 2 joined: checked again, it is still no evidence about it");

    downing.check(List.of(up(0, 1), up(1, 1), up(2, 1)), Set.of());
    // Broker 1 was killed and a new incarnation joined before broker 0's next check: the old one is gone.
    assertEquals(List.of(), downing.check(List.of(up(0, 1), up(1, 2), up(2, 1)), Set.of(1)));
  }

  @Test
  void aLeavingMemberIsNotDowned() {
    downing.check(List.of(up(0, 1), up(1, 1), up(2, 1)), Set.of());
    BrokerMember leaving = new BrokerMember(2, MemberStatus.leaving(), true, incarnation(2, 1));
    assertEquals(List.of(), downing.check(List.of(up(0, 1), up(1, 1), leaving), Set.of(2)));
  }

  private static BrokerMember up(int broker, long uid) {
    return new BrokerMember(broker, MemberStatus.up(), true, incarnation(broker, uid));
  }

  private static BrokerMember unreachable(int broker, long uid) {
    return new BrokerMember(broker, MemberStatus.up(), false, incarnation(broker, uid));
  }

  private static UniqueAddress incarnation(int broker, long uid) {
    return new UniqueAddress(new Address("pekko", "felix", "127.0.0.1", 2551 + broker), uid);
  }
}

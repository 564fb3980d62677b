package io.felix.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.protocol.client.Error;
import io.felix.protocol.client.ErrorCode;
import org.junit.jupiter.api.Test;

class ErrorsTest {
  @Test
  void notLeaderNamesTheLeaderAndIsSafeToRetry() {
    Error e = Errors.notLeader("orders", 3, 2, "127.0.0.1:9001");
    assertEquals(ErrorCode.NOT_LEADER, e.getCode());
    assertEquals(2, e.getLeaderId());
    assertEquals("127.0.0.1:9001", e.getLeaderAddress());
    assertEquals("NOT_LEADER: this broker does not lead orders/3; the leader is broker 2", Errors.format(e));
    assertTrue(Errors.definitelyNotAppended(e));
  }

  @Test
  void notLeaderCarriesTheLeadersEpochAndTheTableVersion() {
    Error e = Errors.notLeader("orders", 3, 2, "127.0.0.1:9001", 7, 41);
    assertEquals(7, e.getLeaderEpoch());
    assertEquals(41, e.getAssignmentVersion());
    assertEquals("NOT_LEADER: this broker does not lead orders/3; the leader is broker 2 at epoch 7",
        Errors.format(e));
    Error unknown = Errors.notLeader("orders", 3, -1, "", 7, 41);
    assertEquals(Errors.UNKNOWN_EPOCH, unknown.getLeaderEpoch(), "no leader, so no leader epoch");
    assertEquals(Errors.UNKNOWN_EPOCH, Errors.notLeader("orders", 3, 2, "").getLeaderEpoch());
  }

  @Test
  void timeoutIsRetriableButAmbiguousUnlessTheBrokerSaysNotAppended() {
    Error ambiguous = Errors.of(ErrorCode.TIMEOUT, "acks not met in 10000 ms");
    assertTrue(Errors.isRetriable(ErrorCode.TIMEOUT));
    assertFalse(Errors.definitelyNotAppended(ambiguous));
    assertEquals(-1, ambiguous.getLeaderId());
    assertTrue(Errors.definitelyNotAppended(Errors.notAppended(ErrorCode.NOT_ENOUGH_REPLICAS, "2 of 3 down")));
  }

  @Test
  void onlyLeaderCoordinatorReplicaTimeoutAndSequenceGapErrorsAreRetriable() {
    for (ErrorCode code : ErrorCode.values()) {
      if (code == ErrorCode.UNRECOGNIZED) {
        continue;
      }
      boolean expected =
          code == ErrorCode.NOT_LEADER || code == ErrorCode.NOT_ENOUGH_REPLICAS || code == ErrorCode.TIMEOUT
          || code == ErrorCode.OUT_OF_ORDER_SEQUENCE || code == ErrorCode.NOT_COORDINATOR;
      assertEquals(expected, Errors.isRetriable(code), code.name());
    }
  }
}

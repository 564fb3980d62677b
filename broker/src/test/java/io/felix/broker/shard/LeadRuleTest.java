package io.felix.broker.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.felix.broker.shard.LeadRule.Verdict;
import org.junit.jupiter.api.Test;

class LeadRuleTest {

  @Test
  void aNewReplicaLeadsAtItsFirstEpoch() {
    assertEquals(Verdict.LEAD, LeadRule.decide(1, -1, -1, false));
    assertEquals(Verdict.LEAD, LeadRule.decide(1, -1, 1, false), "it persisted the promise before leading");
  }

  @Test
  void anEpochGrantedBeforeTheStartIsNeverLedAgainWhateverTheLogHolds() {
    assertEquals(Verdict.EPOCH_FROM_BEFORE_START, LeadRule.decide(3, 3, 3, false));
    assertEquals(Verdict.EPOCH_FROM_BEFORE_START, LeadRule.decide(2, 3, 3, false));
    assertEquals(Verdict.LEAD, LeadRule.decide(4, 3, 3, false), "the next epoch is a new grant");
    assertEquals(Verdict.LEAD, LeadRule.decide(4, 3, 4, false), "fenced at 4 by the round that promotes it at 4");
  }

  @Test
  void aReplicaFencedSinceItsStartDoesNotLeadBelowTheFence() {
    assertEquals(Verdict.FENCED, LeadRule.decide(4, 3, 5, false));
    assertEquals(Verdict.LEAD, LeadRule.decide(5, 3, 5, false));
  }

  @Test
  void aRecoveringReplicaNeverLeads() {
    assertEquals(Verdict.RECOVERING, LeadRule.decide(7, -1, -1, true));
    assertEquals(Verdict.RECOVERING, LeadRule.decide(7, 2, 6, true));
  }
}

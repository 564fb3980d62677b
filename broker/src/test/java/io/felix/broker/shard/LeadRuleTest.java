package io.felix.broker.shard;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.felix.broker.shard.LeadRule.Verdict;
import org.junit.jupiter.api.Test;

class LeadRuleTest {

  @Test
  void aReplicaWithStateLeadsOnlyAtAnEpochGrantedAfterItsStart() {
    assertEquals(Verdict.EPOCH_FROM_BEFORE_START, LeadRule.decide(3, 3, 3, false, false));
    assertEquals(Verdict.EPOCH_FROM_BEFORE_START, LeadRule.decide(2, 3, 3, false, false));
    assertEquals(Verdict.EPOCH_FROM_BEFORE_START, LeadRule.decide(3, 3, 3, false, true), "an empty log too");
    assertEquals(Verdict.LEAD, LeadRule.decide(4, 3, 3, false, false), "the next epoch is a new grant");
    assertEquals(Verdict.LEAD, LeadRule.decide(4, 3, 4, false, false), "fenced at 4 by the round promoting it at 4");
  }

  @Test
  void aReplicaFencedSinceItsStartDoesNotLeadBelowTheFence() {
    assertEquals(Verdict.FENCED, LeadRule.decide(4, 3, 5, false, false));
    assertEquals(Verdict.LEAD, LeadRule.decide(5, 3, 5, false, false));
  }

  @Test
  void aReplicaThatOpenedWithNothingLeadsOnlyProvisionallyAndNotOnceItCopiedPartOfALog() {
    assertEquals(Verdict.LEAD_PROVISIONALLY, LeadRule.decide(1, -1, -1, true, true), "a new shard's first leader");
    assertEquals(Verdict.LEAD_PROVISIONALLY, LeadRule.decide(7, -1, -1, true, true), "or a wiped one");
    assertEquals(Verdict.RECOVERING, LeadRule.decide(7, -1, 6, true, false));
    assertEquals(Verdict.FENCED, LeadRule.decide(5, -1, 6, true, true));
  }
}

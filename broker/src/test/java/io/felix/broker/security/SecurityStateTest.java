package io.felix.broker.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.protocol.scram.Scram;
import java.util.List;
import org.junit.jupiter.api.Test;

class SecurityStateTest {
  @Test
  void aclsAllowOnlyWhatTheyNameAndDeletingAUserDropsItsAclsAndTokens() {
    SecurityState s = SecurityState.EMPTY
        .apply(new SecurityEvent.UserCredentialSet("alice", Scram.newCredential("password1", 4096)))
        .apply(new SecurityEvent.AclAdded(new AclEntry("alice", ResourceType.STREAM, "orders", Operation.PRODUCE)))
        .apply(new SecurityEvent.AclAdded(new AclEntry("alice", ResourceType.STREAM, "*", Operation.ALTER)))
        .apply(new SecurityEvent.TokenIssued("alice", "hash"));
    assertEquals(4, s.version());
    assertTrue(s.allows("alice", ResourceType.STREAM, "orders", Operation.PRODUCE));
    assertFalse(s.allows("alice", ResourceType.STREAM, "orders", Operation.CONSUME));
    assertFalse(s.allows("alice", ResourceType.STREAM, "payments", Operation.PRODUCE));
    assertTrue(s.allows("alice", ResourceType.STREAM, "payments", Operation.DESCRIBE)); // alter implies describe
    assertFalse(s.allows("bob", ResourceType.STREAM, "orders", Operation.PRODUCE));
    assertFalse(s.allows("alice", ResourceType.CACHE, "orders", Operation.PRODUCE));
    assertEquals("alice", s.tokenUser("hash").orElseThrow());
    SecurityState deleted = s.apply(new SecurityEvent.UserDeleted("alice"));
    assertEquals(List.of(), deleted.acls());
    assertTrue(deleted.tokenUser("hash").isEmpty());
    assertTrue(deleted.credential("alice").isEmpty());
  }
}

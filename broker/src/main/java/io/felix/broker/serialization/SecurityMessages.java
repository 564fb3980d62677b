package io.felix.broker.serialization;

import io.felix.broker.security.AclEntry;
import io.felix.broker.security.Operation;
import io.felix.broker.security.ResourceType;
import io.felix.broker.security.SecurityEvent;
import io.felix.broker.security.SecurityState;
import io.felix.protocol.control.AclMsg;
import io.felix.protocol.control.OperationMsg;
import io.felix.protocol.control.ResourceTypeMsg;
import io.felix.protocol.control.ScramCredentialMsg;
import io.felix.protocol.control.SecurityChangeMsg;
import io.felix.protocol.control.SecurityStateMsg;
import io.felix.protocol.control.TokenIssuedMsg;
import io.felix.protocol.control.UserCredentialMsg;
import io.felix.protocol.scram.ScramCredential;
import java.util.HashMap;
import java.util.Map;

/** The protobuf form of users, tokens and ACLs (felix_control.proto's security messages), both ways. */
final class SecurityMessages {
  private SecurityMessages() {}

  static SecurityStateMsg state(SecurityState s) {
    SecurityStateMsg.Builder b = SecurityStateMsg.newBuilder().setVersion(s.version());
    s.users().forEach((user, credential) -> b.addUsers(user(user, credential)));
    s.tokens().forEach((hash, user) -> b.addTokens(TokenIssuedMsg.newBuilder().setUser(user).setTokenHash(hash)));
    s.acls().forEach(acl -> b.addAcls(acl(acl)));
    return b.build();
  }

  static SecurityState state(SecurityStateMsg m) {
    Map<String, ScramCredential> users = new HashMap<>();
    m.getUsersList().forEach(u -> users.put(u.getUser(), credential(u.getCredential())));
    Map<String, String> tokens = new HashMap<>();
    m.getTokensList().forEach(t -> tokens.put(t.getTokenHash(), t.getUser()));
    return new SecurityState(m.getVersion(), users, tokens, m.getAclsList().stream().map(SecurityMessages::acl).toList());
  }

  static SecurityChangeMsg change(SecurityEvent e) {
    SecurityChangeMsg.Builder b = SecurityChangeMsg.newBuilder();
    if (e instanceof SecurityEvent.UserCredentialSet u) {
      b.setUserSet(user(u.user(), u.credential()));
    } else if (e instanceof SecurityEvent.UserDeleted d) {
      b.setUserDeleted(d.user());
    } else if (e instanceof SecurityEvent.AclAdded a) {
      b.setAclAdded(acl(a.acl()));
    } else if (e instanceof SecurityEvent.AclRemoved r) {
      b.setAclRemoved(acl(r.acl()));
    } else if (e instanceof SecurityEvent.TokenIssued t) {
      b.setTokenIssued(TokenIssuedMsg.newBuilder().setUser(t.user()).setTokenHash(t.tokenHash()));
    }
    return b.build();
  }

  static SecurityEvent change(SecurityChangeMsg m) {
    switch (m.getChangeCase()) {
      case USER_SET:
        return new SecurityEvent.UserCredentialSet(m.getUserSet().getUser(), credential(m.getUserSet().getCredential()));
      case USER_DELETED:
        return new SecurityEvent.UserDeleted(m.getUserDeleted());
      case ACL_ADDED:
        return new SecurityEvent.AclAdded(acl(m.getAclAdded()));
      case ACL_REMOVED:
        return new SecurityEvent.AclRemoved(acl(m.getAclRemoved()));
      case TOKEN_ISSUED:
        return new SecurityEvent.TokenIssued(m.getTokenIssued().getUser(), m.getTokenIssued().getTokenHash());
      default:
        throw new IllegalArgumentException("a SecurityChangeMsg without a change");
    }
  }

  private static UserCredentialMsg user(String user, ScramCredential c) {
    return UserCredentialMsg.newBuilder().setUser(user).setCredential(ScramCredentialMsg.newBuilder()
        .setSalt(c.salt()).setIterations(c.iterations()).setStoredKey(c.storedKey()).setServerKey(c.serverKey()))
        .build();
  }

  private static ScramCredential credential(ScramCredentialMsg m) {
    return new ScramCredential(m.getSalt(), m.getIterations(), m.getStoredKey(), m.getServerKey());
  }

  private static AclMsg acl(AclEntry a) {
    return AclMsg.newBuilder().setPrincipal(a.principal())
        .setResourceType(ResourceTypeMsg.valueOf("RESOURCE_TYPE_" + a.resourceType().name()))
        .setResourceName(a.resourceName()).setOperation(OperationMsg.valueOf("OPERATION_" + a.operation().name()))
        .build();
  }

  private static AclEntry acl(AclMsg m) {
    return new AclEntry(m.getPrincipal(),
        ResourceType.valueOf(m.getResourceType().name().substring("RESOURCE_TYPE_".length())),
        m.getResourceName(), Operation.valueOf(m.getOperation().name().substring("OPERATION_".length())));
  }
}

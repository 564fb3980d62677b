package io.felix.broker.security;

import io.felix.protocol.scram.ScramCredential;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The users (their SCRAM credentials), admin tokens (by hash) and ACLs: a pure fold of {@link SecurityEvent}s, kept
 * by the placement singleton in its state and pushed, whole, to every broker. {@code version} grows with every
 * event, so a broker keeps the newest it was sent.
 */
public record SecurityState(long version, Map<String, ScramCredential> users, Map<String, String> tokens,
    List<AclEntry> acls) {

  private static final Comparator<AclEntry> ACL_ORDER = Comparator.comparing(AclEntry::principal)
      .thenComparing(AclEntry::resourceType).thenComparing(AclEntry::resourceName)
      .thenComparing(AclEntry::operation);

  public static final SecurityState EMPTY = new SecurityState(0, Map.of(), Map.of(), List.of());

  public SecurityState {
    users = Collections.unmodifiableSortedMap(new TreeMap<>(users == null ? Map.of() : users));
    tokens = Collections.unmodifiableSortedMap(new TreeMap<>(tokens == null ? Map.of() : tokens));
    acls = (acls == null ? List.<AclEntry>of() : acls).stream().distinct().sorted(ACL_ORDER).toList();
  }

  public SecurityState apply(SecurityEvent event) {
    var users = new TreeMap<>(this.users);
    var tokens = new TreeMap<>(this.tokens);
    var acls = new ArrayList<>(this.acls);
    if (event instanceof SecurityEvent.UserCredentialSet e) {
      users.put(e.user(), e.credential());
    } else if (event instanceof SecurityEvent.UserDeleted e) {
      users.remove(e.user());
      tokens.values().removeIf(e.user()::equals);
      acls.removeIf(acl -> acl.principal().equals(e.user()));
    } else if (event instanceof SecurityEvent.AclAdded e) {
      acls.add(e.acl());
    } else if (event instanceof SecurityEvent.AclRemoved e) {
      acls.remove(e.acl());
    } else if (event instanceof SecurityEvent.TokenIssued e) {
      tokens.put(e.tokenHash(), e.user());
    }
    return new SecurityState(version + 1, users, tokens, acls);
  }

  public Optional<ScramCredential> credential(String user) {
    return Optional.ofNullable(users.get(user));
  }

  /** The user a bearer token with this SHA-256 hash (base64) was issued to. */
  public Optional<String> tokenUser(String tokenHash) {
    return Optional.ofNullable(tokens.get(tokenHash));
  }

  public boolean allows(String principal, ResourceType type, String name, Operation operation) {
    for (AclEntry acl : acls) {
      if (acl.allows(principal, type, name, operation)) {
        return true;
      }
    }
    return false;
  }
}

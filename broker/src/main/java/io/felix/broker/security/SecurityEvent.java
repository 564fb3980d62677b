package io.felix.broker.security;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import io.felix.protocol.scram.ScramCredential;

/**
 * A change to the users, tokens and ACLs, in the past tense; {@link SecurityState} is their fold. Persisted inside
 * the placement singleton's {@code PlacementEvent.SecurityChanged} (Jackson CBOR; the type name is stored, so never
 * rename these), and sent to the singleton as the change to make. No password or token is ever in one: users
 * carry their SCRAM credential, tokens their SHA-256 hash.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "type")
@JsonSubTypes({
    @JsonSubTypes.Type(value = SecurityEvent.UserCredentialSet.class, name = "user-set"),
    @JsonSubTypes.Type(value = SecurityEvent.UserDeleted.class, name = "user-deleted"),
    @JsonSubTypes.Type(value = SecurityEvent.AclAdded.class, name = "acl-added"),
    @JsonSubTypes.Type(value = SecurityEvent.AclRemoved.class, name = "acl-removed"),
    @JsonSubTypes.Type(value = SecurityEvent.TokenIssued.class, name = "token-issued")})
public sealed interface SecurityEvent {

  /** A user was created, or its password changed. */
  record UserCredentialSet(String user, ScramCredential credential) implements SecurityEvent {
    /** Without the credential: StoredKey and ServerKey stay out of logs. */
    @Override
    public String toString() {
      return "UserCredentialSet[user=" + user + ", iterations=" + credential.iterations() + "]";
    }
  }

  /** The user, its tokens and its ACLs are gone. */
  record UserDeleted(String user) implements SecurityEvent {}

  record AclAdded(AclEntry acl) implements SecurityEvent {}

  record AclRemoved(AclEntry acl) implements SecurityEvent {}

  /** An admin API bearer token for {@code user}; {@code tokenHash} is the token's SHA-256, base64. */
  record TokenIssued(String user, String tokenHash) implements SecurityEvent {
    @Override
    public String toString() {
      return "TokenIssued[user=" + user + "]";
    }
  }
}

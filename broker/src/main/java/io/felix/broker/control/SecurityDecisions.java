package io.felix.broker.control;

import io.felix.broker.control.PlacementDecisions.Decision;
import io.felix.broker.security.SecurityEvent;
import io.felix.broker.security.SecurityState;
import java.util.List;

/** Checks a change to users, tokens or ACLs against the state: the event to persist, or why it is refused. */
final class SecurityDecisions {
  private SecurityDecisions() {}

  static Decision decide(SecurityState state, SecurityEvent change) {
    if (change instanceof SecurityEvent.UserCredentialSet c) {
      if (c.user() == null || c.user().isBlank() || c.user().length() > 255 || c.credential() == null) {
        return Decision.refuse(ControlReply.invalid("a user needs a name of 1 to 255 characters and a credential"));
      }
      boolean exists = state.users().containsKey(c.user());
      return accept(change, "user '" + c.user() + "' " + (exists ? "password changed" : "created"));
    }
    if (change instanceof SecurityEvent.UserDeleted d) {
      return state.users().containsKey(d.user()) ? accept(change, "user '" + d.user() + "' deleted")
          : Decision.refuse(ControlReply.notFound("no user named '" + d.user() + "'"));
    }
    if (change instanceof SecurityEvent.AclAdded a) {
      return state.acls().contains(a.acl()) ? Decision.refuse(ControlReply.conflict("the ACL exists: " + a.acl()))
          : accept(change, "ACL added");
    }
    if (change instanceof SecurityEvent.AclRemoved r) {
      return state.acls().contains(r.acl()) ? accept(change, "ACL removed")
          : Decision.refuse(ControlReply.notFound("no such ACL: " + r.acl()));
    }
    SecurityEvent.TokenIssued t = (SecurityEvent.TokenIssued) change;
    return state.users().containsKey(t.user()) ? accept(change, "token issued to user '" + t.user() + "'")
        : Decision.refuse(ControlReply.notFound("no user named '" + t.user() + "'"));
  }

  private static Decision accept(SecurityEvent change, String message) {
    return new Decision(List.of(new PlacementEvent.SecurityChanged(change)), ControlReply.done(message));
  }
}

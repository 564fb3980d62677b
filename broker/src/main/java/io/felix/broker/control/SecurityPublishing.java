package io.felix.broker.control;

import io.felix.broker.security.SecurityHolder;
import io.felix.broker.security.SecurityState;
import java.util.HashSet;
import java.util.Set;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.receptionist.Receptionist;

/**
 * The placement singleton's side of distributing users, tokens and ACLs: every broker's {@link SecurityHolder}, as
 * the receptionist lists them, gets the whole state whenever the singleton publishes its table (after each
 * decision and on its placement timer) and as soon as it appears. The state is small (a credential or ACL is a few
 * dozen bytes), so it is sent whole rather than as deltas.
 */
final class SecurityPublishing {
  private Set<ActorRef<SecurityHolder.Publish>> holders = Set.of();

  /** Takes a listing for the holders' key (true), sending the state to the new ones; false for another key. */
  boolean listed(Receptionist.Listing listing, SecurityState state) {
    if (!listing.isForKey(SecurityHolder.SERVICE_KEY)) {
      return false;
    }
    Set<ActorRef<SecurityHolder.Publish>> current = listing.getServiceInstances(SecurityHolder.SERVICE_KEY);
    Set<ActorRef<SecurityHolder.Publish>> added = new HashSet<>(current);
    added.removeAll(holders);
    holders = current;
    added.forEach(holder -> holder.tell(new SecurityHolder.Publish(state)));
    return true;
  }

  void publish(SecurityState state) {
    SecurityHolder.Publish publish = new SecurityHolder.Publish(state);
    holders.forEach(holder -> holder.tell(publish));
  }
}

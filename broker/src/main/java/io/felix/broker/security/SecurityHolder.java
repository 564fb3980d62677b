package io.felix.broker.security;

import io.felix.broker.wire.ControlMessage;
import org.apache.pekko.actor.typed.Behavior;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.actor.typed.receptionist.Receptionist;
import org.apache.pekko.actor.typed.receptionist.ServiceKey;

/**
 * One per broker: receives the users, tokens and ACLs the placement singleton pushes (on every change, to every
 * holder it finds through the receptionist, and again on its placement timer, since Artery delivers at most once)
 * and hands the newest to {@link BrokerSecurity}.
 */
public final class SecurityHolder {
  public static final ServiceKey<Publish> SERVICE_KEY = ServiceKey.create(Publish.class, "felix-security-holder");

  /** The singleton's whole security state. */
  public record Publish(SecurityState state) implements ControlMessage {}

  private SecurityHolder() {}

  public static Behavior<Publish> create(BrokerSecurity security) {
    return Behaviors.setup(context -> {
      context.getSystem().receptionist().tell(Receptionist.register(SERVICE_KEY, context.getSelf()));
      return Behaviors.receiveMessage(publish -> {
        if (security.update(publish.state())) {
          context.getLog().info("Security state version {}: {} users, {} ACLs, {} issued tokens",
              publish.state().version(), publish.state().users().size(), publish.state().acls().size(),
              publish.state().tokens().size());
        }
        return Behaviors.same();
      });
    });
  }
}

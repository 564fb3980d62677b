package io.felix.broker.assignment;

import java.util.OptionalInt;
import java.util.Set;

/**
 * The Pekko cluster role that names a broker ({@code broker-N}): every broker node carries one, so the placement
 * singleton and the replica probe can map cluster members to broker ids. Built and parsed only here.
 */
public final class BrokerRole {
  private static final String PREFIX = "broker-";

  private BrokerRole() {}

  public static String of(int brokerId) {
    return PREFIX + brokerId;
  }

  /** The broker id named by one of {@code roles}, empty for a member that is not a broker (or a malformed role). */
  public static OptionalInt idOf(Set<String> roles) {
    for (String role : roles) {
      if (role.startsWith(PREFIX)) {
        try {
          return OptionalInt.of(Integer.parseInt(role.substring(PREFIX.length())));
        } catch (NumberFormatException e) {
          return OptionalInt.empty();
        }
      }
    }
    return OptionalInt.empty();
  }
}

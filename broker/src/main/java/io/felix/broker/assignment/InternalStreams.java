package io.felix.broker.assignment;

import java.util.Set;

/**
 * Streams the brokers create for themselves. Their names start with {@value #PREFIX}, which no user stream may
 * (the admin API refuses such names; the singleton accepts only these).
 */
public final class InternalStreams {
  public static final String PREFIX = "__";
  /** The consumer groups' committed offsets (see io.felix.broker.group.OffsetsStore). */
  public static final String CONSUMER_OFFSETS = "__consumer_offsets";
  public static final Set<String> ALL = Set.of(CONSUMER_OFFSETS);

  private InternalStreams() {}

  public static boolean isInternal(String stream) {
    return stream.startsWith(PREFIX);
  }
}

package io.felix.broker.wire;

import java.util.function.Function;

/** Enums that keep the lower-case strings they replaced (in the journal, the admin API and logs) read them here. */
public final class WireNames {

  private WireNames() {}

  /** The constant of {@code type} whose wire name is {@code text}; {@code what} names the kind in the error. */
  public static <E extends Enum<E>> E parse(Class<E> type, String text, Function<E, String> wireName, String what) {
    for (E constant : type.getEnumConstants()) {
      if (wireName.apply(constant).equals(text)) {
        return constant;
      }
    }
    throw new IllegalArgumentException("not a " + what + ": '" + text + "'");
  }
}

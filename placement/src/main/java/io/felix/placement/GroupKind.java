package io.felix.placement;

import java.util.Locale;

/** A group of shards is a stream or a cache; placement balances both the same way and reports the kind back. */
public enum GroupKind {
  STREAM,
  CACHE;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static GroupKind fromWireName(String name) {
    for (GroupKind kind : values()) {
      if (kind.wireName().equals(name)) {
        return kind;
      }
    }
    throw new InvalidLayoutException("unknown group kind '" + name + "' (expected stream or cache)");
  }
}

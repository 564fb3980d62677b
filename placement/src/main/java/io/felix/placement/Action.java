package io.felix.placement;

import java.util.Locale;

/** What a step does: place a new shard, promote an in-sync replica of a shard whose leader failed, or move. */
public enum Action {
  PLACE,
  PROMOTE,
  MOVE;

  public String wireName() {
    return name().toLowerCase(Locale.ROOT);
  }
}

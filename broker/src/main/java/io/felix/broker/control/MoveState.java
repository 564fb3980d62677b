package io.felix.broker.control;

import io.felix.broker.wire.WireNames;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Where a move stands in {@link ControlState.MoveRecord}. Journal snapshots (Jackson CBOR) and the admin API
 * carry the wire name, the string this state was stored as before it was an enum, so old snapshots still read.
 */
public enum MoveState {
  IN_FLIGHT("in-flight"),
  COMPLETED("completed"),
  ABORTED("aborted");

  private final String wireName;

  MoveState(String wireName) {
    this.wireName = wireName;
  }

  @JsonValue
  public String wireName() {
    return wireName;
  }

  @JsonCreator(mode = JsonCreator.Mode.DELEGATING) // one string, not a property: Pekko's mapper knows parameter names
  public static MoveState fromWireName(String wireName) {
    return WireNames.parse(MoveState.class, wireName, MoveState::wireName, "move state");
  }
}

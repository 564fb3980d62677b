package io.felix.broker.control;

import io.felix.broker.wire.WireNames;
import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * Why a placement pass ran. The description is what logs and the admin API's {@code last_pass.trigger} show;
 * it is also the wire form in {@link ControlView.LastPass}, so it reads as it did when the trigger was a string.
 */
public enum PassTrigger {
  /** No pass has run since this singleton started. */
  NONE_YET("none yet"),
  /** The periodic pass, every {@code felix.control.placement-interval}. */
  TIMER("timer"),
  BROKER_JOINED("broker joined"),
  STREAM_CREATED("stream created"),
  DRAIN_REQUESTED("drain requested"),
  DRAIN_STOPPED("drain stopped"),
  RESUMED("resumed"),
  /** Cluster membership: named after the Pekko event, as the admin API showed them. */
  MEMBER_UP("MemberUp"),
  MEMBER_REMOVED("MemberRemoved");

  private final String description;

  PassTrigger(String description) {
    this.description = description;
  }

  @JsonValue
  public String description() {
    return description;
  }

  @JsonCreator(mode = JsonCreator.Mode.DELEGATING) // one string, not a property: Pekko's mapper knows parameter names
  public static PassTrigger fromDescription(String description) {
    return WireNames.parse(PassTrigger.class, description, PassTrigger::description, "placement pass trigger");
  }

  @Override
  public String toString() {
    return description;
  }
}

package io.felix.broker.serialization;

import com.google.protobuf.InvalidProtocolBufferException;
import io.felix.broker.wire.ControlMessage;
import java.io.NotSerializableException;
import org.apache.pekko.actor.ExtendedActorSystem;
import org.apache.pekko.actor.typed.ActorRefResolver;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.apache.pekko.serialization.SerializerWithStringManifest;

/**
 * Pekko's serializer for every {@link ControlMessage}, bound in reference.conf: protobuf as defined in
 * felix_control.proto, through {@link ControlMessageMapping}.
 */
public final class ControlMessageSerializer extends SerializerWithStringManifest {
  /** Fixed and unique among the system's serializers (Pekko's own use ids below 100). */
  public static final int IDENTIFIER = 5301;

  private final ExtendedActorSystem system;
  private volatile ControlMessageMapping mapping;

  public ControlMessageSerializer(ExtendedActorSystem system) {
    this.system = system;
  }

  @Override
  public int identifier() {
    return IDENTIFIER;
  }

  @Override
  public String manifest(Object o) {
    return mapping().manifest(o);
  }

  @Override
  public byte[] toBinary(Object o) {
    return mapping().toBinary(o);
  }

  @Override
  public Object fromBinary(byte[] bytes, String manifest) throws NotSerializableException {
    try {
      return mapping().fromBinary(bytes, manifest);
    } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
      throw new NotSerializableException("bad control message (manifest " + manifest + "): " + e.getMessage());
    }
  }

  /** Built on first use: the serializer is created while the ActorSystem loads its extensions, too early for one. */
  ControlMessageMapping mapping() {
    ControlMessageMapping m = mapping;
    if (m == null) {
      m = new ControlMessageMapping(ActorRefResolver.get(Adapter.toTyped(system)));
      mapping = m;
    }
    return m;
  }
}

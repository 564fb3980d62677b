package io.felix.broker.shard;

/**
 * Marker of every message that crosses Artery between brokers and the control plane. Bound in reference.conf to
 * {@link ControlMessageSerializer} (protobuf); Java serialization is switched off.
 */
public interface ControlMessage {}

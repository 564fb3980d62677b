package io.felix.broker.wire;

/**
 * Marker of every message that crosses Artery between brokers: the placement singleton's commands and answers,
 * assignment tables, and the data plane directories' fences, describes and replica status. Bound in
 * reference.conf to {@code io.felix.broker.serialization.ControlMessageSerializer} (protobuf,
 * felix_control.proto). Java serialization is off, so a message without the marker fails loudly when it is sent
 * to another broker; local-only messages (timers, adapters, test hooks) must therefore not carry it, or they
 * would need a mapping nobody uses. This package sits below every other so that any layer's messages can
 * implement the marker; the serializer, which must see them all, sits above them.
 */
public interface ControlMessage {}

package io.felix.broker.control;

/**
 * Marker for every control-plane message and event that crosses Artery or enters the journal: bound to
 * Jackson CBOR in {@link NodeConfig} (never Java serialization). Control messages are small and rare, so a
 * self-describing format is worth its few bytes; record data rides the data plane's own protocol.
 */
public interface ControlMessage {}

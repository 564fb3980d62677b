package io.felix.broker.control;

/**
 * Marker of what the placement singleton stores in its journal: the {@link PlacementEvent}s and the
 * {@link ControlState} snapshot, bound to Jackson CBOR (with {@link FelixJacksonModule}) in
 * {@code io.felix.broker.node.NodeConfig}. Not protobuf like the messages crossing Artery
 * ({@link io.felix.broker.wire.ControlMessage}), because stored records live for years and evolve by adding
 * defaulted fields to the records themselves, while Artery messages are transient; the journal finds a
 * record's class by name, so never rename or move an event.
 */
public interface JournalRecord {}

/**
 * The broker-to-broker data connection ({@link io.felix.broker.transport.ReplicationTransport}: one TCP
 * connection per broker pair, length-prefixed protobuf frames, Pekko Streams today, replaceable by plain NIO),
 * and plain-mode produce forwarding over it ({@link io.felix.broker.client.ProduceForwarder}).
 */
package io.felix.broker.replication;

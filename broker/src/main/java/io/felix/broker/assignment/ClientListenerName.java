package io.felix.broker.assignment;

/**
 * The client listener a connection arrived on, as Kafka's listener names: the addresses a broker gives a client
 * (every broker's, in Metadata answers and leader hints) are those of the listener the client itself used, since a
 * client outside the brokers' network (the host of a compose cluster) cannot reach their internal names.
 */
public enum ClientListenerName {
  /** On felix.broker.client-port: clients that reach the brokers by the names the brokers use among themselves. */
  INTERNAL,
  /** On felix.broker.external-client-port: clients outside, told every broker's external advertised address. */
  EXTERNAL
}

/**
 * The client protocol listener (felix_client.proto over a Pekko Streams TCP server): framing and limits in
 * {@link io.felix.broker.client.ClientListener}, request handling in {@link io.felix.broker.client.ClientRequests}.
 */
package io.felix.broker.client;

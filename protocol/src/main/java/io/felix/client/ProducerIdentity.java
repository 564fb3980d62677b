package io.felix.client;

import io.felix.protocol.Errors;
import io.felix.protocol.client.InitProducerIdRequest;
import io.felix.protocol.client.Request;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The idempotent producer's id, asked once of any broker (InitProducerId) before the first batch is sent and kept
 * for the client's life. A failed request is forgotten, so the next batch asks again. Thread-safe.
 */
final class ProducerIdentity {
  private static final Logger log = LoggerFactory.getLogger(ProducerIdentity.class);

  private final ClientSettings settings;
  private final BrokerConnections connections;
  private CompletableFuture<Long> producerId;

  ProducerIdentity(ClientSettings settings, BrokerConnections connections) {
    this.settings = settings;
    this.connections = connections;
  }

  /** The producer id, asking {@code broker} for one if none was had yet; fails retriably, never appended. */
  synchronized CompletableFuture<Long> producerId(HostPort broker) {
    if (producerId != null && !producerId.isCompletedExceptionally()) {
      return producerId;
    }
    CompletableFuture<Long> asked = connections.get(broker)
        .thenCompose(c -> c.send(Request.newBuilder().setInitProducerId(InitProducerIdRequest.getDefaultInstance()),
            settings.requestTimeout()))
        .handle((response, error) -> {
          if (error != null) {
            // Its kind kept (a failed connection moves the client on, as for a produce); the batch was not sent.
            FelixException cause = FelixException.from(error);
            throw new FelixException(cause.kind(), cause.code(), "no producer id from " + broker + ": "
                + cause.getMessage(), true, true);
          }
          if (Errors.isError(response) || !response.hasInitProducerId()) {
            throw FelixException.noLeader("no producer id from " + broker + ": "
                + (Errors.isError(response) ? Errors.format(response.getError()) : "an answer without one"));
          }
          long id = response.getInitProducerId().getProducerId();
          log.debug("idempotent producer id {} from {}", id, broker);
          return id;
        });
    producerId = asked;
    return asked;
  }
}

package io.felix.broker.client;

import io.felix.broker.assignment.ClientListenerName;
import io.felix.broker.security.BrokerSecurity;
import io.felix.broker.security.ScramServer;
import io.felix.protocol.Errors;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import io.felix.protocol.client.ScramServerFinalResponse;
import io.felix.protocol.client.ScramServerFirstResponse;
import io.felix.protocol.scram.ScramException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection's authentication: with felix.security.client-authentication on, the connection is
 * anonymous until a SCRAM-SHA-256 exchange succeeds, and every other request before that is answered
 * AUTHENTICATION_FAILED without being handled. Then (or at once with authentication off) requests go to
 * {@link ClientRequests} with the connection's principal. A failed exchange can be started again. Thread-safe:
 * requests of one connection run concurrently.
 */
final class ClientSession {
  private static final Logger log = LoggerFactory.getLogger(ClientSession.class);

  private final ClientRequests requests;
  private final ClientListenerName listener;
  private final BrokerSecurity security;
  private final Object remote;
  private ScramServer exchange;
  private volatile String principal;

  ClientSession(ClientRequests requests, ClientListenerName listener, BrokerSecurity security, Object remote) {
    this.requests = requests;
    this.listener = listener;
    this.security = security;
    this.remote = remote;
    this.principal = security.settings().clientAuthentication() ? null : BrokerSecurity.ANONYMOUS;
  }

  CompletionStage<Response> handle(Request request) {
    switch (request.getBodyCase()) {
      case SCRAM_CLIENT_FIRST:
        return done(clientFirst(request.getScramClientFirst().getMessage()));
      case SCRAM_CLIENT_FINAL:
        return done(clientFinal(request.getScramClientFinal().getMessage()));
      default:
        String who = principal;
        if (who == null) {
          return done(Errors.response(0, Errors.notAppended(ErrorCode.AUTHENTICATION_FAILED, "this broker requires"
              + " SASL/SCRAM-SHA-256 authentication: complete ScramClientFirst and ScramClientFinal before "
              + request.getBodyCase().name().toLowerCase(java.util.Locale.ROOT) + "; nothing was done")));
        }
        return requests.handle(request, listener, who);
    }
  }

  private synchronized Response clientFirst(String message) {
    if (!security.settings().clientAuthentication()) {
      return failed("authentication is off on this broker; send requests without it");
    }
    if (principal != null) {
      return failed("this connection is already authenticated as '" + principal + "'");
    }
    exchange = security.newScramServer();
    try {
      return Response.newBuilder().setScramServerFirst(ScramServerFirstResponse.newBuilder()
          .setMessage(exchange.serverFirst(message))).build();
    } catch (ScramException e) {
      exchange = null;
      return failed("malformed client-first message: " + e.getMessage());
    }
  }

  private synchronized Response clientFinal(String message) {
    if (exchange == null) {
      return failed("send ScramClientFirst before ScramClientFinal");
    }
    ScramServer current = exchange;
    exchange = null;
    try {
      ScramServer.Authenticated done = current.serverFinal(message);
      principal = done.principal();
      log.debug("client connection from {} authenticated as '{}'", remote, principal);
      return Response.newBuilder().setScramServerFinal(ScramServerFinalResponse.newBuilder()
          .setMessage(done.serverFinal())).build();
    } catch (ScramException e) {
      log.info("client connection from {} failed SCRAM-SHA-256 authentication: {}", remote, e.getMessage());
      return failed("authentication failed: " + e.getMessage());
    }
  }

  private static Response failed(String message) {
    return Errors.response(0, Errors.of(ErrorCode.AUTHENTICATION_FAILED, message));
  }

  private static CompletionStage<Response> done(Response response) {
    return CompletableFuture.completedFuture(response);
  }
}

package io.felix.broker.kafka;

import io.felix.broker.security.BrokerSecurity;
import io.felix.broker.security.ScramServer;
import io.felix.protocol.scram.ScramException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.pekko.util.ByteString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Kafka client connection: parses each request frame with kafka-clients (header, then the API's generated
 * request class), answers what this connection owns itself (ApiVersions, SASL) and hands the rest to
 * {@link KafkaRequests} with the connection's principal.
 *
 * <p>Bad input costs only the connection, never the broker: a frame too short for a header, an unknown API key, or a
 * body that does not parse as its API's version is logged and the connection closed (a Kafka broker closes it
 * too: there is no answer the client could read). A known API at a version Felix does not serve is answered
 * UNSUPPORTED_VERSION in that API's own response (ApiVersions as version 0 with Felix's ranges, as Kafka does).
 *
 * <p>With felix.security.client-authentication on, the connection is anonymous until SaslHandshake
 * (SCRAM-SHA-256) and SaslAuthenticate succeed with a user of the native listener's; any other request before
 * that (but ApiVersions) closes it, as Kafka does. Requests of one connection may run concurrently; thread-safe.
 */
final class KafkaSession {
  private static final Logger log = LoggerFactory.getLogger(KafkaSession.class);
  static final String MECHANISM = "SCRAM-SHA-256";

  /** The answer to one frame: the response frame (none for a produce with acks 0), and whether to close after. */
  record Outcome(Optional<ByteString> frame, boolean close) {
    static final Outcome CLOSE = new Outcome(Optional.empty(), true);
  }

  private final KafkaRequests requests;
  private final BrokerSecurity security;
  private final Object remote;
  private volatile String principal;
  private boolean handshaken;
  private ScramServer exchange;

  KafkaSession(KafkaRequests requests, BrokerSecurity security, Object remote) {
    this.requests = requests;
    this.security = security;
    this.remote = remote;
    this.principal = security.settings().clientAuthentication() ? null : BrokerSecurity.ANONYMOUS;
  }

  CompletionStage<Outcome> handle(ByteString body) {
    ByteBuffer buffer = KafkaCodec.requestBuffer(body);
    if (buffer.remaining() < 8) {
      log.info("closing a Kafka connection from {}: a {}-byte frame is too short for a request header", remote,
          buffer.remaining());
      return done(Outcome.CLOSE);
    }
    short apiKey = buffer.getShort(0);
    short version = buffer.getShort(2);
    int correlationId = buffer.getInt(4);
    if (!ApiKeys.hasId(apiKey)) {
      log.info("closing a Kafka connection from {}: unknown API key {}", remote, apiKey);
      return done(Outcome.CLOSE);
    }
    ApiKeys api = ApiKeys.forId(apiKey);
    if (api == ApiKeys.API_VERSIONS && !KafkaApis.supports(api, version)) {
      // Kafka's rule: a client asking in a newer version is answered in version 0, which every client reads.
      return done(answer(correlationId, (short) 0, KafkaApis.apiVersions(Errors.UNSUPPORTED_VERSION), (short) 0));
    }
    RequestHeader header;
    AbstractRequest request;
    try {
      header = RequestHeader.parse(buffer);
      request = AbstractRequest.parseRequest(api, version, new ByteBufferAccessor(buffer)).request;
    } catch (RuntimeException e) {
      log.info("closing a Kafka connection from {}: a {} v{} request does not parse ({})", remote, api, version,
          e.getMessage());
      return done(Outcome.CLOSE);
    }
    short headerVersion = api.responseHeaderVersion(version);
    if (!KafkaApis.supports(api, version)) {
      log.debug("Kafka connection from {}: {} v{} is not served (versions {})", remote, api, version,
          KafkaApis.describe(api));
      return done(answer(correlationId, headerVersion,
          request.getErrorResponse(0, Errors.UNSUPPORTED_VERSION.exception(api + " v" + version
              + " is not supported by Felix (versions " + KafkaApis.describe(api) + ")")).data(), version));
    }
    switch (api) {
      case API_VERSIONS:
        return done(answer(correlationId, headerVersion, KafkaApis.apiVersions(Errors.NONE), version));
      case SASL_HANDSHAKE:
        return done(answer(correlationId, headerVersion, handshake((SaslHandshakeRequestData) request.data()),
            version));
      case SASL_AUTHENTICATE:
        return done(authenticate(correlationId, headerVersion, version,
            (SaslAuthenticateRequestData) request.data()));
      default:
        String who = principal;
        if (who == null) {
          log.info("closing a Kafka connection from {}: {} before SASL authentication (this broker requires "
              + "SASL/SCRAM-SHA-256)", remote, api);
          return done(Outcome.CLOSE);
        }
        return requests.handle(header, request, who).thenApply(message -> message == null
            ? new Outcome(Optional.empty(), false) : encoded(correlationId, headerVersion, request, message, version));
    }
  }

  private synchronized ApiMessage handshake(SaslHandshakeRequestData request) {
    SaslHandshakeResponseData answer = new SaslHandshakeResponseData()
        .setMechanisms(java.util.List.of(MECHANISM));
    if (!security.settings().clientAuthentication()) {
      return answer.setErrorCode(Errors.ILLEGAL_SASL_STATE.code());
    }
    if (!MECHANISM.equals(request.mechanism())) {
      return answer.setErrorCode(Errors.UNSUPPORTED_SASL_MECHANISM.code());
    }
    handshaken = true;
    return answer.setErrorCode(Errors.NONE.code());
  }

  /** SCRAM's two rounds in SaslAuthenticate: client-first, then client-final; a failure closes the connection. */
  private synchronized Outcome authenticate(int correlationId, short headerVersion, short version,
      SaslAuthenticateRequestData request) {
    String message = new String(request.authBytes(), StandardCharsets.UTF_8);
    SaslAuthenticateResponseData answer = new SaslAuthenticateResponseData();
    if (!handshaken || principal != null) {
      return failed(correlationId, headerVersion, version, answer.setErrorCode(Errors.ILLEGAL_SASL_STATE.code())
          .setErrorMessage(principal != null ? "this connection is already authenticated"
              : "send SaslHandshake (SCRAM-SHA-256) before SaslAuthenticate"));
    }
    try {
      if (exchange == null) {
        exchange = security.newScramServer();
        return answer(correlationId, headerVersion, answer.setAuthBytes(
            exchange.serverFirst(message).getBytes(StandardCharsets.UTF_8)), version);
      }
      ScramServer.Authenticated done = exchange.serverFinal(message);
      exchange = null;
      principal = done.principal();
      log.debug("Kafka connection from {} authenticated as '{}'", remote, principal);
      return answer(correlationId, headerVersion, answer.setAuthBytes(
          done.serverFinal().getBytes(StandardCharsets.UTF_8)).setSessionLifetimeMs(0), version);
    } catch (ScramException e) {
      exchange = null;
      log.info("Kafka connection from {} failed SCRAM-SHA-256 authentication: {}", remote, e.getMessage());
      return failed(correlationId, headerVersion, version, answer
          .setErrorCode(Errors.SASL_AUTHENTICATION_FAILED.code())
          .setErrorMessage("authentication failed: " + e.getMessage()).setAuthBytes(new byte[0]));
    }
  }

  /**
   * The answer, or, should it hold a value its version cannot carry (a defect here, not the client's), the API's own
   * UNKNOWN_SERVER_ERROR answer, so the client sees an error rather than a dropped connection.
   */
  private Outcome encoded(int correlationId, short headerVersion, AbstractRequest request, ApiMessage message,
      short version) {
    try {
      return answer(correlationId, headerVersion, message, version);
    } catch (RuntimeException e) {
      log.warn("Kafka connection from {}: the {} v{} answer cannot be encoded ({}); answering UNKNOWN_SERVER_ERROR",
          remote, request.apiKey(), version, e.getMessage());
      return answer(correlationId, headerVersion, request.getErrorResponse(0, Errors.UNKNOWN_SERVER_ERROR.exception())
          .data(), version);
    }
  }

  private static Outcome failed(int correlationId, short headerVersion, short version, ApiMessage answer) {
    Outcome o = answer(correlationId, headerVersion, answer, version);
    return new Outcome(o.frame(), true);
  }

  private static Outcome answer(int correlationId, short headerVersion, ApiMessage body, short version) {
    return new Outcome(Optional.of(KafkaCodec.responseFrame(correlationId, headerVersion, body, version)), false);
  }

  private static CompletionStage<Outcome> done(Outcome outcome) {
    return CompletableFuture.completedFuture(outcome);
  }
}

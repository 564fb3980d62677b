package io.felix.broker.client;

import com.google.protobuf.CodedInputStream;
import java.io.IOException;
import io.felix.broker.assignment.ClientListenerName;
import io.felix.broker.security.BrokerSecurity;
import io.felix.broker.tls.TlsFlows;
import io.felix.broker.tls.TlsSettings;
import io.felix.protocol.Errors;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.net.InetSocketAddress;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.KillSwitches;
import org.apache.pekko.stream.SharedKillSwitch;
import org.apache.pekko.stream.javadsl.BidiFlow;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.Tcp;
import org.apache.pekko.util.ByteString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client protocol listener: a Pekko Streams TCP server ({@code Tcp().bind}). Each connection cuts its bytes
 * into frames, handles up to max-in-flight requests at once (answers leave in completion order, matched by
 * correlation id) and writes framed responses.
 *
 * <p>Bad input costs only its own connection: a frame over max-frame-size is answered FRAME_TOO_LARGE, a frame
 * that is not a Request (or names no request kind) INVALID_REQUEST, and then that connection is closed. Requests
 * are parsed with explicit size (the frame) and recursion limits.
 *
 * <p>Resources are bounded (felix.client-listener's limits): request bytes held by the broker and by each
 * connection (a spent budget stops reading the socket), connections in all and per client address (one over is
 * answered RESOURCE_LIMIT and closed), and a connection that reads and writes nothing for idle-timeout is closed.
 *
 * <p>Under felix.tls every connection speaks TLS; one that opens with anything but a TLS handshake (a plaintext
 * client) is answered INVALID_REQUEST in the clear, saying the listener needs TLS, and closed.
 */
public final class ClientListener implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ClientListener.class);
  private static final int RECURSION_LIMIT = 16;

  private final ClientListenerSettings settings;
  private final ClientRequests requests;
  private final ClientListenerName name;
  private final SharedKillSwitch killSwitch = KillSwitches.shared("client-listener");
  private final Tcp.ServerBinding binding;
  private final AtomicLong connections = new AtomicLong();
  private final RequestBudget brokerBudget;
  private final ConnectionCounter counter;
  private final BrokerSecurity security;
  private final TlsSettings tls;

  /** What the per-request stage emits: a response, and whether the connection must close after it. */
  private record Outcome(Response response, boolean close) {}

  private ClientListener(ActorSystem<?> system, ClientListenerSettings settings, TlsSettings tls,
      ClientRequests requests, String host, int port, ClientListenerName name) {
    this.settings = settings;
    this.tls = tls;
    this.requests = requests;
    this.name = name;
    this.brokerBudget = new RequestBudget(settings.limits().maxQueuedRequestBytes());
    this.counter = new ConnectionCounter(settings.limits());
    this.security = BrokerSecurity.of(system);
    CompletionStage<Tcp.ServerBinding> bound = Tcp.get(system).bind(host, port)
        .via(killSwitch.flow())
        .to(Sink.foreach(c -> accept(c, system)))
        .run(system);
    try {
      binding = bound.toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot bind the client listener on " + host + ":" + port + ": " + e, e);
    }
    log.info("{} client listener bound on {}{}", name.name().toLowerCase(java.util.Locale.ROOT),
        binding.localAddress(), tls.enabled() ? " (TLS)" : "");
  }

  /** @param name which addresses this listener's clients are told (see {@link ClientListenerName}) */
  public static ClientListener start(ActorSystem<?> system, ClientListenerSettings settings, ClientRequests requests,
      String host, int port, ClientListenerName name) {
    return start(system, settings, TlsSettings.off(), requests, host, port, name);
  }

  /**
   * @param tls whether (and how) the listener speaks TLS
   * @param name which addresses this listener's clients are told (see {@link ClientListenerName})
   */
  public static ClientListener start(ActorSystem<?> system, ClientListenerSettings settings, TlsSettings tls,
      ClientRequests requests, String host, int port, ClientListenerName name) {
    return new ClientListener(system, settings, tls, requests, host, port, name);
  }

  public int boundPort() {
    return binding.localAddress().getPort();
  }

  public long connectionsAccepted() {
    return connections.get();
  }

  /** Client connections open now (refused ones are not counted). */
  public int openConnections() {
    return counter.open();
  }

  /** Request bytes the broker holds now, against max-queued-request-bytes. */
  public long queuedRequestBytes() {
    return brokerBudget.inUse();
  }

  private void accept(Tcp.IncomingConnection c, ActorSystem<?> system) {
    InetSocketAddress remote = c.remoteAddress();
    Optional<String> refusal = counter.admit(remote.getAddress());
    if (refusal.isPresent()) {
      log.warn("refusing a client connection from {}: {}", remote, refusal.get());
      Response refused = Errors.response(0, Errors.of(ErrorCode.RESOURCE_LIMIT,
          "connection refused: " + refusal.get()));
      c.handleWith(Flow.fromSinkAndSource(Sink.ignore(),
          Source.single(ClientFrameDecoder.frame(refused.toByteArray()))), system);
      return;
    }
    connections.incrementAndGet();
    ConnectionBudget budget = new ConnectionBudget(brokerBudget, settings.limits().maxInFlightBytesPerConnection());
    c.handleWith(secured(connectionFlow(budget, new ClientSession(requests, name, security, remote)), remote)
        .watchTermination((notUsed, done) -> {
      done.whenComplete((ok, failure) -> {
        budget.close();
        counter.closed(remote.getAddress());
        if (failure instanceof TimeoutException) {
          log.info("closed the client connection from {}: no bytes read or written for idle-timeout {}", remote,
              settings.limits().idleTimeout());
        } else if (failure != null) {
          log.debug("client connection from {} ended: {}", remote, failure.toString());
        }
      });
      return notUsed;
    }), system);
  }

  /** A frame admitted into the budgets, with what it holds there. */
  private record Admitted(ClientFrameDecoder.Frame frame, ConnectionBudget.Reservation reservation) {}

  /**
   * One connection: frames are cut, then each waits for its bytes in the connection's and the broker's budget
   * before it is handled. The wait is one frame at a time ({@code mapAsync(1)}), so while it lasts nothing more is
   * read from the socket and the client is held back by TCP flow control.
   */
  private Flow<ByteString, ByteString, NotUsed> connectionFlow(ConnectionBudget budget, ClientSession session) {
    Flow<ByteString, ByteString, NotUsed> requests = Flow.<ByteString>create()
        .statefulMapConcat(ClientFrameDecoder.perConnection(settings.maxFrameSize()))
        .mapAsync(1, frame -> budget.acquire(frameBytes(frame)).thenApply(r -> new Admitted(frame, r)))
        .mapAsyncUnordered(settings.maxInFlight(), admitted -> handle(admitted.frame(), session)
            .whenComplete((outcome, failure) -> budget.release(admitted.reservation())))
        .takeWhile(outcome -> !outcome.close(), true)
        .map(outcome -> ClientFrameDecoder.frame(outcome.response().toByteArray()));
    // idle = no byte read or written for idle-timeout (a backpressured connection still gets its answers)
    return BidiFlow.<ByteString, ByteString>bidirectionalIdleTimeout(settings.limits().idleTimeout())
        .join(requests)
        .via(killSwitch.flow());
  }

  /** The connection's flow as it is, or under TLS only (see the class comment). */
  private Flow<ByteString, ByteString, NotUsed> secured(Flow<ByteString, ByteString, NotUsed> connection,
      InetSocketAddress remote) {
    if (!tls.enabled()) {
      return connection;
    }
    return TlsFlows.serverOnly(TlsFlows.server(connection, tls::clientFacingEngine, session -> { }), () -> {
      log.info("closing a client connection from {}: it speaks plaintext to a TLS listener", remote);
      return ClientFrameDecoder.frame(Errors.response(0, Errors.of(ErrorCode.INVALID_REQUEST, "this listener"
          + " speaks TLS only (felix.tls.enabled = on): connect with TLS")).toByteArray());
    });
  }

  private static long frameBytes(ClientFrameDecoder.Frame frame) {
    return frame instanceof ClientFrameDecoder.Body b ? b.bytes().size() : 0;
  }

  private CompletionStage<Outcome> handle(ClientFrameDecoder.Frame frame, ClientSession session) {
    if (frame instanceof ClientFrameDecoder.Oversize o) {
      log.info("closing a client connection: frame of {} bytes exceeds max-frame-size {}", o.length(),
          settings.maxFrameSize());
      return done(Errors.response(0, Errors.of(ErrorCode.FRAME_TOO_LARGE, "frame of " + o.length()
          + " bytes exceeds the maximum of " + settings.maxFrameSize() + " bytes; closing the connection")), true);
    }
    ByteString body = ((ClientFrameDecoder.Body) frame).bytes();
    Request request;
    try {
      CodedInputStream in = CodedInputStream.newInstance(body.asByteBuffer());
      in.enableAliasing(true); // the records stay a view of this frame (immutable), not a second copy
      in.setRecursionLimit(RECURSION_LIMIT);
      in.setSizeLimit(body.size());
      request = Request.parseFrom(in);
    } catch (IOException e) {
      log.info("closing a client connection: a {}-byte frame is not a Request ({})", body.size(), e.getMessage());
      return done(invalid(0, "the frame is not a protobuf Request (" + e.getMessage() + "); closing the connection"),
          true);
    }
    if (request.getBodyCase() == Request.BodyCase.BODY_NOT_SET) {
      log.info("closing a client connection: a {}-byte frame names no request kind", body.size());
      return done(invalid(request.getCorrelationId(),
          "the request names no known request kind (metadata, produce, fetch); closing the connection"), true);
    }
    long correlationId = request.getCorrelationId();
    return session.handle(request).thenApply(response ->
        new Outcome(response.toBuilder().setCorrelationId(correlationId).build(), false));
  }

  private static Response invalid(long correlationId, String message) {
    return Errors.response(correlationId, Errors.of(ErrorCode.INVALID_REQUEST, message));
  }

  private static CompletionStage<Outcome> done(Response response, boolean close) {
    return CompletableFuture.completedFuture(new Outcome(response, close));
  }

  @Override
  public void close() {
    binding.unbind();
    killSwitch.shutdown();
  }
}

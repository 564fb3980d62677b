package io.felix.broker.kafka;

import io.felix.broker.client.ClientFrameDecoder;
import io.felix.broker.security.BrokerSecurity;
import io.felix.broker.tls.TlsFlows;
import io.felix.broker.tls.TlsSettings;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.pekko.NotUsed;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.stream.KillSwitches;
import org.apache.pekko.stream.SharedKillSwitch;
import org.apache.pekko.stream.javadsl.BidiFlow;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Tcp;
import org.apache.pekko.util.ByteString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Kafka protocol listener: a Pekko Streams TCP server ({@code Tcp().bind}) whose connections are cut into
 * frames (Kafka frames as Felix does: a 4-byte length, then the body) and handed to a {@link KafkaSession}. Kafka
 * clients match answers to requests by order, so each connection handles up to max-in-flight requests at once but
 * answers them in the order they came ({@code mapAsync}). A frame over max-frame-size, or one the session cannot
 * parse, closes only its connection, with a log line. Under felix.tls every connection speaks TLS (a plaintext
 * client is closed).
 */
final class KafkaListener implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(KafkaListener.class);

  private final KafkaListenerSettings settings;
  private final KafkaRequests requests;
  private final BrokerSecurity security;
  private final TlsSettings tls;
  private final SharedKillSwitch killSwitch = KillSwitches.shared("kafka-listener");
  private final Tcp.ServerBinding binding;
  private final AtomicInteger open = new AtomicInteger();

  KafkaListener(ActorSystem<?> system, KafkaListenerSettings settings, TlsSettings tls, KafkaRequests requests,
      String host) {
    this.settings = settings;
    this.tls = tls;
    this.requests = requests;
    this.security = BrokerSecurity.of(system);
    CompletionStage<Tcp.ServerBinding> bound = Tcp.get(system).bind(host, settings.port())
        .via(killSwitch.flow())
        .to(Sink.foreach(c -> accept(c, system)))
        .run(system);
    try {
      binding = bound.toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot bind the Kafka listener on " + host + ":" + settings.port() + ": " + e,
          e);
    }
    log.info("Kafka listener bound on {} (mode {}){}", binding.localAddress(), settings.mode(),
        tls.enabled() ? " (TLS)" : "");
  }

  int boundPort() {
    return binding.localAddress().getPort();
  }

  /** Kafka connections open now. */
  int openConnections() {
    return open.get();
  }

  private void accept(Tcp.IncomingConnection c, ActorSystem<?> system) {
    InetSocketAddress remote = c.remoteAddress();
    open.incrementAndGet();
    KafkaSession session = new KafkaSession(requests, security, remote);
    c.handleWith(secured(connectionFlow(session, remote)).watchTermination((notUsed, done) -> {
      done.whenComplete((ok, failure) -> {
        open.decrementAndGet();
        if (failure instanceof TimeoutException) {
          log.info("closed the Kafka connection from {}: nothing read or written for idle-timeout {}", remote,
              settings.idleTimeout());
        } else if (failure != null) {
          log.debug("Kafka connection from {} ended: {}", remote, failure.toString());
        }
      });
      return notUsed;
    }), system);
  }

  private Flow<ByteString, ByteString, NotUsed> connectionFlow(KafkaSession session, InetSocketAddress remote) {
    Flow<ByteString, ByteString, NotUsed> requests = Flow.<ByteString>create()
        .statefulMapConcat(ClientFrameDecoder.perConnection(settings.maxFrameSize()))
        .mapAsync(settings.maxInFlight(), frame -> handle(frame, session, remote))
        .takeWhile(outcome -> !outcome.close(), true)
        .mapConcat(outcome -> outcome.frame().stream().toList());
    return BidiFlow.<ByteString, ByteString>bidirectionalIdleTimeout(settings.idleTimeout())
        .join(requests)
        .via(killSwitch.flow());
  }

  private CompletionStage<KafkaSession.Outcome> handle(ClientFrameDecoder.Frame frame, KafkaSession session,
      InetSocketAddress remote) {
    if (frame instanceof ClientFrameDecoder.Oversize o) {
      log.info("closing a Kafka connection from {}: a frame of {} bytes exceeds max-frame-size {}", remote,
          o.length(), settings.maxFrameSize());
      return CompletableFuture.completedFuture(KafkaSession.Outcome.CLOSE);
    }
    ByteString body = ((ClientFrameDecoder.Body) frame).bytes();
    try {
      return session.handle(body).exceptionally(failure -> {
        log.warn("closing a Kafka connection from {}: a request failed: {}", remote, failure.toString());
        return KafkaSession.Outcome.CLOSE;
      });
    } catch (RuntimeException e) {
      log.warn("closing a Kafka connection from {}: a request failed: {}", remote, e.toString());
      return CompletableFuture.completedFuture(KafkaSession.Outcome.CLOSE);
    }
  }

  private Flow<ByteString, ByteString, NotUsed> secured(Flow<ByteString, ByteString, NotUsed> connection) {
    if (!tls.enabled()) {
      return connection;
    }
    return TlsFlows.serverOnly(TlsFlows.server(connection, tls::clientFacingEngine, session -> { }),
        ByteString::emptyByteString);
  }

  @Override
  public void close() {
    binding.unbind();
    killSwitch.shutdown();
  }
}

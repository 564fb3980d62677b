package io.felix.broker.transport;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.CodedInputStream;
import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.protocol.replication.ReplicationFrame;
import java.io.IOException;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import io.felix.broker.tls.PeerCertificates;
import io.felix.broker.tls.PeerRefusedException;
import io.felix.broker.tls.TlsFlows;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.pekko.Done;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.stream.BoundedSourceQueue;
import org.apache.pekko.stream.KillSwitches;
import org.apache.pekko.stream.QueueOfferResult;
import org.apache.pekko.stream.SharedKillSwitch;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Framing;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.Tcp;
import org.apache.pekko.util.ByteString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link ReplicationTransport} over Pekko Streams TCP: {@code Tcp().bind} for peers that dial us, one outgoing
 * connection to every peer with a higher id, each with a bounded send queue (frames are dropped when it is full)
 * and a reconnect loop with exponential backoff. The socket write buffer comes from
 * {@code pekko.stream.materializer.io.tcp.write-buffer-size} (128 KiB in reference.conf; the comment there gives
 * the measurement behind it).
 *
 * <p>Frame: 4-byte big-endian length, then one ReplicationFrame. The first frame of a dialled connection is a
 * PeerHello naming the dialler and the broker it means to reach (a misdirected one is closed). A frame over
 * max-frame-size fails only that connection (it reconnects).
 *
 * <p>Who the peer is ({@link PeerAuthentication}): under felix.tls both ends speak TLS with certificates signed by the
 * cluster CA, and each certificate must name the broker its holder claims to be (the dialler's hello, the broker
 * the dialler meant). With a cluster secret the acceptor opens with a challenge and takes no frame but a hello
 * until the dialler's proof checks out; the dialler takes none until the acceptor's proof does. Each side's
 * handshake is a pure state machine ({@link AcceptorHandshake}, {@link DiallerHandshake}): this class feeds it the
 * frames and the certificate's broker, and does what its steps say.
 */
public final class TcpReplicationTransport implements ReplicationTransport {
  private static final Logger log = LoggerFactory.getLogger(TcpReplicationTransport.class);

  private final ActorSystem<?> system;
  private final int selfId;
  private final ReplicationSettings settings;
  private final Inbound inbound;
  private final SharedKillSwitch killSwitch = KillSwitches.shared("replication-transport");
  /** Ends the connections open now (not the listener); replaced by a fresh one each time it is used. */
  private volatile SharedKillSwitch connectionSwitch = KillSwitches.shared("replication-connections");
  private final Map<Integer, BrokerEndpoint> peers = new ConcurrentHashMap<>();
  private final Map<Integer, BoundedSourceQueue<ByteString>> links = new ConcurrentHashMap<>();
  private final Map<Integer, Boolean> dialling = new ConcurrentHashMap<>();
  private final AtomicLong framesSent = new AtomicLong();
  private final AtomicLong bytesSent = new AtomicLong();
  private final Tcp.ServerBinding binding;
  private final PeerSuspicion suspicion;
  private final PeerAuthentication auth;
  private volatile boolean closed;

  private TcpReplicationTransport(ActorSystem<?> system, int selfId, ReplicationSettings settings,
      PeerAuthentication auth, Inbound inbound, String host, int port) {
    this.system = system;
    this.selfId = selfId;
    this.settings = settings;
    this.auth = auth;
    this.inbound = inbound;
    this.suspicion = new PeerSuspicion(settings.peerCloseGrace(), settings.peerSilenceTimeout(),
        () -> TimeUnit.NANOSECONDS.toMillis(System.nanoTime()));
    CompletionStage<Tcp.ServerBinding> bound = Tcp.get(system).bind(host, port)
        .via(killSwitch.flow())
        .to(Sink.foreach(this::accept))
        .run(system);
    try {
      this.binding = bound.toCompletableFuture().get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("cannot bind the replication listener on " + host + ":" + port + ": " + e, e);
    }
    log.info("broker {}: replication listener bound on {}", selfId, binding.localAddress());
  }

  /** Binds the listener on host:port (0 = any free port) and returns once it is bound. */
  public static TcpReplicationTransport start(ActorSystem<?> system, int selfId, ReplicationSettings settings,
      Inbound inbound, String host, int port) {
    return start(system, selfId, settings, PeerAuthentication.none(), inbound, host, port);
  }

  /** As above, with peers authenticated as {@code auth} says. */
  public static TcpReplicationTransport start(ActorSystem<?> system, int selfId, ReplicationSettings settings,
      PeerAuthentication auth, Inbound inbound, String host, int port) {
    return new TcpReplicationTransport(system, selfId, settings, auth, inbound, host, port);
  }

  @Override
  public int boundPort() {
    return binding.localAddress().getPort();
  }

  @Override
  public void updatePeers(Map<Integer, BrokerEndpoint> brokers) {
    for (BrokerEndpoint e : brokers.values()) {
      if (e.id() == selfId) {
        continue;
      }
      peers.put(e.id(), e);
      if (e.id() > selfId && dialling.putIfAbsent(e.id(), Boolean.TRUE) == null) {
        dial(e.id(), settings.reconnectMinBackoff());
      }
    }
  }

  @Override
  public boolean send(int toBroker, ReplicationFrame frame) {
    BoundedSourceQueue<ByteString> queue = links.get(toBroker);
    if (queue == null || closed) {
      return false;
    }
    ByteString bytes = encode(frame);
    QueueOfferResult result = queue.offer(bytes);
    if (result == QueueOfferResult.enqueued()) {
      if (frame.hasSessionRequest()) {
        suspicion.requested(toBroker);
      }
      framesSent.incrementAndGet();
      bytesSent.addAndGet(bytes.size());
      return true;
    }
    return false;
  }

  @Override
  public boolean connected(int broker) {
    return links.containsKey(broker) && !closed;
  }

  @Override
  public java.util.SortedSet<Integer> suspectedPeers() {
    return suspicion.suspected();
  }

  @Override
  public java.util.SortedSet<Integer> closedPeers() {
    return suspicion.closed();
  }

  @Override
  public long framesSent() {
    return framesSent.get();
  }

  @Override
  public long bytesSent() {
    return bytesSent.get();
  }

  /**
   * Aborts every broker-to-broker connection open now, as a network failure would; the diallers reconnect with
   * their backoff. For failure tests and operators.
   */
  public void abortConnections(String reason) {
    SharedKillSwitch old = connectionSwitch;
    connectionSwitch = KillSwitches.shared("replication-connections");
    log.info("broker {}: aborting its replication connections: {}", selfId, reason);
    old.abort(new java.io.IOException("replication connections aborted: " + reason));
  }

  @Override
  public void close() {
    closed = true;
    killSwitch.shutdown();
    binding.unbind();
  }

  static ByteString encode(ReplicationFrame frame) {
    int size = frame.getSerializedSize();
    byte[] bytes = new byte[4 + size];
    bytes[0] = (byte) (size >>> 24);
    bytes[1] = (byte) (size >>> 16);
    bytes[2] = (byte) (size >>> 8);
    bytes[3] = (byte) size;
    try {
      CodedOutputStream out = CodedOutputStream.newInstance(bytes, 4, size);
      frame.writeTo(out);
      out.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new IllegalStateException("protobuf wrote a different size than it computed", e);
    }
    return ByteString.fromArrayUnsafe(bytes);
  }

  private Flow<ByteString, ReplicationFrame, ?> decoder() {
    return Framing.lengthField(4, 0, settings.maxFrameSize() + 4, ByteOrder.BIG_ENDIAN)
        .map(bytes -> {
          try {
            CodedInputStream in = CodedInputStream.newInstance(bytes.drop(4).toArrayUnsafe());
            in.enableAliasing(true); // record batches stay views of the frame, not copies
            in.setSizeLimit(bytes.size());
            return ReplicationFrame.parseFrom(in);
          } catch (IOException e) {
            throw new IllegalStateException("unparseable replication frame of " + bytes.size() + " bytes", e);
          }
        });
  }

  /** A peer with a lower id dialled us: its first frame says who it is; then the connection is our link to it. */
  private void accept(Tcp.IncomingConnection connection) {
    AcceptorHandshake handshake = new AcceptorHandshake(selfId, auth.tls().enabled(), auth,
        auth.usesSecret() ? PeerAuthentication.newChallenge() : null);
    // Set while the connection's stream is materialized, before any frame is read: the hello registers it as the
    // peer's link at once, so the answer to a fetch that came in the same read has somewhere to go.
    AtomicReference<BoundedSourceQueue<ByteString>> outbound = new AtomicReference<>();
    Sink<ByteString, CompletionStage<Done>> in = decoder().toMat(Sink.foreach(frame -> {
      PeerHandshake.Step step = handshake.received(frame);
      if (step.action() == PeerHandshake.Action.MISDIRECTED) {
        log.warn("broker {}: closing a replication connection {} ({}): its address for that broker is stale", selfId,
            step.reason(), connection.remoteAddress());
        throw new MisdirectedConnectionException(step.peer(), selfId);
      }
      follow(step, frame, outbound.get());
      if (step.action() == PeerHandshake.Action.LINK) {
        log.info("broker {}: replication connection from broker {} ({})", selfId, step.peer(),
            connection.remoteAddress());
      }
    }), Keep.right());
    Flow<ByteString, ByteString, Pair<CompletionStage<Done>, BoundedSourceQueue<ByteString>>> plain =
        Flow.fromSinkAndSourceCoupledMat(in, Source.<ByteString>queue(settings.sendQueueFrames())
            .mapMaterializedValue(q -> {
              outbound.set(q);
              return q;
            }), Keep.both())
            .via(killSwitch.flow()).via(connectionSwitch.flow());
    Flow<ByteString, ByteString, Pair<CompletionStage<Done>, BoundedSourceQueue<ByteString>>> secured =
        !auth.tls().enabled() ? plain : TlsFlows.server(plain, auth.tls()::brokerServerEngine,
            session -> refuseUnlessGoingOn(handshake.certified(PeerCertificates.requireBroker(session))));
    Pair<CompletionStage<Done>, BoundedSourceQueue<ByteString>> mat = connection.handleWith(secured, system);
    offer(mat.second(), handshake.start().send());
    mat.first().whenComplete((done, failure) -> {
      int id = handshake.peer();
      if (id < 0 && (failure != null || auth.usesSecret() || auth.tls().enabled())) {
        // A refused peer (an unknown certificate, no or a wrong proof, a plaintext dialler under TLS): one line.
        log.warn("broker {}: refused a replication connection from {}: {}", selfId, connection.remoteAddress(),
            failure != null ? failure.getMessage() : "it did not authenticate before the connection ended");
      }
      if (id >= 0) {
        suspicion.ended(id);
        links.remove(id, mat.second());
        log.info("broker {}: replication connection from broker {} ended{}", selfId, id,
            failure == null ? "" : ": " + failure.getMessage());
      }
    });
  }

  private void dial(int peerId, Duration backoff) {
    if (closed) {
      return;
    }
    BrokerEndpoint e = peers.get(peerId);
    DiallerHandshake handshake = new DiallerHandshake(selfId, peerId, auth,
        auth.usesSecret() ? PeerAuthentication.newChallenge() : null);
    Flow<ByteString, ByteString, ?> network = Tcp.get(system).outgoingConnection(e.host(), e.replicationPort());
    if (auth.tls().enabled()) {
      network = TlsFlows.client(network, () -> auth.tls().brokerClientEngine(e.host(), e.replicationPort()),
          session -> refuseUnlessGoingOn(handshake.certified(PeerCertificates.requireBroker(session))));
    }
    AtomicReference<BoundedSourceQueue<ByteString>> queueRef = new AtomicReference<>();
    Pair<BoundedSourceQueue<ByteString>, CompletionStage<Done>> mat = Source
        .<ByteString>queue(settings.sendQueueFrames())
        .mapMaterializedValue(q -> {
          queueRef.set(q); // before any frame is read: under a secret the acceptor's challenge may come at once
          return q;
        })
        .via(killSwitch.flow())
        .via(connectionSwitch.flow())
        .via(network)
        .via(decoder())
        .toMat(Sink.foreach(frame -> follow(handshake.received(frame), frame, queueRef.get())), Keep.both())
        .run(system);
    BoundedSourceQueue<ByteString> queue = mat.first();
    PeerHandshake.Step start = handshake.start();
    offer(queue, start.send());
    if (start.action() == PeerHandshake.Action.LINK) {
      links.put(peerId, queue);
    }
    long started = System.nanoTime();
    mat.second().whenComplete((done, failure) -> {
      suspicion.ended(peerId);
      links.remove(peerId, queue);
      if (closed) {
        return;
      }
      // A connection that lived a while restarts the backoff; one that failed at once doubles it.
      boolean lived = System.nanoTime() - started > settings.reconnectMaxBackoff().toNanos();
      Duration wait = lived ? settings.reconnectMinBackoff() : backoff;
      Duration next = min(wait.multipliedBy(2), settings.reconnectMaxBackoff());
      // The first failure says what happened; the retries of a peer that stays down are not worth a line each.
      boolean firstFailure = wait.equals(settings.reconnectMinBackoff());
      String message = "broker {}: replication connection to broker {} at {}:{} ended ({}); reconnecting in {} ms";
      Object[] values = {selfId, peerId, e.host(), e.replicationPort(),
          failure == null ? "closed" : failure.getMessage(), wait.toMillis()};
      if (firstFailure) {
        log.info(message, values);
      } else {
        log.debug(message, values);
      }
      system.scheduler().scheduleOnce(wait, () -> dial(peerId, next), system.executionContext());
    });
  }

  /**
   * Does what a handshake step says for a frame that arrived on a connection whose send queue is {@code queue}; a
   * refusal ends the connection (its one log line is written where the connection ends).
   */
  private void follow(PeerHandshake.Step step, ReplicationFrame frame, BoundedSourceQueue<ByteString> queue) {
    switch (step.action()) {
      case LINK -> {
        suspicion.heard(step.peer());
        links.put(step.peer(), queue);
        offer(queue, step.send());
      }
      case DELIVER -> {
        suspicion.heard(step.peer());
        inbound.onFrame(step.peer(), frame);
      }
      case HEARD -> suspicion.heard(step.peer());
      case CONTINUE -> offer(queue, step.send());
      case IGNORE -> { }
      case REFUSE -> throw new PeerRefusedException(step.reason());
      case MISDIRECTED -> throw new MisdirectedConnectionException(step.peer(), selfId);
      default -> throw new IllegalStateException("unknown handshake action " + step.action());
    }
  }

  /** Ends the TLS handshake with the refusal when the handshake refuses the peer's certificate. */
  private static void refuseUnlessGoingOn(PeerHandshake.Step step) {
    if (step.action() == PeerHandshake.Action.REFUSE) {
      throw new PeerRefusedException(step.reason());
    }
  }

  private static void offer(BoundedSourceQueue<ByteString> queue, List<ReplicationFrame> frames) {
    frames.forEach(frame -> queue.offer(encode(frame)));
  }

  /** Ends a connection whose dialler meant another broker (see {@link #accept}); expected, so without a trace. */
  private static final class MisdirectedConnectionException extends RuntimeException {
    MisdirectedConnectionException(int from, int self) {
      super("broker " + from + " dialled broker " + self + " at a stale address", null, false, false);
    }
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }
}

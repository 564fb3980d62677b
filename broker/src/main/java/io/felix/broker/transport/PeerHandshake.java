package io.felix.broker.transport;

import io.felix.protocol.replication.PeerHello;
import io.felix.protocol.replication.ReplicationFrame;
import java.util.List;

/**
 * The handshake of one side of a replication connection, as a pure state machine: the connection feeds it what
 * arrives and does what each {@link Step} says; it does no I/O, reads no clock and draws no random bytes (the
 * challenge is given). Who the peer is ({@link PeerAuthentication}): with felix.tls, its certificate names the
 * broker; with a cluster secret, each side proves with an HMAC over the other's challenge that it knows the secret;
 * with neither, a hello is taken at its word. Either way one connection carries one broker id, and a dialler that
 * meant another broker is sent away. {@link AcceptorHandshake} and {@link DiallerHandshake} are the two sides, each
 * with its transition table.
 *
 * <p>Thread-safety: {@link #received} is called for one frame at a time (the connection's sink); {@link #certified}
 * may come from the TLS stage before the first frame; {@link #peer} may be read from any thread.
 */
sealed interface PeerHandshake permits AcceptorHandshake, DiallerHandshake {

  /** What the side sends when the connection opens, and whether the connection is the peer's link at once. */
  Step start();

  /**
   * The TLS handshake is done and the peer's certificate names broker {@code broker}: a dialler refuses a broker
   * other than the one it dialled, an acceptor keeps it to check the hello against.
   */
  Step certified(int broker);

  /** A frame arrived. */
  Step received(ReplicationFrame frame);

  /** The broker this connection is the link to, or -1 before the handshake linked it. */
  int peer();

  /** What the connection does next. */
  enum Action {
    /** The handshake goes on: send {@link Step#send}, take nothing from the frame. */
    CONTINUE,
    /** The connection is now the link to {@link Step#peer}: the peer is heard, register the link, then send. */
    LINK,
    /** A frame of the linked peer: it is heard, and the frame goes to the inbound side. */
    DELIVER,
    /** A hello of the linked peer after the handshake: it is heard, nothing more. */
    HEARD,
    /** A frame before any hello on a connection that needs no authentication: dropped. */
    IGNORE,
    /** End the connection: the peer is refused for who it is ({@link Step#reason}). */
    REFUSE,
    /**
     * End the connection: the dialler ({@link Step#peer}) meant another broker, its address is stale
     * ({@link Step#reason}).
     */
    MISDIRECTED
  }

  /**
   * One step: an action, the peer it concerns (-1 when none), the frames to send (hellos), and for an ended
   * connection the reason.
   */
  record Step(Action action, int peer, List<ReplicationFrame> send, String reason) {
    public Step {
      send = List.copyOf(send);
    }

    static Step proceed(List<ReplicationFrame> send) {
      return new Step(Action.CONTINUE, -1, send, "");
    }

    static Step link(int peer, List<ReplicationFrame> send) {
      return new Step(Action.LINK, peer, send, "");
    }

    static Step deliver(int peer) {
      return new Step(Action.DELIVER, peer, List.of(), "");
    }

    static Step heard(int peer) {
      return new Step(Action.HEARD, peer, List.of(), "");
    }

    static Step ignore() {
      return new Step(Action.IGNORE, -1, List.of(), "");
    }

    static Step refuse(String reason) {
      return new Step(Action.REFUSE, -1, List.of(), reason);
    }

    static Step misdirected(int from, String reason) {
      return new Step(Action.MISDIRECTED, from, List.of(), reason);
    }
  }

  /** A hello frame. */
  static ReplicationFrame hello(PeerHello.Builder hello) {
    return ReplicationFrame.newBuilder().setHello(hello).build();
  }

  static com.google.protobuf.ByteString bytes(byte[] bytes) {
    return com.google.protobuf.ByteString.copyFrom(bytes);
  }
}

package io.felix.broker.transport;

import io.felix.protocol.replication.PeerHello;
import io.felix.protocol.replication.ReplicationFrame;
import java.util.List;

/**
 * The dialling side's handshake (we dial every peer with a higher id). Transitions:
 * <pre>
 * start              secret: send hello(self, to peer, challenge D)
 *                    else:   link to the peer at once; send hello(self, to peer)
 * certified(n)       refuse unless n is the peer dialled (TLS: its certificate names it)
 * before the acceptor's proof (secret only):
 *   not a hello      refuse
 *   hello, no proof  send hello(self, to peer, proof = HMAC(DIALLER, self, peer, its challenge)); continue
 *   hello, proof     refuse unless proof = HMAC(ACCEPTOR, self, peer, D); link to the peer
 * linked:  hello     heard
 *          other     deliver
 * </pre>
 */
final class DiallerHandshake implements PeerHandshake {
  private final int selfId;
  private final int peerId;
  private final PeerAuthentication auth;
  /** Ours, sent at start under a secret (null without one). */
  private final byte[] challenge;
  private volatile int peer = -1;

  /**
   * @param auth the cluster secret, if any ({@link PeerAuthentication#usesSecret})
   * @param challenge random bytes to challenge the acceptor with under a secret ({@link PeerAuthentication
   *     #newChallenge}); ignored without one
   */
  DiallerHandshake(int selfId, int peerId, PeerAuthentication auth, byte[] challenge) {
    this.selfId = selfId;
    this.peerId = peerId;
    this.auth = auth;
    this.challenge = auth.usesSecret() ? challenge.clone() : null;
    // Without a secret the connection is the peer's link from the start: a frame is never refused for coming early.
    this.peer = this.challenge == null ? peerId : -1;
  }

  @Override
  public Step start() {
    PeerHello.Builder hello = PeerHello.newBuilder().setBrokerId(selfId).setToBrokerId(peerId);
    if (challenge == null) {
      return Step.link(peerId, List.of(PeerHandshake.hello(hello)));
    }
    return Step.proceed(List.of(PeerHandshake.hello(hello.setChallenge(PeerHandshake.bytes(challenge)))));
  }

  @Override
  public Step certified(int broker) {
    return broker == peerId ? Step.proceed(List.of())
        : Step.refuse("the peer's certificate names broker " + broker + ", not broker " + peerId);
  }

  @Override
  public Step received(ReplicationFrame frame) {
    if (peer >= 0) {
      return frame.hasHello() ? Step.heard(peer) : Step.deliver(peer);
    }
    if (!frame.hasHello()) {
      return Step.refuse("broker " + peerId + " sent a frame before it proved the cluster secret");
    }
    PeerHello hello = frame.getHello();
    if (hello.getProof().isEmpty()) {
      return Step.proceed(List.of(PeerHandshake.hello(PeerHello.newBuilder().setBrokerId(selfId).setToBrokerId(peerId)
          .setProof(PeerHandshake.bytes(auth.proof(PeerAuthentication.Role.DIALLER, selfId, peerId,
              hello.getChallenge().toByteArray()))))));
    }
    if (!auth.verify(PeerAuthentication.Role.ACCEPTOR, selfId, peerId, challenge, hello.getProof().toByteArray())) {
      return Step.refuse("the broker answering as " + peerId
          + " gave no valid proof of felix.replication.cluster-secret");
    }
    peer = peerId;
    return Step.link(peerId, List.of());
  }

  @Override
  public int peer() {
    return peer;
  }
}

package io.felix.broker.transport;

import io.felix.protocol.replication.PeerHello;
import io.felix.protocol.replication.ReplicationFrame;
import java.util.List;

/**
 * The accepting side's handshake (a broker with a lower id dialled us). Transitions, for each frame in order:
 * <pre>
 * start                       secret: send hello(self, challenge A)             else: nothing
 * certified(n)                remember n (TLS: the broker the dialler's certificate names)
 * hello, secret, not linked:
 *   without proof             remember the dialler's challenge D; continue
 *   with proof                refuse unless proof = HMAC(DIALLER, its id, self, A) and D was seen; then as below
 * hello(id, to):
 *   TLS and id != n           refuse (the hello claims another broker than the certificate)
 *   linked to another id      refuse (one broker id per connection)
 *   id = self or to != self   misdirected (a stale address)
 *   else                      link to id; send hello(self, to id), or under a secret our proof over D
 * other frame:  linked        deliver
 *               secret or TLS refuse (a frame before an authenticating hello)
 *               else          ignore
 * </pre>
 * A second hello of the linked broker links again and is answered again, as the first.
 */
final class AcceptorHandshake implements PeerHandshake {
  private final int selfId;
  private final boolean tls;
  private final PeerAuthentication auth;
  /** Ours, sent at start under a secret (null without one). */
  private final byte[] challenge;
  /** The dialler's, from its first hello under a secret. */
  private byte[] diallerChallenge;
  /** The broker the dialler's certificate names, once the TLS handshake is done. */
  private volatile int certified = -1;
  private volatile int peer = -1;

  /**
   * @param tls whether the connection runs TLS (felix.tls), whose certificate then names the dialler
   * @param auth the cluster secret, if any ({@link PeerAuthentication#usesSecret})
   * @param challenge random bytes to challenge the dialler with under a secret ({@link PeerAuthentication
   *     #newChallenge}); ignored without one
   */
  AcceptorHandshake(int selfId, boolean tls, PeerAuthentication auth, byte[] challenge) {
    this.selfId = selfId;
    this.tls = tls;
    this.auth = auth;
    this.challenge = auth.usesSecret() ? challenge.clone() : null;
  }

  @Override
  public Step start() {
    return Step.proceed(challenge == null ? List.of()
        : List.of(PeerHandshake.hello(PeerHello.newBuilder().setBrokerId(selfId)
            .setChallenge(PeerHandshake.bytes(challenge)))));
  }

  @Override
  public Step certified(int broker) {
    certified = broker;
    return Step.proceed(List.of());
  }

  @Override
  public Step received(ReplicationFrame frame) {
    if (frame.hasHello()) {
      return hello(frame.getHello());
    }
    if (peer >= 0) {
      return Step.deliver(peer);
    }
    if (auth.usesSecret() || tls) {
      return Step.refuse("it sent a frame before a hello that authenticates it");
    }
    return Step.ignore();
  }

  private Step hello(PeerHello hello) {
    if (auth.usesSecret() && peer < 0) {
      if (hello.getProof().isEmpty()) {
        diallerChallenge = hello.getChallenge().toByteArray();
        return Step.proceed(List.of());
      }
      int claimed = hello.getBrokerId();
      if (!auth.verify(PeerAuthentication.Role.DIALLER, claimed, selfId, challenge, hello.getProof().toByteArray())
          || diallerChallenge == null) {
        return Step.refuse("its hello claims broker " + claimed
            + " without a valid proof of felix.replication.cluster-secret");
      }
    }
    int id = hello.getBrokerId();
    if (tls && certified != id) {
      return Step.refuse("its hello claims broker " + id + " but its certificate names broker " + certified);
    }
    if (peer >= 0 && peer != id) {
      // Its link is registered under the first id; a second identity would leave that link behind.
      return Step.refuse("its hello claims broker " + id + " after it said it was broker " + peer);
    }
    if (id == selfId || (hello.hasToBrokerId() && hello.getToBrokerId() != selfId)) {
      // The dialler used a stale address (ours now, even its own): closing makes it dial the peer's new one.
      return Step.misdirected(id, "from broker " + id + " meant for broker "
          + (hello.hasToBrokerId() ? Integer.toString(hello.getToBrokerId()) : "unknown"));
    }
    peer = id;
    // The answering hello tells the dialler that the connection is up, even when no fetch flows yet.
    PeerHello.Builder answer = PeerHello.newBuilder().setBrokerId(selfId).setToBrokerId(id);
    if (auth.usesSecret()) {
      answer.setProof(PeerHandshake.bytes(auth.proof(PeerAuthentication.Role.ACCEPTOR, id, selfId,
          diallerChallenge)));
    }
    return Step.link(id, List.of(PeerHandshake.hello(answer)));
  }

  @Override
  public int peer() {
    return peer;
  }
}

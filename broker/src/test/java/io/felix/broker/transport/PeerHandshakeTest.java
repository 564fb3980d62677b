package io.felix.broker.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.ByteString;
import io.felix.broker.tls.TlsSettings;
import io.felix.broker.transport.PeerHandshake.Action;
import io.felix.broker.transport.PeerHandshake.Step;
import io.felix.protocol.replication.PeerHello;
import io.felix.protocol.replication.ForwardProduce;
import io.felix.protocol.replication.ReplicationFrame;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The replication connection's handshake on both sides, without sockets: broker 0 dials broker 1 (the lower id
 * dials). Each test feeds frames, a certificate's broker or another side's output, and checks the exact steps:
 * what is sent, whether the connection links, delivers, or ends, and why.
 */
class PeerHandshakeTest {
  private static final PeerAuthentication PLAIN = PeerAuthentication.none();
  private static final PeerAuthentication SECRET = new PeerAuthentication(TlsSettings.off(), "s3cret");
  private static final PeerAuthentication OTHER_SECRET = new PeerAuthentication(TlsSettings.off(), "guessed");
  private static final byte[] ACCEPTOR_CHALLENGE = filled(1);
  private static final byte[] DIALLER_CHALLENGE = filled(2);
  private static final ReplicationFrame FORWARD = ReplicationFrame.newBuilder()
      .setForwardProduce(ForwardProduce.getDefaultInstance()).build();

  @Test
  void withoutASecretTheDiallerLinksAtOnceAndTheAcceptorOnItsHello() {
    DiallerHandshake dialler = new DiallerHandshake(0, 1, PLAIN, null);
    AcceptorHandshake acceptor = new AcceptorHandshake(1, false, PLAIN, null);

    assertEquals(Step.proceed(List.of()), acceptor.start());
    Step opened = dialler.start();
    assertEquals(Step.link(1, List.of(hello(hello(0).setToBrokerId(1)))), opened);
    assertEquals(1, dialler.peer());

    assertEquals(-1, acceptor.peer());
    Step linked = acceptor.received(opened.send().get(0));
    assertEquals(Step.link(0, List.of(hello(hello(1).setToBrokerId(0)))), linked);
    assertEquals(0, acceptor.peer());

    assertEquals(Step.heard(1), dialler.received(linked.send().get(0)));
    assertEquals(Step.deliver(0), acceptor.received(FORWARD));
    assertEquals(Step.deliver(1), dialler.received(FORWARD));
  }

  @Test
  void withASharedSecretBothSidesProveItBeforeEitherLinks() {
    DiallerHandshake dialler = new DiallerHandshake(0, 1, SECRET, DIALLER_CHALLENGE);
    AcceptorHandshake acceptor = new AcceptorHandshake(1, false, SECRET, ACCEPTOR_CHALLENGE);

    Step challenge = acceptor.start();
    assertEquals(List.of(hello(hello(1).setChallenge(ByteString.copyFrom(ACCEPTOR_CHALLENGE)))), challenge.send());
    Step diallerChallenge = dialler.start();
    assertEquals(Step.proceed(List.of(hello(hello(0).setToBrokerId(1)
        .setChallenge(ByteString.copyFrom(DIALLER_CHALLENGE))))), diallerChallenge);
    assertEquals(-1, dialler.peer());

    assertEquals(Step.proceed(List.of()), acceptor.received(diallerChallenge.send().get(0)));
    Step proof = dialler.received(challenge.send().get(0));
    assertEquals(Step.proceed(List.of(hello(hello(0).setToBrokerId(1).setProof(ByteString.copyFrom(
        SECRET.proof(PeerAuthentication.Role.DIALLER, 0, 1, ACCEPTOR_CHALLENGE)))))), proof);

    Step linked = acceptor.received(proof.send().get(0));
    assertEquals(Step.link(0, List.of(hello(hello(1).setToBrokerId(0).setProof(ByteString.copyFrom(
        SECRET.proof(PeerAuthentication.Role.ACCEPTOR, 0, 1, DIALLER_CHALLENGE)))))), linked);
    assertEquals(Step.link(1, List.of()), dialler.received(linked.send().get(0)));
    assertEquals(1, dialler.peer());
    assertEquals(Step.deliver(0), acceptor.received(FORWARD));
  }

  @Test
  void aDiallerWithAnotherSecretIsRefused() {
    DiallerHandshake dialler = new DiallerHandshake(0, 1, OTHER_SECRET, DIALLER_CHALLENGE);
    AcceptorHandshake acceptor = new AcceptorHandshake(1, false, SECRET, ACCEPTOR_CHALLENGE);
    acceptor.received(dialler.start().send().get(0));
    Step proof = dialler.received(acceptor.start().send().get(0));

    assertEquals(Step.refuse("its hello claims broker 0 without a valid proof of felix.replication.cluster-secret"),
        acceptor.received(proof.send().get(0)));
    assertEquals(-1, acceptor.peer());
  }

  @Test
  void anAcceptorWithAnotherSecretIsRefusedByTheDialler() {
    DiallerHandshake dialler = new DiallerHandshake(0, 1, SECRET, DIALLER_CHALLENGE);
    dialler.start();
    dialler.received(hello(hello(1).setChallenge(ByteString.copyFrom(ACCEPTOR_CHALLENGE))));
    ReplicationFrame forged = hello(hello(1).setToBrokerId(0).setProof(ByteString.copyFrom(
        OTHER_SECRET.proof(PeerAuthentication.Role.ACCEPTOR, 0, 1, DIALLER_CHALLENGE))));

    assertEquals(Step.refuse("the broker answering as 1 gave no valid proof of felix.replication.cluster-secret"),
        dialler.received(forged));
    assertEquals(-1, dialler.peer());
  }

  @Test
  void theDiallersOwnProofReplayedAsTheAcceptorsIsRefused() {
    DiallerHandshake dialler = new DiallerHandshake(0, 1, SECRET, DIALLER_CHALLENGE);
    dialler.start();
    ReplicationFrame replayed = hello(hello(1).setToBrokerId(0).setProof(ByteString.copyFrom(
        SECRET.proof(PeerAuthentication.Role.DIALLER, 0, 1, DIALLER_CHALLENGE))));

    assertEquals(Action.REFUSE, dialler.received(replayed).action());
  }

  @Test
  void aProofWithoutTheDiallersOwnChallengeIsRefused() {
    AcceptorHandshake acceptor = new AcceptorHandshake(1, false, SECRET, ACCEPTOR_CHALLENGE);
    acceptor.start();
    ReplicationFrame proofOnly = hello(hello(0).setToBrokerId(1).setProof(ByteString.copyFrom(
        SECRET.proof(PeerAuthentication.Role.DIALLER, 0, 1, ACCEPTOR_CHALLENGE))));

    assertEquals(Step.refuse("its hello claims broker 0 without a valid proof of felix.replication.cluster-secret"),
        acceptor.received(proofOnly));
  }

  @Test
  void aFrameBeforeAnAuthenticatingHelloEndsTheConnectionUnlessNothingIsChecked() {
    String early = "it sent a frame before a hello that authenticates it";
    assertEquals(Step.refuse(early), new AcceptorHandshake(1, false, SECRET, ACCEPTOR_CHALLENGE).received(FORWARD));
    assertEquals(Step.refuse(early), new AcceptorHandshake(1, true, PLAIN, null).received(FORWARD));
    assertEquals(Step.ignore(), new AcceptorHandshake(1, false, PLAIN, null).received(FORWARD));

    DiallerHandshake dialler = new DiallerHandshake(0, 1, SECRET, DIALLER_CHALLENGE);
    dialler.start();
    assertEquals(Step.refuse("broker 1 sent a frame before it proved the cluster secret"), dialler.received(FORWARD));
  }

  @Test
  void underTlsTheHelloMustClaimTheBrokerItsCertificateNames() {
    AcceptorHandshake acceptor = new AcceptorHandshake(1, true, PLAIN, null);
    assertEquals(Step.proceed(List.of()), acceptor.certified(0));
    assertEquals(Step.refuse("its hello claims broker 2 but its certificate names broker 0"),
        acceptor.received(hello(hello(2).setToBrokerId(1))));
    assertEquals(Action.LINK, acceptor.received(hello(hello(0).setToBrokerId(1))).action());

    AcceptorHandshake uncertified = new AcceptorHandshake(1, true, PLAIN, null);
    assertEquals(Step.refuse("its hello claims broker 0 but its certificate names broker -1"),
        uncertified.received(hello(hello(0).setToBrokerId(1))));
  }

  @Test
  void theDiallerRefusesACertificateOfAnotherBrokerThanTheOneItDialled() {
    DiallerHandshake dialler = new DiallerHandshake(0, 1, PLAIN, null);
    assertEquals(Step.refuse("the peer's certificate names broker 2, not broker 1"), dialler.certified(2));
    assertEquals(Step.proceed(List.of()), dialler.certified(1));
  }

  @Test
  void aConnectionCarriesOneBrokerId() {
    AcceptorHandshake acceptor = new AcceptorHandshake(1, false, PLAIN, null);
    acceptor.received(hello(hello(0).setToBrokerId(1)));

    assertEquals(Step.refuse("its hello claims broker 2 after it said it was broker 0"),
        acceptor.received(hello(hello(2).setToBrokerId(1))));
    assertEquals(0, acceptor.peer());
    // The same broker saying hello again is answered again.
    assertEquals(Step.link(0, List.of(hello(hello(1).setToBrokerId(0)))),
        acceptor.received(hello(hello(0).setToBrokerId(1))));
  }

  @Test
  void aDiallerThatMeantAnotherBrokerIsSentAway() {
    AcceptorHandshake acceptor = new AcceptorHandshake(1, false, PLAIN, null);
    assertEquals(Step.misdirected(0, "from broker 0 meant for broker 5"),
        acceptor.received(hello(hello(0).setToBrokerId(5))));
    assertEquals(Step.misdirected(1, "from broker 1 meant for broker unknown"), acceptor.received(hello(hello(1))));
    assertEquals(-1, acceptor.peer());
  }

  @Test
  void theGivenChallengeIsCopied() {
    byte[] challenge = filled(3);
    AcceptorHandshake acceptor = new AcceptorHandshake(1, false, SECRET, challenge);
    Arrays.fill(challenge, (byte) 0);
    assertArrayEquals(filled(3), acceptor.start().send().get(0).getHello().getChallenge().toByteArray());
  }

  private static PeerHello.Builder hello(int brokerId) {
    return PeerHello.newBuilder().setBrokerId(brokerId);
  }

  private static ReplicationFrame hello(PeerHello.Builder hello) {
    return ReplicationFrame.newBuilder().setHello(hello).build();
  }

  private static byte[] filled(int value) {
    byte[] bytes = new byte[32];
    Arrays.fill(bytes, (byte) value);
    return bytes;
  }
}

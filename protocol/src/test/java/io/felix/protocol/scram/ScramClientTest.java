package io.felix.protocol.scram;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Base64;
import org.junit.jupiter.api.Test;

/** The client's side against the SCRAM-SHA-256 exchange of RFC 7677 section 3 (user "user", password "pencil"). */
class ScramClientTest {
  static final String CLIENT_NONCE = "rOprNGfwEbeRWgbNEkqO";
  static final String SERVER_FIRST =
      "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096";
  static final String CLIENT_FINAL = "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
      + "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=";
  static final String SERVER_FINAL = "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=";

  @Test
  void producesTheRfc7677MessagesAndAcceptsTheBrokersSignature() {
    ScramClient client = new ScramClient("user", "pencil", CLIENT_NONCE);
    assertEquals("n,,n=user,r=rOprNGfwEbeRWgbNEkqO", client.clientFirst());
    assertEquals(CLIENT_FINAL, client.clientFinal(SERVER_FIRST));
    client.verifyServerFinal(SERVER_FINAL);
  }

  @Test
  void refusesAServerSignatureMadeWithoutTheCredential() {
    ScramClient client = new ScramClient("user", "pencil", CLIENT_NONCE);
    client.clientFirst();
    client.clientFinal(SERVER_FIRST);
    ScramException e = assertThrows(ScramException.class,
        () -> client.verifyServerFinal("v=" + Base64.getEncoder().encodeToString(new byte[32])));
    assertEquals("the broker's signature does not match: it does not hold this user's credential", e.getMessage());
  }

  @Test
  void refusesANonceTheBrokerDidNotExtendFromTheClients() {
    ScramClient client = new ScramClient("user", "pencil", CLIENT_NONCE);
    assertThrows(ScramException.class, () -> client.clientFinal("r=someoneElse,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"));
    assertThrows(ScramException.class, () -> client.clientFinal("r=" + CLIENT_NONCE + "x,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=1"));
  }

  @Test
  void escapesCommaAndEqualsInNames() {
    assertEquals("a=2Cb=3Dc", Scram.escapeName("a,b=c"));
    assertEquals("a,b=c", Scram.unescapeName("a=2Cb=3Dc"));
    assertThrows(ScramException.class, () -> Scram.unescapeName("a=b"));
  }
}

package io.felix.broker.security;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.protocol.scram.Scram;
import io.felix.protocol.scram.ScramClient;
import io.felix.protocol.scram.ScramCredential;
import io.felix.protocol.scram.ScramException;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The broker's side against RFC 7677 section 3's exchange, with the credential the broker stores for "pencil". */
class ScramServerTest {
  private static final String SERVER_NONCE = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
  private static final ScramCredential PENCIL =
      Scram.credential("pencil", Base64.getDecoder().decode("W22ZaJ0SNY7soEsUEjb6gQ=="), 4096);
  private static final byte[] SECRET = new byte[32];

  private static ScramServer server(Map<String, ScramCredential> users, String nonce) {
    return new ScramServer(user -> Optional.ofNullable(users.get(user)), SECRET, 4096, nonce);
  }

  @Test
  void answersTheRfc7677ExchangeAndAuthenticatesTheUser() {
    ScramServer server = server(Map.of("user", PENCIL), SERVER_NONCE);
    assertEquals("r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
        server.serverFirst("n,,n=user,r=rOprNGfwEbeRWgbNEkqO"));
    ScramServer.Authenticated done = server.serverFinal("c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
        + "p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=");
    assertEquals("user", done.principal());
    assertEquals("v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=", done.serverFinal());
  }

  @Test
  void refusesAWrongPassword() {
    ScramServer server = server(Map.of("user", PENCIL), Scram.nonce());
    ScramClient client = new ScramClient("user", "crayon");
    String clientFinal = client.clientFinal(server.serverFirst(client.clientFirst()));
    ScramException e = assertThrows(ScramException.class, () -> server.serverFinal(clientFinal));
    assertEquals("invalid-proof: wrong user name or password", e.getMessage());
  }

  @Test
  void anUnknownUserGetsAStableMadeUpSaltAndFailsOnlyAtTheProof() {
    String first = server(Map.of(), "n1").serverFirst("n,,n=mallory,r=abc");
    String again = server(Map.of(), "n2").serverFirst("n,,n=mallory,r=abc");
    assertEquals(first.substring(first.indexOf(",s=")), again.substring(again.indexOf(",s=")));
    assertTrue(first.endsWith(",i=4096"));
    ScramServer server = server(Map.of(), Scram.nonce());
    ScramClient client = new ScramClient("mallory", "pencil");
    String clientFinal = client.clientFinal(server.serverFirst(client.clientFirst()));
    assertThrows(ScramException.class, () -> server.serverFinal(clientFinal));
  }

  @Test
  void aNewCredentialWorksEndToEndAndIsSaltedFreshEachTime() {
    ScramCredential credential = Scram.newCredential("correct horse", 4096);
    assertNotEquals(credential.salt(), Scram.newCredential("correct horse", 4096).salt());
    ScramServer server = server(Map.of("alice", credential), Scram.nonce());
    ScramClient client = new ScramClient("alice", "correct horse");
    String clientFinal = client.clientFinal(server.serverFirst(client.clientFirst()));
    ScramServer.Authenticated done = server.serverFinal(clientFinal);
    client.verifyServerFinal(done.serverFinal());
    assertEquals("alice", done.principal());
  }

  @Test
  void refusesMalformedMessagesWithoutStarting() {
    assertThrows(ScramException.class, () -> server(Map.of(), "n").serverFirst("y,,n=user,r=abc"));
    assertThrows(ScramException.class, () -> server(Map.of(), "n").serverFirst("n,,r=abc"));
    assertThrows(ScramException.class, () -> server(Map.of(), "n").serverFinal("c=biws,r=x,p=AAAA"));
  }
}

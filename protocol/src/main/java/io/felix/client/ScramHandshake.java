package io.felix.client;

import io.felix.protocol.Errors;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import io.felix.protocol.client.ScramClientFinalRequest;
import io.felix.protocol.client.ScramClientFirstRequest;
import io.felix.protocol.scram.ScramClient;
import io.felix.protocol.scram.ScramException;
import java.time.Duration;

/**
 * Authenticates a freshly opened connection with SASL/SCRAM-SHA-256 before anything else is sent on it: the
 * client-first and client-final messages, then the check of the broker's signature. Blocking (it runs on the
 * connecting thread). On failure the connection is closed and a non-retriable {@link FelixException} names why.
 */
final class ScramHandshake {
  private ScramHandshake() {}

  static void run(Connection connection, ClientCredentials credentials, Duration timeout) {
    ScramClient scram = new ScramClient(credentials.user(), credentials.password());
    try {
      Response first = answer(connection, Request.newBuilder().setScramClientFirst(
          ScramClientFirstRequest.newBuilder().setMessage(scram.clientFirst())), timeout);
      String clientFinal = scram.clientFinal(first.getScramServerFirst().getMessage());
      Response last = answer(connection, Request.newBuilder().setScramClientFinal(
          ScramClientFinalRequest.newBuilder().setMessage(clientFinal)), timeout);
      scram.verifyServerFinal(last.getScramServerFinal().getMessage());
    } catch (ScramException e) {
      connection.close();
      throw new FelixException(FelixException.Kind.BROKER_ERROR, ErrorCode.AUTHENTICATION_FAILED,
          "SCRAM-SHA-256 with " + connection.address() + " failed: " + e.getMessage(), false, true);
    } catch (RuntimeException e) {
      connection.close();
      throw e;
    }
  }

  private static Response answer(Connection connection, Request.Builder request, Duration timeout) {
    Response response = connection.send(request, timeout).join();
    if (Errors.isError(response)) {
      throw new FelixException(FelixException.Kind.BROKER_ERROR, response.getError().getCode(),
          "authenticating as a client of " + connection.address() + ": " + Errors.format(response.getError()), false,
          true);
    }
    return response;
  }
}

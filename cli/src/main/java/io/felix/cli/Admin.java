package io.felix.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.felix.client.admin.AdminClient;
import java.io.IOException;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import javax.net.ssl.SSLContext;

/**
 * The admin API as felix commands use it: the first of the given brokers that answers serves the request; an
 * error answer becomes a {@link CommandFailure} carrying the API's message and status.
 */
public final class Admin {
  static final ObjectMapper JSON = new ObjectMapper();

  private final List<AdminAddress> brokers;
  private final String token;
  private final SSLContext tls;

  /**
   * @param token the admin API bearer token, null for none
   * @param tls the context trusting the cluster's CA, or null: then an address without a scheme is called over plain
   *     HTTP, and an https:// one trusting the JDK's default CAs
   */
  Admin(List<AdminAddress> brokers, String token, SSLContext tls) {
    this.brokers = brokers;
    this.token = token;
    this.tls = tls;
  }

  /** The parsed body of a 2xx answer to GET path. */
  JsonNode get(String path) throws CommandFailure, InterruptedException {
    return parse(call("GET", path, null));
  }

  /** The parsed body of a 2xx answer to POST path (null for an empty body). */
  JsonNode post(String path, String json) throws CommandFailure, InterruptedException {
    return parse(call("POST", path, json));
  }

  /** The parsed body of a 2xx answer to PATCH path (null for an empty body). */
  JsonNode patch(String path, String json) throws CommandFailure, InterruptedException {
    return parse(call("PATCH", path, json));
  }

  /** The parsed body of a 2xx answer to DELETE path (null for an empty body). */
  JsonNode deleteAnswer(String path) throws CommandFailure, InterruptedException {
    return parse(call("DELETE", path, null));
  }

  /** DELETE path; a non-2xx answer fails. */
  void delete(String path) throws CommandFailure, InterruptedException {
    call("DELETE", path, null);
  }

  private AdminClient.Reply call(String method, String path, String json)
      throws CommandFailure, InterruptedException {
    IOException last = null;
    for (AdminAddress broker : brokers) {
      AdminClient client = new AdminClient(broker.host(), broker.port(), broker.https(tls != null) ? context() : null)
          .withToken(token);
      try {
        AdminClient.Reply reply = switch (method) {
          case "GET" -> client.get(path);
          case "POST" -> client.post(path, json == null ? "" : json);
          case "PATCH" -> client.patch(path, json == null ? "" : json);
          default -> client.delete(path);
        };
        if (!reply.ok()) {
          throw new CommandFailure(errorOf(reply) + " (" + method + " " + path + " answered " + reply.status() + ")");
        }
        return reply;
      } catch (IOException e) {
        last = e;
      }
    }
    throw new CommandFailure("no admin API answers at " + brokers + " (" + last + "); start a cluster with "
        + "'bin/felix local up' or give --admin HOST:PORT");
  }

  /** The cluster's CA when one was given, else the JDK's default trust (an https:// address of a public CA). */
  private SSLContext context() throws CommandFailure {
    try {
      return tls != null ? tls : SSLContext.getDefault();
    } catch (NoSuchAlgorithmException e) {
      throw new CommandFailure("no TLS in this JVM: " + e.getMessage());
    }
  }

  private static String errorOf(AdminClient.Reply reply) {
    try {
      JsonNode error = JSON.readTree(reply.body()).get("error");
      return error != null ? error.asText() : reply.body();
    } catch (IOException notJson) {
      return reply.body();
    }
  }

  private static JsonNode parse(AdminClient.Reply reply) throws CommandFailure {
    if (reply.body() == null || reply.body().isBlank()) {
      return null;
    }
    try {
      return JSON.readTree(reply.body());
    } catch (IOException e) {
      throw new CommandFailure("the admin API answered something other than JSON: " + reply.body());
    }
  }
}

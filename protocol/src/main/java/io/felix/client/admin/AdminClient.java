package io.felix.client.admin;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The broker's admin HTTP API ({@code /v1/...}, {@code /health}, {@code /ready}, {@code /metrics}) on one broker's
 * admin port, for tools and tests. Answers are status and body as text: this module has no JSON library, so
 * callers parse bodies with their own (the answers are small).
 */
public final class AdminClient {

  /**
   * One answer: the HTTP status, the body, and whether the broker served an earlier answer because a current one took
   * too long (its {@code Age} header: the admin API's lists do so while the cluster is slow).
   */
  public record Reply(int status, String body, boolean stale) {

    public Reply(int status, String body) {
      this(status, body, false);
    }

    public boolean ok() {
      return status / 100 == 2;
    }

    /** This reply when 2xx; otherwise an IOException naming the request, the status and the body. */
    public Reply requireOk(String request) throws IOException {
      if (!ok()) {
        throw new IOException(request + " answered " + status + ": " + body);
      }
      return this;
    }
  }

  // Connecting is quick or the broker is not there; some writes (stream creation) wait for the placement journal.
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(2);
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);
  private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();

  private final String base;
  private final HttpClient http;
  private final String token;

  public AdminClient(String host, int port) {
    this(host, port, null);
  }

  /** A client of an admin API served over HTTPS ({@code tls} trusts its CA), or plain HTTP when tls is null. */
  public AdminClient(String host, int port, javax.net.ssl.SSLContext tls) {
    // The connect timeout covers the TLS handshake too, which a loaded broker can take seconds to finish.
    this((tls == null ? "http://" : "https://") + host + ":" + port, tls == null ? HTTP
        : HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT.multipliedBy(5)).sslContext(tls).build(), null);
  }

  private AdminClient(String base, HttpClient http, String token) {
    this.base = base;
    this.http = http;
    this.token = token;
  }

  /** This client sending {@code Authorization: Bearer token} (felix.security.admin-authentication); null: none. */
  public AdminClient withToken(String token) {
    return new AdminClient(base, http, token == null || token.isEmpty() ? null : token);
  }

  /** The admin API of a broker on this machine. */
  public static AdminClient local(int port) {
    return new AdminClient("127.0.0.1", port);
  }

  /** {@code http://HOST:PORT}, or https. */
  public String base() {
    return base;
  }

  public Reply get(String path) throws IOException, InterruptedException {
    return send(request(path).GET());
  }

  public Reply post(String path, String json) throws IOException, InterruptedException {
    return send(request(path).header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json)));
  }

  public Reply patch(String path, String json) throws IOException, InterruptedException {
    return send(request(path).header("Content-Type", "application/json")
        .method("PATCH", HttpRequest.BodyPublishers.ofString(json)));
  }

  public Reply delete(String path) throws IOException, InterruptedException {
    return send(request(path).DELETE());
  }

  /** The body of GET path; non-2xx answers throw. */
  public String getOk(String path) throws IOException, InterruptedException {
    return get(path).requireOk("GET " + path).body();
  }

  /** The body of POST path; non-2xx answers throw. */
  public String postOk(String path, String json) throws IOException, InterruptedException {
    return post(path, json).requireOk("POST " + path).body();
  }

  /** The body of DELETE path; non-2xx answers throw. */
  public String deleteOk(String path) throws IOException, InterruptedException {
    return delete(path).requireOk("DELETE " + path).body();
  }

  /** The status of GET path, or -1 when nothing answers (a broker not listening yet, or gone). */
  public int status(String path) throws InterruptedException {
    try {
      return get(path).status();
    } catch (IOException notAnswering) {
      return -1;
    }
  }

  /** POST /v1/streams; non-2xx answers throw. */
  public void createStream(String name, int shards, int replicationFactor) throws IOException, InterruptedException {
    postOk("/v1/streams", "{\"name\":\"" + name + "\",\"shards\":" + shards + ",\"replication_factor\":"
        + replicationFactor + "}");
  }

  private HttpRequest.Builder request(String path) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path)).timeout(REQUEST_TIMEOUT);
    return token == null ? request : request.header("Authorization", "Bearer " + token);
  }

  private Reply send(HttpRequest.Builder request) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), r.body(), r.headers().firstValue("Age").isPresent());
  }
}

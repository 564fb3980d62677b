package io.felix.loadgen.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** The few admin HTTP calls the benchmark makes, against one broker's admin port. Non-2xx answers throw. */
final class AdminClient {

  private static final ObjectMapper JSON = new ObjectMapper();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final String base;

  AdminClient(String host, int port) {
    this.base = "http://" + host + ":" + port;
  }

  String base() {
    return base;
  }

  JsonNode get(String path) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(base + path)).GET());
  }

  String getText(String path) throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + path))
        .timeout(Duration.ofSeconds(20)).GET().build(), HttpResponse.BodyHandlers.ofString());
    check(r, "GET " + path);
    return r.body();
  }

  JsonNode post(String path, String json) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(base + path))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)));
  }

  JsonNode delete(String path) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(base + path)).DELETE());
  }

  /** Status code of GET path, or -1 when nothing answers (the broker is not listening yet). */
  int status(String path) throws InterruptedException {
    try {
      return http.send(HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(5)).GET().build(),
          HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    }
  }

  private JsonNode send(HttpRequest.Builder request) throws IOException, InterruptedException {
    HttpRequest built = request.timeout(Duration.ofSeconds(30)).build();
    HttpResponse<String> r = http.send(built, HttpResponse.BodyHandlers.ofString());
    check(r, built.method() + " " + built.uri().getPath());
    return r.body().isBlank() ? JSON.nullNode() : JSON.readTree(r.body());
  }

  private static void check(HttpResponse<String> r, String what) throws IOException {
    if (r.statusCode() / 100 != 2) {
      throw new IOException(what + " answered " + r.statusCode() + ": " + r.body());
    }
  }
}

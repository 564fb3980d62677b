package io.felix.broker.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.felix.broker.testing.Failures;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.FelixException;
import io.felix.launcher.LocalCluster;
import io.felix.launcher.UpOptions;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.tls.TlsFiles;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three broker processes with TLS on every listener ({@code bin/felix local up --tls}) and client authentication
 * (SCRAM), admin bearer tokens and ACLs on: the admin API answers only over HTTPS with a token, an authorized user
 * writes and reads back over TLS, and an unauthenticated client, a user without an ACL and a plaintext client are
 * refused.
 */
@Tag("process")
@Timeout(value = 10, unit = TimeUnit.MINUTES) // a loaded 2-core machine: brokers start slowly
class SecureLocalClusterProcessTest {
  private static final String TOKEN = "process-test-admin-token-5f3a9c";
  private static final String STREAM = "secure";
  private static final int SHARDS = 3;
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir(cleanup = CleanupMode.ON_SUCCESS) Path dir; // the brokers' logs stay for a failure

  @Test
  void tlsAndAuthenticationOnEveryListenerOfThreeBrokerProcesses() throws Exception {
    String security = String.join(" ", "-Dfelix.security.client-authentication=on",
        "-Dfelix.security.admin-authentication=on", "-Dfelix.security.authorization=on",
        "-Dfelix.security.super-users.0=admin", "-Dfelix.security.admin-tokens.0=" + TOKEN,
        "-Dfelix.security.scram-iterations=4096");
    try (LocalCluster launcher = LocalCluster.startOnFreePorts(dir.resolve("local"), UpOptions.brokers(3).tls(true),
        LauncherEnvironment.brokersFromTestClasspath("256m", "FELIX_READY_TIMEOUT", "240",
            // bin/felix's own admin calls (is every broker registered?) carry the token, as the CLI's do.
            "FELIX_TOKEN", TOKEN, "JAVA_TOOL_OPTIONS", security))) {
      SSLContext tls = TlsFiles.clientContext(dir.resolve("local/certs/ca.crt"), null, null);
      HttpClient https = HttpClient.newBuilder().sslContext(tls).connectTimeout(Duration.ofSeconds(10)).build();
      String admin = "https://127.0.0.1:" + launcher.adminPort(0);

      // The admin API: HTTPS only, and a token for everything but health and readiness.
      assertEquals(401, send(https, "GET", admin + "/v1/streams", null, null).statusCode());
      assertEquals(200, send(https, "GET", admin + "/ready", null, null).statusCode());
      assertThrows(IOException.class, () -> send(HttpClient.newHttpClient(), "GET",
          "http://127.0.0.1:" + launcher.adminPort(0) + "/health", null, null), "plain HTTP on the HTTPS port");
      assertEquals(201, send(https, "POST", admin + "/v1/streams", "{\"name\":\"" + STREAM + "\",\"shards\":"
          + SHARDS + ",\"replication_factor\":3}", TOKEN).statusCode());
      assertEquals(201, send(https, "POST", admin + "/v1/users",
          "{\"name\":\"alice\",\"password\":\"alice-secret\"}", TOKEN).statusCode());
      assertEquals(201, send(https, "POST", admin + "/v1/users",
          "{\"name\":\"bob\",\"password\":\"bob-secret!\"}", TOKEN).statusCode());
      for (String operation : List.of("produce", "consume", "describe")) {
        assertEquals(201, send(https, "POST", admin + "/v1/acls", "{\"principal\":\"alice\",\"resource_type\":"
            + "\"stream\",\"resource_name\":\"" + STREAM + "\",\"operation\":\"" + operation + "\"}", TOKEN)
            .statusCode());
      }
      for (int b = 0; b < 3; b++) {
        String acls = "https://127.0.0.1:" + launcher.adminPort(b) + "/v1/acls";
        await("alice's ACLs on broker " + b, () -> {
          HttpResponse<String> r = send(https, "GET", acls, null, TOKEN);
          return r.statusCode() == 200 && JSON.readTree(r.body()).get("acls").size() == 3;
        });
      }

      // Alice, over TLS with SCRAM: writes with acks quorum on every shard and reads back exactly that.
      try (FelixClient alice = client(launcher, tls, "alice", "alice-secret")) {
        await("every shard of " + STREAM + " writable", () -> {
          try {
            for (int shard = 0; shard < SHARDS; shard++) {
              alice.produce(STREAM, shard, "probe".getBytes(), ("probe" + shard).getBytes(), List.of()).join();
            }
            return true;
          } catch (RuntimeException notYet) {
            return false;
          }
        });
        for (int i = 0; i < 30; i++) {
          alice.produce(STREAM, i % SHARDS, ("k" + i).getBytes(), ("v" + i).getBytes(), List.of()).join();
        }
      }
      // No credentials over TLS: refused before anything else.
      try (FelixClient anonymous = client(launcher, tls, null, null)) {
        assertEquals(ErrorCode.AUTHENTICATION_FAILED, Failures.of(() ->
            anonymous.produce(STREAM, 0, "k".getBytes(), "anonymous".getBytes(), List.of()).join()).code());
      }
      // Bob is authenticated but no ACL lets him write.
      try (FelixClient bob = client(launcher, tls, "bob", "bob-secret!")) {
        FelixException refused = Failures.of(() -> bob.produce(STREAM, 0, "k".getBytes(), "bob".getBytes(), List.of())
            .join());
        assertEquals(ErrorCode.AUTHORIZATION_FAILED, refused.code());
        assertTrue(refused.notAppended(), "a refused write is known not to be stored: " + refused.getMessage());
      }
      // What the refused clients sent changed nothing: the stream holds the probes and alice's 30 records only.
      try (FelixClient alice = client(launcher, tls, "alice", "alice-secret")) {
        List<String> values = new java.util.ArrayList<>();
        for (int shard = 0; shard < SHARDS; shard++) {
          alice.fetch(STREAM, shard, 0, 1 << 20, 0).join().records()
              .forEach(r -> values.add(new String(r.value(), StandardCharsets.UTF_8)));
        }
        assertEquals(30, values.stream().filter(v -> v.startsWith("v")).count(), "alice's records: " + values);
        assertTrue(values.stream().allMatch(v -> v.startsWith("v") || v.startsWith("probe")), "only: " + values);
      }
      // A plaintext client on the TLS client port gets nothing (Failures.of fails the test if the call succeeds).
      try (FelixClient plaintext = client(launcher, null, "alice", "alice-secret")) {
        Failures.of(() -> plaintext.metadata(STREAM).join());
      }
    }
  }

  private static FelixClient client(LocalCluster launcher, SSLContext tls, String user, String password) {
    ClientSettings.Builder settings = ClientSettings.builder(launcher.bootstrap()).tls(tls)
        .linger(Duration.ofMillis(1)).retries(3).retryBackoffMax(Duration.ofMillis(200))
        .connectTimeout(Duration.ofSeconds(5)).requestTimeout(Duration.ofSeconds(10)).ackTimeout(Duration.ofSeconds(5))
        .deliveryTimeout(Duration.ofSeconds(15));
    if (user != null) {
      settings.credentials(user, password);
    }
    return new FelixClient(settings.build());
  }

  private static HttpResponse<String> send(HttpClient http, String method, String url, String body, String token)
      throws IOException, InterruptedException {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(30))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
            : HttpRequest.BodyPublishers.ofString(body));
    if (body != null) {
      request.header("Content-Type", "application/json");
    }
    if (token != null) {
      request.header("Authorization", "Bearer " + token);
    }
    return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private interface Check {
    boolean holds() throws Exception;
  }

  private static void await(String what, Check check) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (System.nanoTime() < deadline) {
      if (check.holds()) {
        return;
      }
      Thread.sleep(200);
    }
    throw new AssertionError("not within 60 s: " + what);
  }

}

package io.felix.broker.ops;

import io.felix.broker.testing.Failures;
import io.felix.broker.testing.PrivatePostgres;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.protocol.client.BrokerAddress;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.MetadataResponse;
import io.felix.protocol.client.StreamMetadata;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The docker compose deployment without Docker: a private PostgreSQL with the database, user and password the
 * compose file gives its {@code postgres} service, and three broker processes started with
 * {@code docker/broker.conf} and exactly the FELIX_* environment compose.yml passes to broker-0..2 (host names
 * mapped to 127.0.0.1, and distinct ports since the three share one host; the port variables are the ones
 * broker.conf reads). Security is on as compose turns it on: the admin API answers only with the token given at
 * {@code docker compose up} (a random one here), and clients only after SCRAM, as a user that token's super user
 * creates with ACLs. The placement journal, users and ACLs must land in PostgreSQL and survive a restart of every
 * broker and of the database.
 */
@Tag("process")
@Timeout(value = 10, unit = java.util.concurrent.TimeUnit.MINUTES) // hung brokers fail the test, never stall CI
class ComposePostgresRestartProcessTest {

  private static final Duration READY = Duration.ofSeconds(120);
  private static final int START_ATTEMPTS = 5;
  private static final String USER = "orders-reader";
  private static final String PASSWORD = "orders-reader-secret";

  /** The compose file's FELIX_ADMIN_TOKEN, given at docker compose up: never written in the file. */
  private final String token = randomToken();

  @TempDir Path dataRoot;

  @Test
  void brokersWithTheComposeSettingsKeepThePlacementJournalInPostgresAcrossRestarts() throws Exception {
    Path root = ComposeSettings.repositoryRoot();
    Path compose = root.resolve("docker/compose.yml");
    Map<String, String> db = ComposeSettings.serviceEnvironment(compose, "postgres");

    try (PrivatePostgres pg = PrivatePostgres.start(db.get("POSTGRES_DB"), db.get("POSTGRES_USER"),
        db.get("POSTGRES_PASSWORD"))) {
      List<BrokerProcess> brokers = startOnFreePorts(root, compose, pg.port());
      try {
        BrokerProcess first = brokers.get(0);
        AdminApi admin = new AdminApi(first.adminPort(), token);
        admin.awaitLiveBrokers(3, READY);
        assertEquals(401, new AdminApi(first.adminPort()).status("/v1/brokers"), "the admin API without the token");
        admin.createStream("orders", 6, 3);
        Map<Integer, List<Integer>> replicasBefore = awaitAllShardsLed(first, "orders", 6);
        // The super user of the compose token makes a client user that may see 'orders' in metadata, not 'hidden'.
        admin.createStream("hidden", 1, 1);
        admin.createUser(USER, PASSWORD);
        admin.allowOnStream(USER, "orders", "describe");
        BrokerProcess external = brokers.get(1);
        AdminApi externalAdmin = new AdminApi(external.adminPort(), token);
        externalAdmin.awaitLed("hidden", 1, -1, READY);
        externalAdmin.awaitAcls(USER, 1, READY);
        assertEquals(ErrorCode.AUTHENTICATION_FAILED, Failures.of(() -> metadataOnTheExternalListener(
            external.externalClientPort(), false)).code(), "a client without credentials");
        MetadataResponse metadata = metadataOnTheExternalListener(external.externalClientPort(), true);
        assertEquals(List.of("localhost:" + brokers.get(0).externalClientPort(),
                "localhost:" + brokers.get(1).externalClientPort(), "localhost:" + brokers.get(2).externalClientPort()),
            brokersTold(metadata), "a client on the host is told every broker's external listener, which it can reach");
        assertEquals(List.of("orders"), metadata.getStreamsList().stream().map(StreamMetadata::getName).toList(),
            "the streams the user may describe (ACLs are on)");

        String url = pg.jdbcUrl(db.get("POSTGRES_DB"));
        assertTrue(journalRows(url, db) > 0, "the placement journal in PostgreSQL has no events");
        assertTrue(journalMentions(url, db, "orders"), "no journal event in PostgreSQL names stream 'orders'");

        stopAll(brokers);
        // Counted only once every broker is down: stopping them one by one makes the singleton fail the leaving
        // brokers' shards over, and those decisions are journal rows too.
        long rowsBefore = journalRows(url, db);
        pg.stopServer();
        pg.startServer();
        assertEquals(rowsBefore, journalRows(url, db), "journal rows after restarting PostgreSQL");

        startAll(brokers);
        assertEquals(replicasBefore, awaitAllShardsLed(brokers.get(1), "orders", 6),
            "replica sets of 'orders' recovered from the PostgreSQL journal");
        externalAdmin.awaitAcls(USER, 1, READY);
        assertEquals(List.of("orders"), metadataOnTheExternalListener(external.externalClientPort(), true)
            .getStreamsList().stream().map(StreamMetadata::getName).toList(),
            "the user and its ACL recovered from the PostgreSQL journal");
      } finally {
        stopAll(brokers);
      }
    }
  }

  /**
   * Starts the compose brokers on ports free when picked; should another process bind one before its broker does,
   * stops them all and starts them again on new ports and new data directories (a bounded number of times).
   */
  private List<BrokerProcess> startOnFreePorts(Path root, Path compose, int pgPort) throws Exception {
    for (int attempt = 1; ; attempt++) {
      List<BrokerProcess> brokers = composeBrokers(root, compose, pgPort, dataRoot.resolve("attempt-" + attempt));
      try {
        startAll(brokers);
        return brokers;
      } catch (IllegalStateException e) {
        stopAll(brokers);
        if (attempt == START_ATTEMPTS || brokers.stream().noneMatch(BrokerProcess::portWasTaken)) {
          throw e;
        }
      }
    }
  }

  /** The three compose brokers, their FELIX_* environment taken from compose.yml and mapped onto one host. */
  private List<BrokerProcess> composeBrokers(Path root, Path compose, int pgPort, Path dataRoot) throws Exception {
    int n = 3;
    int[][] ports = new int[n][];
    for (int i = 0; i < n; i++) {
      // admin, client, replication, cluster, external client
      ports[i] = new int[] {freePort(), freePort(), freePort(), freePort(), freePort()};
    }
    List<BrokerProcess> brokers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      Map<String, String> env = new HashMap<>(ComposeSettings.brokerEnvironment(compose, "broker-" + i,
          Map.of("FELIX_ADMIN_TOKEN", token)));
      env.remove("JAVA_OPTS"); // the image's JVM flags; the test sets its own
      // TLS needs the compose file's certs volume; these brokers run plaintext (TlsClusterTest covers TLS).
      env.keySet().removeIf(key -> key.startsWith("FELIX_TLS_"));
      env.replaceAll((key, value) -> onOneHost(value, pgPort, ports));
      env.put("FELIX_ADMIN_PORT", Integer.toString(ports[i][0]));
      env.put("FELIX_CLIENT_PORT", Integer.toString(ports[i][1]));
      env.put("FELIX_REPLICATION_PORT", Integer.toString(ports[i][2]));
      env.put("FELIX_CLUSTER_PORT", Integer.toString(ports[i][3]));
      env.put("FELIX_EXTERNAL_CLIENT_PORT", Integer.toString(ports[i][4])); // the published port, here the bound one
      String kafkaPort = Integer.toString(freePort()); // each broker's Kafka listener, all on one host here
      env.put("FELIX_KAFKA_PORT", kafkaPort);
      env.put("FELIX_KAFKA_ADVERTISED_PORT", kafkaPort);
      Path dir = Files.createDirectories(dataRoot.resolve("broker" + i));
      env.put("FELIX_DATA_DIR", dir.toString());
      brokers.add(new BrokerProcess(i, ports[i][0], ports[i][4], env,
          root.resolve("docker/broker.conf"), dir.resolve("broker.log")).restartWhenDowned(2)); // compose's policy
    }
    return brokers;
  }

  /** Compose's service names resolve to containers; here every broker and the database are on 127.0.0.1. */
  private static String onOneHost(String value, int pgPort, int[][] ports) {
    String mapped = value.replace("//postgres:5432/", "//127.0.0.1:" + pgPort + "/");
    for (int i = 0; i < ports.length; i++) {
      mapped = mapped.replace("@broker-" + i + ":25520", "@127.0.0.1:" + ports[i][3]);
      if (mapped.equals("broker-" + i)) {
        mapped = "127.0.0.1";
      }
    }
    return mapped;
  }

  /** Like compose: broker-0 first (it creates the schema), the others once it is up. */
  private static void startAll(List<BrokerProcess> brokers) throws Exception {
    for (BrokerProcess b : brokers) {
      b.start();
      b.awaitHealthy(READY);
    }
    for (BrokerProcess b : brokers) {
      b.awaitReady(READY);
    }
  }

  private static void stopAll(List<BrokerProcess> brokers) throws InterruptedException {
    for (int i = brokers.size() - 1; i >= 0; i--) {
      brokers.get(i).stop();
    }
  }

  /** Waits until every shard of the stream is led; returns each shard's replica set, sorted. */
  private Map<Integer, List<Integer>> awaitAllShardsLed(BrokerProcess broker, String stream, int shards)
      throws Exception {
    Map<Integer, List<Integer>> replicas = new TreeMap<>();
    new AdminApi(broker.adminPort(), token).awaitLed(stream, shards, -1, Duration.ofSeconds(60))
        .forEach((shard, s) -> replicas.put(shard, s.replicas().stream().sorted().toList()));
    return replicas;
  }

  /** A Metadata request on an external listener, as the test's user or without credentials. */
  private static MetadataResponse metadataOnTheExternalListener(int port, boolean authenticated) throws Exception {
    ClientSettings.Builder settings = ClientSettings.builder("127.0.0.1:" + port);
    if (authenticated) {
      settings.credentials(USER, PASSWORD);
    }
    try (FelixClient client = new FelixClient(settings.build())) {
      return client.metadata().get(30, TimeUnit.SECONDS);
    }
  }

  /** The broker addresses a Metadata answer names, in broker id order. */
  private static List<String> brokersTold(MetadataResponse metadata) {
    return metadata.getBrokersList().stream().sorted(Comparator.comparingInt(BrokerAddress::getId))
        .map(b -> b.getHost() + ":" + b.getPort()).toList();
  }

  private static long journalRows(String url, Map<String, String> db) throws Exception {
    try (Connection c = DriverManager.getConnection(url, db.get("POSTGRES_USER"), db.get("POSTGRES_PASSWORD"));
         Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT count(*) FROM event_journal")) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static boolean journalMentions(String url, Map<String, String> db, String text) throws Exception {
    byte[] needle = text.getBytes(StandardCharsets.UTF_8);
    try (Connection c = DriverManager.getConnection(url, db.get("POSTGRES_USER"), db.get("POSTGRES_PASSWORD"));
         Statement s = c.createStatement();
         ResultSet rs = s.executeQuery("SELECT event_payload FROM event_journal")) {
      while (rs.next()) {
        if (indexOf(rs.getBytes(1), needle) >= 0) {
          return true;
        }
      }
    }
    return false;
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  private static String randomToken() {
    byte[] bytes = new byte[24];
    new SecureRandom().nextBytes(bytes);
    return HexFormat.of().formatHex(bytes);
  }

  private static int freePort() throws Exception {
    try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }
}

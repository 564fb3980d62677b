package io.felix.broker.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.felix.broker.BrokerCluster;
import io.felix.broker.node.BrokerNode;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The placement journal fails when the singleton starts (here its tables are missing, as when the database
 * serving them is paused or gone): recovery fails. The singleton restarts with a backoff and recovers once the
 * journal works again, instead of stopping for good with placement stopped.
 */
@Tag("cluster")
@Timeout(value = 2, unit = TimeUnit.MINUTES) // a hung cluster fails, never stalls CI
class JournalRestartClusterTest {

  private final String journalUrl = "jdbc:h2:mem:felix-" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1";

  @Test
  void theSingletonRecoversOnceTheJournalWorksAfterItsFirstRecoveryFailed() throws Exception {
    try (BrokerCluster cluster = BrokerCluster.start(1, Map.of(
        "felix.persistence.url", journalUrl,
        "felix.persistence.schema", "", // no tables: every recovery fails until the test creates them
        "felix.control.journal-restart-min-backoff", "200ms",
        "felix.control.journal-restart-max-backoff", "1s",
        "felix.http.singleton-timeout", "1s"))) {
      BrokerNode broker = cluster.live().get(0);
      Thread.sleep(2_000); // a few recoveries fail meanwhile
      assertNotEquals(200, cluster.get(broker, "/v1/replication-status").status(), "no journal, no singleton");

      createJournalTables();
      BrokerCluster.await(Duration.ofSeconds(20), "the singleton answering", () ->
          cluster.get(broker, "/v1/replication-status").status() == 200);
      cluster.awaitBrokersLive(broker, 1);
      assertEquals(201, cluster.post(broker, "/v1/streams", "{\"name\":\"s\",\"shards\":2,\"replication_factor\":1}")
          .status());
      cluster.awaitReady();
    }
  }

  private void createJournalTables() throws Exception {
    String script;
    try (InputStream in = getClass().getClassLoader().getResourceAsStream("schema/h2/h2-create-schema.sql")) {
      script = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    try (Connection c = DriverManager.getConnection(journalUrl, "sa", ""); Statement s = c.createStatement()) {
      for (String statement : script.split(";")) {
        if (!statement.isBlank()) {
          s.execute(statement);
        }
      }
    }
  }
}

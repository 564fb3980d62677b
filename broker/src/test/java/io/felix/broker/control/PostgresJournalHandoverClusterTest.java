package io.felix.broker.control;

import io.felix.broker.testing.PrivatePostgres;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.felix.broker.node.BrokerNode;
import io.felix.broker.BrokerCluster;
import io.felix.broker.BrokerCluster.Reply;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The production journal: PostgreSQL, schema applied at start from the plugin's shipped SQL, snapshots taken
 * every few events, and a singleton that moves to another broker recovering from them, on a private PostgreSQL
 * server (see {@link PrivatePostgres}).
 */
@Tag("cluster")
@Timeout(value = 3, unit = java.util.concurrent.TimeUnit.MINUTES) // a hung cluster fails, never stalls CI
class PostgresJournalHandoverClusterTest {

  @Test
  void placementStateSurvivesAHandOverOnThePostgresJournalWithSnapshots() throws Exception {
    try (PrivatePostgres pg = PrivatePostgres.start("felix", "felix", "felix");
         BrokerCluster cluster = BrokerCluster.start(2, Map.of(
             "felix.persistence.url", pg.jdbcUrl("felix"),
             "felix.persistence.user", "felix",
             "felix.persistence.password", "felix",
             "felix.persistence.driver", "org.postgresql.Driver",
             "felix.persistence.profile", "slick.jdbc.PostgresProfile$",
             "felix.persistence.schema", "postgres",
             "felix.control.snapshot-every", 2))) {
      BrokerNode host = cluster.singletonHost();
      BrokerNode other = cluster.live().stream().filter(b -> b != host).findFirst().orElseThrow();
      BrokerCluster.await(Duration.ofSeconds(20), "2 brokers registered", () -> {
        Reply r = cluster.get(other, "/v1/brokers");
        return r.status() == 200 && r.json().size() == 2;
      });
      for (String name : new String[] {"p1", "p2", "p3"}) {
        assertEquals(201, cluster.post(other, "/v1/streams",
            "{\"name\":\"" + name + "\",\"shards\":4,\"replication_factor\":2}").status());
      }
      String layout = cluster.get(other, "/v1/replication-status").body();

      try (Connection db = DriverManager.getConnection(pg.jdbcUrl("felix"), "felix", "felix")) {
        // Two brokers joined and three streams created, each stream one event with all its shards' placements.
        assertEquals(true, count(db, "select count(*) from event_journal where persistence_id = 'felix-placement'") >= 5);
        assertEquals(true, count(db, "select count(*) from snapshot where persistence_id = 'felix-placement'") >= 1);
      }

      cluster.stop(host);
      // replication-status asks the singleton each time (the lists may answer from a view shared for a second).
      BrokerCluster.await(Duration.ofSeconds(30), "the singleton answering on the other broker",
          () -> cluster.get(other, "/v1/replication-status").status() == 200);
      assertEquals(layout, cluster.get(other, "/v1/replication-status").body());
      assertEquals(3, cluster.get(other, "/v1/streams").json().size());
    }
  }

  private static long count(Connection db, String sql) throws Exception {
    try (ResultSet rs = db.createStatement().executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}

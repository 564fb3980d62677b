package io.felix.broker.node;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JournalSettingsTest {

  private static JournalSettings journal(String url) {
    return JournalSettings.fromConfig(ConfigFactory.parseMap(Map.of("felix.persistence.url", url))
        .withFallback(ConfigFactory.load()));
  }

  @Test
  void anH2FileJournalWritesEachCommitAtOnce() {
    assertEquals("jdbc:h2:file:/tmp/j/journal;AUTO_SERVER=TRUE;WRITE_DELAY=0",
        journal("jdbc:h2:file:/tmp/j/journal;AUTO_SERVER=TRUE").url());
    assertEquals("jdbc:h2:file:/tmp/j/journal;write_delay=0", journal("jdbc:h2:file:/tmp/j/journal;write_delay=0").url());
    assertEquals("jdbc:h2:tcp://127.0.0.1:19290/journal;WRITE_DELAY=0",
        journal("jdbc:h2:tcp://127.0.0.1:19290/journal").url(), "a file served by an H2 server (bin/felix local)");
  }

  @Test
  void anH2FileJournalWithAWriteDelayIsRefusedNamingTheKey() {
    ConfigException e = assertThrows(ConfigException.class,
        () -> journal("jdbc:h2:file:/tmp/j/journal;AUTO_SERVER=TRUE;WRITE_DELAY=500"));
    assertTrue(e.getMessage().contains("felix.persistence.url") && e.getMessage().contains("got WRITE_DELAY=500"),
        e.getMessage());
  }

  @Test
  void inMemoryAndPostgresUrlsAreLeftAsWritten() {
    assertEquals("jdbc:h2:mem:felix;DB_CLOSE_DELAY=-1", journal("jdbc:h2:mem:felix;DB_CLOSE_DELAY=-1").url());
    assertEquals("jdbc:postgresql://db:5432/felix", journal("jdbc:postgresql://db:5432/felix").url());
  }

  @Test
  void anInMemoryJournalIsRefusedWhenSeveralSeedNodesAreConfigured() {
    Config user = ConfigFactory.parseString("felix.cluster.seed-nodes = "
        + "[\"pekko://felix@127.0.0.1:25520\", \"pekko://felix@127.0.0.1:25521\"]");
    ConfigException e = assertThrows(ConfigException.class, () -> NodeConfig.derive(user));
    assertTrue(e.getMessage().contains("felix.persistence.url")
        && e.getMessage().contains("in-memory journal") && e.getMessage().contains("2 seed nodes"), e.getMessage());
  }

  @Test
  void anInMemoryJournalWithOneSeedNodeStarts() {
    Config user = ConfigFactory.parseString("felix.cluster.seed-nodes = [\"pekko://felix@127.0.0.1:25520\"]");
    assertEquals("jdbc:h2:mem:felix;DB_CLOSE_DELAY=-1",
        NodeConfig.derive(user).getString("pekko-persistence-jdbc.shared-databases.slick.db.url"));
  }
}

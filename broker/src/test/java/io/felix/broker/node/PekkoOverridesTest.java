package io.felix.broker.node;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import org.junit.jupiter.api.Test;

/**
 * Felix's values for Pekko settings survive the broker's jar, where the concatenated reference.conf lets Pekko's
 * defaults (listed after Felix's) win: the jar's merge is built here by putting Pekko's values on top.
 */
class PekkoOverridesTest {

  private static final String FRAME = "pekko.remote.artery.advanced.maximum-frame-size";
  private static final String WRITE_BUFFER = "pekko.stream.materializer.io.tcp.write-buffer-size";
  private static final String RECEPTIONIST_GOSSIP = "pekko.cluster.typed.receptionist.distributed-data.gossip-interval";

  /** The defaults as the broker's jar merges them: Pekko's reference.conf values last, so they win. */
  private static final Config JAR_REFERENCE = ConfigFactory.parseString(
      FRAME + " = 256 KiB\n" + WRITE_BUFFER + " = 16 KiB").withFallback(ConfigFactory.defaultReference());

  @Test
  void felixsFrameSizeAndWriteBufferWinOverPekkosDefaultsMergedLast() {
    Config config = NodeConfig.derive(ConfigFactory.empty(), JAR_REFERENCE);
    assertEquals(2L * 1024 * 1024, config.getBytes(FRAME));
    assertEquals(128L * 1024, config.getBytes(WRITE_BUFFER));
    assertEquals(500, config.getDuration(RECEPTIONIST_GOSSIP).toMillis());
    assertEquals(2_000, config.getDuration("pekko.cluster.distributed-data.gossip-interval").toMillis(),
        "only the receptionist's replicator gossips faster");
    assertEquals(2, config.getInt("pekko.actor.default-dispatcher.fork-join-executor.parallelism-min"));
    assertEquals(64, config.getInt("pekko.actor.default-dispatcher.fork-join-executor.parallelism-max"),
        "Pekko's: a machine with more cores gets a thread per core");
  }

  @Test
  void anOperatorsExplicitPekkoSettingStillWins() {
    Config config = NodeConfig.derive(ConfigFactory.parseString(FRAME + " = 4 MiB"), JAR_REFERENCE);
    assertEquals(4L * 1024 * 1024, config.getBytes(FRAME));
    assertEquals(128L * 1024, config.getBytes(WRITE_BUFFER));
  }

  @Test
  void theInJvmTestBrokersGetTheSameValues() {
    Config config = DataPlane.localConfig(0, java.nio.file.Path.of("/tmp/unused"), "");
    assertEquals(2L * 1024 * 1024, config.getBytes(FRAME));
    assertEquals(128L * 1024, config.getBytes(WRITE_BUFFER));
  }
}

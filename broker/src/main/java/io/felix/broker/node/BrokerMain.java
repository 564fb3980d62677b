package io.felix.broker.node;


import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.File;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Starts one broker. Config: the file named by the first argument or {@code FELIX_CONFIG}, with
 * {@code FELIX_*} environment variables on top ({@code FELIX_BROKER_ID}, {@code FELIX_ZONE},
 * {@code FELIX_SEED_NODES} (comma separated), {@code FELIX_CLUSTER_PORT}, {@code FELIX_ADMIN_PORT},
 * {@code FELIX_DATA_DIR}, {@code FELIX_JOURNAL_URL}), then reference.conf.
 */
public final class BrokerMain {

  private BrokerMain() {}

  public static void main(String[] args) throws InterruptedException {
    String file = args.length > 0 ? args[0] : System.getenv("FELIX_CONFIG");
    Config fromFile = file == null ? ConfigFactory.empty() : ConfigFactory.parseFile(new File(file));
    if (file != null && !new File(file).isFile()) {
      System.err.println("felix: config file " + file + " does not exist");
      System.exit(2);
    }
    Config config = fromEnvironment().withFallback(fromFile);
    BrokerNode broker;
    try {
      broker = BrokerNode.start(config);
    } catch (RuntimeException e) {
      System.err.println("felix: cannot start the broker: " + e.getMessage());
      System.exit(1);
      return;
    }
    CountDownLatch stopped = new CountDownLatch(1);
    AtomicBoolean asked = new AtomicBoolean();
    broker.system().getWhenTerminated().thenRun(stopped::countDown);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      asked.set(true);
      broker.close();
    }, "felix-shutdown"));
    stopped.await();
    if (!asked.get()) {
      // Downed by the Split Brain Resolver (or its ActorSystem failed): a node cannot rejoin with the same
      // ActorSystem, so exit non-zero for the supervisor (systemd, docker, bin/felix) to start it again.
      System.err.println("felix: broker " + broker.id() + " left the cluster (downed); exiting for a restart");
      broker.close();
      System.exit(3);
    }
  }

  private static Config fromEnvironment() {
    StringBuilder hocon = new StringBuilder();
    env("FELIX_BROKER_ID", "felix.broker.id", hocon, false);
    env("FELIX_ZONE", "felix.broker.zone", hocon, true);
    env("FELIX_DATA_DIR", "felix.broker.data-dir", hocon, true);
    env("FELIX_HOST", "felix.broker.host", hocon, true);
    env("FELIX_CLUSTER_PORT", "felix.cluster.port", hocon, false);
    env("FELIX_ADMIN_PORT", "felix.http.port", hocon, false);
    env("FELIX_JOURNAL_URL", "felix.persistence.url", hocon, true);
    String seeds = System.getenv("FELIX_SEED_NODES");
    if (seeds != null && !seeds.isBlank()) {
      hocon.append("felix.cluster.seed-nodes = [");
      String sep = "";
      for (String seed : seeds.split(",")) {
        hocon.append(sep).append('"').append(seed.trim()).append('"');
        sep = ",";
      }
      hocon.append("]\n");
    }
    return ConfigFactory.parseString(hocon.toString());
  }

  private static void env(String name, String key, StringBuilder hocon, boolean quoted) {
    String value = System.getenv(name);
    if (value != null && !value.isBlank()) {
      hocon.append(key).append(" = ").append(quoted ? "\"" + value.replace("\"", "\\\"") + "\"" : value.trim())
          .append('\n');
    }
  }
}

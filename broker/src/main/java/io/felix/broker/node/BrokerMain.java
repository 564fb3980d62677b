package io.felix.broker.node;


import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.io.File;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/**
 * Starts one broker. Config: the file named by the first argument or {@code FELIX_CONFIG}, with
 * {@code FELIX_*} environment variables on top ({@code FELIX_BROKER_ID}, {@code FELIX_ZONE},
 * {@code FELIX_SEED_NODES} (comma separated), {@code FELIX_CLUSTER_PORT}, {@code FELIX_ADMIN_PORT},
 * {@code FELIX_DATA_DIR}, {@code FELIX_JOURNAL_URL}), then reference.conf.
 */
@Command(name = "felix-broker", mixinStandardHelpOptions = true, versionProvider = BrokerMain.Version.class,
    description = {"Starts one Felix broker.",
        "Settings, first match wins: FELIX_* environment variables (FELIX_BROKER_ID, FELIX_ZONE, FELIX_SEED_NODES, "
            + "FELIX_CLUSTER_PORT, FELIX_ADMIN_PORT, FELIX_DATA_DIR, FELIX_HOST, FELIX_JOURNAL_URL), the config "
            + "file, the defaults in reference.conf."})
public final class BrokerMain implements Callable<Integer> {

  @Parameters(arity = "0..1", paramLabel = "CONFIG_FILE", description = "a HOCON file (default: FELIX_CONFIG)")
  File configFile;

  private BrokerMain() {}

  public static void main(String[] args) {
    int code = new CommandLine(new BrokerMain()).execute(args);
    // Not System.exit(0): after a SIGTERM the shutdown hooks are running, and exit would block for ever.
    if (code != 0) {
      System.exit(code);
    }
  }

  /** The version the jar's manifest carries. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = BrokerMain.class.getPackage().getImplementationVersion();
      return new String[] {"felix-broker " + (version == null ? "(unpackaged)" : version)};
    }
  }

  @Override
  public Integer call() throws InterruptedException {
    String named = System.getenv("FELIX_CONFIG");
    File file = configFile != null ? configFile : named == null ? null : new File(named);
    if (file != null && !file.isFile()) {
      System.err.println("felix: config file " + file + " does not exist");
      return 2;
    }
    Config fromFile = file == null ? ConfigFactory.empty() : ConfigFactory.parseFile(file);
    Config config = fromEnvironment().withFallback(fromFile);
    BrokerNode broker;
    try {
      broker = BrokerNode.start(config);
    } catch (RuntimeException e) {
      System.err.println("felix: cannot start the broker: " + e.getMessage());
      return 1;
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
      return 3;
    }
    return 0;
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

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
 * Starts one broker. Config: {@link BrokerConfigLayers} over the file named by the first argument or
 * {@code FELIX_CONFIG}, over reference.conf.
 */
@Command(name = "felix-broker", mixinStandardHelpOptions = true, versionProvider = BrokerMain.Version.class,
    description = {"Starts one Felix broker.",
        "Settings, first match wins: system properties (-Dfelix.http.port=8081), FELIX_* environment variables "
            + "(FELIX_BROKER_ID, FELIX_ZONE, FELIX_HOST, FELIX_DATA_DIR, FELIX_MAX_SHARDS, FELIX_CLIENT_PORT, "
            + "FELIX_REPLICATION_PORT, FELIX_CLUSTER_PORT, FELIX_SEED_NODES, FELIX_ADMIN_HOST, FELIX_ADMIN_PORT, "
            + "FELIX_JOURNAL_URL, FELIX_JOURNAL_USER, FELIX_JOURNAL_PASSWORD, FELIX_PLACEMENT_STRATEGY, FELIX_ADVERTISED_HOST, FELIX_ADVERTISED_CLIENT_PORT, "
            + "FELIX_EXTERNAL_CLIENT_PORT, FELIX_EXTERNAL_ADVERTISED_HOST, FELIX_EXTERNAL_ADVERTISED_PORT), the config "
            + "file, the defaults in reference.conf."})
public final class BrokerMain implements Callable<Integer> {

  /** The exit code of a broker the cluster downed: its supervisor (systemd, docker, bin/felix) starts it again. */
  public static final int EXIT_DOWNED = 3;

  @Parameters(arity = "0..1", paramLabel = "CONFIG_FILE", description = "a HOCON file (default: FELIX_CONFIG)")
  File configFile;

  private BrokerMain() {}

  public static void main(String[] args) {
    useAPoolForAsyncCallbacks();
    int code = new CommandLine(new BrokerMain()).execute(args);
    // Not System.exit(0): after a SIGTERM the shutdown hooks are running, and exit would block for ever.
    if (code != 0) {
      System.exit(code);
    }
  }

  /**
   * With the common fork-join pool's default parallelism (cores - 1), a 2-core machine gets a pool of 1, and then
   * CompletableFuture runs every async callback on a new thread; Pekko's asks hand back Scala futures converted to
   * CompletionStages, whose callbacks are all async, so each ask made a thread. Set before the pool exists, so it
   * must be the first thing main does; a value the operator gave (-D) is kept.
   */
  private static void useAPoolForAsyncCallbacks() {
    String key = "java.util.concurrent.ForkJoinPool.common.parallelism";
    if (System.getProperty(key) == null) {
      System.setProperty(key, Integer.toString(Math.max(2, Runtime.getRuntime().availableProcessors())));
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
    Config config = BrokerConfigLayers.of(System.getProperties(), System.getenv(), fromFile);
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
      return EXIT_DOWNED;
    }
    return 0;
  }
}

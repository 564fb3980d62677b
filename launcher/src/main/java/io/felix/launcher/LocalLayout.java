package io.felix.launcher;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Where a local cluster lives: its directory and its ports. This is the one place the port map is written down:
 * broker N listens on admin HTTP 18080+N, client 19090+N, Kafka 9092+N, replication 19190+N and Pekko cluster
 * (Artery) 25520+N,
 * and the placement journal's H2 server on 19290; {@code portOffset} (FELIX_PORT_OFFSET) shifts them all, so two
 * clusters can run side by side. Offsets that are multiples of 1000 keep the ranges apart for up to 100 brokers.
 *
 * <p>Files, under {@code dir} (FELIX_LOCAL_DIR): {@code brokerN/} holds broker N's generated config
 * ({@code broker.conf}), log ({@code broker.log}), pid files ({@code broker.pid}, {@code supervisor.pid}), the
 * {@code stopped} mark, its optional {@code cpu-budget} and its data ({@code data/}); {@code journal.mv.db} is the
 * placement journal (with {@code journal.pid}, {@code journal.log}); {@code certs/} the cluster's CA under TLS.
 */
public record LocalLayout(Path dir, int portOffset) {

  public static final String HOST = "127.0.0.1";
  /** The lowest port of each kind; broker N adds N, and every port adds the offset. */
  public static final int ADMIN_BASE = 18080;
  public static final int CLIENT_BASE = 19090;
  /** The Kafka listener (felix.kafka-listener), Kafka's own default port for broker 0. */
  public static final int KAFKA_BASE = 9092;
  public static final int REPLICATION_BASE = 19190;
  public static final int CLUSTER_BASE = 25520;
  public static final int JOURNAL_BASE = 19290;
  /** The per-broker ranges are 100 ports apart (19090, 19190, 19290): more brokers would overlap the next range. */
  public static final int MAX_BROKERS = 100;
  private static final int HIGHEST_BASE = CLUSTER_BASE;

  public LocalLayout {
    dir = dir.toAbsolutePath().normalize();
    if (portOffset < -KAFKA_BASE + 1 || HIGHEST_BASE + portOffset + MAX_BROKERS - 1 > 65535) {
      throw new IllegalArgumentException("FELIX_PORT_OFFSET " + portOffset + " puts ports outside 1..65535 (it must"
          + " be from " + (1 - KAFKA_BASE) + " to " + (65535 - HIGHEST_BASE - MAX_BROKERS + 1) + ")");
    }
  }

  /**
   * The layout the environment names: FELIX_LOCAL_DIR (default {@code HOME/data/local}, HOME being FELIX_HOME or
   * the working directory) and FELIX_PORT_OFFSET (default 0).
   */
  public static LocalLayout fromEnvironment(Map<String, String> env) {
    String dir = env.get("FELIX_LOCAL_DIR");
    Path home = FelixHome.of(env);
    String offset = env.get("FELIX_PORT_OFFSET");
    int portOffset;
    try {
      portOffset = offset == null || offset.isBlank() ? 0 : Integer.parseInt(offset.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("FELIX_PORT_OFFSET must be a whole number, got '" + offset + "'");
    }
    return new LocalLayout(dir == null || dir.isBlank() ? home.resolve("data/local") : Path.of(dir), portOffset);
  }

  public int adminPort(int broker) {
    return ADMIN_BASE + portOffset + broker;
  }

  public int clientPort(int broker) {
    return CLIENT_BASE + portOffset + broker;
  }

  public int kafkaPort(int broker) {
    return KAFKA_BASE + portOffset + broker;
  }

  public int replicationPort(int broker) {
    return REPLICATION_BASE + portOffset + broker;
  }

  /** Broker N's Pekko cluster (Artery) port: its members' addresses in the brokers' logs name it. */
  public int clusterPort(int broker) {
    return CLUSTER_BASE + portOffset + broker;
  }

  public int journalPort() {
    return JOURNAL_BASE + portOffset;
  }

  /** Every port broker N binds: admin, client, Kafka, replication, cluster. */
  public List<Integer> brokerPorts(int broker) {
    return List.of(adminPort(broker), clientPort(broker), kafkaPort(broker), replicationPort(broker),
        clusterPort(broker));
  }

  /** Broker N's seed-node address, as every broker's config lists it. */
  public String clusterAddress(int broker) {
    return "pekko://felix@" + HOST + ":" + clusterPort(broker);
  }

  public String journalUrl() {
    return "jdbc:h2:tcp://" + HOST + ":" + journalPort() + "/journal;WRITE_DELAY=0";
  }

  public Path brokerDir(int broker) {
    return dir.resolve("broker" + broker);
  }

  public Path configFile(int broker) {
    return brokerDir(broker).resolve("broker.conf");
  }

  public Path dataDir(int broker) {
    return brokerDir(broker).resolve("data");
  }

  public Path brokerLog(int broker) {
    return brokerDir(broker).resolve("broker.log");
  }

  public Path brokerPidFile(int broker) {
    return brokerDir(broker).resolve("broker.pid");
  }

  public Path supervisorPidFile(int broker) {
    return brokerDir(broker).resolve("supervisor.pid");
  }

  /** A broker stopped on purpose carries this mark, so its supervisor does not start it again. */
  public Path stoppedMark(int broker) {
    return brokerDir(broker).resolve("stopped");
  }

  /** Broker N's CPU budget in cores, when it runs under one ({@code local up --cpu-per-broker}). */
  public Path cpuBudgetFile(int broker) {
    return brokerDir(broker).resolve("cpu-budget");
  }

  public Path journalPidFile() {
    return dir.resolve("journal.pid");
  }

  public Path journalLog() {
    return dir.resolve("journal.log");
  }

  /** The H2 file of the placement journal. */
  public Path journalFile() {
    return dir.resolve("journal.mv.db");
  }

  public Path certsDir() {
    return dir.resolve("certs");
  }

  public Path caFile() {
    return certsDir().resolve("ca.crt");
  }

  /** The brokers this directory holds a config for, in id order. */
  public List<Integer> knownBrokers() {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> dirs = Files.list(dir)) {
      return dirs.map(d -> d.getFileName().toString())
          .filter(name -> name.matches("broker\\d+"))
          .map(name -> Integer.parseInt(name.substring("broker".length())))
          .filter(id -> Files.isRegularFile(configFile(id)))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new IllegalStateException("cannot list " + dir + ": " + e.getMessage(), e);
    }
  }
}

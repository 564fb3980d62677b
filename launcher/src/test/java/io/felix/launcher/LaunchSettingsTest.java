package io.felix.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The environment variables a launcher reads, and the broker's command line they make. */
class LaunchSettingsTest {

  @TempDir Path home;

  @Test
  void defaultsRunTheCheckoutsBrokerJarWithHalfAGigabyte() {
    LaunchSettings s = LaunchSettings.of(Map.of("FELIX_HOME", home.toString(), "JAVA", "/opt/jdk/bin/java"));
    assertEquals(Duration.ofSeconds(90), s.readyTimeout());
    assertEquals(OptionalLong.empty(), s.watchPid());
    assertEquals(OptionalInt.empty(), s.groupIdBase());
    Path config = home.resolve("data/local/broker1/broker.conf");
    assertEquals(List.of("/opt/jdk/bin/java", "-Xms131072k", "-Xmx512m", "-XX:+UseG1GC", "-XX:+ExitOnOutOfMemoryError",
            "-Xlog:gc:file=" + config.resolveSibling("gc.log") + ":time,uptime:filecount=4,filesize=10m",
            "-Dfelix.local.broker=1", "-jar", home.resolve("broker/target/felix-broker.jar").toString(),
            config.toString()),
        s.brokerJvm().localCommand(config, 1));
  }

  @Test
  void aClasspathHeapTimeoutWatchAndGroupIdComeFromTheirVariables() {
    LaunchSettings s = LaunchSettings.of(Map.of("FELIX_HOME", home.toString(), "JAVA", "java",
        "FELIX_BROKER_CLASSPATH", "a.jar:b/classes", "FELIX_BROKER_JAR", "ignored.jar", "FELIX_BROKER_HEAP", "64m",
        "FELIX_READY_TIMEOUT", "240", "FELIX_WATCH_PID", "4242", "FELIX_BROKER_GID_BASE", "61000",
        "FELIX_TOKEN", "t0ken"));
    assertEquals(List.of("java", "-Xms65536k", "-Xmx64m", "-XX:+UseG1GC", "-XX:+ExitOnOutOfMemoryError", "-cp",
        "a.jar:b/classes", "io.felix.broker.node.BrokerMain", "b.conf"), s.brokerJvm().command(Path.of("b.conf")));
    assertEquals(Duration.ofSeconds(240), s.readyTimeout());
    assertEquals(OptionalLong.of(4242), s.watchPid());
    assertEquals(OptionalInt.of(61000), s.groupIdBase());
    assertEquals("t0ken", s.adminToken());
    assertEquals("a.jar:b/classes:" + s.supervisorClasspath(), s.journalClasspath());
  }

  @Test
  void jvmOptionsComeAfterFelixsOwnAndAnotherCollectorReplacesG1() {
    LaunchSettings parallel = LaunchSettings.of(Map.of("FELIX_HOME", home.toString(), "JAVA", "java",
        "FELIX_BROKER_JVM_OPTIONS", " -XX:+UseParallelGC  -Xms512m "));
    assertEquals(List.of("java", "-Xms131072k", "-Xmx512m", "-XX:+ExitOnOutOfMemoryError", "-XX:+UseParallelGC",
        "-Xms512m", "-jar", home.resolve("broker/target/felix-broker.jar").toString(), "b.conf"),
        parallel.brokerJvm().command(Path.of("b.conf")));
    LaunchSettings recording = LaunchSettings.of(Map.of("FELIX_HOME", home.toString(), "JAVA", "java",
        "FELIX_BROKER_JVM_OPTIONS", "-XX:StartFlightRecording"));
    assertEquals(List.of("-XX:+UseG1GC", "-XX:+ExitOnOutOfMemoryError", "-XX:StartFlightRecording"),
        recording.brokerJvm().options());
  }

  @Test
  void aBadValueIsRefusedNamingItsVariable() {
    Map<String, String> base = Map.of("FELIX_HOME", home.toString());
    assertEquals("FELIX_BROKER_HEAP must be a size like 512m or 1g, got 'lots'", refused(base, "FELIX_BROKER_HEAP",
        "lots"));
    assertEquals("FELIX_BROKER_HEAP must be at least 32m, got '8m'", refused(base, "FELIX_BROKER_HEAP", "8m"));
    assertEquals("FELIX_READY_TIMEOUT must be a whole number, got '90s'", refused(base, "FELIX_READY_TIMEOUT", "90s"));
    assertEquals("FELIX_READY_TIMEOUT must be at least 1 (seconds), got 0", refused(base, "FELIX_READY_TIMEOUT", "0"));
    assertEquals("FELIX_WATCH_PID must be a whole number, got 'me'", refused(base, "FELIX_WATCH_PID", "me"));
  }

  private static String refused(Map<String, String> base, String name, String value) {
    Map<String, String> env = new java.util.HashMap<>(base);
    env.put(name, value);
    return assertThrows(IllegalArgumentException.class, () -> LaunchSettings.of(env)).getMessage();
  }
}

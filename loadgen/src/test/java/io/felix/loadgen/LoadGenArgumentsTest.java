package io.felix.loadgen;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.client.ClientMode;
import io.felix.client.HostPort;
import io.felix.protocol.client.Acks;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LoadGenArgumentsTest {
  /** The usage error of {@code command} given a valid bootstrap address and stream, then {@code flags}. */
  private static String usageErrorWithTarget(String command, String... flags) {
    List<String> args = new ArrayList<>(List.of(command, "--bootstrap", "h:1", "--stream", "s"));
    args.addAll(List.of(flags));
    return usageError(args.toArray(String[]::new));
  }

  private static String usageError(String... args) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int code = LoadGen.run(List.of(args), new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertEquals(2, code, "bad usage exits with 2");
    assertEquals("", out.toString(StandardCharsets.UTF_8), "nothing on stdout");
    return err.toString(StandardCharsets.UTF_8).lines().findFirst().orElse("");
  }

  @Test
  void produceDefaultsAreTheDocumentedOnes() throws Exception {
    ProduceOptions o = ProduceOptions.parse(List.of("--bootstrap", "127.0.0.1:9001,127.0.0.1:9002", "--stream", "s"));
    assertEquals(List.of(new HostPort("127.0.0.1", 9001), new HostPort("127.0.0.1", 9002)), o.bootstrap());
    assertEquals(ClientMode.CLUSTER, o.mode());
    assertEquals(1024, o.recordSize());
    assertEquals(0, o.rate());
    assertEquals(Duration.ofSeconds(30), o.duration());
    assertEquals(0, o.records());
    assertEquals(4, o.producers());
    assertEquals(Acks.QUORUM, o.acks());
    assertEquals(0, o.keySpace());
    assertNull(o.json());
    assertTrue(o.idempotence(), "idempotence is on by default");
  }

  @Test
  void produceFlagsInBothSpellings() throws Exception {
    ProduceOptions o = ProduceOptions.parse(List.of("--bootstrap=h:1", "--stream", "orders", "--mode", "plain",
        "--record-size=100", "--rate", "5000", "--records", "1000", "--producers", "2", "--acks", "ALL",
        "--key-space", "64", "--json", "out.json", "--no-idempotence"));
    assertEquals(ClientMode.PLAIN, o.mode());
    assertFalse(o.idempotence());
    assertEquals(100, o.recordSize());
    assertEquals(5000, o.rate());
    assertNull(o.duration());
    assertEquals(1000, o.records());
    assertEquals(2, o.producers());
    assertEquals(Acks.ALL, o.acks());
    assertEquals(64, o.keySpace());
    assertEquals(Path.of("out.json"), o.json());
  }

  @Test
  void durationUnits() throws Exception {
    assertEquals(Duration.ofMillis(500), ProduceOptions.parse(List.of("--bootstrap", "h:1", "--stream", "s",
        "--duration", "500ms")).duration());
    assertEquals(Duration.ofMinutes(2), ProduceOptions.parse(List.of("--bootstrap", "h:1", "--stream", "s",
        "--duration", "2m")).duration());
  }

  @Test
  void badValuesNameTheFlagAndExitWithTwo() {
    assertEquals("produce: --rate: expected a whole number, got 'fast'",
        usageErrorWithTarget("produce", "--rate", "fast"));
    assertEquals("produce: --rate: expected a number from 0 to 100000000, got -5",
        usageErrorWithTarget("produce", "--rate", "-5"));
    assertEquals("produce: --record-size: expected a number from 28 to 4194304, got 10",
        usageErrorWithTarget("produce", "--record-size", "10"));
    assertEquals("produce: --duration: expected a duration like 500ms, 30s, 5m or 1h, got '30'",
        usageErrorWithTarget("produce", "--duration", "30"));
    assertEquals("produce: --acks: expected one of quorum, all, leader, got 'some'",
        usageErrorWithTarget("produce", "--acks", "some"));
    assertEquals("produce: --mode: expected one of cluster, plain, got 'direct'",
        usageErrorWithTarget("produce", "--mode", "direct"));
    assertEquals("produce: --bootstrap: address must be host:port, got 'localhost'",
        usageError("produce", "--bootstrap", "localhost", "--stream", "s"));
    assertEquals("produce: --stream is required", usageError("produce", "--bootstrap", "h:1"));
    assertEquals("produce: --duration and --records exclude each other: give one",
        usageErrorWithTarget("produce", "--duration", "1s", "--records", "5"));
    assertEquals("produce: unknown flag --speed", usageError("produce", "--speed", "3"));
    assertEquals("produce: --producers needs a value", usageError("produce", "--producers", "--stream", "s"));
    assertEquals("produce: --stream is given twice", usageError("produce", "--stream", "a", "--stream", "b"));
    assertEquals("produce: unexpected argument 'extra'", usageError("produce", "extra"));
  }

  @Test
  void consumeFlags() throws Exception {
    ConsumeOptions o = ConsumeOptions.parse(List.of("--bootstrap", "h:1", "--stream", "s", "--from-beginning",
        "--verify", "--expect", "p.json"));
    assertTrue(o.fromBeginning());
    assertTrue(o.verify());
    assertEquals(Path.of("p.json"), o.expect());
    assertEquals(Duration.ofSeconds(5), o.idle());
    assertEquals("consume: --expect is only meaningful with --verify",
        usageErrorWithTarget("consume", "--expect", "p.json"));
    assertEquals("consume: --verify takes no value",
        usageErrorWithTarget("consume", "--verify=yes"));
  }

  @Test
  void unknownCommandAndBenchExitWithTwo() {
    assertEquals("frobnicate: unknown command 'frobnicate'", usageError("frobnicate"));
    assertEquals("bench: --strategy must be cluster-share, stream-aware or both, got fastest",
        usageError("bench", "placement", "--strategy", "fastest"));
    assertTrue(usageError("bench").startsWith("usage: loadgen bench placement"));
    assertTrue(usageError().startsWith("usage: felix-loadgen"));
  }

  @Test
  void optionsParseDirectlyThrowsUsageException() {
    UsageException e = assertThrows(UsageException.class,
        () -> ConsumeOptions.parse(List.of("--bootstrap", "h:1", "--stream", "s", "--idle", "0s")));
    assertEquals("--idle: must be longer than zero, got '0s'", e.getMessage());
  }
}

package io.felix.placement.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The simulate command: the example layout in, the documented JSON out; bad input is exit 2, one line. */
class SimulateCliTest {

  static final String EXAMPLE = """
      {"brokers": [{"id": 0, "zone": "a", "max_shards": null, "state": "live"}, {"id": 1}, {"id": 2}],
       "groups": [{"name": "perf-quorum", "kind": "stream", "shards": 12, "replication_factor": 3}],
       "assignments": [{"group": "perf-quorum", "shard": 0, "leader": 2, "replicas": [2, 0, 1]}],
       "moves_in_flight": [{"group": "perf-quorum", "shard": 0, "from": 2, "to": 0}],
       "settings": {"strategy": "stream-aware", "max_concurrent_moves": 1, "max_moves_per_broker": null,
                    "paused": false}}
      """;

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  @Test
  void exampleLayoutPrintsAConvergedPlanWithEveryLiveBrokerCounted() throws Exception {
    assertEquals(0, run(EXAMPLE, "simulate"));

    JsonNode result = new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8));
    assertEquals("", err.toString(StandardCharsets.UTF_8));
    assertTrue(result.get("converged").booleanValue());
    JsonNode steps = result.get("steps");
    assertEquals(11, steps.size(), "shards 1..11 are new");
    JsonNode first = steps.get(0);
    assertEquals(1, first.get("pass").intValue());
    assertEquals("place", first.get("action").textValue());
    assertEquals("new-shard", first.get("reason").textValue());
    assertTrue(first.get("from").isNull());
    assertEquals(12, result.get("final").get("assignments").size());
    JsonNode leaders = result.get("leaders");
    assertEquals(4, leaders.get("total").get("0").intValue());
    assertEquals(4, leaders.get("groups").get("perf-quorum").get("2").intValue());
    assertEquals(3, leaders.get("total").size());
  }

  @Test
  void inputFileOptionReadsTheSameLayout(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("layout.json");
    Files.writeString(file, EXAMPLE);
    assertEquals(0, run("", "simulate", "--input", file.toString()));
    assertEquals(2, new ObjectMapper().readTree(out.toString(StandardCharsets.UTF_8)).get("passes").intValue());
  }

  @Test
  void invalidLayoutIsOneLineOnStderrAndExitTwo() {
    assertEquals(2, run("{\"brokers\": [{\"id\": 0}, {\"id\": 0}], \"groups\": []}", "simulate"));
    assertEquals("felix-placement: invalid input: duplicate broker id 0\n", err.toString(StandardCharsets.UTF_8));
    assertEquals("", out.toString(StandardCharsets.UTF_8));
  }

  @Test
  void wrongTypesUnknownFieldsAndBrokenJsonAreNamed() {
    assertError("{\"brokers\": [{\"id\": \"x\"}], \"groups\": []}",
        "felix-placement: invalid input: brokers[0].id: expected an integer, got \"x\"");
    assertError("{\"brokers\": [], \"groups\": [], \"setings\": {}}",
        "felix-placement: invalid input: input: unknown field 'setings' (expected one of [assignments, brokers,"
            + " groups, moves_in_flight, settings])");
    assertError("{\"groups\": []}", "felix-placement: invalid input: missing required field 'brokers'");
    assertError("{\"brokers\": [{\"id\": 0, \"state\": \"gone\"}], \"groups\": []}",
        "felix-placement: invalid input: brokers[0]: unknown broker state 'gone' (expected live, draining or down)");
    assertError("{\"brokers\": [{\"id\": 0}, {\"id\": 1}], \"groups\": [{\"name\": \"s\", \"shards\": 1,"
        + " \"replication_factor\": 2}], \"assignments\": [{\"group\": \"s\", \"shard\": 0, \"leader\": 0,"
        + " \"replicas\": [0, 5]}]}", "felix-placement: invalid input: assignment s/0: unknown broker 5");
    assertError("{\"brokers\": [", "felix-placement: invalid input: not valid JSON: Unexpected end-of-input:"
        + " expected close marker for Array at line 1, column 14");
  }

  @Test
  void usageErrorsExitTwo() {
    assertEquals(2, run("", "plan"));
    assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("felix-placement: Unmatched argument at index 0: 'plan'"
        + System.lineSeparator() + "Usage: felix-placement"), err.toString(StandardCharsets.UTF_8));
    err.reset();
    assertEquals(2, run("", "simulate", "--max-passes=0"));
    assertTrue(err.toString(StandardCharsets.UTF_8).startsWith("felix-placement: --max-passes must be a positive "
        + "integer, got '0'"), err.toString(StandardCharsets.UTF_8));
    err.reset();
    assertEquals(0, run("", "simulate", "--help"));
    assertEquals("", err.toString(StandardCharsets.UTF_8));
    assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("Usage: felix-placement simulate"));
  }

  private void assertError(String input, String line) {
    err.reset();
    assertEquals(2, run(input, "simulate"));
    assertEquals(line + "\n", err.toString(StandardCharsets.UTF_8));
  }

  private int run(String input, String... args) {
    return PlacementCli.run(args, new ByteArrayInputStream(input.getBytes(StandardCharsets.UTF_8)),
        new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
  }
}

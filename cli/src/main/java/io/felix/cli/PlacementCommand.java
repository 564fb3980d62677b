package io.felix.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code felix placement show|pause|resume|simulate}: /v1/placement. */
@Command(name = "placement", mixinStandardHelpOptions = true,
    description = "Show, pause and resume placement; simulate it on the live cluster or a layout file.")
final class PlacementCommand {

  @Command(name = "show", mixinStandardHelpOptions = true,
      description = "Strategy, paused or not, move limits, the last pass and its plan.")
  int show(@Mixin Endpoints endpoints, @Mixin Output output) throws CommandFailure, InterruptedException {
    JsonNode p = endpoints.adminClient().get("/v1/placement");
    Table table = new Table("SETTING", "VALUE");
    table.row("strategy", p.get("strategy").asText());
    table.row("paused", p.get("paused").asBoolean());
    table.row("max concurrent moves", p.get("max_concurrent_moves").asInt());
    table.row("moves in flight", p.get("moves_in_flight").asInt());
    table.row("placement interval ms", p.get("placement_interval_ms").asLong());
    table.row("last pass trigger", p.path("last_pass").path("trigger").asText());
    table.row("last pass planned", StreamCommand.joined(p.path("last_pass").path("planned")));
    output.print(p, table);
    return 0;
  }

  @Command(name = "pause", mixinStandardHelpOptions = true,
      description = "Start no moves (new shards are still placed, failover still runs).")
  int pause(@Mixin Endpoints endpoints, @Mixin Output output) throws CommandFailure, InterruptedException {
    endpoints.adminClient().post("/v1/placement/pause", "");
    output.message("placement paused");
    return 0;
  }

  @Command(name = "resume", mixinStandardHelpOptions = true, description = "Let placement start moves again.")
  int resume(@Mixin Endpoints endpoints, @Mixin Output output) throws CommandFailure, InterruptedException {
    endpoints.adminClient().post("/v1/placement/resume", "");
    output.message("placement resumed");
    return 0;
  }

  @Command(name = "simulate", mixinStandardHelpOptions = true,
      description = "What placement would do: with the live cluster, or with the layout in --input "
          + "(the JSON of felix-placement.jar simulate). Prints the simulation's JSON.")
  int simulate(@Mixin Endpoints endpoints,
      @Option(names = "--input", paramLabel = "FILE", description = "a layout file (default: the live cluster)")
      Path input) throws CommandFailure, InterruptedException, IOException {
    String layout;
    try {
      layout = input == null ? "" : Files.readString(input);
    } catch (NoSuchFileException e) {
      throw new CommandFailure("--input: " + input + " does not exist");
    }
    JsonNode result = endpoints.adminClient().post("/v1/placement/simulate", layout);
    endpoints.spec.commandLine().getOut().println(Admin.JSON.writerWithDefaultPrettyPrinter()
        .writeValueAsString(result));
    return 0;
  }
}

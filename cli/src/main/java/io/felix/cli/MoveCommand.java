package io.felix.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code felix move start|list}: /v1/shard-moves. */
@Command(name = "move", mixinStandardHelpOptions = true, description = "Move a shard's leadership; list moves.")
final class MoveCommand {

  @Command(name = "start", mixinStandardHelpOptions = true,
      description = "Move the leader of one shard to another broker (a copy is staged there first if needed).")
  int start(@Mixin Endpoints endpoints, @Mixin Output output,
      @Parameters(index = "0", paramLabel = "STREAM") String stream,
      @Parameters(index = "1", paramLabel = "SHARD") int shard,
      @Option(names = "--to", required = true, paramLabel = "BROKER", description = "the new leader") int to)
      throws CommandFailure, InterruptedException {
    String body = Admin.JSON.createObjectNode().put("stream", stream).put("shard", shard).put("to", to).toString();
    JsonNode answer = endpoints.adminClient().post("/v1/shard-moves", body);
    output.message(answer != null && answer.has("message") ? answer.get("message").asText()
        : "moving " + stream + "/" + shard + " to broker " + to);
    return 0;
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "Moves in flight, then recent ones.")
  int list(@Mixin Endpoints endpoints, @Mixin Output output) throws CommandFailure, InterruptedException {
    JsonNode moves = endpoints.adminClient().get("/v1/shard-moves");
    Table table = new Table("ID", "STREAM", "SHARD", "FROM", "TO", "STATE", "DURATION-MS", "REASON");
    for (String part : new String[] {"in_flight", "recent"}) {
      for (JsonNode m : moves.path(part)) {
        table.row(m.get("id").asText(), m.get("stream").asText(), m.get("shard").asInt(), m.get("from").asInt(),
            m.get("to").asInt(), m.get("state").asText(), m.get("duration_ms").asLong(), m.get("reason").asText());
      }
    }
    output.print(moves, table);
    return 0;
  }
}

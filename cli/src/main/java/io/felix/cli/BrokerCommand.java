package io.felix.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code felix broker list|drain|remove}: /v1/brokers. */
@Command(name = "broker", mixinStandardHelpOptions = true, description = "List, drain and remove brokers.")
final class BrokerCommand {

  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "Every broker: zone, state, addresses, leaders, replicas.")
  int list(@Mixin Endpoints endpoints, @Mixin Output output) throws CommandFailure, InterruptedException {
    JsonNode brokers = endpoints.adminClient().get("/v1/brokers");
    Table table = new Table("ID", "ZONE", "STATE", "CLIENT", "ADMIN-PORT", "LEADERS", "REPLICAS", "UNDER-REPLICATED");
    for (JsonNode b : brokers) {
      table.row(b.get("id").asInt(), b.path("zone").isNull() ? null : b.path("zone").asText(),
          b.get("state").asText(), b.get("client_address").asText(), b.get("admin_port").asInt(),
          b.get("leaders").asInt(), b.get("replicas").asInt(), b.path("under_replicated_shards").asInt());
    }
    output.print(brokers, table);
    return 0;
  }

  @Command(name = "drain", mixinStandardHelpOptions = true,
      description = "Move every shard off a broker (it stays a member, draining).")
  int drain(@Mixin Endpoints endpoints, @Mixin Output output,
      @Parameters(paramLabel = "ID", description = "broker id") int id) throws CommandFailure, InterruptedException {
    JsonNode answer = endpoints.adminClient().post("/v1/brokers/" + id + "/drain", "");
    output.message(answer != null && answer.has("message") ? answer.get("message").asText() : "draining broker " + id);
    return 0;
  }

  @Command(name = "remove", mixinStandardHelpOptions = true,
      description = "Forget a drained broker that holds no shard any more.")
  int remove(@Mixin Endpoints endpoints, @Mixin Output output,
      @Parameters(paramLabel = "ID", description = "broker id") int id) throws CommandFailure, InterruptedException {
    endpoints.adminClient().delete("/v1/brokers/" + id);
    output.message("removed broker " + id);
    return 0;
  }
}

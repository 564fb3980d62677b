package io.felix.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code felix status}: leaders per broker per stream, then the totals (GET /v1/replication-status). */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = "Leaders per broker for every stream, and the totals.")
final class StatusCommand implements java.util.concurrent.Callable<Integer> {

  @Mixin
  Endpoints endpoints;

  @Mixin
  Output output;

  @Override
  public Integer call() throws CommandFailure, InterruptedException {
    JsonNode status = endpoints.adminClient().get("/v1/replication-status?format=json");
    List<String> brokers = new ArrayList<>();
    status.get("total").fieldNames().forEachRemaining(brokers::add);
    List<String> headers = new ArrayList<>(List.of("STREAM"));
    brokers.forEach(b -> headers.add("BROKER-" + b));
    Table table = new Table(headers.toArray(String[]::new));
    for (Iterator<Map.Entry<String, JsonNode>> it = status.get("streams").fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> stream = it.next();
      table.row(row(stream.getKey(), stream.getValue(), brokers));
    }
    table.row(row("(total)", status.get("total"), brokers));
    output.print(status, table);
    return 0;
  }

  private static Object[] row(String name, JsonNode counts, List<String> brokers) {
    List<Object> cells = new ArrayList<>(List.of(name));
    brokers.forEach(b -> cells.add(counts.path(b).asInt()));
    return cells.toArray();
  }
}

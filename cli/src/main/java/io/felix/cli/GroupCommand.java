package io.felix.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.FelixException;
import io.felix.client.GroupOffsets;
import java.util.Map;
import java.util.TreeMap;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code felix group list|describe|reset-offsets}: consumer groups (/v1/groups, and an administrative commit). */
@Command(name = "group", mixinStandardHelpOptions = true,
    description = "List and describe consumer groups; reset a group's committed offsets.")
final class GroupCommand {

  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "Every consumer group: coordinator, stream, generation, members.")
  int list(@Mixin Endpoints endpoints, @Mixin Output output) throws CommandFailure, InterruptedException {
    JsonNode groups = endpoints.adminClient().get("/v1/groups");
    Table table = new Table("GROUP", "COORDINATOR", "STREAM", "GENERATION", "MEMBERS");
    for (JsonNode g : groups) {
      table.row(g.get("group").asText(), g.get("coordinator").asInt(), g.get("stream").asText(),
          g.get("generation").asInt(), g.get("members").asInt());
    }
    output.print(groups, table);
    return 0;
  }

  @Command(name = "describe", mixinStandardHelpOptions = true,
      description = "A group's shards: owner, committed offset, commit offset, lag.")
  int describe(@Mixin Endpoints endpoints, @Mixin Output output,
      @Parameters(paramLabel = "GROUP", description = "group id") String group)
      throws CommandFailure, InterruptedException {
    JsonNode g = endpoints.adminClient().get("/v1/groups/" + PathSegment.encode(group));
    Table table = new Table("SHARD", "OWNER", "COMMITTED", "COMMIT-OFFSET", "LAG");
    for (JsonNode s : g.get("shards")) {
      table.row(s.get("shard").asInt(), s.path("owner").isNull() ? null : s.get("owner").asText(),
          s.path("committed_offset").isNull() ? null : s.get("committed_offset").asLong(),
          s.path("commit_offset").isNull() ? null : s.get("commit_offset").asLong(),
          s.path("lag").isNull() ? null : s.get("lag").asLong());
    }
    output.print(g, table);
    return 0;
  }

  static final class Target {
    @Option(names = "--to-earliest", description = "every shard's first offset") boolean earliest;
    @Option(names = "--to-latest", description = "every shard's commit offset (skip what is there now)")
    boolean latest;
    @Option(names = "--to-offset", paramLabel = "N", description = "this offset in every shard") Long offset;
  }

  @Command(name = "reset-offsets", mixinStandardHelpOptions = true,
      description = "Set a group's committed offsets (only while the group has no members).")
  int resetOffsets(@Mixin Endpoints endpoints, @Mixin Output output,
      @Parameters(paramLabel = "GROUP", description = "group id") String group,
      @Option(names = "--stream", required = true, description = "the stream the group consumes") String stream,
      @ArgGroup(exclusive = true, multiplicity = "1") Target target)
      throws CommandFailure, InterruptedException {
    JsonNode shards = endpoints.adminClient().get("/v1/streams/" + PathSegment.encode(stream))
        .get("shard_assignments");
    Map<Integer, Long> offsets = new TreeMap<>();
    for (JsonNode s : shards) {
      long to = target.earliest ? s.path("log_start_offset").asLong(0)
          : target.latest ? s.path("commit_offset").asLong(0) : target.offset;
      offsets.put(s.get("shard").asInt(), to);
    }
    try (FelixClient client = new FelixClient(ClientSettings.builder(endpoints.bootstrap()).build())) {
      GroupOffsets.reset(client, group, stream, offsets);
    } catch (FelixException e) {
      throw new CommandFailure("felix group reset-offsets: " + e.getMessage());
    }
    output.message("group " + group + " on " + stream + " now starts at " + offsets);
    return 0;
  }
}

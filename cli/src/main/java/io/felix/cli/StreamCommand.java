package io.felix.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code felix stream create|list|describe|alter|delete}: POST, GET, PATCH and DELETE on /v1/streams. */
@Command(name = "stream", mixinStandardHelpOptions = true,
    description = "Create, list, describe, alter and delete streams.",
    subcommandsRepeatable = false)
final class StreamCommand {

  @Command(name = "create", mixinStandardHelpOptions = true, description = "Create a stream.")
  int create(@Mixin Endpoints endpoints, @Mixin Output output,
      @Parameters(paramLabel = "NAME", description = "stream name") String name,
      @Option(names = "--shards", paramLabel = "N", defaultValue = "3",
          description = "number of shards (default ${DEFAULT-VALUE})")
      int shards,
      @Option(names = {"--replication-factor", "--rf"}, paramLabel = "N",
          description = "replicas per shard (default: the broker's, 3, or every live broker when fewer)")
      Integer replicationFactor) throws CommandFailure, InterruptedException {
    ObjectNode body = Admin.JSON.createObjectNode().put("name", name).put("shards", shards);
    if (replicationFactor != null) {
      body.put("replication_factor", replicationFactor);
    }
    JsonNode answer = endpoints.adminClient().post("/v1/streams", body.toString());
    output.message(answer != null && answer.has("message") ? answer.get("message").asText()
        : "created stream " + name);
    return 0;
  }

  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "List every stream and cache (KIND: stream, cache, or internal for the brokers' own).")
  int list(@Mixin Endpoints endpoints, @Mixin Output output) throws CommandFailure, InterruptedException {
    JsonNode streams = endpoints.adminClient().get("/v1/streams");
    Table table = new Table("NAME", "KIND", "SHARDS", "REPLICATION-FACTOR", "UNDER-REPLICATED");
    for (JsonNode s : streams) {
      table.row(s.get("name").asText(), s.path("internal").asBoolean() ? "internal" : s.path("kind").asText(),
          s.get("shards").asInt(), s.get("replication_factor").asInt(), s.path("under_replicated_shards").size());
    }
    output.print(streams, table);
    return 0;
  }

  @Command(name = "describe", mixinStandardHelpOptions = true,
      description = "Each shard of a stream: leader, replicas, epoch, commit offset, in-sync replicas.")
  int describe(@Mixin Endpoints endpoints, @Mixin Output output,
      @Parameters(paramLabel = "NAME", description = "stream name") String name)
      throws CommandFailure, InterruptedException {
    JsonNode stream = endpoints.adminClient().get("/v1/streams/" + PathSegment.encode(name));
    Table table = new Table("SHARD", "LEADER", "REPLICAS", "IN-SYNC", "EPOCH", "COMMIT-OFFSET", "UNDER-REPLICATED");
    for (JsonNode s : stream.get("shard_assignments")) {
      table.row(s.get("shard").asInt(), s.get("leader").asInt(), joined(s.get("replicas")),
          joined(s.path("in_sync")), s.get("epoch").asLong(),
          s.path("commit_offset").isNull() ? null : s.path("commit_offset").asLong(),
          s.path("under_replicated").asBoolean() ? "yes" : "no");
    }
    output.print(stream, table);
    return 0;
  }

  @Command(name = "alter", mixinStandardHelpOptions = true,
      description = "Change a stream's retention, segment size or shard count (PATCH /v1/streams/NAME); settings not "
          + "given stay as they are.")
  int alter(@Mixin Endpoints endpoints, @Mixin Output output,
      @Parameters(paramLabel = "NAME", description = "stream name") String name,
      @Option(names = "--retention-ms", paramLabel = "MS", converter = Converters.WholeNumber.class,
          description = "keep records at least this long (-1: no time limit)") Long retentionMs,
      @Option(names = "--retention-bytes", paramLabel = "BYTES", converter = Converters.WholeNumber.class,
          description = "keep at most this many bytes per shard (-1: no size limit)") Long retentionBytes,
      @Option(names = "--segment-bytes", paramLabel = "BYTES", converter = Converters.WholeNumber.class,
          description = "roll a shard's segment at this size") Long segmentBytes,
      @Option(names = "--shards", paramLabel = "N", description = "the new number of shards (more than now)")
      Integer shards) throws CommandFailure, InterruptedException {
    ObjectNode body = Admin.JSON.createObjectNode();
    if (retentionMs != null) {
      body.put("retention_ms", retentionMs);
    }
    if (retentionBytes != null) {
      body.put("retention_bytes", retentionBytes);
    }
    if (segmentBytes != null) {
      body.put("segment_bytes", segmentBytes);
    }
    if (shards != null) {
      body.put("shards", shards);
    }
    if (body.isEmpty()) {
      throw Ranges.usage(output.spec, "nothing to change: give --retention-ms, --retention-bytes, --segment-bytes or "
          + "--shards");
    }
    JsonNode answer = endpoints.adminClient().patch("/v1/streams/" + PathSegment.encode(name), body.toString());
    output.message(answer != null && answer.has("message") ? answer.get("message").asText()
        : "altered stream " + name + ": " + body);
    return 0;
  }

  @Command(name = "delete", mixinStandardHelpOptions = true, description = "Delete a stream and its records.")
  int delete(@Mixin Endpoints endpoints, @Mixin Output output,
      @Parameters(paramLabel = "NAME", description = "stream name") String name)
      throws CommandFailure, InterruptedException {
    endpoints.adminClient().delete("/v1/streams/" + PathSegment.encode(name));
    output.message("deleted stream " + name);
    return 0;
  }

  static String joined(JsonNode array) {
    StringBuilder out = new StringBuilder();
    for (JsonNode n : array) {
      out.append(out.length() == 0 ? "" : ",").append(n.asText());
    }
    return out.length() == 0 ? "-" : out.toString();
  }
}

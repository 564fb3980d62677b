package io.felix.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code felix acl add|remove|list}: allow rules per principal, resource and operation (/v1/acls). */
@Command(name = "acl", mixinStandardHelpOptions = true,
    description = "Add, remove and list ACLs (with felix.security.authorization on, what no ACL allows is refused).")
final class AclCommand {

  /** One ACL, as the options name it. */
  static final class Rule {
    @Option(names = "--principal", required = true, paramLabel = "NAME", description = "the user the rule allows")
    String principal;

    @Option(names = "--resource-type", required = true, paramLabel = "TYPE",
        description = "stream, cache, consumer-group or cluster")
    String resourceType;

    @Option(names = "--resource", paramLabel = "NAME", defaultValue = "*",
        description = "the resource's name, '*' for every one of the type (default ${DEFAULT-VALUE}; ignored for "
            + "cluster)")
    String resource;

    @Option(names = "--operation", required = true, paramLabel = "OP",
        description = "produce, consume, describe, alter (implies describe) or admin (implies every operation)")
    String operation;

    ObjectNode json() {
      return Admin.JSON.createObjectNode().put("principal", principal).put("resource_type", resourceType)
          .put("resource_name", resource).put("operation", operation);
    }
  }

  @Command(name = "add", mixinStandardHelpOptions = true, description = "Allow a principal an operation.")
  int add(@Mixin Endpoints endpoints, @Mixin Output output, @ArgGroup(exclusive = false, multiplicity = "1") Rule rule)
      throws CommandFailure, InterruptedException {
    JsonNode answer = endpoints.adminClient().post("/v1/acls", rule.json().toString());
    output.message(answer.get("message").asText());
    return 0;
  }

  @Command(name = "remove", mixinStandardHelpOptions = true, description = "Remove an ACL.")
  int remove(@Mixin Endpoints endpoints, @Mixin Output output,
      @ArgGroup(exclusive = false, multiplicity = "1") Rule rule) throws CommandFailure, InterruptedException {
    StringBuilder query = new StringBuilder();
    rule.json().fields().forEachRemaining(f -> query.append(query.length() == 0 ? "?" : "&").append(f.getKey())
        .append('=').append(URLEncoder.encode(f.getValue().asText(), StandardCharsets.UTF_8)));
    endpoints.adminClient().delete("/v1/acls" + query);
    output.message("removed the ACL");
    return 0;
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "Every ACL.")
  int list(@Mixin Endpoints endpoints, @Mixin Output output) throws CommandFailure, InterruptedException {
    JsonNode acls = endpoints.adminClient().get("/v1/acls");
    Table table = new Table("PRINCIPAL", "RESOURCE-TYPE", "RESOURCE", "OPERATION");
    for (JsonNode a : acls.get("acls")) {
      table.row(a.get("principal").asText(), a.get("resource_type").asText(), a.get("resource_name").asText(),
          a.get("operation").asText());
    }
    output.print(acls, table);
    return 0;
  }
}

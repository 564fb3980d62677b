package io.felix.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code felix user create|delete|list|token}: SCRAM-SHA-256 users and their admin tokens (/v1/users). */
@Command(name = "user", mixinStandardHelpOptions = true,
    description = "Create, list and delete SCRAM-SHA-256 users; issue admin API tokens.")
final class UserCommand {
  @Spec
  CommandSpec spec;

  @Command(name = "create", mixinStandardHelpOptions = true,
      description = "Create a user, or set a new password for one. The broker stores it salted and iterated.")
  int create(@Mixin Endpoints endpoints, @Mixin Output output,
      @Parameters(paramLabel = "NAME", description = "user name") String name,
      @Option(names = "--new-password", paramLabel = "PASSWORD",
          description = "the user's password, at least 8 characters (default: FELIX_NEW_PASSWORD, which other "
              + "users of the machine cannot see in the process list)") String newPassword)
      throws CommandFailure, InterruptedException {
    String password = newPassword != null ? newPassword : Felix.of(spec).environment().get("FELIX_NEW_PASSWORD");
    if (password == null || password.isEmpty()) {
      throw Ranges.usage(spec, "give the new user's password with --new-password or FELIX_NEW_PASSWORD");
    }
    JsonNode answer = endpoints.adminClient().post("/v1/users",
        Admin.JSON.createObjectNode().put("name", name).put("password", password).toString());
    output.message(answer.get("message").asText());
    return 0;
  }

  @Command(name = "list", mixinStandardHelpOptions = true, description = "Every user (never a credential).")
  int list(@Mixin Endpoints endpoints, @Mixin Output output) throws CommandFailure, InterruptedException {
    JsonNode users = endpoints.adminClient().get("/v1/users");
    Table table = new Table("NAME", "MECHANISM", "ITERATIONS", "TOKENS");
    for (JsonNode u : users.get("users")) {
      table.row(u.get("name").asText(), u.get("mechanism").asText(), u.get("iterations").asInt(),
          u.get("tokens").asInt());
    }
    output.print(users, table);
    return 0;
  }

  @Command(name = "delete", mixinStandardHelpOptions = true, description = "Delete a user, its tokens and ACLs.")
  int delete(@Mixin Endpoints endpoints, @Mixin Output output,
      @Parameters(paramLabel = "NAME", description = "user name") String name)
      throws CommandFailure, InterruptedException {
    endpoints.adminClient().delete("/v1/users/" + PathSegment.encode(name));
    output.message("deleted user " + name);
    return 0;
  }

  @Command(name = "token", mixinStandardHelpOptions = true,
      description = "Issue an admin API bearer token to a user (printed once; the broker keeps only its hash).")
  int token(@Mixin Endpoints endpoints, @Mixin Output output,
      @Parameters(paramLabel = "NAME", description = "user name") String name)
      throws CommandFailure, InterruptedException {
    JsonNode answer = endpoints.adminClient().post("/v1/users/" + PathSegment.encode(name) + "/tokens", "");
    output.message(answer.get("message").asText());
    return 0;
  }
}

package io.felix.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code --output table|json}: aligned columns for people, the API's JSON for scripts. */
public final class Output {

  /** How a command prints what it read. */
  public enum Format { table, json }

  @Spec(Spec.Target.MIXEE)
  CommandSpec spec;

  @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "table",
      description = "table (for people) or json (for scripts); default ${DEFAULT-VALUE}")
  Format format;

  boolean json() {
    return format == Format.json;
  }

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  /** Prints {@code json} (with --output json) or the table. */
  void print(JsonNode json, Table table) {
    if (json()) {
      printJson(json);
    } else {
      out().print(table.render());
      out().flush();
    }
  }

  void printJson(JsonNode json) {
    try {
      out().println(Admin.JSON.writerWithDefaultPrettyPrinter().writeValueAsString(json));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
    out().flush();
  }

  /** A message for people; with --output json, {"message": ...}. */
  void message(String text) {
    if (json()) {
      printJson(Admin.JSON.createObjectNode().put("message", text));
    } else {
      out().println(text);
      out().flush();
    }
  }
}

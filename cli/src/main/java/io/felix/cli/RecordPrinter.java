package io.felix.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.felix.client.FetchedRecord;
import io.felix.protocol.client.Header;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/** How {@code felix consume} prints records: {@code SHARD OFFSET KEY VALUE} tab separated, or a JSON object each. */
final class RecordPrinter {
  private final ConsumeCommand command;
  private final PrintWriter out;
  private long printed;

  RecordPrinter(ConsumeCommand command) {
    this.command = command;
    this.out = command.spec.commandLine().getOut();
  }

  void print(int shard, FetchedRecord rec) {
    printed++;
    String key = rec.key() == null ? "" : new String(rec.key(), StandardCharsets.UTF_8);
    String value = new String(rec.value(), StandardCharsets.UTF_8);
    if (command.format == Output.Format.json) {
      ObjectNode node = Admin.JSON.createObjectNode().put("shard", shard).put("offset", rec.offset())
          .put("key", key).put("value", value).put("timestamp_ms", rec.timestampMs());
      ObjectNode headers = node.putObject("headers");
      for (Header h : rec.headers()) {
        headers.put(h.getKey(), h.getValue().toStringUtf8());
      }
      out.println(node);
    } else {
      out.println(shard + "\t" + rec.offset() + "\t" + key + "\t" + value);
    }
  }

  boolean reachedMax() {
    return command.max != null && printed >= command.max;
  }

  long printed() {
    return printed;
  }

  /** Flushes, then says on stderr how many records were read (with a hint when none was, from the end). */
  int finish() {
    out.flush();
    String hint = printed == 0 && command.start().kind() == ConsumeCommand.Start.Kind.LATEST && !command.follow
        && command.group == null ? " (reading started at the end; add --from-beginning or --follow)" : "";
    command.spec.commandLine().getErr().println("read " + printed + " records from " + command.stream
        + (command.group == null ? "" : " as group " + command.group) + hint);
    return 0;
  }
}

package io.felix.cli;

import io.felix.client.FelixClient;
import io.felix.client.FelixException;
import io.felix.client.GroupConsumer;
import io.felix.client.GroupConsumerOptions;
import io.felix.client.GroupRecord;
import io.felix.client.OffsetReset;
import io.felix.loadgen.StreamCheck;
import java.time.Duration;
import java.util.List;

/**
 * The console consumer of {@code felix consume STREAM --group G}: a member of consumer group G that prints the
 * records of the shards it is assigned, from the group's committed offsets (a shard without one starts at its log
 * start with {@code --from-beginning} or {@code --offset earliest}, else at its end), and commits what it printed
 * after every poll it printed whole, so the next member goes on from there. Without {@code --follow} it stops, commits and leaves the
 * group once a poll finds nothing new.
 */
final class GroupConsoleConsumer {
  private static final Duration POLL = Duration.ofSeconds(1);

  private final ConsumeCommand command;
  private final RecordPrinter printer;

  GroupConsoleConsumer(ConsumeCommand command) {
    this.command = command;
    this.printer = new RecordPrinter(command);
  }

  int run() throws CommandFailure, InterruptedException {
    OffsetReset reset = command.start().kind() == ConsumeCommand.Start.Kind.EARLIEST ? OffsetReset.EARLIEST
        : OffsetReset.LATEST;
    GroupConsumerOptions options = new GroupConsumerOptions(GroupConsumerOptions.DEFAULTS.sessionTimeout(),
        GroupConsumerOptions.DEFAULTS.heartbeatInterval(), false, GroupConsumerOptions.DEFAULTS.autoCommitInterval(),
        reset, GroupConsumerOptions.DEFAULTS.maxBytesPerShard(), GroupConsumerOptions.DEFAULTS.maxWait());
    try (FelixClient client = command.client()) {
      String problem = StreamCheck.problem(client, command.stream);
      if (problem != null) {
        throw new CommandFailure(problem);
      }
      try (GroupConsumer member = new GroupConsumer(client, options)) {
        member.subscribe(command.stream, command.group);
        boolean assigned = false;
        while (true) {
          List<GroupRecord> records = member.poll(POLL);
          int printedOfPoll = 0;
          for (GroupRecord r : records) {
            if (printer.reachedMax()) {
              break;
            }
            printer.print(r.shard(), r.record());
            printedOfPoll++;
          }
          // A commit covers every record polled; with --max cutting a poll short, nothing of it is committed, so
          // the group's next reader reads the unprinted ones (and the printed ones of this poll) again: at least
          // once, never lost.
          if (printedOfPoll == records.size()) {
            member.commitSync();
          }
          if (printer.reachedMax() || !command.follow && assigned && records.isEmpty()) {
            break;
          }
          assigned |= !member.assignment().isEmpty();
        }
      } catch (FelixException e) {
        throw new CommandFailure("group " + command.group + ": " + e.getMessage());
      }
    }
    return printer.finish();
  }
}

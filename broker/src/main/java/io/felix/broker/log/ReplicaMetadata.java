package io.felix.broker.log;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The file {@code replica.state} in a replica's log directory: its {@link ReplicaState}. Replaced atomically and
 * durably (temp file, fsync, rename, fsync of the directory) by {@link #write}, which the replica calls before it
 * acts on a new promise (answers a fence, follows or acks a leader at a new epoch, starts leading): a promise
 * forgotten in a crash would let a fenced leader back in.
 *
 * <p>Format, one {@code key=value} per line: {@code format=1}, {@code incarnation=<uuid>},
 * {@code promised-epoch=<n>}, {@code recovering=<true|false>}.
 */
public final class ReplicaMetadata {
  public static final String FILE = "replica.state";
  private static final String FORMAT = "1";

  private final CheckpointFile file;

  public ReplicaMetadata(Path dir) {
    this.file = new CheckpointFile(dir, FILE);
  }

  /**
   * The stored state, empty when the directory has none (a new replica, a wiped directory, or a log written before
   * this file existed). A temp file left by a write a crash interrupted is ignored and removed.
   *
   * @throws CorruptLogException when the file exists but does not hold a valid state
   */
  public Optional<ReplicaState> read() throws IOException {
    Optional<String> content = file.read();
    if (content.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(parse(content.get()));
  }

  public void write(ReplicaState state) throws IOException {
    file.write("format=" + FORMAT + "\nincarnation=" + state.incarnation() + "\npromised-epoch="
        + state.promisedEpoch() + "\nrecovering=" + state.recovering() + "\n");
  }

  public Path path() {
    return file.path();
  }

  private ReplicaState parse(String content) throws CorruptLogException {
    Map<String, String> fields = new HashMap<>();
    for (String line : content.split("\n")) {
      if (line.isBlank()) {
        continue;
      }
      int eq = line.indexOf('=');
      if (eq <= 0) {
        throw corrupt("line '" + line + "' is not key=value");
      }
      fields.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
    }
    if (!FORMAT.equals(fields.get("format"))) {
      throw corrupt("format is '" + fields.get("format") + "', expected " + FORMAT);
    }
    try {
      String recovering = required(fields, "recovering");
      if (!recovering.equals("true") && !recovering.equals("false")) {
        throw corrupt("recovering is '" + recovering + "', expected true or false");
      }
      return new ReplicaState(UUID.fromString(required(fields, "incarnation")),
          Long.parseLong(required(fields, "promised-epoch")), Boolean.parseBoolean(recovering));
    } catch (IllegalArgumentException e) { // also NumberFormatException and a malformed UUID
      throw corrupt(e.getMessage());
    }
  }

  private String required(Map<String, String> fields, String key) throws CorruptLogException {
    String value = fields.get(key);
    if (value == null) {
      throw corrupt("'" + key + "' is missing");
    }
    return value;
  }

  private CorruptLogException corrupt(String why) {
    return new CorruptLogException("replica state " + file.path() + " is invalid: " + why);
  }
}

package io.felix.broker.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code <offset, 20 digits>.producers} files beside the segments, as Kafka's {@code .snapshot} files: the
 * {@link ProducerStates} of a log as of an offset (every batch below it counted), written at each segment roll
 * (temp file, fsync, rename, fsync the directory) so that opening the log reads only the batches after the newest
 * snapshot. The newest {@value #KEPT} are kept. A snapshot that does not read back (torn, bad CRC) is ignored with
 * a warning and an older one, or the whole log, is read instead: it holds only what the log holds too.
 *
 * <pre>
 * int magic, long offset, int producers, then per producer: long id, int epoch, long lastTimestamp, int batches,
 * then per batch: int firstSequence, int lastSequence, long baseOffset, int recordCount; int CRC32C of all before
 * </pre>
 */
final class ProducerSnapshot {
  static final String SUFFIX = ".producers";
  private static final int MAGIC = 0x46505331; // "FPS1"
  private static final int KEPT = 2;
  private static final Pattern NAME = Pattern.compile("(\\d{20})" + Pattern.quote(SUFFIX));
  private static final Logger log = LoggerFactory.getLogger(ProducerSnapshot.class);

  private ProducerSnapshot() {}

  static Path fileFor(Path dir, long offset) {
    return dir.resolve(String.format("%020d%s", offset, SUFFIX));
  }

  /** Writes the snapshot as of {@code offset} durably and deletes all but the newest {@value #KEPT}. */
  static void write(Path dir, long offset, ProducerStates states) throws IOException {
    int size = 4 + 8 + 4 + 4;
    for (ProducerStates.Entry e : states.entries()) {
      size += 8 + 4 + 8 + 4 + e.batches.size() * (4 + 4 + 8 + 4);
    }
    ByteBuffer buf = ByteBuffer.allocate(size);
    buf.putInt(MAGIC).putLong(offset).putInt(states.size());
    for (ProducerStates.Entry e : states.entries()) {
      buf.putLong(e.producerId).putInt(e.epoch).putLong(e.lastTimestamp).putInt(e.batches.size());
      for (ProducerStates.StoredBatch b : e.batches) {
        buf.putInt(b.firstSequence()).putInt(b.lastSequence()).putLong(b.baseOffset()).putInt(b.recordCount());
      }
    }
    CRC32C crc = new CRC32C();
    crc.update(buf.array(), 0, buf.position());
    buf.putInt((int) crc.getValue()).flip();
    CheckpointFile.replace(fileFor(dir, offset), buf);
    List<Long> offsets = list(dir);
    for (int i = 0; i < offsets.size() - KEPT; i++) {
      Files.deleteIfExists(fileFor(dir, offsets.get(i)));
    }
    CheckpointFile.forceDirectory(dir);
  }

  /**
   * Deletes the snapshots above {@code offset} (they count batches a truncation removes); the caller makes the
   * deletion durable.
   *
   * @return whether it deleted any
   */
  static boolean deleteAbove(Path dir, long offset) throws IOException {
    boolean deleted = false;
    for (long at : list(dir)) {
      if (at > offset) {
        deleted |= Files.deleteIfExists(fileFor(dir, at));
      }
    }
    return deleted;
  }

  /**
   * Loads the newest readable snapshot at or below {@code maxOffset} into {@code states} (cleared first) and
   * returns its offset; empty (and {@code states} empty) when there is none.
   */
  static Optional<Long> loadLatest(Path dir, long maxOffset, ProducerStates states) throws IOException {
    List<Long> offsets = list(dir);
    for (int i = offsets.size() - 1; i >= 0; i--) {
      long at = offsets.get(i);
      if (at > maxOffset) {
        continue;
      }
      states.clear();
      if (read(fileFor(dir, at), at, states)) {
        return Optional.of(at);
      }
      log.warn("producer snapshot {} does not read back (torn or damaged); using an older one or the log",
          fileFor(dir, at));
    }
    states.clear();
    return Optional.empty();
  }

  private static boolean read(Path file, long offset, ProducerStates states) throws IOException {
    ByteBuffer buf = ByteBuffer.wrap(Files.readAllBytes(file));
    try {
      if (buf.remaining() < 20 || buf.getInt() != MAGIC || buf.getLong() != offset) {
        return false;
      }
      CRC32C crc = new CRC32C();
      crc.update(buf.array(), 0, buf.limit() - 4);
      if ((int) crc.getValue() != buf.getInt(buf.limit() - 4)) {
        return false;
      }
      int producers = buf.getInt();
      for (int i = 0; i < producers; i++) {
        ProducerStates.Entry e = new ProducerStates.Entry(buf.getLong(), buf.getInt(), buf.getLong());
        int batches = buf.getInt();
        for (int j = 0; j < batches; j++) {
          e.batches.addLast(new ProducerStates.StoredBatch(buf.getInt(), buf.getInt(), buf.getLong(), buf.getInt()));
        }
        states.put(e);
      }
      return buf.position() == buf.limit() - 4;
    } catch (java.nio.BufferUnderflowException e) {
      return false;
    }
  }

  /** Offsets of the snapshot files in the directory, ascending. */
  static List<Long> list(Path dir) throws IOException {
    List<Long> out = new ArrayList<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
      for (Path f : files) {
        Matcher m = NAME.matcher(f.getFileName().toString());
        if (m.matches()) {
          out.add(Long.parseLong(m.group(1)));
        }
      }
    }
    out.sort(null);
    return out;
  }
}

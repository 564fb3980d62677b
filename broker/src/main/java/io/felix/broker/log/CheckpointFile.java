package io.felix.broker.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * A small text file beside the segments ({@code replica.state}, {@code recovery-point}, {@code leader-epochs}),
 * replaced durably so that a crash leaves the old content or the new one, never a mix.
 *
 * <p>Content of up to {@value #MAX_IN_PLACE} bytes is kept as two copies, each in its own 512-byte slot with a
 * sequence number and a CRC-32C. A write goes in place into the slot of the older copy, then {@code fdatasync}: one
 * flush, no new file, no directory entry to make durable. A crash that tears the slot being written leaves the other
 * copy, the previous content, which is what was last acted on (a caller acts on a write only once it returned). The
 * file is created (and a legacy or larger one replaced) the safe way: a temp file, fsync, rename, fsync of the
 * directory. Measured 2026-12-06 on this project's disk with 16 threads: 11,900 in-place writes/s against 3,760 for
 * the temp-file way. A 10,000-shard stream's creation writes tens of thousands of these (each replica's promise and
 * end of recovery, each log's first epoch), and every roll and idle close writes a recovery point.
 *
 * <p>Larger content (a long {@code leader-epochs}) and files written before the two-copy layout are plain text; reads
 * tell them apart by the size (two slots) and the byte each copy starts with, which plain text never has.
 *
 * <p>Not thread-safe: each file has one owner at a time (its log's flush lock, its replica's one write at a time).
 */
public final class CheckpointFile {
  /** The most bytes of content written in place; larger content is written as a plain-text file. */
  static final int MAX_IN_PLACE = 512 - 18;
  private static final int SLOT = 512;
  private static final int MAGIC = 0xFE46_4350; // 0xFE, then "FCP": a first byte no UTF-8 text starts with
  private static final int HEADER = 4 + 8 + 2; // magic, sequence, content length; then content, then CRC-32C

  private final Path file;
  private final Path temp;
  /** Whether the file is known to hold two copies; false when absent or plain, null before a read. */
  private Boolean twoCopies;
  /** The sequence of the newest copy when {@link #twoCopies} (0: created empty, never written). */
  private long sequence;

  CheckpointFile(Path dir, String name) {
    this.file = dir.resolve(name);
    this.temp = dir.resolve(name + ".tmp");
  }

  /**
   * The content, empty when there is no file or it was created empty ({@link #createEmpty}) and never written.
   *
   * @throws CorruptLogException when the file is two-copy and neither copy is intact
   */
  Optional<String> read() throws IOException {
    Files.deleteIfExists(temp); // a write interrupted by a crash; the previous version still stands
    twoCopies = false;
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file));
    if (bytes.remaining() != 2 * SLOT || bytes.getInt(0) != MAGIC && bytes.getInt(SLOT) != MAGIC) {
      return bytes.hasRemaining() ? Optional.of(StandardCharsets.UTF_8.decode(bytes).toString()) : Optional.empty();
    }
    long newest = -1;
    String content = null;
    for (int slot = 0; slot < 2; slot++) {
      ByteBuffer copy = bytes.slice(slot * SLOT, SLOT);
      long seq = copy.getLong(4);
      int length = Short.toUnsignedInt(copy.getShort(12));
      if (copy.getInt(0) != MAGIC || length > MAX_IN_PLACE || seq <= newest
          || copy.getInt(HEADER + length) != crc(copy, length)) {
        continue;
      }
      newest = seq;
      content = StandardCharsets.UTF_8.decode(copy.slice(HEADER, length)).toString();
    }
    if (content == null) {
      throw new CorruptLogException("checkpoint " + file + " is damaged: neither of its two copies is intact");
    }
    twoCopies = true;
    sequence = newest;
    return newest == 0 ? Optional.empty() : Optional.of(content);
  }

  /**
   * Creates the file empty, as two copies of nothing, so that the first {@link #write} goes in place. Nothing is
   * fsynced: the caller fsyncs the directory, and the first write's fdatasync makes the copies durable with it. A
   * crash before that leaves an empty file or none, which reads as no content.
   */
  void createEmpty() throws IOException {
    ByteBuffer both = ByteBuffer.allocate(2 * SLOT).put(slot(0, new byte[0])).put(slot(0, new byte[0])).flip();
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      while (both.hasRemaining()) {
        ch.write(both);
      }
    }
    twoCopies = true;
    sequence = 0;
  }

  /** Replaces the content durably: in place when it fits (one fdatasync), otherwise through a temp file. */
  void write(String content) throws IOException {
    byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
    if (twoCopies == null) {
      try {
        read();
      } catch (CorruptLogException e) {
        twoCopies = false; // replaced whole below
      }
    }
    if (bytes.length > MAX_IN_PLACE) {
      replace(file, ByteBuffer.wrap(bytes));
      forceDirectory(file.getParent());
      twoCopies = false;
    } else if (!twoCopies) {
      ByteBuffer both = ByteBuffer.allocate(2 * SLOT);
      both.put(slot(0, new byte[0])); // sequence 0: no content, only the mark that the file has two copies
      both.put(slot(1, bytes));
      both.flip();
      replace(file, both);
      forceDirectory(file.getParent());
      twoCopies = true;
      sequence = 1;
    } else {
      long next = sequence + 1;
      try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
        ByteBuffer slot = ByteBuffer.wrap(slot(next, bytes));
        long position = (next % 2) * SLOT;
        while (slot.hasRemaining()) {
          position += ch.write(slot, position);
        }
        ch.force(false); // the file's size and blocks do not change: its data is all there is to flush
      }
      sequence = next;
    }
  }

  private static byte[] slot(long seq, byte[] content) {
    ByteBuffer slot = ByteBuffer.allocate(SLOT);
    slot.putInt(MAGIC).putLong(seq).putShort((short) content.length).put(content);
    slot.putInt(crc(slot, content.length));
    return slot.array();
  }

  /** CRC-32C of a copy's sequence, length and content. */
  private static int crc(ByteBuffer copy, int length) {
    CRC32C crc = new CRC32C();
    crc.update(copy.slice(4, HEADER - 4 + length));
    return (int) crc.getValue();
  }

  /**
   * Replaces {@code file} with {@code content} atomically: written to {@code <file>.tmp}, fsynced, renamed over it.
   * A crash leaves the old file or the new one, never a mix; the caller fsyncs the directory when the rename itself
   * must survive a crash.
   */
  public static void replace(Path file, ByteBuffer content) throws IOException {
    Path temp = file.resolveSibling(file.getFileName() + ".tmp");
    try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      while (content.hasRemaining()) {
        ch.write(content);
      }
      ch.force(true);
    }
    Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
  }

  Path path() {
    return file;
  }

  /** Makes created, renamed and deleted directory entries durable. */
  public static void forceDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }
}

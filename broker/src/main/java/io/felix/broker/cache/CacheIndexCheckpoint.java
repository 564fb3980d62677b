package io.felix.broker.cache;

import com.google.protobuf.ByteString;
import io.felix.broker.log.CheckpointFile;
import io.felix.broker.log.ShardLog;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * The cache index's checkpoint, {@value #FILE_NAME} beside the shard's segments: the index as it stood at an offset
 * (every key with the offset of its newest committed entry below it), replaced atomically
 * ({@link CheckpointFile#replace}: temp file, fsync, rename, fsync of the directory). A replica becoming leader
 * loads it and replays only the log after it.
 *
 * <p>Format, big-endian: magic (4), upTo (8), key count (4), then per key its length (4), its bytes and its offset
 * (8); last a CRC32C (4) of everything before it. A file that is damaged, or whose upTo lies outside the log (a
 * replica that lost its log or restarted it at its leader's start), is ignored: the index is then rebuilt from the
 * whole log. Its offsets are committed ones, which no truncation removes.
 */
public final class CacheIndexCheckpoint {
  public static final String FILE_NAME = "cache-index.checkpoint";
  private static final int MAGIC = 0x4B43_4931; // "KCI1"

  private CacheIndexCheckpoint() {}

  /** Writes the index durably; afterwards the file holds it, or (after a crash during the write) the previous one. */
  public static void write(Path dir, CacheIndex index) throws IOException {
    long[] size = {4 + 8 + 4 + 4};
    index.forEachOffset((key, offset) -> size[0] += 4 + key.size() + 8);
    if (size[0] > Integer.MAX_VALUE) {
      throw new IOException("cache index of " + dir + " is too large for one checkpoint file (" + size[0]
          + " bytes)");
    }
    ByteBuffer buf = ByteBuffer.allocate((int) size[0]);
    buf.putInt(MAGIC).putLong(index.indexedTo()).putInt(index.size());
    index.forEachOffset((key, offset) -> {
      buf.putInt(key.size());
      key.copyTo(buf);
      buf.putLong(offset);
    });
    CRC32C crc = new CRC32C();
    crc.update(buf.array(), 0, buf.position());
    buf.putInt((int) crc.getValue());
    buf.flip();
    CheckpointFile.replace(dir.resolve(FILE_NAME), buf);
    CheckpointFile.forceDirectory(dir);
    index.checkpointed();
  }

  /** The checkpointed index if the file exists, is whole and fits the log; else empty (replay the whole log). */
  public static Optional<CacheIndex> read(Path dir, ShardLog log) throws IOException {
    Path file = dir.resolve(FILE_NAME);
    Files.deleteIfExists(file.resolveSibling(FILE_NAME + ".tmp")); // an interrupted write; the old file stands
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    ByteBuffer buf = ByteBuffer.wrap(Files.readAllBytes(file));
    if (buf.remaining() < 20) {
      return Optional.empty();
    }
    CRC32C crc = new CRC32C();
    crc.update(buf.array(), 0, buf.limit() - 4);
    if ((int) crc.getValue() != buf.getInt(buf.limit() - 4) || buf.getInt() != MAGIC) {
      return Optional.empty();
    }
    long upTo = buf.getLong();
    if (upTo < log.logStartOffset() || upTo > log.logEndOffset()) {
      return Optional.empty();
    }
    int count = buf.getInt();
    CacheIndex index = CacheIndex.loading(count, upTo);
    for (int i = 0; i < count; i++) {
      byte[] key = new byte[buf.getInt()];
      buf.get(key);
      index.load(ByteString.copyFrom(key), buf.getLong());
    }
    index.checkpointed();
    return Optional.of(index);
  }

  /** The index of {@code log}'s entries below {@code upTo}: the checkpoint (when usable) plus the log after it. */
  public static CacheIndex rebuild(Path dir, ShardLog log, long upTo) throws IOException {
    CacheIndex index = read(dir, log).orElseGet(() -> CacheIndex.empty(log));
    index.catchUp(log, upTo);
    return index;
  }
}

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

/** A small text file beside the segments, replaced atomically and durably (write a temp file, fsync, rename, fsync the directory). */
public final class CheckpointFile {
  private final Path file;
  private final Path temp;

  CheckpointFile(Path dir, String name) {
    this.file = dir.resolve(name);
    this.temp = dir.resolve(name + ".tmp");
  }

  Optional<String> read() throws IOException {
    Files.deleteIfExists(temp); // a write interrupted by a crash; the previous version still stands
    return Files.exists(file) ? Optional.of(Files.readString(file, StandardCharsets.UTF_8)) : Optional.empty();
  }

  void write(String content) throws IOException {
    replace(file, ByteBuffer.wrap(content.getBytes(StandardCharsets.UTF_8)));
    forceDirectory(file.getParent());
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

package io.felix.broker.log;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The broker's lock of its whole data directory: {@value #FILE} locked (an OS file lock) for as long as the broker's
 * data plane runs, so that a second broker process given the same {@code felix.broker.data-dir} refuses to start
 * instead of writing the same replica logs. It replaces the lock file each replica log held (one descriptor per
 * replica): that lock kept out a second owner of one log directory, and the same protection now comes from two
 * places that cost one descriptor per broker:
 * <ul>
 *   <li>another process: it must hold this lock to open any log under the directory, and the broker holds it until
 *       every replica has closed its log (the replica directory releases it when it stops, after its replicas);
 *   <li>this process: {@link ShardLog#open} keeps a registry of the log directories open in the JVM and refuses a
 *       second open of one (the replica directory also starts at most one replica actor per shard, and starts a
 *       replica again only after the previous one stopped and closed its log).
 * </ul>
 * The lock is released by the operating system when the process dies, so a killed broker never leaves it stale.
 */
public final class DataDirectoryLock implements AutoCloseable {
  public static final String FILE = ".felix-broker.lock";

  private final Path file;
  private final FileChannel channel;
  private final FileLock lock;

  private DataDirectoryLock(Path file, FileChannel channel, FileLock lock) {
    this.file = file;
    this.channel = channel;
    this.lock = lock;
  }

  /**
   * Locks {@code dataDir} (creating it if needed).
   *
   * @throws IOException naming the directory when another process, or another broker in this JVM, holds it
   */
  public static DataDirectoryLock acquire(Path dataDir) throws IOException {
    Files.createDirectories(dataDir);
    Path file = dataDir.resolve(FILE);
    FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock lock;
    try {
      lock = channel.tryLock();
    } catch (OverlappingFileLockException e) {
      lock = null; // held in this JVM
    } catch (IOException e) {
      channel.close();
      throw e;
    }
    if (lock == null) {
      channel.close();
      throw new IOException("data directory " + dataDir + " is in use by another broker (" + file
          + " is locked): two brokers must not share a data directory");
    }
    return new DataDirectoryLock(file, channel, lock);
  }

  public Path file() {
    return file;
  }

  /** Releases the lock. Idempotent. */
  @Override
  public synchronized void close() throws IOException {
    if (channel.isOpen()) {
      try {
        lock.release();
      } finally {
        channel.close();
      }
    }
  }
}

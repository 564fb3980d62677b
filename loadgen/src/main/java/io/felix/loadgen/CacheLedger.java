package io.felix.loadgen;

import io.felix.client.FelixCache;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The ledger of a verified cache workload ({@code felix perf cache --verify}, and the cache writer of every chaos round):
 * per key, the offset and put id of its latest acknowledged put. Every value names its key, the run and a put id,
 * so a read can be judged on its own: it must show the latest acknowledged put or a put of this run at a later
 * offset (in flight, or failed with an unknown outcome: it may or may not have been applied), never an older entry,
 * and never nothing once a put was acknowledged (the workloads delete nothing and set no TTL). Entries of earlier
 * runs on the same cache are allowed until this run's first acknowledged put of the key. Thread-safe.
 */
public final class CacheLedger {
  /** Key, run id and put id at the start of every value. */
  public static final int VALUE_HEADER = 4 + 8 + 8;

  /** Who puts: one writer's puts to a key must be applied in the order it issued them; many writers' race. */
  public enum Writers { ONE, MANY }

  /** What a read of a key showed, against the ledger. */
  public enum Outcome {
    /** The latest acknowledged put, a later put of this run, or (before any acknowledged put) anything written. */
    CURRENT,
    /** An acknowledged put is not visible: the key is absent or shows an older entry. */
    LOST,
    /** A value nobody put for the key, or another put's value at the acknowledged put's offset. */
    CORRUPT
  }

  /** A read's outcome and, unless it is current, what was wrong, naming the key and the puts. */
  public record Finding(Outcome outcome, String problem) {
    static final Finding CURRENT = new Finding(Outcome.CURRENT, null);
  }

  /** One put: its key, its id and the value that names them. */
  public record Put(int key, long id, byte[] value) {}

  private final long runId;
  private final Writers writers;
  private final AtomicLong nextPutId = new AtomicLong();
  /** Per key: offset of its latest acknowledged put (-1: none), read without the lock as a read's floor. */
  private final AtomicLongArray ackedOffset;
  /** Per key: that put's id; changes together with the offset, under this ledger's lock. */
  private final long[] ackedPutId;

  public CacheLedger(int keys, long runId, Writers writers) {
    this.runId = runId;
    this.writers = writers;
    this.ackedOffset = new AtomicLongArray(keys);
    this.ackedPutId = new long[keys];
    for (int i = 0; i < keys; i++) {
      ackedOffset.set(i, -1);
    }
  }

  public int keys() {
    return ackedPutId.length;
  }

  /** The key's bytes in the cache. */
  public static byte[] keyBytes(int key) {
    return ("k" + key).getBytes(StandardCharsets.UTF_8);
  }

  /** A new put of the key, its value padded to {@code valueSize} bytes (at least the header). */
  public Put attempt(int key, int valueSize) {
    long id = nextPutId.getAndIncrement();
    ByteBuffer value = ByteBuffer.allocate(Math.max(VALUE_HEADER, valueSize));
    value.putInt(key).putLong(runId).putLong(id);
    return new Put(key, id, value.array());
  }

  /** The put was acknowledged at {@code offset}: it becomes the key's floor unless a later one already is. */
  public synchronized void acknowledged(Put put, long offset) {
    if (offset > ackedOffset.get(put.key())) {
      ackedOffset.set(put.key(), offset);
      ackedPutId[put.key()] = put.id();
    }
  }

  /** The offset a read of the key sent now must reach: its latest acknowledged put's (-1: none yet). */
  public long floor(int key) {
    return ackedOffset.get(key);
  }

  /** Judges a read of the key that was sent when its floor was {@code floor}. */
  public Finding check(int key, long floor, Optional<FelixCache.Entry> entry) {
    if (entry.isEmpty()) {
      return floor < 0 ? Finding.CURRENT
          : new Finding(Outcome.LOST, "k" + key + " absent, after the put at offset " + floor + " was acknowledged");
    }
    ByteBuffer v = ByteBuffer.wrap(entry.get().value());
    long offset = entry.get().offset();
    boolean whole = v.remaining() >= VALUE_HEADER;
    int writtenFor = whole ? v.getInt() : -1;
    long run = whole ? v.getLong() : 0;
    long putId = whole ? v.getLong() : -1;
    String read = "k" + key + " read " + (run == runId ? "put " + putId : "an earlier run's put") + " at offset "
        + offset;
    if (writtenFor != key || (run == runId && (putId < 0 || putId >= nextPutId.get()))) {
      return new Finding(Outcome.CORRUPT, "k" + key + " read a value nobody wrote (key " + writtenFor + ", put id "
          + putId + ") at offset " + offset);
    }
    if (offset < floor) {
      return new Finding(Outcome.LOST, read + ", older than the put acknowledged at offset " + floor);
    }
    synchronized (this) {
      long acked = ackedPutId[key];
      if (offset == ackedOffset.get(key) && (run != runId || putId != acked)) {
        return new Finding(Outcome.CORRUPT, read + ", where put " + acked + " was acknowledged");
      }
      // One writer's puts of a key reach the log in the order issued: an older one after the acknowledged put
      // means the acknowledged value was overwritten by an older one.
      if (writers == Writers.ONE && run == runId && offset > ackedOffset.get(key) && putId < acked) {
        return new Finding(Outcome.LOST, read + ", issued before put " + acked + " acknowledged at offset "
            + ackedOffset.get(key));
      }
    }
    return Finding.CURRENT;
  }
}

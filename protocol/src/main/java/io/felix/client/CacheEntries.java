package io.felix.client;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import io.felix.protocol.client.Header;
import io.felix.protocol.client.Record;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * How a cache entry is stored as a record, shared by the client (which writes entries) and the broker (which
 * indexes and reads them): the record's key and value are the entry's; a header {@value #TTL_HEADER} holds the
 * entry's own TTL in milliseconds (8 bytes, big-endian), counted from the record's timestamp; a header
 * {@value #TOMBSTONE_HEADER} marks a delete.
 */
public final class CacheEntries {
  public static final String TTL_HEADER = "felix.ttl-ms";
  public static final String TOMBSTONE_HEADER = "felix.tombstone";
  /** Field number of {@code records} in RecordList and of key, timestamp in Record (felix_client.proto). */
  private static final int RECORDS_FIELD = 1;

  private CacheEntries() {}

  /** An entry putting {@code value} under {@code key}; {@code ttlMs} 0 takes the cache's default TTL. */
  public static Record put(ByteString key, ByteString value, long ttlMs, long timestampMs) {
    Record.Builder r = Record.newBuilder().setKey(key).setValue(value).setTimestampMs(timestampMs);
    if (ttlMs > 0) {
      r.addHeaders(Header.newBuilder().setKey(TTL_HEADER)
          .setValue(ByteString.copyFrom(ByteBuffer.allocate(8).putLong(0, ttlMs))));
    }
    return r.build();
  }

  /** A tombstone: {@code key} has no value from this entry on. */
  public static Record delete(ByteString key, long timestampMs) {
    return Record.newBuilder().setKey(key).setTimestampMs(timestampMs)
        .addHeaders(Header.newBuilder().setKey(TOMBSTONE_HEADER)).build();
  }

  public static boolean isTombstone(Record record) {
    return record.getHeadersList().stream().anyMatch(h -> h.getKey().equals(TOMBSTONE_HEADER));
  }

  /**
   * When the entry stops being readable (epoch milliseconds), 0 for never: its own TTL if it has one, else the
   * cache's {@code defaultTtlMs} (0: none), counted from its timestamp.
   */
  public static long expiresAtMs(Record record, long defaultTtlMs) {
    long ttl = record.getHeadersList().stream().filter(h -> h.getKey().equals(TTL_HEADER) && h.getValue().size() == 8)
        .mapToLong(h -> h.getValue().asReadOnlyByteBuffer().getLong()).findFirst().orElse(defaultTtlMs);
    return ttl > 0 ? record.getTimestampMs() + ttl : 0;
  }

  /**
   * Where the {@code index}-th record's field starts in an encoded RecordList (a byte position within
   * {@code recordList}), or -1 when it has fewer records; the records before it are skipped as bytes, not parsed.
   * {@link #recordField} reads the record from there.
   */
  public static int recordPosition(ByteBuffer recordList, int index) {
    try {
      CodedInputStream in = CodedInputStream.newInstance(recordList.duplicate());
      int seen = 0;
      while (true) {
        int position = in.getTotalBytesRead();
        int tag = in.readTag();
        if (tag == 0) {
          return -1;
        }
        if (tag >>> 3 == RECORDS_FIELD && seen++ == index) {
          return position;
        }
        in.skipField(tag);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("a stored RecordList does not parse", e);
    }
  }

  /** What {@link #forEachRecord} hands over: a record, its index in the list and where its field starts. */
  @FunctionalInterface
  public interface RecordVisitor {
    void visit(int index, int position, Record record);
  }

  /**
   * Visits every record of an encoded RecordList in order, with the byte position (within {@code recordList}) at
   * which its field starts: where {@link #recordFieldLength} and {@link #recordField} read it back alone.
   */
  public static void forEachRecord(ByteBuffer recordList, RecordVisitor visitor) {
    try {
      CodedInputStream in = CodedInputStream.newInstance(recordList.duplicate());
      int index = 0;
      while (true) {
        int position = in.getTotalBytesRead();
        int tag = in.readTag();
        if (tag == 0) {
          return;
        }
        if (tag >>> 3 != RECORDS_FIELD) {
          in.skipField(tag);
          continue;
        }
        int length = in.readRawVarint32();
        visitor.visit(index++, position, Record.parseFrom(in.readRawBytes(length)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("a stored RecordList does not parse", e);
    }
  }

  /**
   * The bytes the record field at the start of {@code bytes} takes in all (tag, length and record), or -1 when
   * {@code bytes} does not start with a whole tag and length of a record field.
   */
  public static int recordFieldLength(ByteBuffer bytes) {
    try {
      CodedInputStream in = CodedInputStream.newInstance(bytes.duplicate());
      int tag = in.readTag();
      if (tag >>> 3 != RECORDS_FIELD || (tag & 7) != 2) {
        return -1;
      }
      int length = in.readRawVarint32();
      return length < 0 ? -1 : in.getTotalBytesRead() + length;
    } catch (IOException e) {
      return -1; // cut short
    }
  }

  /** The record of the record field at the start of {@code bytes}, which holds it whole. */
  public static Record recordField(ByteBuffer bytes) {
    try {
      CodedInputStream in = CodedInputStream.newInstance(bytes.duplicate());
      in.readTag();
      int length = in.readRawVarint32();
      return Record.parseFrom(in.readRawBytes(length));
    } catch (IOException e) {
      throw new UncheckedIOException("a stored record field does not parse", e);
    }
  }
}

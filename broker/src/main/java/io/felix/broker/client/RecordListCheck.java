package io.felix.broker.client;

import io.felix.broker.shard.RecordListSummary;
import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.WireFormat;
import java.io.IOException;

/**
 * Validates the records of a produce request (an encoded client RecordList) before anything is appended: one
 * pass over the encoding that checks its structure and counts the records and their timestamps, without building
 * them. Used for produce requests from clients and for those forwarded by another broker (plain mode).
 */
public final class RecordListCheck {
  private static final int RECORDS_FIELD = 1;
  private static final int TIMESTAMP_FIELD = 4;

  /** Thrown for a batch that is empty or is not an encoded RecordList; the message names the problem. */
  public static final class InvalidRecordsException extends Exception {
    public InvalidRecordsException(String message) {
      super(message);
    }
  }

  public static RecordListSummary scan(ByteString records) throws InvalidRecordsException {
    CodedInputStream in = records.newCodedInput();
    in.setRecursionLimit(4);
    int count = 0;
    long first = 0;
    long max = Long.MIN_VALUE;
    try {
      while (true) {
        int tag = in.readTag();
        if (tag == 0) {
          break;
        }
        if (WireFormat.getTagFieldNumber(tag) != RECORDS_FIELD
            || WireFormat.getTagWireType(tag) != WireFormat.WIRETYPE_LENGTH_DELIMITED) {
          throw new InvalidRecordsException("records: unexpected field " + WireFormat.getTagFieldNumber(tag)
              + " in the RecordList");
        }
        int length = in.readRawVarint32();
        if (length < 0) {
          throw new InvalidRecordsException("records: negative record length");
        }
        int limit = in.pushLimit(length);
        long ts = scanRecord(in);
        in.popLimit(limit);
        if (count == 0) {
          first = ts;
        }
        max = Math.max(max, ts);
        count++;
      }
    } catch (IOException e) {
      throw new InvalidRecordsException("records: not an encoded RecordList (" + e.getMessage() + ")");
    }
    if (count == 0) {
      throw new InvalidRecordsException("records: the batch holds no record");
    }
    return new RecordListSummary(count, first, max);
  }

  /** Walks one Record's fields (each must be well formed), returning its timestamp (0 when absent). */
  private static long scanRecord(CodedInputStream in) throws IOException {
    long ts = 0;
    while (!in.isAtEnd()) {
      int tag = in.readTag();
      if (WireFormat.getTagFieldNumber(tag) == TIMESTAMP_FIELD
          && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_VARINT) {
        ts = in.readInt64();
      } else if (!in.skipField(tag)) {
        throw new IOException("end-group tag inside a record");
      }
    }
    return ts;
  }

  private RecordListCheck() {}
}

package io.felix.protocol;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import io.felix.protocol.client.Record;
import io.felix.protocol.client.RecordList;
import java.util.List;

/**
 * Encodes and decodes the RecordList carried as bytes in ProduceRequest.records and RecordBatch.records. The
 * producer encodes a batch once; the broker validates it ({@link #countRecords}) and stores the bytes as they
 * are; the consumer decodes it once.
 */
public final class RecordLists {
  private RecordLists() {}

  /** Bytes the record adds to an encoded RecordList (field tag, length prefix and the record). */
  public static int encodedSize(Record record) {
    return CodedOutputStream.computeMessageSize(1, record);
  }

  public static ByteString encode(List<Record> records) {
    return RecordList.newBuilder().addAllRecords(records).build().toByteString();
  }

  /**
   * Decodes with the framing's recursion limit.
   *
   * @throws IllegalArgumentException naming the problem when the bytes are not a RecordList
   */
  public static RecordList decode(ByteString bytes) {
    CodedInputStream in = bytes.newCodedInput();
    in.setRecursionLimit(FrameCodec.RECURSION_LIMIT);
    in.setSizeLimit(Math.max(bytes.size(), 1));
    try {
      RecordList list = RecordList.parser().parseFrom(in);
      in.checkLastTagWas(0);
      return list;
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException(
          "records: " + bytes.size() + " bytes are not a valid RecordList: " + e.getMessage(), e);
    }
  }

  /**
   * What a broker checks before storing produced bytes: they decode as a RecordList with at least one record.
   *
   * @return the number of records
   * @throws IllegalArgumentException naming the problem otherwise
   */
  public static int countRecords(ByteString bytes) {
    int count = decode(bytes).getRecordsCount();
    if (count == 0) {
      throw new IllegalArgumentException("records: the RecordList is empty; a produce needs at least one record");
    }
    return count;
  }
}

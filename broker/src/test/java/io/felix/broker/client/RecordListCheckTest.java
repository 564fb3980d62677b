package io.felix.broker.client;

import io.felix.broker.shard.RecordListSummary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.Header;
import io.felix.protocol.client.Record;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecordListCheckTest {

  @Test
  void countsRecordsAndFindsTheirTimestamps() throws Exception {
    ByteString list = RecordLists.encode(List.of(
        Record.newBuilder().setKey(ByteString.copyFromUtf8("k")).setValue(ByteString.copyFromUtf8("v"))
            .addHeaders(Header.newBuilder().setKey("h").setValue(ByteString.copyFromUtf8("x"))).setTimestampMs(500)
            .build(),
        Record.newBuilder().setTimestampMs(900).build(),
        Record.newBuilder().setValue(ByteString.copyFromUtf8("late")).setTimestampMs(700).build()));
    assertEquals(new RecordListSummary(3, 500, 900), RecordListCheck.scan(list));
  }

  @Test
  void anEmptyListIsRefused() {
    RecordListCheck.InvalidRecordsException e = assertThrows(RecordListCheck.InvalidRecordsException.class,
        () -> RecordListCheck.scan(ByteString.EMPTY));
    assertEquals("records: the batch holds no record", e.getMessage());
  }

  @Test
  void bytesThatAreNotARecordListAreRefused() {
    RecordListCheck.InvalidRecordsException e = assertThrows(RecordListCheck.InvalidRecordsException.class,
        () -> RecordListCheck.scan(ByteString.copyFrom(new byte[] {0x0a, 0x7f, 0x01})));
    assertTrue(e.getMessage().startsWith("records: not an encoded RecordList"), e.getMessage());
  }
}

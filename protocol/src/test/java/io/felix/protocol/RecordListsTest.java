package io.felix.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.google.protobuf.ByteString;
import io.felix.protocol.client.Header;
import io.felix.protocol.client.Record;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecordListsTest {
  @Test
  void encodedRecordsDecodeToTheSameRecordsInOrder() {
    Record a = Record.newBuilder().setKey(ByteString.copyFromUtf8("k")).setValue(ByteString.copyFromUtf8("v1")).build();
    Record b =
        Record.newBuilder()
            .setValue(ByteString.copyFromUtf8("v2"))
            .addHeaders(Header.newBuilder().setKey("h").setValue(ByteString.copyFromUtf8("x")))
            .setTimestampMs(5)
            .build();
    ByteString bytes = RecordLists.encode(List.of(a, b));
    assertEquals(List.of(a, b), RecordLists.decode(bytes).getRecordsList());
    assertEquals(2, RecordLists.countRecords(bytes));
    assertEquals(RecordLists.encodedSize(a) + RecordLists.encodedSize(b), bytes.size());
  }

  @Test
  void emptyListIsRefusedForProduce() {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> RecordLists.countRecords(ByteString.EMPTY));
    assertEquals("records: the RecordList is empty; a produce needs at least one record", e.getMessage());
  }

  @Test
  void garbageIsRefusedNamingTheField() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> RecordLists.countRecords(ByteString.copyFrom(new byte[] {0x0A, 0x7F, 0x01})));
    assertTrue(e.getMessage().startsWith("records: 3 bytes are not a valid RecordList"), e.getMessage());
  }
}

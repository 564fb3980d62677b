package io.felix.loadgen;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

class RecordFormatTest {
  @Test
  void headerLayoutIsExact() {
    byte[] v = RecordFormat.encode(0x0102030405060708L, 3, 258, 32);
    assertEquals(32, v.length);
    byte[] header = {0x46, 0x4C, 0x58, 0x31, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 1, 2};
    assertArrayEquals(header, Arrays.copyOf(v, 24));
    // padding: (byte)(258 * 31 + i) for i = 28..31
    assertArrayEquals(new byte[] {(byte) (7998 + 28), (byte) (7998 + 29), (byte) (7998 + 30), (byte) (7998 + 31)},
        Arrays.copyOfRange(v, 28, 32));
    CRC32C crc = new CRC32C();
    crc.update(v, 0, 24);
    crc.update(v, 28, 4);
    int stored = ((v[24] & 0xff) << 24) | ((v[25] & 0xff) << 16) | ((v[26] & 0xff) << 8) | (v[27] & 0xff);
    assertEquals((int) crc.getValue(), stored);
  }

  @Test
  void decodeReadsBackWhatWasEncoded() {
    RecordFormat.Decoded d = RecordFormat.decode(RecordFormat.encode(42, 7, 123_456, 1024));
    assertEquals(new RecordFormat.Decoded(42, 7, 123_456, null, false), d);
  }

  @Test
  void anyFlippedByteIsCorrupt() {
    byte[] v = RecordFormat.encode(42, 1, 9, 64);
    for (int i = 4; i < v.length; i++) {
      byte[] flipped = v.clone();
      flipped[i] ^= 0x10;
      assertEquals(true, RecordFormat.decode(flipped).corrupt(), "byte " + i);
    }
    for (int i = 0; i < 4; i++) {
      byte[] flipped = v.clone();
      flipped[i] ^= 0x10;
      assertEquals(true, RecordFormat.decode(flipped).foreign(), "magic byte " + i);
    }
    byte[] badMagic = v.clone();
    badMagic[0] = 0;
    assertEquals(new RecordFormat.Decoded(0, -1, -1, "bad magic 0x004C5831", true), RecordFormat.decode(badMagic));
    assertEquals(new RecordFormat.Decoded(0, -1, -1, "value of 5 bytes is shorter than the 28-byte header", true),
        RecordFormat.decode(new byte[5]));
  }

  @Test
  void recordSizeBelowTheHeaderIsRefused() {
    assertThrows(IllegalArgumentException.class, () -> RecordFormat.encode(1, 1, 1, 27));
  }
}

package io.felix.broker.log;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Segment files are named by their base offset in 20 digits, so that names sort like offsets. */
class SegmentNameTest {

  @Test
  void namesAreTheBaseOffsetInTwentyDigitsAndParseBack() {
    assertEquals("00000000000000000000.log", new SegmentName(0).logFileName());
    assertEquals("00000000000000012345.index", new SegmentName(12_345).indexFileName());
    assertEquals("09223372036854775807.log", new SegmentName(Long.MAX_VALUE).logFileName());
    assertEquals(Path.of("d", "00000000000000000042.log"), new SegmentName(42).logFile(Path.of("d")));
    for (long offset : new long[] {0, 7, 1_000_000, Long.MAX_VALUE}) {
      assertEquals(Optional.of(new SegmentName(offset)), SegmentName.parse(new SegmentName(offset).logFileName()));
    }
    assertEquals(Optional.empty(), SegmentName.parse("42.log"));
    assertEquals(Optional.empty(), SegmentName.parse("99999999999999999999.log"));
  }
}

package io.felix.broker.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The two-copy, written-in-place checkpoint: what a torn write, a damaged file and an old plain file read as. */
class CheckpointFileTest {
  private static final String NAME = "state";

  @TempDir
  Path dir;

  @Test
  void absentIsEmptyAndEachWriteIsReadBackByANewReader() throws Exception {
    CheckpointFile file = new CheckpointFile(dir, NAME);
    assertEquals(Optional.empty(), file.read());
    file.write("first");
    assertEquals(1024, Files.size(dir.resolve(NAME)), "two 512-byte copies");
    assertEquals(Optional.of("first"), new CheckpointFile(dir, NAME).read());
    file.write("second");
    file.write("third");
    assertEquals(Optional.of("third"), new CheckpointFile(dir, NAME).read());
    assertEquals(1024, Files.size(dir.resolve(NAME)), "written in place");
  }

  @Test
  void aFileCreatedEmptyReadsAsNoContentAndTakesItsFirstWriteInPlace() throws Exception {
    CheckpointFile file = new CheckpointFile(dir, NAME);
    file.createEmpty();
    assertEquals(Optional.empty(), new CheckpointFile(dir, NAME).read());
    file.write("first");
    assertEquals(Optional.of("first"), new CheckpointFile(dir, NAME).read());
    tear(1); // the first write goes into slot 1: torn, the file reads as created
    assertEquals(Optional.empty(), new CheckpointFile(dir, NAME).read());
    Files.write(dir.resolve(NAME), new byte[0]); // what a crash before any fsync may leave
    assertEquals(Optional.empty(), new CheckpointFile(dir, NAME).read());
  }

  @Test
  void aTornCopyLeavesThePreviousContent() throws Exception {
    CheckpointFile file = new CheckpointFile(dir, NAME);
    file.write("a"); // sequence 1, slot 1
    file.write("b"); // sequence 2, slot 0
    file.write("c"); // sequence 3, slot 1
    tear(1);
    assertEquals(Optional.of("b"), new CheckpointFile(dir, NAME).read(), "the newest copy torn: the one before it");
    tearAt(0, 0);
    tear(0);
    new CheckpointFile(dir, NAME).write("d"); // slot 1 torn, slot 0 torn down to its mark: replaced whole
    tearAt(0, 0);
    assertEquals(Optional.of("d"), new CheckpointFile(dir, NAME).read(), "one copy's mark is enough to know the file");
  }

  @Test
  void aNewWriterOverwritesTheOlderCopyNeverTheNewest() throws Exception {
    CheckpointFile first = new CheckpointFile(dir, NAME);
    first.write("a"); // slot 1
    first.write("b"); // slot 0, the newest
    new CheckpointFile(dir, NAME).write("c"); // a writer that never read: it must learn the sequence first
    tear(1);
    assertEquals(Optional.of("b"), new CheckpointFile(dir, NAME).read(), "c went into a's slot, b is intact");
    CheckpointFile again = new CheckpointFile(dir, NAME);
    again.write("d"); // the torn slot 1 holds nothing valid: sequence 3 follows b's 2, into slot 1 again
    tear(0);
    assertEquals(Optional.of("d"), new CheckpointFile(dir, NAME).read());
  }

  @Test
  void neitherCopyIntactIsCorruptionNamingTheFile() throws Exception {
    CheckpointFile file = new CheckpointFile(dir, NAME);
    file.write("a");
    file.write("b");
    tear(0);
    tear(1);
    CorruptLogException e = assertThrows(CorruptLogException.class, () -> new CheckpointFile(dir, NAME).read());
    assertEquals("checkpoint " + dir.resolve(NAME) + " is damaged: neither of its two copies is intact",
        e.getMessage());
    CheckpointFile writer = new CheckpointFile(dir, NAME);
    writer.write("fresh"); // a writer replaces a damaged file whole
    assertEquals(Optional.of("fresh"), new CheckpointFile(dir, NAME).read());
  }

  @Test
  void aPlainFileFromBeforeIsReadAndReplacedByTheNextWrite() throws Exception {
    Files.writeString(dir.resolve(NAME), "27 0 1476", StandardCharsets.UTF_8);
    CheckpointFile file = new CheckpointFile(dir, NAME);
    assertEquals(Optional.of("27 0 1476"), file.read());
    file.write("30 0 1600");
    assertEquals(1024, Files.size(dir.resolve(NAME)));
    file.write("31 0 1700");
    assertEquals(Optional.of("31 0 1700"), new CheckpointFile(dir, NAME).read());
  }

  @Test
  void contentTooLargeForACopyIsWrittenAsAPlainFileAndBackInPlaceWhenItFitsAgain() throws Exception {
    String large = "9 123456\n".repeat(60);
    CheckpointFile file = new CheckpointFile(dir, NAME);
    file.write("small");
    file.write(large);
    assertEquals(large, Files.readString(dir.resolve(NAME)));
    assertEquals(Optional.of(large), new CheckpointFile(dir, NAME).read());
    file.write("small again");
    assertEquals(1024, Files.size(dir.resolve(NAME)));
    assertEquals(Optional.of("small again"), new CheckpointFile(dir, NAME).read());
  }

  @Test
  void aTempFileLeftByACrashIsRemovedAndIgnored() throws Exception {
    CheckpointFile file = new CheckpointFile(dir, NAME);
    file.write("kept");
    Files.writeString(dir.resolve(NAME + ".tmp"), "half");
    assertEquals(Optional.of("kept"), new CheckpointFile(dir, NAME).read());
    assertEquals(false, Files.exists(dir.resolve(NAME + ".tmp")));
  }

  /** Overwrites the middle of copy {@code slot} as a write torn by a crash would leave it. */
  private void tear(int slot) throws IOException {
    tearAt(slot, 14);
  }

  private void tearAt(int slot, int offset) throws IOException {
    try (FileChannel ch = FileChannel.open(dir.resolve(NAME), StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {0x55, 0x55, 0x55}), slot * 512L + offset);
    }
  }
}

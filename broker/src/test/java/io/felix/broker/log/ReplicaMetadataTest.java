package io.felix.broker.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplicaMetadataTest {
  private static final UUID INCARNATION = UUID.fromString("3f0c2a8e-51d7-4c55-9a44-1f8e9d0b7a21");

  @TempDir
  Path dir;

  @Test
  void aWrittenStateIsReadBackExactlyAndReplacesTheOlderOne() throws Exception {
    ReplicaMetadata metadata = new ReplicaMetadata(dir);
    assertEquals(Optional.empty(), metadata.read(), "a directory without the file has no state");
    metadata.write(new ReplicaState(INCARNATION, 4, true));
    metadata.write(new ReplicaState(INCARNATION, 7, false));
    assertEquals(Optional.of(new ReplicaState(INCARNATION, 7, false)), new ReplicaMetadata(dir).read());
    assertEquals("format=1\nincarnation=" + INCARNATION + "\npromised-epoch=7\nrecovering=false\n",
        new CheckpointFile(dir, ReplicaMetadata.FILE).read().orElseThrow());
    assertFalse(Files.exists(dir.resolve("replica.state.tmp")), "the temp file was renamed");
  }

  @Test
  void aTornTempFileLeftByACrashIsIgnoredAndRemoved() throws Exception {
    ReplicaMetadata metadata = new ReplicaMetadata(dir);
    metadata.write(new ReplicaState(INCARNATION, 3, false));
    Files.writeString(dir.resolve("replica.state.tmp"), "format=1\nincarnation=3f0c", StandardCharsets.UTF_8);
    assertEquals(Optional.of(new ReplicaState(INCARNATION, 3, false)), metadata.read());
    assertFalse(Files.exists(dir.resolve("replica.state.tmp")));
  }

  @Test
  void badContentIsAClearErrorNamingTheFileAndTheProblem() throws Exception {
    Path file = dir.resolve("replica.state");
    Files.writeString(file, "format=1\nincarnation=" + INCARNATION + "\npromised-epoch=seven\nrecovering=false\n");
    CorruptLogException e = assertThrows(CorruptLogException.class, () -> new ReplicaMetadata(dir).read());
    assertTrue(e.getMessage().startsWith("replica state " + file + " is invalid: "), e.getMessage());
    assertTrue(e.getMessage().contains("seven"), e.getMessage());

    Files.writeString(file, "format=1\npromised-epoch=2\nrecovering=false\n");
    assertEquals("replica state " + file + " is invalid: 'incarnation' is missing",
        assertThrows(CorruptLogException.class, () -> new ReplicaMetadata(dir).read()).getMessage());

    Files.writeString(file, "format=2\nincarnation=" + INCARNATION + "\npromised-epoch=2\nrecovering=false\n");
    assertEquals("replica state " + file + " is invalid: format is '2', expected 1",
        assertThrows(CorruptLogException.class, () -> new ReplicaMetadata(dir).read()).getMessage());

    Files.writeString(file, "format=1\nincarnation=" + INCARNATION + "\npromised-epoch=2\nrecovering=maybe\n");
    assertEquals("replica state " + file + " is invalid: recovering is 'maybe', expected true or false",
        assertThrows(CorruptLogException.class, () -> new ReplicaMetadata(dir).read()).getMessage());
  }

  @Test
  void aPromiseOnlyGrows() {
    ReplicaState s = new ReplicaState(INCARNATION, 5, true);
    assertEquals(5, s.promise(3).promisedEpoch());
    assertEquals(9, s.promise(9).promisedEpoch());
    assertFalse(s.recovered().recovering());
  }
}

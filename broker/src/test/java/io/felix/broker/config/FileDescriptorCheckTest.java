package io.felix.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.node.DataPlane;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileDescriptorCheckTest {

  @Test
  void aCapOnReplicasThatTheLimitCannotCoverIsFatalAndNamesTheNumbers() {
    FileDescriptorCheck.Finding tooLow = FileDescriptorCheck.judge(20_000, 20_000, 1000);
    assertTrue(tooLow.fatal());
    assertEquals("the open-file limit (ulimit -n) is 20000, below the 21512 this broker may need: 1 per replica in use"
        + " for felix.broker.max-shards = 20000, one per client connection for felix.client-listener.max-connections"
        + " = 1000, and 512 in reserve; raise the limit or lower those settings", tooLow.message());
    assertFalse(FileDescriptorCheck.judge(20_000, 10_000, 1000).fatal()); // a 10,000-shard stream at RF 3 fits
    FileDescriptorCheck.Finding uncapped = FileDescriptorCheck.judge(20_000, 0, 1000);
    assertFalse(uncapped.fatal());
    assertTrue(uncapped.message().startsWith("open-file limit 20000 allows about 18488 replicas"), uncapped.message());
  }

  @Test
  void aBrokerWhoseCapNeedsMoreDescriptorsThanTheProcessMayOpenDoesNotStart(@TempDir Path dir) {
    long limit = FileDescriptorCheck.processLimit().orElseThrow();
    int cap = (int) Math.min(Integer.MAX_VALUE, limit); // one per replica beside the reserve: never covered
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> DataPlane.startInOwnSystem(
        DataPlane.localConfig(0, dir, "felix.broker.max-shards = " + cap)));
    assertTrue(e.getMessage().contains("broker 0 cannot start: the open-file limit (ulimit -n) is " + limit),
        e.getMessage());
  }
}

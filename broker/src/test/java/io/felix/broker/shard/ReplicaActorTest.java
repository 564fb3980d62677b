package io.felix.broker.shard;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test of one replica actor in its {@link ReplicaFixture}: each test class starts its own test kit (see
 * {@link ReplicaFixture#testKit}) and opens the fixture in its {@code @BeforeEach}; the fixture closes here.
 */
abstract class ReplicaActorTest {
  @TempDir
  Path tmp;
  ReplicaFixture replica;

  @AfterEach
  void closeReplica() throws Exception {
    if (replica != null) {
      replica.close();
    }
  }
}

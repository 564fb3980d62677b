package io.felix.broker.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ReplicaCapacityTest {
  static final long MIB = 1024 * 1024;

  @Test
  void threeLocalBrokersWithTheirDefaultsHostATenThousandShardStreamAtRf3() {
    ReplicaCapacity c = ReplicaCapacity.derive(OptionalLong.of(20_000), 1000, 512 * MIB, 0);
    assertEquals(18_488, c.byDescriptors()); // (20,000 - 1,000 - 512) / 1
    assertEquals(30_037, c.byHeap()); // (512 - 160) MiB / 12 KiB
    assertEquals(18_488, c.replicas());
    assertFalse(c.overridden());
    assertTrue(c.replicas() >= 10_000);
  }

  @Test
  void theSmallerOfTheTwoLimitsWins() {
    ReplicaCapacity smallHeap = ReplicaCapacity.derive(OptionalLong.of(1_048_576), 1000, 256 * MIB, 0);
    assertEquals(8_192, smallHeap.byHeap()); // (256 - 160) MiB / 12 KiB
    assertEquals(8_192, smallHeap.replicas());
    ReplicaCapacity fewFiles = ReplicaCapacity.derive(OptionalLong.of(4_096), 1000, 4096 * MIB, 0);
    assertEquals(2_584, fewFiles.replicas()); // 4,096 - 1,000 - 512
  }

  @Test
  void limitsBelowTheReservesAllowNothingAndAnUnknownFileLimitDoesNotCount() {
    assertEquals(0, ReplicaCapacity.derive(OptionalLong.of(1_024), 1000, 4096 * MIB, 0).replicas());
    assertEquals(0, ReplicaCapacity.derive(OptionalLong.of(1_048_576), 10, 128 * MIB, 0).replicas());
    ReplicaCapacity unknown = ReplicaCapacity.derive(OptionalLong.empty(), 1000, 512 * MIB, 0);
    assertEquals(Long.MAX_VALUE, unknown.byDescriptors());
    assertEquals(30_037, unknown.replicas());
  }

  @Test
  void theOverrideReplacesTheDerivedFigureAndSaysSo() {
    ReplicaCapacity c = ReplicaCapacity.derive(OptionalLong.of(20_000), 1000, 512 * MIB, 40_000);
    assertEquals(40_000, c.replicas());
    assertTrue(c.overridden());
    assertEquals("40000 replicas (felix.control.max-replicas-per-broker; derived: open files allow 18488 (1 per"
        + " replica in use, beside the client connections and 512 in reserve), the heap 30037 (12 KiB per idle"
        + " replica beside 160 MiB in reserve))", c.explain());
    assertThrows(ConfigException.BadValue.class,
        () -> ReplicaCapacity.derive(OptionalLong.of(20_000), 1000, 512 * MIB, -1));
  }

  @Test
  void readFromConfigWithTheDerivedDefault() {
    ReplicaCapacity fromReference = ReplicaCapacity.of(ConfigFactory.load());
    assertFalse(fromReference.overridden());
    ReplicaCapacity set = ReplicaCapacity.of(ConfigFactory.parseString(
        "felix.control.max-replicas-per-broker = 5000").withFallback(ConfigFactory.load()));
    assertEquals(5000, set.replicas());
    assertThrows(ConfigException.BadValue.class, () -> ReplicaCapacity.of(ConfigFactory.parseString(
        "felix.control.max-replicas-per-broker = lots").withFallback(ConfigFactory.load())));
  }
}

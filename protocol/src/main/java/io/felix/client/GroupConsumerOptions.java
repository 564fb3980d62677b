package io.felix.client;

import java.time.Duration;

/**
 * How a {@link GroupConsumer} behaves.
 *
 * @param sessionTimeout the coordinator removes the member when it hears no heartbeat for this long
 * @param heartbeatInterval how often the background thread sends one (a third of the session timeout is usual)
 * @param autoCommit commit the positions of the records already returned, at most every autoCommitInterval, from
 *     poll (so only records the application has had) and on close
 * @param reset where a shard without a committed offset starts: EARLIEST or LATEST
 * @param maxBytesPerShard the most bytes one fetch of a shard asks for
 * @param maxWait the longest a fetch waits on the broker for new records
 */
public record GroupConsumerOptions(Duration sessionTimeout, Duration heartbeatInterval, boolean autoCommit,
    Duration autoCommitInterval, OffsetReset reset, int maxBytesPerShard, Duration maxWait) {

  public static final GroupConsumerOptions DEFAULTS = new GroupConsumerOptions(Duration.ofSeconds(10),
      Duration.ofSeconds(3), false, Duration.ofSeconds(5), OffsetReset.EARLIEST, 1 << 20, Duration.ofMillis(500));

  public GroupConsumerOptions {
    if (reset == OffsetReset.NONE) {
      throw new IllegalArgumentException("reset must be EARLIEST or LATEST for a group consumer");
    }
    if (heartbeatInterval.compareTo(sessionTimeout) >= 0) {
      throw new IllegalArgumentException("heartbeatInterval must be shorter than sessionTimeout");
    }
  }

  public GroupConsumerOptions withSession(Duration session, Duration heartbeat) {
    return new GroupConsumerOptions(session, heartbeat, autoCommit, autoCommitInterval, reset, maxBytesPerShard,
        maxWait);
  }

  public GroupConsumerOptions withAutoCommit(Duration interval) {
    return new GroupConsumerOptions(sessionTimeout, heartbeatInterval, true, interval, reset, maxBytesPerShard,
        maxWait);
  }

  public GroupConsumerOptions withMaxWait(Duration wait) {
    return new GroupConsumerOptions(sessionTimeout, heartbeatInterval, autoCommit, autoCommitInterval, reset,
        maxBytesPerShard, wait);
  }
}

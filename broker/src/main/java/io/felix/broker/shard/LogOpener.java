package io.felix.broker.shard;

import io.felix.broker.log.FlushScheduler;
import io.felix.broker.log.LogSettings;
import io.felix.broker.log.ShardLog;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;

/** How a replica opens its log: when it starts, and again every reopen interval while the log is failed. */
record LogOpener(Path dir, LogSettings settings, FlushScheduler flusher) {

  ShardLog open() throws IOException {
    return ShardLog.open(dir, settings, flusher);
  }

  Duration reopenInterval() {
    return settings.reopenInterval();
  }
}

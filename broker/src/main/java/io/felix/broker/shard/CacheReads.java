package io.felix.broker.shard;

import com.google.protobuf.ByteString;
import io.felix.broker.cache.CacheCompaction;
import io.felix.broker.cache.CacheIndex;
import io.felix.broker.cache.CacheIndexCheckpoint;
import io.felix.broker.cache.CacheSettings;
import io.felix.client.CacheEntries;
import io.felix.protocol.client.CacheValue;
import io.felix.protocol.client.MultiGetResponse;
import io.felix.protocol.client.Record;
import io.felix.protocol.client.Response;
import java.io.IOException;

/**
 * A cache shard replica's reads: its {@link CacheIndex}, rebuilt from the index checkpoint plus the log after it
 * when the replica first needs it, kept up to the commit offset it knows (only committed entries are read),
 * checkpointed every felix.cache.checkpoint-interval when it changed, and the compaction it drives. Every replica
 * keeps one (leader, follower, learner), as every Kafka replica runs its log cleaner. Owned by the replica's actor.
 */
final class CacheReads {
  private final ReplicaContext ctx;
  private final CacheSettings settings;
  private final long defaultTtlMs;
  private final CacheIndex index;
  private long nextCheckpointMillis;
  private long nextCompactionMillis;
  private final CacheCompaction compaction;

  private CacheReads(ReplicaContext ctx, CacheSettings settings, long defaultTtlMs, CacheIndex index) {
    this.ctx = ctx;
    this.settings = settings;
    this.defaultTtlMs = defaultTtlMs;
    this.index = index;
    this.nextCheckpointMillis = ctx.clock.currentTimeMillis() + settings.checkpointInterval().toMillis();
    this.nextCompactionMillis = ctx.clock.currentTimeMillis() + settings.compactionInterval().toMillis();
    this.compaction = new CacheCompaction(ctx.log, index, defaultTtlMs, settings.tombstoneRetention().toMillis());
  }

  /** The reads of a replica of a cache shard (null for a stream's shard, which has none). */
  static CacheReads open(ReplicaContext ctx) {
    var config = ctx.registry.table().streamConfig(ctx.id.stream());
    if (!config.forCache()) {
      return null;
    }
    long started = ctx.clock.nanoTime();
    CacheIndex index;
    try {
      index = CacheIndexCheckpoint.rebuild(ctx.log.directory(), ctx.log, ctx.commitOffset);
    } catch (IOException e) {
      ctx.actor.getLog().warn("replica {}: cache index checkpoint unreadable ({}); replaying the whole log", ctx.id,
          e.toString());
      index = CacheIndex.empty(ctx.log);
      index.catchUp(ctx.log, ctx.commitOffset);
    }
    ctx.actor.getLog().info("replica {}: cache index of {} keys up to offset {} rebuilt in {} ms", ctx.id,
        index.size(), index.indexedTo(), (ctx.clock.nanoTime() - started) / 1_000_000);
    return new CacheReads(ctx, ctx.registry.cache(), config.cache().defaultTtlMs(), index);
  }

  /**
   * Answers a read from the entries committed up to {@code commitOffset}: its keys in order while the values read
   * stay below the read's byte bound (at least the first key), the keys after it not_read.
   */
  void read(ShardReplica.CacheRead read, long commitOffset) {
    index.catchUp(ctx.log, commitOffset);
    long now = ctx.clock.currentTimeMillis();
    MultiGetResponse.Builder answer = MultiGetResponse.newBuilder();
    long valueBytes = 0;
    for (ByteString key : read.keys()) {
      if (read.maxBytes() > 0 && valueBytes >= read.maxBytes()) {
        answer.addEntries(CacheValue.newBuilder().setKey(key).setShard(ctx.id.shard()).setOffset(-1).setNotRead(true));
        continue;
      }
      CacheValue value = valueOf(key, now);
      valueBytes += value.getValue().size();
      answer.addEntries(value);
    }
    read.reply().complete(Response.newBuilder().setMultiGet(answer).build());
  }

  private CacheValue valueOf(ByteString key, long nowMillis) {
    CacheValue.Builder v = CacheValue.newBuilder().setKey(key).setShard(ctx.id.shard()).setOffset(-1);
    index.lookup(ctx.log, key).ifPresent(found -> {
      Record record = found.record();
      long expiresAt = CacheEntries.expiresAtMs(record, defaultTtlMs);
      if (expiresAt == 0 || expiresAt > nowMillis) {
        v.setFound(true).setValue(record.getValue()).setOffset(found.offset()).setExpiresAtMs(expiresAt);
      }
    });
    return v.build();
  }

  /**
   * Indexes what was committed since, compacts when due, and writes the checkpoint when it is due and the index
   * changed.
   */
  void onTick(long commitOffset) {
    index.catchUp(ctx.log, commitOffset);
    ctx.metrics.cacheKeys(ctx.id, index.size());
    long now = ctx.clock.currentTimeMillis();
    if (now >= nextCompactionMillis) {
      nextCompactionMillis = now + settings.compactionInterval().toMillis();
      CacheCompaction.Pass pass;
      try {
        pass = compaction.run(now, step -> { });
      } catch (java.io.UncheckedIOException e) {
        ShardReplica.reportFailure(ctx, e); // the log is failed: the replica turns FAILED
        return;
      }
      if (pass.segmentsRewritten() > 0) {
        ctx.actor.getLog().info("replica {}: compaction rewrote {} segment(s), dropped {} entries, {} -> {} bytes",
            ctx.id, pass.segmentsRewritten(), pass.entriesDropped(), pass.bytesBefore(), pass.bytesAfter());
      }
    }
    if (now < nextCheckpointMillis || !index.changedSinceCheckpoint()) {
      return;
    }
    nextCheckpointMillis = now + settings.checkpointInterval().toMillis();
    try {
      CacheIndexCheckpoint.write(ctx.log.directory(), index);
    } catch (IOException e) {
      // Not fatal: the next leader replays more of the log.
      ctx.actor.getLog().warn("replica {}: cannot write the cache index checkpoint: {}", ctx.id, e.toString());
    }
  }
}

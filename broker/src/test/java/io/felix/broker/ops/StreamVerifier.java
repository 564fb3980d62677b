package io.felix.broker.ops;

import io.felix.client.ClientMode;
import io.felix.client.ClientSettings;
import io.felix.client.FelixClient;
import io.felix.client.FetchResult;
import io.felix.client.FetchedRecord;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

/**
 * Reads every shard of a stream from offset 0 to its commit offset and checks it against what the producers
 * were told: each acknowledged record present exactly once at the offset it was acknowledged with, no record
 * of any producer twice, sequence numbers rising with offsets per producer and shard, every checksum right.
 */
final class StreamVerifier {

  /** What the read found; {@code problems} is empty when the stream is intact. */
  record Report(long recordsRead, long ackedChecked, List<String> problems) {}

  private StreamVerifier() {}

  /**
   * @param timeout for the whole read: a shard whose reads stop advancing (or never reach its commit offset) fails
   *     the verification with where it stood, instead of fetching for ever
   */
  static Report verify(String bootstrap, String stream, int shards, Map<Long, ProducerFleet.Acked> acked,
      Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    List<String> problems = new ArrayList<>();
    Map<Long, List<ProducerFleet.Acked>> seen = new HashMap<>();
    long read = 0;
    try (FelixClient client = new FelixClient(ClientSettings.builder(bootstrap).mode(ClientMode.CLUSTER).build())) {
      for (int shard = 0; shard < shards; shard++) {
        Map<Integer, Long> lastSeqOfProducer = new HashMap<>();
        long offset = 0;
        long commit = Long.MAX_VALUE;
        while (offset < commit) {
          if (System.nanoTime() - deadline > 0) {
            throw new AssertionError("reading " + stream + "/" + shard + " back did not reach its commit offset "
                + commit + " within " + timeout + ": stuck at offset " + offset + " after " + read
                + " records read in all");
          }
          FetchResult r = client.fetch(stream, shard, offset, 1 << 20, 0).get(30, TimeUnit.SECONDS);
          commit = r.commitOffset();
          for (FetchedRecord rec : r.records()) {
            read++;
            ByteBuffer b = ByteBuffer.wrap(rec.value());
            int producer = b.getInt();
            long seq = b.getLong();
            int crc = b.getInt();
            byte[] payload = new byte[b.remaining()];
            b.get(payload);
            CRC32C c = new CRC32C();
            c.update(payload);
            if ((int) c.getValue() != crc) {
              problems.add("corrupt record " + stream + "/" + shard + "@" + rec.offset());
            }
            seen.computeIfAbsent(ProducerFleet.key(producer, seq), k -> new ArrayList<>())
                .add(new ProducerFleet.Acked(shard, rec.offset()));
            Long last = lastSeqOfProducer.put(producer, seq);
            if (last != null && seq <= last) {
              problems.add("out of order: producer " + producer + " seq " + seq + " after " + last + " at "
                  + stream + "/" + shard + "@" + rec.offset());
            }
          }
          if (r.records().isEmpty() && r.nextOffset() >= commit) {
            break;
          }
          offset = r.nextOffset();
        }
      }
    }
    seen.forEach((key, where) -> {
      if (where.size() > 1) {
        problems.add("duplicated: producer " + (key >> 40) + " seq " + (key & ((1L << 40) - 1)) + " at " + where);
      }
    });
    acked.forEach((key, at) -> {
      List<ProducerFleet.Acked> where = seen.get(key);
      if (where == null) {
        problems.add("acknowledged record lost: producer " + (key >> 40) + " seq " + (key & ((1L << 40) - 1))
            + " acked at " + at);
      } else if (!where.get(0).equals(at)) {
        problems.add("acknowledged record moved: producer " + (key >> 40) + " seq " + (key & ((1L << 40) - 1))
            + " acked at " + at + ", found at " + where);
      }
    });
    return new Report(read, acked.size(), problems.size() > 50 ? problems.subList(0, 50) : problems);
  }
}

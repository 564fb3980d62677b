package io.felix.broker.group;

import io.felix.broker.metrics.ConsumerGroupLag;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * How far a consumer group's committed offset on one shard is behind the shard's commit offset (its high
 * watermark): the records committed to the shard that the group has not committed reading. A shard the group never
 * committed counts from offset 0.
 *
 * @param committed the group's committed offset, -1 for none
 * @param lag the records between it and the shard's commit offset
 */
public record GroupLag(String group, String stream, int shard, long committed, long lag)
    implements ConsumerGroupLag {

  /** The records of a shard with commit offset {@code highWatermark} that a group at {@code committed} lacks. */
  public static long records(long committed, long highWatermark) {
    return Math.max(0, highWatermark - Math.max(0, committed));
  }

  /** The lag of every shard of the group's stream whose commit offset is known. */
  public static List<GroupLag> of(GroupView group, Map<Integer, Long> highWatermarks) {
    List<GroupLag> lags = new ArrayList<>();
    group.committed().forEach((shard, committed) -> {
      Long hw = highWatermarks.get(shard);
      if (hw != null && hw >= 0) {
        lags.add(new GroupLag(group.group(), group.stream(), shard, committed, records(committed, hw)));
      }
    });
    return lags;
  }
}

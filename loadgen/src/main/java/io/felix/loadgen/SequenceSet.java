package io.felix.loadgen;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/** Sequence numbers as inclusive ranges [[from, to], ...]: how acknowledged sequences are written to JSON. */
final class SequenceSet {
  private SequenceSet() {}

  static List<long[]> toRanges(BitSet set) {
    List<long[]> out = new ArrayList<>();
    int from = set.nextSetBit(0);
    while (from >= 0) {
      int to = set.nextClearBit(from) - 1;
      out.add(new long[] {from, to});
      from = set.nextSetBit(to + 1);
    }
    return out;
  }

  static BitSet fromRanges(List<long[]> ranges) {
    BitSet set = new BitSet();
    for (long[] r : ranges) {
      if (r.length != 2 || r[0] < 0 || r[1] < r[0] || r[1] >= Integer.MAX_VALUE) {
        throw new IllegalArgumentException("a sequence range must be [from, to] with 0 <= from <= to");
      }
      set.set((int) r[0], (int) r[1] + 1);
    }
    return set;
  }

  static List<Long> toList(BitSet set) {
    List<Long> out = new ArrayList<>();
    set.stream().forEach(i -> out.add((long) i));
    return out;
  }

  static BitSet fromList(List<Long> values) {
    BitSet set = new BitSet();
    for (long v : values) {
      set.set((int) v);
    }
    return set;
  }
}

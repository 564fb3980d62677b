package io.felix.loadgen;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Checks what {@code consume} read against what producers wrote, per producer (run id, producer number):
 *
 * <ul>
 *   <li>corrupt: the value has the load generator's magic but fails its checksum (a value without the magic is
 *       counted as foreign, not an error: other writers may share the stream; a load generator record whose
 *       magic was damaged still shows, as missing);
 *   <li>duplicated: a sequence read more than once;
 *   <li>out of order: within one shard, a producer's sequence lower than one read before it (records of a
 *       producer spread over shards, so order is only defined per shard);
 *   <li>missing: with the producer's ledger ({@code --expect}), an acknowledged sequence never read; without
 *       it, a sequence below the highest one read that was never read (so records whose produce failed count as
 *       missing too: use {@code --expect} when failures are expected);
 *   <li>unexpected: with the ledger, a sequence read that the producer never sent or was told was certainly not
 *       stored.
 * </ul>
 *
 * Uncertain sequences (failed with an unknown outcome) may be present or absent; each is reported, neither is
 * an error. Records of runs not in the ledger are counted and otherwise ignored when a ledger is given.
 */
public final class Verifier {
  record ProducerKey(long runId, int producer) {}

  /** One producer's verdict. */
  public record ProducerReport(long runId, int producer, long read, long duplicated, long outOfOrder, long missing,
      List<Long> missingSample, long unexpected, long uncertainPresent, long uncertainAbsent) {
    public boolean ok() {
      return duplicated == 0 && outOfOrder == 0 && missing == 0 && unexpected == 0;
    }
  }

  /** The verdict over everything read. */
  public record Report(long records, long corrupt, List<String> corruptSample, long foreign, long otherRuns,
      List<ProducerReport> producers) {
    public boolean ok() {
      return corrupt == 0 && producers.stream().allMatch(ProducerReport::ok);
    }
  }

  private static final int SAMPLE = 10;

  private static final class Tally {
    final BitSet seen = new BitSet();
    final Map<Integer, Long> lastPerShard = new HashMap<>();
    long read;
    long duplicated;
    long outOfOrder;
  }

  private final Map<ProducerKey, Tally> tallies = new TreeMap<>(
      (a, b) -> a.runId() != b.runId() ? Long.compare(a.runId(), b.runId()) : Integer.compare(a.producer(), b.producer()));
  private final List<String> corruptSample = new ArrayList<>();
  private long records;
  private long corrupt;
  private long foreign;

  void accept(int shard, long offset, byte[] value) {
    records++;
    RecordFormat.Decoded d = RecordFormat.decode(value);
    if (d.foreign()) {
      foreign++;
      return;
    }
    if (d.corrupt()) {
      corrupt++;
      if (corruptSample.size() < SAMPLE) {
        corruptSample.add("shard " + shard + " offset " + offset + ": " + d.problem());
      }
      return;
    }
    Tally t = tallies.computeIfAbsent(new ProducerKey(d.runId(), d.producer()), k -> new Tally());
    t.read++;
    int seq = (int) d.sequence();
    if (t.seen.get(seq)) {
      // counted once, as a duplicate, not also as out of order
      t.duplicated++;
      return;
    }
    t.seen.set(seq);
    Long last = t.lastPerShard.get(shard);
    if (last != null && d.sequence() < last) {
      t.outOfOrder++;
    } else {
      t.lastPerShard.put(shard, d.sequence());
    }
  }

  /** @param expected the producers' ledger, or null to judge missing by gaps */
  Report report(Summary expected) {
    List<ProducerReport> out = new ArrayList<>();
    long otherRuns = 0;
    if (expected == null) {
      for (Map.Entry<ProducerKey, Tally> e : tallies.entrySet()) {
        Tally t = e.getValue();
        BitSet gaps = new BitSet();
        gaps.set(0, t.seen.length());
        gaps.andNot(t.seen);
        out.add(verdict(e.getKey(), t, gaps, 0, 0, 0));
      }
    } else {
      for (Map.Entry<ProducerKey, Tally> e : tallies.entrySet()) {
        if (e.getKey().runId() != expected.runId()) {
          otherRuns += e.getValue().read;
        }
      }
      for (Summary.ProducerResult p : expected.producers()) {
        ProducerKey key = new ProducerKey(expected.runId(), p.producer());
        Tally t = tallies.getOrDefault(key, new Tally());
        BitSet acked = SequenceSet.fromRanges(p.acked());
        BitSet uncertain = SequenceSet.fromList(p.uncertain());
        BitSet missing = (BitSet) acked.clone();
        missing.andNot(t.seen);
        BitSet unexpected = (BitSet) t.seen.clone();
        unexpected.andNot(acked);
        unexpected.andNot(uncertain);
        BitSet uncertainPresent = (BitSet) uncertain.clone();
        uncertainPresent.and(t.seen);
        out.add(verdict(key, t, missing, unexpected.cardinality(), uncertainPresent.cardinality(),
            uncertain.cardinality() - uncertainPresent.cardinality()));
      }
      for (Map.Entry<ProducerKey, Tally> e : tallies.entrySet()) {
        boolean listed = expected.producers().stream().anyMatch(p -> p.producer() == e.getKey().producer());
        if (e.getKey().runId() == expected.runId() && !listed) {
          // a producer of this run that the ledger does not know: everything it wrote is unexpected
          out.add(verdict(e.getKey(), e.getValue(), new BitSet(), e.getValue().seen.cardinality(), 0, 0));
        }
      }
    }
    return new Report(records, corrupt, List.copyOf(corruptSample), foreign, otherRuns, out);
  }

  private static ProducerReport verdict(ProducerKey key, Tally t, BitSet missing, long unexpected,
      long uncertainPresent, long uncertainAbsent) {
    List<Long> sample = new ArrayList<>();
    for (int i = missing.nextSetBit(0); i >= 0 && sample.size() < SAMPLE; i = missing.nextSetBit(i + 1)) {
      sample.add((long) i);
    }
    return new ProducerReport(key.runId(), key.producer(), t.read, t.duplicated, t.outOfOrder,
        missing.cardinality(), sample, unexpected, uncertainPresent, uncertainAbsent);
  }
}

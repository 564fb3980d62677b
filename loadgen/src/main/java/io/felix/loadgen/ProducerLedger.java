package io.felix.loadgen;

import io.felix.client.FelixException;
import java.util.BitSet;

/**
 * What one producer knows about its own records: which sequences were acknowledged, which failed certainly
 * unstored (not appended: absent from the stream), and which failed with an unknown outcome (may or may not be
 * in the stream). Thread-safe: answers arrive on client I/O threads.
 */
final class ProducerLedger {
  final int producer;
  private final BitSet acked = new BitSet();
  private final BitSet notAppended = new BitSet();
  private final BitSet uncertain = new BitSet();
  private long sent;

  ProducerLedger(int producer) {
    this.producer = producer;
  }

  synchronized void sent(long sequence) {
    sent = Math.max(sent, sequence + 1);
  }

  synchronized void acked(long sequence) {
    acked.set((int) sequence);
  }

  synchronized void failed(long sequence, FelixException cause) {
    if (cause.notAppended()) {
      notAppended.set((int) sequence);
    } else {
      uncertain.set((int) sequence);
    }
  }

  synchronized Summary.ProducerResult result() {
    return new Summary.ProducerResult(producer, sent, acked.cardinality(), SequenceSet.toRanges(acked),
        SequenceSet.toList(uncertain), SequenceSet.toList(notAppended));
  }
}

package io.felix.loadgen.chaos;

import io.felix.client.FelixCache;
import io.felix.loadgen.CacheLedger;
import java.util.List;
import java.util.Optional;

/**
 * What a round's cache check found: the puts acknowledged during the round, and the keys whose read-back broke the
 * ledger ({@link CacheLedger.Outcome}).
 *
 * @param acknowledged the round writer's puts acknowledged
 * @param keysLost keys whose acknowledged put was not visible (absent, or an older entry)
 * @param keysCorrupt keys showing a value nobody put for them
 * @param firstProblem the first such key, its read and its ledger; null when there was none
 */
public record CacheFigures(long acknowledged, long keysLost, long keysCorrupt, String firstProblem) {
  /** A round whose cache was not checked (its writer or read-back failed; the round's failure says why). */
  static final CacheFigures NONE = new CacheFigures(0, 0, 0, null);

  public boolean ok() {
    return keysLost == 0 && keysCorrupt == 0;
  }

  /**
   * Judges a read-back of every key, taken after every put was answered (so each key's floor is its final latest
   * acknowledged put).
   *
   * @param reads key i's entry at index i, for every key of the ledger
   */
  static CacheFigures check(CacheLedger ledger, long acknowledged, List<Optional<FelixCache.Entry>> reads) {
    long lost = 0;
    long corrupt = 0;
    String first = null;
    for (int key = 0; key < reads.size(); key++) {
      CacheLedger.Finding finding = ledger.check(key, ledger.floor(key), reads.get(key));
      switch (finding.outcome()) {
        case CURRENT -> {
          continue;
        }
        case LOST -> lost++;
        case CORRUPT -> corrupt++;
      }
      first = first == null ? finding.problem() : first;
    }
    return new CacheFigures(acknowledged, lost, corrupt, first);
  }
}

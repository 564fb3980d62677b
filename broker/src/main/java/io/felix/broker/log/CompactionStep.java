package io.felix.broker.log;

/**
 * The steps of rewriting a sealed segment ({@link ShardLog#rewriteSealedSegment}), in order. After each one the
 * files on disk are a correct log: before the swap the old segment stands (a leftover {@code .cleaned} file is not a
 * segment and is removed by the next rewrite), after it the new one (its index, missing, is rebuilt on open).
 */
public enum CompactionStep {
  /** The rewritten segment is written beside the old one as {@code <base>.log.cleaned} and fsynced. */
  CLEANED_WRITTEN,
  /** The old segment's offset index file is deleted (its positions do not fit the rewritten segment). */
  INDEX_DELETED,
  /** The rewritten segment was renamed over the old one and the directory fsynced. */
  SWAPPED,
  /** The rewritten segment's offset index file is written. */
  INDEX_WRITTEN
}

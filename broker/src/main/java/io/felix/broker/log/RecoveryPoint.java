package io.felix.broker.log;

/**
 * The content of a log's {@value ShardLog#RECOVERY_POINT} file: the offset below which every batch is fsynced and
 * intact, and where that offset lies on disk (byte {@code position} of the segment starting at
 * {@code segmentBase}), so that an open trusts the active segment's bytes before it without reading them and
 * verifies only what a crash can have torn. Written as {@code "<offset> <segmentBase> <position>"}; a file holding
 * only {@code "<offset>"} (written before the position was kept) has the position unknown, and its segment is
 * verified from its start.
 *
 * @param segmentBase the base offset of the segment holding the offset, or -1 if unknown
 * @param position the byte of that segment where the offset's batch starts (its size if the offset is its end), or
 *     -1 if unknown
 */
record RecoveryPoint(long offset, long segmentBase, int position) {
  /** A log without a recovery point: nothing is known to be durable. */
  static final RecoveryPoint NONE = new RecoveryPoint(0, -1, -1);

  /**
   * Parses the file's content.
   *
   * @throws NumberFormatException if it is not one offset or three numbers
   */
  static RecoveryPoint parse(String text) {
    String[] parts = text.trim().split(" ");
    if (parts.length == 1) {
      return new RecoveryPoint(Long.parseLong(parts[0]), -1, -1);
    }
    if (parts.length != 3) {
      throw new NumberFormatException("expected an offset, or an offset, a segment base and a position");
    }
    RecoveryPoint point = new RecoveryPoint(Long.parseLong(parts[0]), Long.parseLong(parts[1]),
        Integer.parseInt(parts[2]));
    if (point.offset < 0 || point.segmentBase > point.offset || point.position < -1) {
      throw new NumberFormatException("offset " + point.offset + ", segment " + point.segmentBase + " and position "
          + point.position + " do not fit together");
    }
    return point;
  }

  String format() {
    return position < 0 ? Long.toString(offset) : offset + " " + segmentBase + " " + position;
  }

  /** Whether this names a byte position in the segment starting at {@code base}. */
  boolean locatedIn(long base) {
    return position >= 0 && segmentBase == base;
  }
}

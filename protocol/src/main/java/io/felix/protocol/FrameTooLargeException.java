package io.felix.protocol;

/** A frame announced (or a message would need) more bytes than the configured maximum. */
public final class FrameTooLargeException extends FrameException {
  private final long size;
  private final int maxFrameBytes;

  public FrameTooLargeException(long size, int maxFrameBytes) {
    super("frame of " + size + " bytes exceeds the maximum frame size of " + maxFrameBytes + " bytes", null);
    this.size = size;
    this.maxFrameBytes = maxFrameBytes;
  }

  /** The size the frame announced (or the encoded size of the message that was refused). */
  public long size() {
    return size;
  }

  public int maxFrameBytes() {
    return maxFrameBytes;
  }
}

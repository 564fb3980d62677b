package io.felix.broker.client;

import java.util.ArrayList;
import java.util.List;
import org.apache.pekko.japi.function.Creator;
import org.apache.pekko.japi.function.Function;
import org.apache.pekko.util.ByteString;
import org.apache.pekko.util.ByteStringBuilder;

/**
 * Cuts a client connection's bytes into frames (4-byte big-endian length, then the body). A length over the
 * maximum yields one {@link Oversize} as soon as the header is seen, before any of the body is buffered, and the
 * decoder then ignores the rest of the connection (the listener answers FRAME_TOO_LARGE and closes it).
 * Kafka's protocol frames its requests the same way, so the Kafka listener cuts its connections with it too.
 * One instance per connection (made by {@link #perConnection}); not thread-safe, as a stream stage needs.
 */
public final class ClientFrameDecoder implements Function<ByteString, Iterable<ClientFrameDecoder.Frame>> {

  public sealed interface Frame {}

  public record Body(ByteString bytes) implements Frame {}

  public record Oversize(long length) implements Frame {}

  private final int maxFrameBytes;
  private ByteString buffer = ByteString.emptyByteString();
  private boolean broken;

  private ClientFrameDecoder(int maxFrameBytes) {
    this.maxFrameBytes = maxFrameBytes;
  }

  public static Creator<Function<ByteString, Iterable<Frame>>> perConnection(int maxFrameBytes) {
    return () -> new ClientFrameDecoder(maxFrameBytes);
  }

  @Override
  public Iterable<Frame> apply(ByteString chunk) {
    if (broken) {
      return List.of();
    }
    buffer = buffer.isEmpty() ? chunk : buffer.concat(chunk);
    List<Frame> out = new ArrayList<>(2);
    while (buffer.size() >= 4) {
      long length = Integer.toUnsignedLong(
          (buffer.apply(0) & 0xff) << 24 | (buffer.apply(1) & 0xff) << 16 | (buffer.apply(2) & 0xff) << 8
              | (buffer.apply(3) & 0xff));
      if (length > maxFrameBytes) {
        broken = true;
        buffer = ByteString.emptyByteString();
        out.add(new Oversize(length));
        return out;
      }
      if (buffer.size() < 4 + length) {
        break;
      }
      out.add(new Body(buffer.slice(4, 4 + (int) length).compact()));
      buffer = buffer.drop(4 + (int) length);
    }
    if (buffer.isEmpty()) {
      buffer = ByteString.emptyByteString();
    }
    return out;
  }

  /** Bytes held for a frame not yet complete: at most a header and max-frame-size of body (for tests). */
  int buffered() {
    return buffer.size();
  }

  static ClientFrameDecoder forTest(int maxFrameBytes) {
    return new ClientFrameDecoder(maxFrameBytes);
  }

  /** Encodes one message body as a frame. */
  public static ByteString frame(byte[] body) {
    ByteStringBuilder b = new ByteStringBuilder();
    b.putInt(body.length, java.nio.ByteOrder.BIG_ENDIAN);
    b.putBytes(body);
    return b.result();
  }
}

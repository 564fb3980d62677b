package io.felix.protocol;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;

/**
 * The framing shared by clients and brokers: a 4-byte big-endian length, then that many bytes holding one
 * protobuf message (a {@link Request} from client to broker, a {@link Response} back).
 *
 * <p>Limits: a frame body larger than {@code maxFrameBytes} (default 8 MiB) is refused with
 * {@link FrameTooLargeException} as soon as its length is known, before any of the body is read, so a hostile
 * length cannot make us allocate. Bodies are parsed with an explicit size limit (the frame length) and a
 * recursion limit ({@link #RECURSION_LIMIT}); a body that does not parse raises {@link MalformedFrameException}.
 * A zero-length frame is a valid (empty) message; whether an empty request makes sense is the receiver's call.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class FrameCodec {
  public static final int HEADER_BYTES = 4;
  public static final int DEFAULT_MAX_FRAME_BYTES = 8 * 1024 * 1024;
  /** Our messages nest at most five deep (Response, FetchResponse, RecordBatch...); 16 leaves room. */
  public static final int RECURSION_LIMIT = 16;

  private final int maxFrameBytes;

  public FrameCodec(int maxFrameBytes) {
    if (maxFrameBytes < 1) {
      throw new IllegalArgumentException("maxFrameBytes must be positive, got " + maxFrameBytes);
    }
    this.maxFrameBytes = maxFrameBytes;
  }

  public static FrameCodec withDefaults() {
    return new FrameCodec(DEFAULT_MAX_FRAME_BYTES);
  }

  public int maxFrameBytes() {
    return maxFrameBytes;
  }

  /** The complete frame (header and body) for one message. */
  public byte[] encode(MessageLite message) throws FrameTooLargeException {
    int size = message.getSerializedSize();
    checkLength(size);
    byte[] frame = new byte[HEADER_BYTES + size];
    ByteBuffer.wrap(frame).putInt(size);
    CodedOutputStream out = CodedOutputStream.newInstance(frame, HEADER_BYTES, size);
    try {
      message.writeTo(out);
      out.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new IllegalStateException("protobuf wrote a different size than it computed", e);
    }
    return frame;
  }

  /** Writes one frame; the caller flushes and serialises concurrent writers. */
  public void write(MessageLite message, OutputStream out) throws IOException {
    out.write(encode(message));
  }

  /**
   * Reads the 4-byte length at the buffer's position (without consuming it) and checks it against the limit.
   *
   * @return the body length, or -1 when fewer than 4 bytes are available
   */
  public int peekLength(ByteBuffer buffer) throws FrameTooLargeException {
    if (buffer.remaining() < HEADER_BYTES) {
      return -1;
    }
    long length = Integer.toUnsignedLong(buffer.getInt(buffer.position()));
    checkLength(length);
    return (int) length;
  }

  /** Refuses a body length over the maximum; lengths are unsigned 32-bit on the wire. */
  public void checkLength(long length) throws FrameTooLargeException {
    if (length > maxFrameBytes) {
      throw new FrameTooLargeException(length, maxFrameBytes);
    }
  }

  /**
   * Blocks until one whole frame body has been read.
   *
   * @return the body, or null when the stream ended cleanly before a new frame started
   * @throws EOFException when the stream ended in the middle of a frame
   * @throws FrameTooLargeException when the announced length is over the maximum (nothing of the body is read)
   */
  public byte[] readFrame(InputStream in) throws IOException {
    byte[] header = new byte[HEADER_BYTES];
    int got = readFully(in, header);
    if (got == 0) {
      return null;
    }
    if (got < HEADER_BYTES) {
      throw new EOFException("stream ended inside a frame header after " + got + " of 4 bytes");
    }
    int length = peekLength(ByteBuffer.wrap(header));
    byte[] body = new byte[length];
    got = readFully(in, body);
    if (got < length) {
      throw new EOFException("stream ended inside a frame body after " + got + " of " + length + " bytes");
    }
    return body;
  }

  public Request parseRequest(byte[] body) throws FrameException {
    return parse(Request.parser(), body, 0, body.length, "Request");
  }

  public Request parseRequest(ByteBuffer body) throws FrameException {
    return parse(Request.parser(), body, "Request");
  }

  public Response parseResponse(byte[] body) throws FrameException {
    return parse(Response.parser(), body, 0, body.length, "Response");
  }

  public Response parseResponse(ByteBuffer body) throws FrameException {
    return parse(Response.parser(), body, "Response");
  }

  /** Parses one message with the size and recursion limits; the whole range must be one message. */
  public <T> T parse(Parser<T> parser, byte[] bytes, int offset, int length, String what)
      throws FrameException {
    checkLength(length);
    return parse(parser, CodedInputStream.newInstance(bytes, offset, length), length, what);
  }

  public <T> T parse(Parser<T> parser, ByteBuffer body, String what) throws FrameException {
    checkLength(body.remaining());
    return parse(parser, CodedInputStream.newInstance(body), body.remaining(), what);
  }

  private <T> T parse(Parser<T> parser, CodedInputStream in, int length, String what)
      throws MalformedFrameException {
    in.setSizeLimit(Math.max(length, 1));
    in.setRecursionLimit(RECURSION_LIMIT);
    try {
      T message = parser.parseFrom(in);
      in.checkLastTagWas(0);
      return message;
    } catch (InvalidProtocolBufferException e) {
      throw new MalformedFrameException(
          "frame of " + length + " bytes is not a valid " + what + ": " + e.getMessage(), e);
    }
  }

  private static int readFully(InputStream in, byte[] into) throws IOException {
    int total = 0;
    while (total < into.length) {
      int n = in.read(into, total, into.length - total);
      if (n < 0) {
        break;
      }
      total += n;
    }
    return total;
  }
}

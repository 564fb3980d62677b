package io.felix.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.protocol.client.MetadataRequest;
import io.felix.protocol.client.ProduceResponse;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class FrameCodecTest {
  private final FrameCodec codec = FrameCodec.withDefaults();

  private static Request metadataRequest() {
    return Request.newBuilder()
        .setCorrelationId(1)
        .setMetadata(MetadataRequest.newBuilder().addStreams("s"))
        .build();
  }

  @Test
  void encodeWritesBigEndianLengthThenTheMessageBytes() throws Exception {
    byte[] frame = codec.encode(metadataRequest());
    // correlation_id=1 (08 01), metadata (12 03) { streams "s" (0A 01 73) }
    byte[] expected = {0, 0, 0, 7, 0x08, 0x01, 0x12, 0x03, 0x0A, 0x01, 0x73};
    assertArrayEquals(expected, frame);
  }

  @Test
  void lengthAbove255UsesAllHeaderBytesBigEndian() throws Exception {
    Request request =
        Request.newBuilder().setMetadata(MetadataRequest.newBuilder().addStreams("x".repeat(300))).build();
    byte[] frame = codec.encode(request);
    int size = request.getSerializedSize();
    assertEquals(306, size);
    assertArrayEquals(new byte[] {0, 0, 0x01, 0x32}, Arrays.copyOf(frame, 4));
  }

  @Test
  void writtenFramesReadBackInOrder() throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Response first =
        Response.newBuilder().setCorrelationId(7).setProduce(ProduceResponse.newBuilder().setBaseOffset(42)).build();
    Response second = Response.newBuilder().setCorrelationId(8).build();
    codec.write(first, out);
    codec.write(second, out);
    InputStream in = new ByteArrayInputStream(out.toByteArray());
    assertEquals(first, codec.parseResponse(codec.readFrame(in)));
    assertEquals(second, codec.parseResponse(codec.readFrame(in)));
    assertNull(codec.readFrame(in), "a clean end between frames reads as null");
  }

  @Test
  void frameArrivingOneByteAtATimeIsReassembled() throws Exception {
    byte[] frame = codec.encode(metadataRequest());
    InputStream trickle = new OneByteAtATime(new ByteArrayInputStream(frame));
    assertEquals(metadataRequest(), codec.parseRequest(codec.readFrame(trickle)));
  }

  @Test
  void streamEndingInsideTheHeaderIsAnEofNamingTheHeader() {
    EOFException e =
        assertThrows(EOFException.class, () -> codec.readFrame(new ByteArrayInputStream(new byte[] {0, 0})));
    assertEquals("stream ended inside a frame header after 2 of 4 bytes", e.getMessage());
  }

  @Test
  void streamEndingInsideTheBodyIsAnEofNamingTheBody() throws Exception {
    byte[] frame = codec.encode(metadataRequest());
    InputStream in = new ByteArrayInputStream(Arrays.copyOf(frame, frame.length - 2));
    EOFException e = assertThrows(EOFException.class, () -> codec.readFrame(in));
    assertEquals("stream ended inside a frame body after 5 of 7 bytes", e.getMessage());
  }

  @Test
  void oversizeLengthIsRefusedBeforeReadingTheBody() throws Exception {
    // 8 MiB + 1 announced, followed by a few body bytes that must stay unread.
    byte[] bytes = {0x00, (byte) 0x80, 0x00, 0x01, 1, 2, 3};
    ByteArrayInputStream in = new ByteArrayInputStream(bytes);
    FrameTooLargeException e = assertThrows(FrameTooLargeException.class, () -> codec.readFrame(in));
    assertEquals(8 * 1024 * 1024 + 1, e.size());
    assertEquals(8 * 1024 * 1024, e.maxFrameBytes());
    assertEquals(3, in.available(), "only the header was consumed");
    assertEquals("frame of 8388609 bytes exceeds the maximum frame size of 8388608 bytes", e.getMessage());
  }

  @Test
  void lengthWithTheTopBitSetIsUnsignedAndOversize() {
    byte[] bytes = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF};
    FrameTooLargeException e =
        assertThrows(FrameTooLargeException.class, () -> codec.readFrame(new ByteArrayInputStream(bytes)));
    assertEquals(4294967295L, e.size());
  }

  @Test
  void exactlyMaxSizedFrameIsAcceptedAndOneMoreIsRefused() throws Exception {
    FrameCodec small = new FrameCodec(11);
    Request request = metadataRequest().toBuilder().setMetadata(MetadataRequest.newBuilder().addStreams("abcde")).build();
    assertEquals(11, request.getSerializedSize());
    assertEquals(15, small.encode(request).length);
    Request bigger = request.toBuilder().setMetadata(MetadataRequest.newBuilder().addStreams("abcdef")).build();
    FrameTooLargeException e = assertThrows(FrameTooLargeException.class, () -> small.encode(bigger));
    assertEquals(12, e.size());
  }

  @Test
  void peekLengthNeedsFourBytesAndDoesNotConsume() throws Exception {
    assertEquals(-1, codec.peekLength(ByteBuffer.wrap(new byte[] {0, 0, 1})));
    ByteBuffer buffer = ByteBuffer.wrap(new byte[] {0, 0, 1, 0, 9});
    assertEquals(256, codec.peekLength(buffer));
    assertEquals(0, buffer.position());
  }

  @Test
  void garbageBodyIsMalformedNotACrash() {
    byte[] garbage = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF};
    MalformedFrameException e = assertThrows(MalformedFrameException.class, () -> codec.parseRequest(garbage));
    assertTrue(e.getMessage().startsWith("frame of 5 bytes is not a valid Request: "), e.getMessage());
  }

  @Test
  void truncatedFieldInsideTheBodyIsMalformed() {
    // metadata field announcing 10 bytes with only 2 present
    byte[] body = {0x12, 0x0A, 0x0A, 0x01};
    assertThrows(MalformedFrameException.class, () -> codec.parseRequest(body));
  }

  @Test
  void deeplyNestedGroupsHitTheRecursionLimit() {
    int depth = 100;
    byte[] body = new byte[depth * 2];
    Arrays.fill(body, 0, depth, (byte) 0x7B); // start group, field 15
    Arrays.fill(body, depth, depth * 2, (byte) 0x7C); // end group, field 15
    MalformedFrameException e = assertThrows(MalformedFrameException.class, () -> codec.parseRequest(body));
    assertTrue(e.getMessage().contains("recursion"), e.getMessage());
  }

  @Test
  void emptyFrameIsAnEmptyMessage() throws Exception {
    assertEquals(Request.getDefaultInstance(), codec.parseRequest(new byte[0]));
  }

  @Test
  void byteBufferParseHonoursTheSizeLimit() {
    FrameCodec tiny = new FrameCodec(4);
    assertThrows(FrameTooLargeException.class, () -> tiny.parseRequest(ByteBuffer.allocate(5)));
  }

  @Test
  void nonPositiveMaximumIsRefusedNamingTheValue() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new FrameCodec(0));
    assertEquals("maxFrameBytes must be positive, got 0", e.getMessage());
  }

  private static final class OneByteAtATime extends FilterInputStream {
    OneByteAtATime(InputStream in) {
      super(in);
    }

    @Override
    public int read(byte[] b, int off, int len) throws IOException {
      return super.read(b, off, Math.min(len, 1));
    }
  }
}

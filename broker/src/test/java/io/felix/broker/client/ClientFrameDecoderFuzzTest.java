package io.felix.broker.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.broker.testing.FuzzInput;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.util.ByteString;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Seeded fuzzing of the client frame decoder alone, fast enough for millions of bytes: a stream of frames with
 * mutated bodies and now and then a mutated length header, cut into random chunks. The decoder never throws, never
 * holds more than one header and one max-size body, emits exactly the frames sent up to the first oversize one,
 * then that one as {@code Oversize} and nothing after it.
 */
@Timeout(value = 30, unit = TimeUnit.MINUTES) // -Dfelix.fuzz.seconds may ask for long runs
class ClientFrameDecoderFuzzTest {
  private static final int MAX_FRAME = 4096;

  @Test
  void chunkedStreamsOfMutatedFramesDecodeToExactlyTheFramesSentWithBoundedBuffering() throws Exception {
    FuzzInput fuzz = new FuzzInput("the client frame decoder in process");
    long end = System.nanoTime() + FuzzInput.duration(4).toNanos();
    int streams = 0;
    while (System.nanoTime() < end) {
      ByteArrayOutputStream wire = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(wire);
      List<byte[]> expected = new ArrayList<>();
      long oversize = -1;
      int frames = 1 + fuzz.random().nextInt(20);
      for (int i = 0; i < frames; i++) {
        byte[] body = fuzz.mutate(fuzz.bytes(fuzz.random().nextInt(MAX_FRAME / 2)));
        long length = fuzz.random().nextInt(30) == 0 ? Integer.toUnsignedLong(fuzz.random().nextInt()) : body.length;
        out.writeInt((int) length);
        out.write(body);
        if (oversize < 0) {
          if (length > MAX_FRAME) {
            oversize = length;
          } else if (length == body.length) {
            expected.add(body);
          } else {
            break; // a wrong length under the maximum: the stream's framing from here on is the fuzzer's guess
          }
        }
      }
      ClientFrameDecoder decoder = ClientFrameDecoder.forTest(MAX_FRAME);
      List<ClientFrameDecoder.Frame> decoded = new ArrayList<>();
      byte[] bytes = wire.toByteArray();
      for (int at = 0; at < bytes.length; ) {
        int chunk = Math.min(bytes.length - at, 1 + fuzz.random().nextInt(2 * MAX_FRAME));
        decoder.apply(ByteString.fromArray(bytes, at, chunk)).forEach(decoded::add);
        assertTrue(decoder.buffered() <= 4 + MAX_FRAME + 2 * MAX_FRAME, "buffered " + decoder.buffered());
        at += chunk;
      }
      for (int i = 0; i < expected.size(); i++) {
        ClientFrameDecoder.Body body = (ClientFrameDecoder.Body) decoded.get(i);
        assertArrayEquals(expected.get(i), body.bytes().toArray(), "frame " + i + ", seed " + fuzz.seed());
      }
      if (oversize >= 0) { // every frame before it exact, then the oversize one, then nothing
        assertEquals(expected.size() + 1, decoded.size(), "seed " + fuzz.seed());
        assertEquals(new ClientFrameDecoder.Oversize(oversize), decoded.get(decoded.size() - 1));
      }
      streams++;
    }
    System.out.println("client frame decoder: " + streams + " fuzzed streams");
  }
}

package io.felix.broker.kafka;

import java.nio.ByteBuffer;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.pekko.util.ByteString;

/** Writes one Kafka response frame (length, response header, body) with kafka-clients' generated classes. */
final class KafkaCodec {
  private KafkaCodec() {}

  static ByteString responseFrame(int correlationId, short headerVersion, ApiMessage body, short version) {
    ObjectSerializationCache cache = new ObjectSerializationCache();
    ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
    int headerSize = header.size(cache, headerVersion);
    int bodySize = body.size(cache, version);
    ByteBuffer buffer = ByteBuffer.allocate(4 + headerSize + bodySize);
    buffer.putInt(headerSize + bodySize);
    ByteBufferAccessor out = new ByteBufferAccessor(buffer);
    header.write(out, cache, headerVersion);
    body.write(out, cache, version);
    buffer.flip();
    return ByteString.fromByteBuffer(buffer);
  }
}

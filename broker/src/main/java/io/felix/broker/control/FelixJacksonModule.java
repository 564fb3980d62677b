package io.felix.broker.control;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonSerializer;
import com.fasterxml.jackson.databind.KeyDeserializer;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.felix.broker.assignment.ShardId;
import java.io.IOException;

/**
 * Lets {@link ShardId} be a CBOR map key ("stream/shard"), so the journal's events and the placement state
 * snapshot ({@link JournalRecord}) serialize as they are. Registered with Pekko's Jackson serializers in
 * {@code io.felix.broker.node.NodeConfig}.
 */
public final class FelixJacksonModule extends SimpleModule {

  public FelixJacksonModule() {
    super("felix");
    addKeySerializer(ShardId.class, new JsonSerializer<>() {
      @Override
      public void serialize(ShardId value, JsonGenerator gen, SerializerProvider serializers) throws IOException {
        gen.writeFieldName(value.stream() + "/" + value.shard());
      }
    });
    addKeyDeserializer(ShardId.class, new KeyDeserializer() {
      @Override
      public Object deserializeKey(String key, DeserializationContext ctxt) {
        return parse(key);
      }
    });
  }

  /** Parses "stream/shard"; stream names never contain '/', but the last one is taken to be safe. */
  public static ShardId parse(String key) {
    int slash = key.lastIndexOf('/');
    if (slash <= 0) {
      throw new IllegalArgumentException("not a shard id (stream/shard): " + key);
    }
    return new ShardId(key.substring(0, slash), Integer.parseInt(key.substring(slash + 1)));
  }
}

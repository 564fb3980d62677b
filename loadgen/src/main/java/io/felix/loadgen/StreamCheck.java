package io.felix.loadgen;

import io.felix.client.FelixClient;
import io.felix.client.FelixException;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.MetadataResponse;
import io.felix.protocol.client.ShardMetadata;
import io.felix.protocol.client.StreamMetadata;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Reads a stream's metadata once before a run, so a wrong address or stream name fails at once and clearly. */
public final class StreamCheck {
  private StreamCheck() {}

  /** Null when the stream exists and has shards, else what is wrong. */
  public static String problem(FelixClient client, String stream) throws InterruptedException {
    try {
      List<Integer> shards = shards(client, stream);
      return shards.isEmpty() ? "stream " + stream + " has no shards" : null;
    } catch (IllegalStateException e) {
      return e.getMessage();
    }
  }

  /** The stream's shard ids in ascending order; IllegalStateException naming the problem. */
  public static List<Integer> shards(FelixClient client, String stream) throws InterruptedException {
    MetadataResponse m;
    try {
      m = client.metadata(stream).get(client.settings().requestTimeout().toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      throw new IllegalStateException("cannot read metadata from " + client.settings().bootstrap() + ": "
          + FelixException.from(e).getMessage());
    }
    for (StreamMetadata s : m.getStreamsList()) {
      if (s.getName().equals(stream)) {
        if (s.getError() != ErrorCode.NONE) {
          throw new IllegalStateException("stream " + stream + ": " + s.getError());
        }
        return s.getShardsList().stream().map(ShardMetadata::getShard).sorted().toList();
      }
    }
    throw new IllegalStateException("stream " + stream + " does not exist (UNKNOWN_STREAM)");
  }
}

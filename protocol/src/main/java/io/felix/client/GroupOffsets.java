package io.felix.client;

import io.felix.protocol.Errors;
import io.felix.protocol.client.CommitOffsetsRequest;
import io.felix.protocol.client.FindCoordinatorRequest;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import io.felix.protocol.client.ShardOffset;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Administrative commits: sets a group's committed offsets (reset-offsets), which its coordinator allows only while
 * the group has no members. Stored like a member's commit, on a majority of the offsets stream's replicas.
 */
public final class GroupOffsets {
  private GroupOffsets() {}

  /** Commits {@code offsets} (shard to next offset) for {@code group} on {@code stream}; throws the broker's error. */
  public static void reset(FelixClient client, String group, String stream, Map<Integer, Long> offsets)
      throws InterruptedException {
    CommitOffsetsRequest.Builder commit = CommitOffsetsRequest.newBuilder().setGroup(group).setMemberId("")
        .setGeneration(-1).setStream(stream);
    offsets.forEach((shard, offset) -> commit.addOffsets(ShardOffset.newBuilder().setShard(shard).setOffset(offset)));
    long timeoutMs = client.settings().requestTimeout().toMillis();
    try {
      Response found = client.send(client.settings().bootstrap().get(0), Request.newBuilder()
          .setFindCoordinator(FindCoordinatorRequest.newBuilder().setGroup(group))).get(timeoutMs,
          TimeUnit.MILLISECONDS);
      if (Errors.isError(found)) {
        throw FelixException.broker(found.getError()).withContext("FindCoordinator for group " + group);
      }
      HostPort coordinator = new HostPort(found.getFindCoordinator().getHost(), found.getFindCoordinator().getPort());
      Response r = client.send(coordinator, Request.newBuilder().setCommitOffsets(commit))
          .get(timeoutMs, TimeUnit.MILLISECONDS);
      if (Errors.isError(r)) {
        throw FelixException.broker(r.getError()).withContext("reset of group " + group);
      }
    } catch (ExecutionException e) {
      throw FelixException.from(e.getCause());
    } catch (TimeoutException e) {
      throw FelixException.clientClosed("no answer within " + timeoutMs + " ms");
    }
  }
}

package io.felix.broker.client;

import io.felix.protocol.Errors;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Where this broker's client listener sends consumer-group requests (FindCoordinator, JoinGroup, Heartbeat,
 * LeaveGroup, CommitOffsets, FetchOffsets): in a broker, the {@code io.felix.broker.group.GroupManager}.
 */
@FunctionalInterface
public interface GroupRequestSink {
  CompletionStage<Response> handle(Request request);

  /** Until the broker wires its group manager (and on a data plane without a control plane). */
  GroupRequestSink NONE = request -> CompletableFuture.completedFuture(Errors.response(0, Errors.of(
      ErrorCode.NOT_COORDINATOR, "this broker coordinates no consumer groups yet (its control plane is not started)")));
}

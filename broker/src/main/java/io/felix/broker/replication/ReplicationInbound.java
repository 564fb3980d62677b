package io.felix.broker.replication;

import io.felix.broker.client.ClientRequests;
import io.felix.broker.client.RecordListCheck;
import io.felix.broker.security.BrokerSecurity;
import io.felix.broker.security.Operation;
import io.felix.broker.security.ResourceType;

import io.felix.broker.shard.RecordListSummary;

import io.felix.broker.shard.ShardReplica;

import io.felix.broker.shard.ReplicaRegistry;

import io.felix.broker.assignment.ShardId;
import io.felix.protocol.Errors;
import io.felix.broker.client.ProduceForwarder;
import io.felix.broker.transport.ReplicationTransport;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.Response;
import io.felix.protocol.replication.ForwardProduce;
import io.felix.protocol.replication.ForwardGroupRequest;
import io.felix.protocol.replication.ForwardProduceResult;
import io.felix.protocol.replication.ReplicationFrame;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Routes frames arriving on the replication connection: fetch-session requests and answers to this broker's
 * {@link FetchSessions}, forwarded produces (plain mode) to the leader's replica with the answer sent back (and
 * likewise forwarded cache reads and consumer-group requests), and forward answers to the {@link ProduceForwarder}.
 */
public final class ReplicationInbound implements ReplicationTransport.Inbound {
  private final ReplicaRegistry registry;
  private final Supplier<ReplicationTransport> transport;
  private final Supplier<ProduceForwarder> forwarder;
  private final Supplier<ClientRequests> clientRequests;
  private final BrokerSecurity security;
  private final FetchSessions sessions;

  /** Suppliers because the transport (and what uses it) is built with this router as its inbound handler. */
  public ReplicationInbound(ReplicaRegistry registry, Supplier<ReplicationTransport> transport,
      Supplier<ProduceForwarder> forwarder, Supplier<ClientRequests> clientRequests, BrokerSecurity security,
      FetchSessions sessions) {
    this.registry = registry;
    this.sessions = sessions;
    this.security = security;
    this.transport = transport;
    this.forwarder = forwarder;
    this.clientRequests = clientRequests;
  }

  @Override
  public void onFrame(int fromBroker, ReplicationFrame frame) {
    switch (frame.getBodyCase()) {
      case SESSION_REQUEST:
        sessions.onRequest(fromBroker, frame.getSessionRequest());
        break;
      case SESSION_ANSWER:
        sessions.onAnswer(fromBroker, frame.getSessionAnswer());
        break;
      case FORWARD_PRODUCE:
        onForwardedProduce(fromBroker, frame.getForwardProduce());
        break;
      case FORWARD_RESULT:
        forwarder.get().onResult(frame.getForwardResult());
        break;
      case FORWARD_CACHE_READ:
        onForwardedCacheRead(fromBroker, frame.getForwardCacheRead());
        break;
      case FORWARD_GROUP_REQUEST: {
        ForwardGroupRequest forward = frame.getForwardGroupRequest();
        String principal = forward.getPrincipal().isEmpty() ? BrokerSecurity.ANONYMOUS : forward.getPrincipal();
        ClientRequests requests = clientRequests.get();
        if (requests == null) { // this broker is still starting
          answer(fromBroker, forward.getForwardId()).accept(Errors.response(0, Errors.of(ErrorCode.NOT_COORDINATOR,
              "broker " + registry.brokerId() + " is starting and takes no group requests yet; retry")));
        } else {
          requests.forwardedGroupRequest(forward.getRequest(), principal)
              .thenAccept(answer(fromBroker, forward.getForwardId()));
        }
        break;
      }
      default:
        break;
    }
  }

  private void onForwardedProduce(int fromBroker, ForwardProduce forward) {
    CompletableFuture<Response> reply = new CompletableFuture<>();
    registry.watchProduce(forward.getRequest(), reply).thenAccept(answer(fromBroker, forward.getForwardId()));
    ShardId id;
    RecordListSummary summary;
    try {
      id = new ShardId(forward.getRequest().getStream(), forward.getRequest().getShard());
      summary = RecordListCheck.scan(forward.getRequest().getRecords());
    } catch (IllegalArgumentException | RecordListCheck.InvalidRecordsException e) {
      reply.complete(Errors.response(0, Errors.notAppended(ErrorCode.INVALID_REQUEST, e.getMessage())));
      return;
    }
    String principal = forward.getPrincipal().isEmpty() ? BrokerSecurity.ANONYMOUS : forward.getPrincipal();
    if (!security.authorized(principal, ResourceType.STREAM, id.stream(), Operation.PRODUCE)) {
      reply.complete(ClientRequests.unauthorized(principal, Operation.PRODUCE, id.stream()));
      return;
    }
    Optional<ActorRef<ShardReplica.Command>> replica = registry.replica(id);
    if (replica.isEmpty()) {
      reply.complete(ShardReplica.notLeader(id, registry.table().shard(id).map(a -> a.leader()).orElse(-1), registry));
      return;
    }
    replica.get().tell(new ShardReplica.ClientProduce(forward.getRequest(), summary, reply));
  }

  /** Sends a forwarded request's answer back to the broker that forwarded it, under its forward id. */
  private java.util.function.Consumer<Response> answer(int fromBroker, long forwardId) {
    return response -> transport.get().send(fromBroker, ReplicationFrame.newBuilder()
        .setForwardResult(ForwardProduceResult.newBuilder().setForwardId(forwardId).setResponse(response)).build());
  }

  /** Plain mode, leader side: a cache read another broker received for a shard led here; answered back as above. */
  private void onForwardedCacheRead(int fromBroker, io.felix.protocol.replication.ForwardCacheRead forward) {
    CompletableFuture<Response> reply = new CompletableFuture<>();
    reply.thenAccept(answer(fromBroker, forward.getForwardId()));
    ShardId id = new ShardId(forward.getRequest().getCache(), forward.getShard());
    Optional<ActorRef<ShardReplica.Command>> replica = registry.replica(id);
    if (replica.isEmpty()) {
      reply.complete(ShardReplica.notLeader(id, registry.table().shard(id).map(a -> a.leader()).orElse(-1), registry));
      return;
    }
    replica.get().tell(new ShardReplica.CacheRead(forward.getRequest().getKeysList(), false,
        forward.getRequest().getMaxBytes(), reply));
  }
}

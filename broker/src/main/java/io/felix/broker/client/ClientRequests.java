package io.felix.broker.client;

import io.felix.broker.assignment.AssignmentTable;
import io.felix.broker.assignment.BrokerEndpoint;
import io.felix.broker.assignment.ClientListenerName;
import io.felix.broker.assignment.InternalStreams;
import io.felix.broker.assignment.ShardAssignment;
import io.felix.broker.assignment.ShardId;
import io.felix.broker.security.BrokerSecurity;
import io.felix.broker.security.Operation;
import io.felix.broker.security.ResourceType;
import io.felix.broker.shard.RecordListSummary;
import io.felix.broker.shard.ReplicaRegistry;
import io.felix.broker.shard.ShardReplica;
import io.felix.protocol.client.BrokerAddress;
import io.felix.protocol.Errors;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.FetchRequest;
import io.felix.protocol.client.FindCoordinatorResponse;
import io.felix.protocol.client.InitProducerIdResponse;
import io.felix.protocol.client.MetadataRequest;
import io.felix.protocol.client.MetadataResponse;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import io.felix.protocol.client.ShardMetadata;
import io.felix.protocol.client.StreamMetadata;
import java.util.Collection;
import java.util.EnumSet;
import java.util.LinkedHashSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import org.apache.pekko.actor.typed.ActorRef;

/**
 * Answers one client request: Metadata from the assignment table, Produce and Fetch by the local replica.
 *
 * <p>Plain and cluster mode differ only by a request flag ({@code forward_if_not_leader}, set by plain-mode
 * clients): a produce for a shard this broker does not lead is then forwarded to the leader over the
 * broker-to-broker connection (same acks) and a fetch is served from the local follower replica's committed
 * records; without the flag (cluster mode) both get NOT_LEADER naming the leader and its address. Likewise
 * {@code forward_if_not_coordinator} has a consumer-group request forwarded to the group's coordinator.
 */
public final class ClientRequests {
  private final ReplicaRegistry registry;
  private final ProduceForwarder forwarder;
  private final ClientListenerSettings settings;
  private final BrokerSecurity security;
  private volatile ProducerIdSource producerIds = ProducerIdSource.NONE;
  private volatile GroupRequestSink groups = GroupRequestSink.NONE;
  private static final Set<Request.BodyCase> GROUP_REQUESTS = EnumSet.of(Request.BodyCase.JOIN_GROUP,
      Request.BodyCase.HEARTBEAT, Request.BodyCase.LEAVE_GROUP, Request.BodyCase.COMMIT_OFFSETS,
      Request.BodyCase.FETCH_OFFSETS);
  private final CacheRequests caches;

  public ClientRequests(ReplicaRegistry registry, ProduceForwarder forwarder, ClientListenerSettings settings,
      BrokerSecurity security) {
    this.registry = registry;
    this.security = security;
    this.forwarder = forwarder;
    this.settings = settings;
    this.caches = new CacheRequests(registry, forwarder, settings, this::produce);
  }

  /** Where InitProducerId takes its ids from; set once the control plane is up (until then they fail, retriably). */
  public void useProducerIds(ProducerIdSource source) {
    this.producerIds = source;
  }

  /** Where consumer-group requests go; set once the control plane is up. */
  public void useGroups(GroupRequestSink sink) {
    this.groups = sink;
  }

  /**
   * Answers a request that arrived on {@code listener}: the broker addresses in the answer (Metadata's, a NOT_LEADER
   * error's leader address) are the ones clients of that listener can reach.
   *
   * @param principal who the connection authenticated as ({@link BrokerSecurity#ANONYMOUS} with that off)
   */
  public CompletionStage<Response> handle(Request request, ClientListenerName listener, String principal) {
    CompletionStage<Response> answer = answer(request, listener, principal);
    return listener == ClientListenerName.INTERNAL ? answer : answer.thenApply(r -> leaderAddressFor(r, listener));
  }

  private CompletionStage<Response> answer(Request request, ClientListenerName listener, String principal) {
    switch (request.getBodyCase()) {
      case METADATA:
        return done(metadata(request.getMetadata(), listener, principal));
      case PRODUCE:
        return registry.watchProduce(request.getProduce(), produce(request.getProduce(), principal));
      case FETCH:
        return fetch(request.getFetch(), principal);
      case INIT_PRODUCER_ID:
        return initProducerId();
      case FIND_COORDINATOR:
        return groupRequest(request, request.getFindCoordinator().getGroup(), Operation.DESCRIBE, principal);
      case JOIN_GROUP:
        return groupRequest(request, request.getJoinGroup().getGroup(), Operation.CONSUME, principal);
      case HEARTBEAT:
        return groupRequest(request, request.getHeartbeat().getGroup(), Operation.CONSUME, principal);
      case LEAVE_GROUP:
        return groupRequest(request, request.getLeaveGroup().getGroup(), Operation.CONSUME, principal);
      case COMMIT_OFFSETS:
        return groupRequest(request, request.getCommitOffsets().getGroup(), Operation.CONSUME, principal);
      case FETCH_OFFSETS:
        return groupRequest(request, request.getFetchOffsets().getGroup(), Operation.CONSUME, principal);
      case PUT:
        return authorized(principal, ResourceType.CACHE, request.getPut().getCache(), Operation.PRODUCE)
            .orElseGet(() -> caches.put(request.getPut(), principal));
      case GET:
        return authorized(principal, ResourceType.CACHE, request.getGet().getCache(), Operation.CONSUME)
            .orElseGet(() -> caches.get(request.getGet()));
      case MULTI_GET:
        return authorized(principal, ResourceType.CACHE, request.getMultiGet().getCache(), Operation.CONSUME)
            .orElseGet(() -> caches.multiGet(request.getMultiGet()));
      case DELETE:
        return authorized(principal, ResourceType.CACHE, request.getDelete().getCache(), Operation.PRODUCE)
            .orElseGet(() -> caches.delete(request.getDelete(), principal));
      default:
        return done(error(ErrorCode.INVALID_REQUEST, "unsupported request kind " + request.getBodyCase()));
    }
  }

  /**
   * A consumer-group request, once the principal may do {@code operation} on the group. Plain mode's ask (the
   * request's {@code forward_if_not_coordinator}) is honoured when this broker's group manager names another
   * broker as the coordinator: the request goes there, and its answer back to the client.
   */
  private CompletionStage<Response> groupRequest(Request request, String group, Operation operation,
      String principal) {
    return authorized(principal, ResourceType.CONSUMER_GROUP, group, operation)
        .orElseGet(() -> groups.handle(request).thenCompose(answer -> {
          int coordinator = answer.getError().getLeaderId();
          boolean forwards = request.getForwardIfNotCoordinator() && !request.hasFindCoordinator()
              && answer.getError().getCode() == ErrorCode.NOT_COORDINATOR && coordinator >= 0
              && coordinator != registry.brokerId();
          return forwards ? forwarder.forwardGroupRequest(coordinator, request, principal, settings.forwardGrace())
              : CompletableFuture.completedFuture(answer);
        }));
  }

  /**
   * Plain mode, coordinator side: a consumer-group request another broker forwarded for a client it authenticated
   * as {@code principal}; authorized here as if the client had sent it, and never forwarded again.
   */
  public CompletionStage<Response> forwardedGroupRequest(Request request, String principal) {
    if (GROUP_REQUESTS.contains(request.getBodyCase())) {
      return answer(request.toBuilder().setForwardIfNotCoordinator(false).build(), ClientListenerName.INTERNAL,
          principal);
    }
    return done(error(ErrorCode.INVALID_REQUEST, "a forwarded group request holds a " + request.getBodyCase()));
  }

  /** Empty when the principal may do {@code operation} on the resource, else the AUTHORIZATION_FAILED answer. */
  private Optional<CompletionStage<Response>> authorized(String principal, ResourceType type, String name,
      Operation operation) {
    return security.authorized(principal, type, name, operation) ? Optional.empty()
        : Optional.of(done(unauthorized(principal, operation, type, name)));
  }

  /**
   * Answers Metadata for the named streams (each name once, in the order first named) or every stream. Refused
   * with RESOURCE_LIMIT when it names more than max-metadata-streams distinct streams or the answer would exceed
   * max-metadata-response-bytes: the size is counted stream by stream while building, so a refused answer is never
   * built whole.
   */
  private Response metadata(MetadataRequest request, ClientListenerName listener, String principal) {
    ClientLimits limits = settings.limits();
    AssignmentTable table = registry.table();
    Collection<String> names;
    if (request.getStreamsCount() == 0) {
      names = table.streams().keySet().stream().sorted()
          .filter(name -> security.authorized(principal, ResourceType.STREAM, name, Operation.DESCRIBE)).toList();
    } else {
      names = new LinkedHashSet<>();
      for (String name : request.getStreamsList()) {
        names.add(name);
        if (names.size() > limits.maxMetadataStreams()) {
          return error(ErrorCode.RESOURCE_LIMIT, "a Metadata request may name at most " + limits.maxMetadataStreams()
              + " distinct streams (felix.client-listener.max-metadata-streams); this one names more");
        }
      }
    }
    MetadataResponse.Builder b = MetadataResponse.newBuilder()
        .setAssignmentVersion(table.version()).setBrokerId(registry.brokerId());
    table.brokers().values().stream().sorted((x, y) -> Integer.compare(x.id(), y.id())).forEach(e ->
        b.addBrokers(BrokerAddress.newBuilder().setId(e.id()).setHost(e.clientHost(listener))
            .setPort(e.clientPort(listener))));
    long size = b.build().getSerializedSize();
    for (String name : names) {
      StreamMetadata stream = security.authorized(principal, ResourceType.STREAM, name, Operation.DESCRIBE)
          ? streamMetadata(table, name)
          : StreamMetadata.newBuilder().setName(name).setError(ErrorCode.AUTHORIZATION_FAILED).build();
      size += stream.getSerializedSize() + 8; // field tag and length prefix, generously
      if (size > limits.maxMetadataResponseBytes()) {
        return error(ErrorCode.RESOURCE_LIMIT, "the Metadata answer for these " + names.size()
            + " streams would exceed " + limits.maxMetadataResponseBytes()
            + " bytes (felix.client-listener.max-metadata-response-bytes); ask for fewer streams");
      }
      b.addStreams(stream);
    }
    return Response.newBuilder().setMetadata(b).build();
  }

  /**
   * A leader hint, or a coordinator's address, names the broker's address on {@code listener} (the replica or
   * coordinator that wrote it knows only the internal one).
   */
  private Response leaderAddressFor(Response response, ClientListenerName listener) {
    if (response.hasFindCoordinator()) {
      FindCoordinatorResponse found = response.getFindCoordinator();
      return registry.table().broker(found.getCoordinatorId()).map(e -> response.toBuilder().setFindCoordinator(
          found.toBuilder().setHost(e.clientHost(listener)).setPort(e.clientPort(listener))).build())
          .orElse(response);
    }
    if (!response.hasError() || response.getError().getLeaderAddress().isEmpty()) {
      return response;
    }
    Optional<BrokerEndpoint> leader = registry.table().broker(response.getError().getLeaderId());
    return leader.map(e -> response.toBuilder()
        .setError(response.getError().toBuilder().setLeaderAddress(e.clientAddress(listener))).build())
        .orElse(response);
  }

  private static StreamMetadata streamMetadata(AssignmentTable table, String name) {
    Integer shards = table.streams().get(name);
    StreamMetadata.Builder s = StreamMetadata.newBuilder().setName(name);
    if (shards == null) {
      return s.setError(ErrorCode.UNKNOWN_STREAM).build();
    }
    table.shard(new ShardId(name, 0)).ifPresent(a -> s.setIncarnation(a.incarnation().toString()));
    for (int i = 0; i < shards; i++) {
      ShardMetadata.Builder m = ShardMetadata.newBuilder().setShard(i).setLeader(ShardAssignment.NO_LEADER);
      Optional<ShardAssignment> a = name.isEmpty() ? Optional.empty() : table.shard(new ShardId(name, i));
      a.ifPresent(x -> m.setLeader(x.leader()).addAllReplicas(x.replicas()).setLeaderEpoch(x.leaderEpoch()));
      s.addShards(m);
    }
    return s.build();
  }

  private CompletionStage<Response> produce(ProduceRequest request, String principal) {
    Located located = locate(request.getStream(), request.getShard());
    // A batch this broker forwards is authorized by its leader, for the principal the forward carries.
    boolean forwards = located.error == null && request.getForwardIfNotLeader()
        && located.assignment.leader() != ShardAssignment.NO_LEADER
        && located.assignment.leader() != registry.brokerId();
    // A cache's entries are its records: the ACL that counts is the cache's (checked again here, at the leader,
    // when a plain-mode broker forwarded the write).
    ResourceType type = isCache(request.getStream()) ? ResourceType.CACHE : ResourceType.STREAM;
    if (!forwards && !security.authorized(principal, type, request.getStream(), Operation.PRODUCE)) {
      return done(unauthorized(principal, Operation.PRODUCE, type, request.getStream()));
    }
    if (located.error != null) {
      return done(located.error);
    }
    if (InternalStreams.isInternal(request.getStream())) {
      return done(Errors.response(0, Errors.notAppended(ErrorCode.INVALID_REQUEST, "stream '" + request.getStream()
          + "' is internal: only the brokers write it")));
    }
    RecordListSummary summary;
    try {
      summary = RecordListCheck.scan(request.getRecords());
    } catch (RecordListCheck.InvalidRecordsException e) {
      return done(Errors.response(0, Errors.notAppended(ErrorCode.INVALID_REQUEST, e.getMessage())));
    }
    if (request.getTimeoutMs() < 0) {
      return done(Errors.response(0, Errors.notAppended(ErrorCode.INVALID_REQUEST, "timeout_ms must be >= 0")));
    }
    if (registry.table().streamConfig(request.getStream()).forCache()) {
      Optional<Response> refused = caches.checkEntries(RecordLists.decode(request.getRecords()).getRecordsList());
      if (refused.isPresent()) {
        return done(refused.get());
      }
    }
    ShardAssignment a = located.assignment;
    Optional<ActorRef<ShardReplica.Command>> local = registry.replica(a.id());
    if (a.leader() == registry.brokerId() && local.isPresent()) {
      CompletableFuture<Response> reply = new CompletableFuture<>();
      local.get().tell(new ShardReplica.ClientProduce(request, summary, reply));
      return reply;
    }
    if (request.getForwardIfNotLeader() && a.leader() != ShardAssignment.NO_LEADER
        && a.leader() != registry.brokerId()) {
      return forwarder.forward(a.leader(), request, principal, settings.forwardGrace());
    }
    return done(notLeader(a));
  }

  /** A new idempotent producer's id, at epoch 0; the producer numbers its batches per shard from 0. */
  private CompletionStage<Response> initProducerId() {
    return producerIds.nextProducerId().handle((id, failure) -> failure == null
        ? Response.newBuilder().setInitProducerId(InitProducerIdResponse.newBuilder().setProducerId(id)
            .setProducerEpoch(0)).build()
        : error(ErrorCode.TIMEOUT, "no producer id available now: " + failure.getMessage()));
  }

  private CompletionStage<Response> fetch(FetchRequest request, String principal) {
    if (!security.authorized(principal, ResourceType.STREAM, request.getStream(), Operation.CONSUME)) {
      return done(unauthorized(principal, Operation.CONSUME, request.getStream()));
    }
    Located located = locate(request.getStream(), request.getShard());
    if (located.error != null) {
      return done(located.error);
    }
    if (request.getOffset() < 0 || request.getMaxBytes() < 0 || request.getMaxWaitMs() < 0) {
      return done(error(ErrorCode.INVALID_REQUEST, "offset, max_bytes and max_wait_ms must be >= 0"));
    }
    ShardAssignment a = located.assignment;
    Optional<ActorRef<ShardReplica.Command>> local = registry.replica(a.id());
    boolean leads = a.leader() == registry.brokerId();
    if (local.isEmpty() || !(leads || request.getForwardIfNotLeader())) {
      return done(notLeader(a));
    }
    int maxBytes = request.getMaxBytes() == 0 ? settings.maxFetchBytes()
        : Math.min(request.getMaxBytes(), settings.maxFetchBytes());
    long waitMs = Math.min(request.getMaxWaitMs(), settings.maxFetchWait().toMillis());
    CompletableFuture<Response> reply = new CompletableFuture<>();
    local.get().tell(new ShardReplica.ClientFetch(request, maxBytes, waitMs, reply));
    return reply;
  }

  private record Located(ShardAssignment assignment, Response error) {}

  private Located locate(String stream, int shard) {
    AssignmentTable table = registry.table();
    Integer shards = table.streams().get(stream);
    if (shards == null || stream.isEmpty()) {
      return new Located(null, unknown(table, ErrorCode.UNKNOWN_STREAM, "no stream named '" + stream + "'"));
    }
    if (shard < 0 || shard >= shards) {
      return new Located(null, unknown(table, ErrorCode.UNKNOWN_SHARD,
          "stream '" + stream + "' has shards 0.." + (shards - 1) + ", not " + shard));
    }
    Optional<ShardAssignment> a = table.shard(new ShardId(stream, shard));
    if (a.isEmpty()) {
      return new Located(null, Errors.response(0, Errors.notLeader(stream, shard, -1, "")));
    }
    return new Located(a.get(), null);
  }

  /**
   * UNKNOWN_STREAM or UNKNOWN_SHARD with the version of the table that does not know it: a client that read the
   * stream from a newer table retries (this broker has not learned of it yet), one with an older table does not.
   */
  private static Response unknown(AssignmentTable table, ErrorCode code, String message) {
    return Errors.response(0, Errors.notAppended(code, message).toBuilder()
        .setAssignmentVersion(table.version()).build());
  }

  private Response notLeader(ShardAssignment a) {
    AssignmentTable table = registry.table();
    String address = table.broker(a.leader()).map(BrokerEndpoint::clientAddress).orElse("");
    return Errors.response(0, Errors.notLeader(a.id().stream(), a.id().shard(), a.leader(), address,
        a.leaderEpoch(), table.version()));
  }

  private boolean isCache(String stream) {
    AssignmentTable table = registry.table();
    return table.streams().containsKey(stream) && table.streamConfig(stream).forCache();
  }

  /** AUTHORIZATION_FAILED for an operation on a stream; nothing was done (a produce was not appended). */
  public static Response unauthorized(String principal, Operation operation, String stream) {
    return unauthorized(principal, operation, ResourceType.STREAM, stream);
  }

  /** AUTHORIZATION_FAILED for an operation on a resource; nothing was done (a write was not appended). */
  public static Response unauthorized(String principal, Operation operation, ResourceType type, String name) {
    return Errors.response(0, Errors.notAppended(ErrorCode.AUTHORIZATION_FAILED, "principal '" + principal
        + "' may not " + operation.wireName() + " " + type.wireName() + " '" + name
        + "': no ACL allows it; nothing was done"));
  }

  private static Response error(ErrorCode code, String message) {
    return Errors.response(0, Errors.of(code, message));
  }

  private static CompletionStage<Response> done(Response response) {
    return CompletableFuture.completedFuture(response);
  }
}

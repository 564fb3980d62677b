package io.felix.client;

import io.felix.protocol.Errors;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.MetadataRequest;
import io.felix.protocol.client.MetadataResponse;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's current {@link ClusterView} and how it is refreshed: one metadata request at a time for every
 * stream the client has used, asked of the bootstrap brokers and then every known broker until one answers
 * (cluster mode), or of the plain-mode broker. Thread-safe.
 */
final class MetadataCache {
  private static final Logger log = LoggerFactory.getLogger(MetadataCache.class);

  private final ClientSettings settings;
  private final BrokerConnections connections;
  private final Set<String> wanted = new TreeSet<>();
  private volatile ClusterView view = ClusterView.EMPTY;
  private volatile long refreshedAtNanos = Long.MIN_VALUE / 2;
  private CompletableFuture<ClusterView> refreshing;
  private Set<String> refreshingStreams = Set.of();
  private volatile int plainIndex;

  MetadataCache(ClientSettings settings, BrokerConnections connections) {
    this.settings = settings;
    this.connections = connections;
  }

  ClusterView view() {
    return view;
  }

  /** The broker every request goes to in plain mode. */
  HostPort plainTarget() {
    return settings.bootstrap().get(plainIndex);
  }

  /** In plain mode, moves on to the next bootstrap address after the current one failed. */
  synchronized void connectionFailed(HostPort address) {
    if (settings.mode() == ClientMode.PLAIN && plainTarget().equals(address)) {
      plainIndex = (plainIndex + 1) % settings.bootstrap().size();
    }
  }

  boolean isStale() {
    return System.nanoTime() - refreshedAtNanos > settings.metadataMaxAge().toNanos();
  }

  /** Applies a NOT_LEADER hint at once; a refresh follows separately. */
  synchronized void leaderMoved(String stream, int shard, int leaderId, String leaderAddress) {
    HostPort address = null;
    if (leaderAddress != null && !leaderAddress.isEmpty()) {
      try {
        address = HostPort.parse(leaderAddress);
      } catch (IllegalArgumentException e) {
        log.warn("ignoring leader address '{}' in a NOT_LEADER answer: {}", leaderAddress, e.getMessage());
      }
    }
    view = view.withLeader(stream, shard, leaderId, address);
  }

  /** The stream's view, reading metadata first when the stream is new to this client. */
  CompletableFuture<ClusterView.StreamView> stream(String name) {
    ClusterView.StreamView known = view.stream(name);
    // An error (UNKNOWN_STREAM) is not cached: the stream may have been created since.
    if (known != null && known.error() == ErrorCode.NONE) {
      return CompletableFuture.completedFuture(known);
    }
    return refresh(List.of(name)).thenApply(v -> {
      ClusterView.StreamView s = v.stream(name);
      if (s == null) {
        throw FelixException.broker(Errors.of(ErrorCode.UNKNOWN_STREAM, "no metadata for stream " + name));
      }
      return s;
    });
  }

  /** Starts a refresh covering {@code streams} and every stream used so far, or joins one that covers them. */
  synchronized CompletableFuture<ClusterView> refresh(Collection<String> streams) {
    wanted.addAll(streams);
    if (refreshing != null && !refreshing.isDone() && refreshingStreams.containsAll(wanted)) {
      return refreshing;
    }
    Set<String> asked = Set.copyOf(wanted);
    CompletableFuture<ClusterView> result = read(asked).thenApply(r -> view);
    refreshing = result;
    refreshingStreams = asked;
    return result;
  }

  /**
   * Reads metadata for {@code streams} (every stream when empty) from the first broker that answers, applies it
   * to the view, and returns the answer.
   */
  synchronized CompletableFuture<MetadataResponse> read(Collection<String> streams) {
    Request.Builder request =
        Request.newBuilder().setMetadata(MetadataRequest.newBuilder().addAllStreams(streams));
    CompletableFuture<MetadataResponse> result = new CompletableFuture<>();
    ask(new ArrayList<>(candidates()), 0, request, result, null);
    return result;
  }

  private Collection<HostPort> candidates() {
    if (settings.mode() == ClientMode.PLAIN) {
      // The current plain-mode broker first, then the other bootstrap addresses in turn.
      List<HostPort> rotated = new ArrayList<>();
      int n = settings.bootstrap().size();
      for (int i = 0; i < n; i++) {
        rotated.add(settings.bootstrap().get((plainIndex + i) % n));
      }
      return rotated;
    }
    Set<HostPort> all = new LinkedHashSet<>(settings.bootstrap());
    view.brokerAddresses().forEach(all::add);
    return all;
  }

  private void ask(List<HostPort> candidates, int i, Request.Builder request,
      CompletableFuture<MetadataResponse> result, Throwable last) {
    if (i >= candidates.size()) {
      FelixException cause = last == null
          ? FelixException.connectionFailed("no broker to ask for metadata", false)
          : FelixException.from(last);
      result.completeExceptionally(cause.withContext("metadata unavailable from " + candidates));
      return;
    }
    HostPort target = candidates.get(i);
    connections.get(target)
        .thenCompose(c -> c.send(request.clone(), settings.requestTimeout()))
        .whenComplete((response, error) -> {
          if (error == null && !Errors.isError(response) && response.hasMetadata()) {
            applied(target, response);
            result.complete(response.getMetadata());
          } else {
            Throwable why = error != null ? error : answerError(target, response);
            log.debug("metadata from {} failed: {}", target, why.getMessage());
            if (error != null) {
              connectionFailed(target);
            }
            ask(candidates, i + 1, request, result, why);
          }
        });
  }

  private static FelixException answerError(HostPort target, Response response) {
    return Errors.isError(response)
        ? FelixException.broker(response.getError())
        : FelixException.broker(Errors.of(ErrorCode.INVALID_REQUEST, target + " answered without metadata"));
  }

  private synchronized void applied(HostPort from, Response response) {
    if (settings.mode() == ClientMode.PLAIN) {
      plainIndex = settings.bootstrap().indexOf(from);
    }
    view = view.merge(response.getMetadata());
    refreshedAtNanos = System.nanoTime();
  }
}

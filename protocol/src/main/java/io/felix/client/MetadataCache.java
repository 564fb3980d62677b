package io.felix.client;

import io.felix.protocol.Errors;
import io.felix.protocol.client.Error;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.MetadataRequest;
import io.felix.protocol.client.MetadataResponse;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client's current {@link ClusterView} and how it is refreshed: one metadata request at a time for every
 * stream the client has used. Thread-safe.
 *
 * <p>Cluster mode asks, until one answers: the broker a NOT_LEADER hint named (it has just learnt the new
 * leader), then the bootstrap brokers in turn, each read starting at the next one so that a broker whose table
 * lags is not asked first every time, then every other known broker; a broker that did not answer its last
 * request goes last until it answers again. A broker that has not answered within {@link #hedgeAfter} (metadata
 * comes from its in-memory table) is presumed down and the next one is asked as well; the first answer wins, and
 * each request still waits up to requestTimeout, so a slow but live cluster is never worse off than with one
 * broker at a time.
 *
 * <p>Plain mode talks to one bootstrap broker and moves to the next after
 * {@link ClientSettings#plainModeFailoverAfter()} connection failures in a row to it on produce or fetch, or at
 * once when it stays silent on a metadata request that another bootstrap broker answers (its connection is up,
 * so it would take requests and leave them unanswered).
 */
final class MetadataCache {
  private static final Logger log = LoggerFactory.getLogger(MetadataCache.class);

  /** What a NOT_LEADER hint did to the view. */
  enum HintOutcome {
    /** The hint named a newer leader epoch than the view held: the view now routes to that leader. */
    NEWER_LEADER,
    /** The hint named the epoch the view held: applied, but nothing was learnt that orders it. */
    SAME_EPOCH,
    /** No leader named, or an older epoch than the view holds: the view is unchanged. */
    IGNORED
  }

  private final ClientSettings settings;
  private final BrokerConnections connections;
  private final Duration hedgeAfter;
  private final ScheduledExecutorService timer;
  private final Set<String> wanted = new TreeSet<>();
  private volatile ClusterView view = ClusterView.EMPTY;
  private volatile long refreshedAtNanos = Long.MIN_VALUE / 2;
  private CompletableFuture<ClusterView> refreshing;
  private Set<String> refreshingStreams = Set.of();
  private HostPort refreshingFirst;
  private int nextBootstrap;
  private final Set<HostPort> unanswered = new HashSet<>();
  private volatile int plainIndex;
  private int plainFailures;
  private boolean plainSilent;

  MetadataCache(ClientSettings settings, BrokerConnections connections, ScheduledExecutorService timer) {
    this.settings = settings;
    this.connections = connections;
    this.timer = timer;
    this.hedgeAfter = settings.connectTimeout();
  }

  ClusterView view() {
    return view;
  }

  /** The broker every request goes to in plain mode. */
  HostPort plainTarget() {
    return settings.bootstrap().get(plainIndex);
  }

  /**
   * A connection to {@code address} failed. In plain mode, the client moves on to the next bootstrap broker once
   * its broker has failed plainModeFailoverAfter times in a row (one failure may be a restart or a blip).
   */
  synchronized void connectionFailed(HostPort address) {
    if (settings.mode() != ClientMode.PLAIN || !plainTarget().equals(address)) {
      return;
    }
    plainFailures++;
    if (plainFailures >= settings.plainModeFailoverAfter() && settings.bootstrap().size() > 1) {
      plainIndex = (plainIndex + 1) % settings.bootstrap().size();
      log.info("plain mode: {} failed {} connection attempts in a row; moving to {}", address, plainFailures,
          plainTarget());
      plainFailures = 0;
    }
  }

  /** {@code address} answered a request, so the connection to it works (counts only in plain mode). */
  void answeredBy(HostPort address) {
    if (settings.mode() != ClientMode.PLAIN) {
      return; // every produce answer comes here: no lock in cluster mode
    }
    synchronized (this) {
      if (plainTarget().equals(address)) {
        plainFailures = 0;
        plainSilent = false;
      }
    }
  }

  boolean isStale() {
    return System.nanoTime() - refreshedAtNanos > settings.metadataMaxAge().toNanos();
  }

  /**
   * Handles a NOT_LEADER answer for {@code stream}/{@code shard}: applies its hint when it names a leader at an
   * epoch at least the one held, then refreshes metadata, asking the hinted broker first when the hint was taken
   * (cluster mode) and the bootstrap brokers in turn otherwise.
   */
  HintOutcome notLeader(String stream, int shard, Error error) {
    HintOutcome outcome = leaderMoved(stream, shard, error.getLeaderId(), error.getLeaderEpoch(),
        error.getLeaderAddress());
    HostPort hinted = outcome == HintOutcome.IGNORED ? null : view.brokerAddress(error.getLeaderId());
    refresh(List.of(stream), hinted);
    return outcome;
  }

  synchronized HintOutcome leaderMoved(String stream, int shard, int leaderId, long leaderEpoch,
      String leaderAddress) {
    HostPort address = null;
    if (leaderAddress != null && !leaderAddress.isEmpty()) {
      try {
        address = HostPort.parse(leaderAddress);
      } catch (IllegalArgumentException e) {
        log.warn("ignoring leader address '{}' in a NOT_LEADER answer: {}", leaderAddress, e.getMessage());
      }
    }
    long heldEpoch = view.leader(stream, shard).epoch();
    ClusterView after = view.withLeader(stream, shard, leaderId, leaderEpoch, address);
    if (after == view) {
      log.debug("NOT_LEADER hint for {}/{} (broker {}, epoch {}) ignored: epoch {} is held", stream, shard,
          leaderId, leaderEpoch, heldEpoch);
      return HintOutcome.IGNORED;
    }
    view = after;
    return leaderEpoch > heldEpoch ? HintOutcome.NEWER_LEADER : HintOutcome.SAME_EPOCH;
  }

  /**
   * Produce requests to {@code silent} are overdue (see {@link LeaderWatch}): those brokers are asked for
   * metadata last until they answer again, and metadata of {@code streams} is read again.
   */
  void leadersSilent(Collection<HostPort> silent, Collection<String> streams) {
    synchronized (this) {
      unanswered.addAll(silent);
    }
    refresh(streams);
  }

  /** The stream's view, reading metadata first when the stream is new to this client. */
  CompletableFuture<ClusterView.StreamView> stream(String name) {
    ClusterView.StreamView known = view.stream(name);
    // An error (UNKNOWN_STREAM) is not cached: the stream may have been created since.
    if (known != null && known.error() == ErrorCode.NONE) {
      return CompletableFuture.completedFuture(known);
    }
    return streamAskingInTurn(name, settings.mode() == ClientMode.PLAIN ? 1 : settings.bootstrap().size());
  }

  /**
   * A stream the broker asked does not know may be new: tables reach brokers at their own pace, and a stream just
   * created can be unknown to one broker for a moment while the others lead its shards (CI, 2026-12-07: the
   * placement singleton's own broker applied the table 0.6 s after the others, and a client's first write failed at
   * once). Each read starts at the next bootstrap broker, so in cluster mode every bootstrap broker is asked in turn
   * before the stream counts as unknown; in plain mode the client's one broker decides.
   */
  private CompletableFuture<ClusterView.StreamView> streamAskingInTurn(String name, int asks) {
    return refresh(List.of(name)).thenCompose(v -> {
      ClusterView.StreamView s = v.stream(name);
      if (s == null) {
        throw FelixException.broker(Errors.of(ErrorCode.UNKNOWN_STREAM, "no metadata for stream " + name));
      }
      return s.error() == ErrorCode.UNKNOWN_STREAM && asks > 1 ? streamAskingInTurn(name, asks - 1)
          : CompletableFuture.completedFuture(s);
    });
  }

  /** Starts a refresh covering {@code streams} and every stream used so far, or joins one that covers them. */
  CompletableFuture<ClusterView> refresh(Collection<String> streams) {
    return refresh(streams, null);
  }

  /** The same, asking {@code first} before anyone else (cluster mode; null: the usual order). */
  synchronized CompletableFuture<ClusterView> refresh(Collection<String> streams, HostPort first) {
    wanted.addAll(streams);
    if (refreshing != null && !refreshing.isDone() && refreshingStreams.containsAll(wanted)
        && (first == null || first.equals(refreshingFirst))) {
      return refreshing;
    }
    Set<String> asked = Set.copyOf(wanted);
    CompletableFuture<ClusterView> result = read(asked, first).thenApply(r -> view);
    refreshing = result;
    refreshingStreams = asked;
    refreshingFirst = first;
    return result;
  }

  /**
   * Reads metadata for {@code streams} (every stream when empty) from the first broker that answers, applies it
   * to the view, and returns the answer.
   */
  CompletableFuture<MetadataResponse> read(Collection<String> streams) {
    return read(streams, null);
  }

  private synchronized CompletableFuture<MetadataResponse> read(Collection<String> streams, HostPort first) {
    Request.Builder request =
        Request.newBuilder().setMetadata(MetadataRequest.newBuilder().addAllStreams(streams));
    CompletableFuture<MetadataResponse> result = new CompletableFuture<>();
    new Read(candidates(first), request, result).askNext();
    return result;
  }

  /** Whom a metadata read asks, in order. */
  synchronized List<HostPort> candidates(HostPort first) {
    List<HostPort> bootstrap = settings.bootstrap();
    int n = bootstrap.size();
    if (settings.mode() == ClientMode.PLAIN) {
      // The current plain-mode broker first, then the other bootstrap addresses in turn.
      List<HostPort> rotated = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        rotated.add(bootstrap.get((plainIndex + i) % n));
      }
      return rotated;
    }
    Set<HostPort> ordered = new LinkedHashSet<>();
    if (first != null) {
      ordered.add(first);
    }
    int start = nextBootstrap;
    nextBootstrap = (nextBootstrap + 1) % n;
    for (int i = 0; i < n; i++) {
      ordered.add(bootstrap.get((start + i) % n));
    }
    view.brokerAddresses().forEach(ordered::add);
    List<HostPort> answering = new ArrayList<>();
    List<HostPort> silent = new ArrayList<>();
    for (HostPort h : ordered) {
      (unanswered.contains(h) && !Objects.equals(h, first) ? silent : answering).add(h);
    }
    answering.addAll(silent);
    return answering;
  }

  /** One metadata read: asks the candidates in order, the next one as soon as one fails or is slow. */
  private final class Read {
    private final List<HostPort> candidates;
    private final Request.Builder request;
    private final CompletableFuture<MetadataResponse> result;
    private int next;
    private int outstanding;
    private Throwable last;

    Read(List<HostPort> candidates, Request.Builder request, CompletableFuture<MetadataResponse> result) {
      this.candidates = candidates;
      this.request = request;
      this.result = result;
    }

    synchronized void askNext() {
      if (result.isDone()) {
        return;
      }
      if (next >= candidates.size()) {
        if (outstanding == 0) {
          FelixException cause = last == null
              ? FelixException.connectionFailed("no broker to ask for metadata", false)
              : FelixException.from(last);
          result.completeExceptionally(cause.withContext("metadata unavailable from " + candidates));
        }
        return;
      }
      HostPort target = candidates.get(next++);
      boolean[] movedOn = {false};
      ScheduledFuture<?> hedge;
      try {
        hedge = timer.schedule(() -> {
          synchronized (this) {
            movedOn[0] = true;
          }
          log.debug("no metadata from {} within {} ms; asking the next broker too", target, hedgeAfter.toMillis());
          markUnanswered(target, true);
          askNext();
        }, hedgeAfter.toNanos(), TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        result.completeExceptionally(FelixException.clientClosed("the client closed while reading metadata"));
        return;
      }
      outstanding++;
      connections.get(target)
          .thenCompose(c -> c.send(request.clone(), settings.requestTimeout()))
          .whenComplete((response, error) -> {
            hedge.cancel(false);
            if (error == null && !Errors.isError(response) && response.hasMetadata()) {
              applied(target, response);
              result.complete(response.getMetadata());
            }
            boolean askAnother;
            synchronized (this) {
              outstanding--;
              if (result.isDone()) {
                return;
              }
              last = error != null ? error : answerError(target, response);
              log.debug("metadata from {} failed: {}", target, last.getMessage());
              askAnother = !movedOn[0] || (outstanding == 0 && next >= candidates.size());
            }
            if (error != null) {
              markUnanswered(target, false);
            }
            if (askAnother) {
              askNext();
            }
          });
    }
  }

  /** @param silent the broker took the request and did not answer it in time (not merely a failed connection) */
  private synchronized void markUnanswered(HostPort target, boolean silent) {
    unanswered.add(target);
    if (silent && settings.mode() == ClientMode.PLAIN && plainTarget().equals(target)) {
      plainSilent = true;
    }
  }



  private static FelixException answerError(HostPort target, Response response) {
    return Errors.isError(response)
        ? FelixException.broker(response.getError())
        : FelixException.broker(Errors.of(ErrorCode.INVALID_REQUEST, target + " answered without metadata"));
  }

  private synchronized void applied(HostPort from, Response response) {
    unanswered.remove(from);
    if (settings.mode() == ClientMode.PLAIN) {
      int index = settings.bootstrap().indexOf(from);
      if (plainSilent && index >= 0 && index != plainIndex) {
        log.info("plain mode: {} took a metadata request and did not answer it; moving to {}", plainTarget(), from);
        plainIndex = index;
        plainFailures = 0;
        plainSilent = false;
      }
      answeredBy(from);
    }
    view = view.merge(response.getMetadata());
    refreshedAtNanos = System.nanoTime();
  }
}

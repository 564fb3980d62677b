package io.felix.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.felix.protocol.FrameCodec;
import io.felix.protocol.client.MetadataRequest;
import io.felix.protocol.client.MetadataResponse;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class ConnectionTest {
  private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
  private final List<AutoCloseable> closeables = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (AutoCloseable c : closeables) {
      c.close();
    }
    timer.shutdownNow();
  }

  private ScriptedBroker broker() throws Exception {
    ScriptedBroker b = new ScriptedBroker(1);
    closeables.add(b);
    return b;
  }

  private Connection connect(ScriptedBroker b, int maxInFlight) throws Exception {
    Connection c = Connection.open(b.address(), Duration.ofSeconds(5), null, FrameCodec.withDefaults(), maxInFlight, timer);
    closeables.add(c);
    return c;
  }

  /** A request tagged with a name (in the streams field), so answers can be told apart. */
  private static Request.Builder tagged(String tag) {
    return Request.newBuilder().setMetadata(MetadataRequest.newBuilder().addStreams(tag));
  }

  private static Response.Builder echo(Request r) {
    return Response.newBuilder().setMetadata(MetadataResponse.newBuilder()
        .setAssignmentVersion(r.getCorrelationId()).setBrokerId(r.getMetadata().getStreams(0).hashCode()));
  }

  @Test
  void answersInReverseOrderReachTheirOwnRequests() throws Exception {
    List<ScriptedBroker.Exchange> held = new ArrayList<>();
    ScriptedBroker b = broker().script(e -> {
      synchronized (held) {
        held.add(e);
        if (held.size() == 3) {
          for (int i = 2; i >= 0; i--) {
            held.get(i).reply(echo(held.get(i).request));
          }
        }
      }
    });
    Connection c = connect(b, 8);
    CompletableFuture<Response> a = c.send(tagged("a"), Duration.ofSeconds(5));
    CompletableFuture<Response> bb = c.send(tagged("b"), Duration.ofSeconds(5));
    CompletableFuture<Response> cc = c.send(tagged("c"), Duration.ofSeconds(5));
    assertEquals("a".hashCode(), a.join().getMetadata().getBrokerId());
    assertEquals("b".hashCode(), bb.join().getMetadata().getBrokerId());
    assertEquals("c".hashCode(), cc.join().getMetadata().getBrokerId());
    assertEquals(List.of(1L, 2L, 3L),
        List.of(a.join().getCorrelationId(), bb.join().getCorrelationId(), cc.join().getCorrelationId()));
  }

  @Test
  void requestsBeyondMaxInFlightWaitUntilAnAnswerFreesASlot() throws Exception {
    List<ScriptedBroker.Exchange> held = new ArrayList<>();
    ScriptedBroker b = broker().script(e -> {
      synchronized (held) {
        held.add(e);
      }
    });
    Connection c = connect(b, 2);
    CompletableFuture<Response> first = c.send(tagged("1"), Duration.ofSeconds(5));
    c.send(tagged("2"), Duration.ofSeconds(5));
    CompletableFuture<Response> third = c.send(tagged("3"), Duration.ofSeconds(5));
    assertEquals("1", b.nextRequest().getMetadata().getStreams(0));
    assertEquals("2", b.nextRequest().getMetadata().getStreams(0));
    assertNull(b.pollRequest(200), "the third request must wait while two are in flight");
    synchronized (held) {
      held.get(0).reply(echo(held.get(0).request));
    }
    first.join();
    assertEquals("3", b.nextRequest().getMetadata().getStreams(0));
    assertFalse(third.isDone());
  }

  @Test
  void unansweredRequestTimesOutAsWrittenAndALateAnswerIsIgnored() throws Exception {
    List<ScriptedBroker.Exchange> held = new ArrayList<>();
    ScriptedBroker b = broker().script(e -> {
      synchronized (held) {
        held.add(e);
        if (held.size() == 2) {
          // answer the timed-out request late, then the live one
          held.get(0).reply(echo(held.get(0).request));
          held.get(1).reply(echo(held.get(1).request));
        }
      }
    });
    Connection c = connect(b, 8);
    CompletableFuture<Response> slow = c.send(tagged("slow"), Duration.ofMillis(100));
    FelixException e = FelixException.from(assertThrowsCompletion(slow));
    assertEquals(FelixException.Kind.REQUEST_TIMEOUT, e.kind());
    assertFalse(e.notAppended(), "a written request that timed out may have been applied");
    CompletableFuture<Response> live = c.send(tagged("live"), Duration.ofSeconds(5));
    assertEquals("live".hashCode(), live.join().getMetadata().getBrokerId());
    assertTrue(c.isOpen());
  }

  @Test
  void droppedConnectionFailsEveryRequestOnItAndLaterSendsFailAtOnce() throws Exception {
    ScriptedBroker b = broker().script(e -> {
      if (e.request.getMetadata().getStreams(0).equals("drop")) {
        e.dropConnection();
      }
    });
    Connection c = connect(b, 8);
    CompletableFuture<Response> waiting = c.send(tagged("never answered"), Duration.ofSeconds(5));
    CompletableFuture<Response> dropping = c.send(tagged("drop"), Duration.ofSeconds(5));
    for (CompletableFuture<Response> f : List.of(waiting, dropping)) {
      FelixException e = FelixException.from(assertThrowsCompletion(f));
      assertEquals(FelixException.Kind.CONNECTION_FAILED, e.kind());
      assertFalse(e.notAppended());
    }
    FelixException after = FelixException.from(assertThrowsCompletion(c.send(tagged("x"), Duration.ofSeconds(1))));
    assertEquals(FelixException.Kind.CONNECTION_FAILED, after.kind());
    assertTrue(after.notAppended(), "a request never written certainly was not applied");
  }

  static Throwable assertThrowsCompletion(CompletableFuture<?> f) {
    try {
      f.join();
    } catch (CompletionException e) {
      return e.getCause();
    }
    throw new AssertionError("expected the future to fail, it completed with " + f.join());
  }
}

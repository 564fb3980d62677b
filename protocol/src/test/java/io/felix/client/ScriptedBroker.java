package io.felix.client;

import io.felix.protocol.FrameCodec;
import io.felix.protocol.client.BrokerAddress;
import io.felix.protocol.client.InitProducerIdResponse;
import io.felix.protocol.client.MetadataResponse;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import io.felix.protocol.client.ShardMetadata;
import io.felix.protocol.client.StreamMetadata;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A test peer that speaks the real framing over a real loopback socket and answers requests as the test's
 * script says: at once, later, out of order, never, or by dropping the connection. It records every request it
 * received, in arrival order. Not a broker: it stores nothing.
 */
final class ScriptedBroker implements AutoCloseable {
  /** Decides what happens to each request; runs on the connection's reader thread. */
  interface Script {
    void onRequest(Exchange exchange) throws IOException;
  }

  /** One request and the connection it came on. */
  static final class Exchange {
    final Request request;
    private final Socket socket;
    private final OutputStream out;

    Exchange(Request request, Socket socket, OutputStream out) {
      this.request = request;
      this.socket = socket;
      this.out = out;
    }

    /** Answers with the request's correlation id. */
    void reply(Response.Builder response) throws IOException {
      byte[] frame = CODEC.encode(response.setCorrelationId(request.getCorrelationId()).build());
      synchronized (out) {
        out.write(frame);
        out.flush();
      }
    }

    /** Closes the connection the request came on. */
    void dropConnection() throws IOException {
      socket.close();
    }
  }

  private static final FrameCodec CODEC = FrameCodec.withDefaults();
  /** The producer id broker {@code id} hands out is this plus its id. */
  static final long PRODUCER_ID_BASE = 7000;

  final int id;
  private final ServerSocket server;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final BlockingQueue<Request> received = new LinkedBlockingQueue<>();
  private volatile Script script = e -> {};

  ScriptedBroker(int id) throws IOException {
    this.id = id;
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread acceptor = new Thread(this::acceptLoop, "scripted-broker-" + id);
    acceptor.setDaemon(true);
    acceptor.start();
  }

  HostPort address() {
    return new HostPort("127.0.0.1", server.getLocalPort());
  }

  BrokerAddress brokerAddress() {
    return BrokerAddress.newBuilder().setId(id).setHost("127.0.0.1").setPort(server.getLocalPort()).build();
  }

  ScriptedBroker script(Script s) {
    this.script = s;
    return this;
  }

  /** The next request received, waiting up to 5 s; fails the test when none comes. */
  Request nextRequest() throws InterruptedException {
    Request r = received.poll(5, TimeUnit.SECONDS);
    if (r == null) {
      throw new AssertionError("broker " + id + " received no request within 5 s");
    }
    return r;
  }

  /** The next request if one arrives within {@code millis}, else null. */
  Request pollRequest(long millis) throws InterruptedException {
    return received.poll(millis, TimeUnit.MILLISECONDS);
  }

  int connectionCount() {
    return sockets.size();
  }

  private void acceptLoop() {
    try {
      while (true) {
        Socket s = server.accept();
        sockets.add(s);
        Thread t = new Thread(() -> serve(s), "scripted-broker-" + id + "-conn");
        t.setDaemon(true);
        t.start();
      }
    } catch (IOException e) {
      // server closed
    }
  }

  private void serve(Socket s) {
    try (s) {
      InputStream in = new BufferedInputStream(s.getInputStream());
      OutputStream out = s.getOutputStream();
      while (true) {
        byte[] body = CODEC.readFrame(in);
        if (body == null) {
          return;
        }
        Request request = CODEC.parseRequest(body);
        if (request.hasInitProducerId()) {
          // Idempotent producers ask once for an id; the scripts are about what follows.
          new Exchange(request, s, out).reply(Response.newBuilder().setInitProducerId(
              InitProducerIdResponse.newBuilder().setProducerId(PRODUCER_ID_BASE + id)));
          continue;
        }
        received.add(request);
        script.onRequest(new Exchange(request, s, out));
      }
    } catch (IOException e) {
      // connection closed by either side
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : sockets) {
      s.close();
    }
  }

  /** A metadata answer: one stream whose shard i is led by leaders[i]. */
  static Response.Builder metadata(String stream, List<BrokerAddress> brokers, int... leaders) {
    StreamMetadata.Builder s = StreamMetadata.newBuilder().setName(stream);
    for (int i = 0; i < leaders.length; i++) {
      s.addShards(ShardMetadata.newBuilder().setShard(i).setLeader(leaders[i]).setLeaderEpoch(1));
    }
    return Response.newBuilder().setMetadata(
        MetadataResponse.newBuilder().addAllBrokers(brokers).addStreams(s).setAssignmentVersion(1));
  }
}

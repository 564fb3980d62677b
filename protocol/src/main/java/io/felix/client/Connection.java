package io.felix.client;

import io.felix.protocol.FrameCodec;
import io.felix.protocol.Errors;
import io.felix.protocol.FrameException;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TCP connection to a broker carrying many requests at once. Each request gets a fresh correlation id;
 * answers are matched by id, in whatever order they come. At most {@code maxInFlight} requests are written and
 * unanswered; the rest wait here in order. Every request has its own timeout.
 *
 * <p>Threads: callers only enqueue. A writer thread writes frames (coalescing those queued together into one
 * flush); a reader thread reads answers and completes futures, so future callbacks run on the reader thread and
 * must not block. All bookkeeping is under this object's lock. When the connection fails every request on it
 * fails with a {@link FelixException} of kind CONNECTION_FAILED saying whether it had been written.
 */
final class Connection implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Connection.class);
  private static final byte[] STOP = new byte[0];

  private final HostPort address;
  private final Socket socket;
  private final FrameCodec codec;
  private final int maxInFlight;
  private final ScheduledExecutorService timer;
  private final BlockingQueue<byte[]> writes = new LinkedBlockingQueue<>();
  private final Map<Long, Pending> inFlight = new HashMap<>();
  private final ArrayDeque<Pending> waiting = new ArrayDeque<>();
  private long nextCorrelationId = 1;
  private boolean closed;

  private static final class Pending {
    final long correlationId;
    final byte[] frame;
    final CompletableFuture<Response> future = new CompletableFuture<>();
    ScheduledFuture<?> timeout;
    boolean written;

    Pending(long correlationId, byte[] frame) {
      this.correlationId = correlationId;
      this.frame = frame;
    }
  }

  private Connection(HostPort address, Socket socket, FrameCodec codec, int maxInFlight,
      ScheduledExecutorService timer) {
    this.address = address;
    this.socket = socket;
    this.codec = codec;
    this.maxInFlight = maxInFlight;
    this.timer = timer;
  }

  /**
   * Connects (blocking up to connectTimeout, the TLS handshake included when {@code tls} is given) and starts the
   * reader and writer threads.
   */
  static Connection open(HostPort address, Duration connectTimeout, SSLContext tls, FrameCodec codec,
      int maxInFlight, ScheduledExecutorService timer) throws IOException {
    Socket socket = new Socket();
    try {
      socket.setTcpNoDelay(true);
      socket.connect(new InetSocketAddress(address.host(), address.port()), (int) connectTimeout.toMillis());
      if (tls != null) {
        socket = handshake(tls, socket, address, connectTimeout);
      }
    } catch (IOException e) {
      socket.close();
      throw e;
    }
    Connection c = new Connection(address, socket, codec, maxInFlight, timer);
    c.start();
    return c;
  }

  /** TLS over the connected socket; the broker's certificate must name the host dialled (as HTTPS checks it). */
  private static Socket handshake(SSLContext tls, Socket plain, HostPort address, Duration timeout)
      throws IOException {
    SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket(plain, address.host(), address.port(), true);
    SSLParameters parameters = socket.getSSLParameters();
    parameters.setEndpointIdentificationAlgorithm("HTTPS");
    socket.setSSLParameters(parameters);
    socket.setSoTimeout((int) timeout.toMillis());
    try {
      socket.startHandshake();
    } catch (IOException e) {
      throw new IOException("TLS handshake with " + address + " failed: " + e.getMessage(), e);
    }
    socket.setSoTimeout(0);
    return socket;
  }

  HostPort address() {
    return address;
  }

  synchronized boolean isOpen() {
    return !closed;
  }

  /**
   * Sends a request (its correlation id is assigned here) and completes with the answer, or fails with a
   * {@link FelixException}: REQUEST_TIMEOUT after {@code timeout}, CONNECTION_FAILED when the connection breaks.
   */
  CompletableFuture<Response> send(Request.Builder request, Duration timeout) {
    Pending p;
    synchronized (this) {
      if (closed) {
        return CompletableFuture.failedFuture(
            FelixException.connectionFailed("connection to " + address + " is closed", false));
      }
      long id = nextCorrelationId++;
      byte[] frame;
      try {
        frame = codec.encode(request.setCorrelationId(id).build());
      } catch (FrameException e) {
        return CompletableFuture.failedFuture(new IllegalArgumentException(e.getMessage(), e));
      }
      p = new Pending(id, frame);
      Pending pending = p;
      p.timeout = timer.schedule(() -> onTimeout(pending, timeout), timeout.toNanos(), TimeUnit.NANOSECONDS);
      if (inFlight.size() < maxInFlight) {
        write(p);
      } else {
        waiting.add(p);
      }
    }
    return p.future;
  }

  private void write(Pending p) {
    inFlight.put(p.correlationId, p);
    p.written = true;
    writes.add(p.frame);
  }

  private void onTimeout(Pending p, Duration timeout) {
    boolean written;
    synchronized (this) {
      if (inFlight.remove(p.correlationId) == null && !waiting.remove(p)) {
        return;
      }
      written = p.written;
      promoteWaiting();
    }
    p.future.completeExceptionally(FelixException.requestTimeout(
        "no answer from " + address + " within " + timeout.toMillis() + " ms", written));
  }

  private void promoteWaiting() {
    while (!closed && inFlight.size() < maxInFlight && !waiting.isEmpty()) {
      write(waiting.poll());
    }
  }

  private void start() throws IOException {
    InputStream in = new BufferedInputStream(socket.getInputStream(), 64 * 1024);
    OutputStream out = new BufferedOutputStream(socket.getOutputStream(), 64 * 1024);
    Thread reader = new Thread(() -> readLoop(in), "felix-client-reader-" + address);
    Thread writer = new Thread(() -> writeLoop(out), "felix-client-writer-" + address);
    reader.setDaemon(true);
    writer.setDaemon(true);
    reader.start();
    writer.start();
  }

  private void readLoop(InputStream in) {
    try {
      while (true) {
        byte[] body = codec.readFrame(in);
        if (body == null) {
          fail("broker " + address + " closed the connection");
          return;
        }
        Response response = codec.parseResponse(body);
        if (response.getCorrelationId() == 0 && Errors.isError(response)) {
          // Correlation ids start at 1: id 0 is the broker speaking about the connection itself before it closes it
          // (a frame too large, a plaintext connection to a TLS listener): its message is the reason to report.
          fail("broker " + address + " closed the connection: " + response.getError().getMessage());
          return;
        }
        Pending p;
        synchronized (this) {
          p = inFlight.remove(response.getCorrelationId());
          promoteWaiting();
        }
        if (p == null) {
          // Normal after a request timed out here: its late answer has nobody waiting.
          log.debug("answer from {} for correlation id {} that is no longer waited for", address,
              response.getCorrelationId());
          continue;
        }
        p.timeout.cancel(false);
        p.future.complete(response);
      }
    } catch (IOException e) {
      fail("connection to " + address + " failed: " + e.getMessage());
    }
  }

  private void writeLoop(OutputStream out) {
    try {
      while (true) {
        byte[] frame = writes.take();
        while (frame != null) {
          if (frame == STOP) {
            return;
          }
          out.write(frame);
          frame = writes.poll();
        }
        out.flush();
      }
    } catch (IOException e) {
      fail("writing to " + address + " failed: " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void fail(String reason) {
    List<Pending> failed = new ArrayList<>();
    synchronized (this) {
      if (closed) {
        return;
      }
      closed = true;
      failed.addAll(inFlight.values());
      failed.addAll(waiting);
      inFlight.clear();
      waiting.clear();
    }
    writes.add(STOP);
    try {
      socket.close();
    } catch (IOException e) {
      log.debug("closing socket to {}: {}", address, e.getMessage());
    }
    if (!failed.isEmpty()) {
      log.info("{}; failing {} request(s) in flight", reason, failed.size());
    }
    for (Pending p : failed) {
      if (p.timeout != null) {
        p.timeout.cancel(false);
      }
      p.future.completeExceptionally(FelixException.connectionFailed(reason, p.written));
    }
  }

  @Override
  public void close() {
    fail("connection to " + address + " closed by the client");
  }
}

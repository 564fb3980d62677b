package io.felix.broker;

import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.util.concurrent.atomic.AtomicLong;

/** A blocking client-protocol connection for tests that need to send exact bytes (bad frames) or see raw answers. */
final class RawClient implements AutoCloseable {
  private final Socket socket;
  private final DataInputStream in;
  private final DataOutputStream out;
  private final AtomicLong correlation = new AtomicLong();

  RawClient(String host, int port) throws IOException {
    this(host, port, null);
  }

  /** Connects from {@code localAddress} (e.g. 127.0.0.2, to look like another client host), or any when null. */
  RawClient(String host, int port, String localAddress) throws IOException {
    socket = localAddress == null ? new Socket(host, port)
        : new Socket(host, port, java.net.InetAddress.getByName(localAddress), 0);
    socket.setSoTimeout(20_000);
    in = new DataInputStream(socket.getInputStream());
    out = new DataOutputStream(socket.getOutputStream());
  }

  /** Sends one request and returns its answer (one request at a time on this connection). */
  Response call(Request.Builder request) throws IOException {
    long id = correlation.incrementAndGet();
    sendFrame(request.setCorrelationId(id).build().toByteArray());
    Response response = read();
    if (response.getCorrelationId() != id) {
      throw new IOException("answer for correlation id " + response.getCorrelationId() + ", expected " + id);
    }
    return response;
  }

  void sendFrame(byte[] body) throws IOException {
    out.writeInt(body.length);
    out.write(body);
    out.flush();
  }

  void sendRaw(byte[] bytes) throws IOException {
    out.write(bytes);
    out.flush();
  }

  Response read() throws IOException {
    int length = in.readInt();
    byte[] body = new byte[length];
    in.readFully(body);
    return Response.parseFrom(body);
  }

  /** True when the broker closed the connection (reading hits the end of the stream). */
  boolean closedByPeer() throws IOException {
    try {
      return in.read() == -1;
    } catch (EOFException | SocketException e) {
      return true;
    }
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}

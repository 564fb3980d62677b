package io.felix.client;

import io.felix.protocol.FrameCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/**
 * One {@link Connection} per broker address, opened on first use off the caller's thread and replaced when it
 * breaks. Thread-safe.
 */
final class BrokerConnections implements AutoCloseable {
  private final ClientSettings settings;
  private final FrameCodec codec;
  private final ScheduledExecutorService timer;
  private final ExecutorService connector;
  private final Map<HostPort, CompletableFuture<Connection>> connections = new HashMap<>();
  private boolean closed;

  BrokerConnections(ClientSettings settings, ScheduledExecutorService timer) {
    this.settings = settings;
    this.codec = new FrameCodec(settings.maxFrameBytes());
    this.timer = timer;
    this.connector = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "felix-client-connect");
      t.setDaemon(true);
      return t;
    });
  }

  /** The open connection to {@code address}, connecting when there is none; fails with CONNECTION_FAILED. */
  synchronized CompletableFuture<Connection> get(HostPort address) {
    if (closed) {
      return CompletableFuture.failedFuture(FelixException.clientClosed("the client is closed"));
    }
    CompletableFuture<Connection> current = connections.get(address);
    if (current != null && (!current.isDone() || usable(current))) {
      return current;
    }
    CompletableFuture<Connection> opening = CompletableFuture.supplyAsync(() -> {
      try {
        Connection connection = Connection.open(address, settings.connectTimeout(), settings.tls(), codec,
            settings.maxInFlightPerConnection(), timer);
        if (settings.credentials() != null) {
          ScramHandshake.run(connection, settings.credentials(), settings.requestTimeout());
        }
        return connection;
      } catch (IOException e) {
        throw FelixException.connectionFailed("cannot connect to " + address + ": " + e.getMessage(), false);
      }
    }, connector);
    connections.put(address, opening);
    return opening;
  }

  private static boolean usable(CompletableFuture<Connection> f) {
    return !f.isCompletedExceptionally() && f.join().isOpen();
  }

  @Override
  public void close() {
    List<CompletableFuture<Connection>> all;
    synchronized (this) {
      closed = true;
      all = new ArrayList<>(connections.values());
      connections.clear();
    }
    for (CompletableFuture<Connection> f : all) {
      f.thenAccept(Connection::close);
    }
    connector.shutdown();
  }
}

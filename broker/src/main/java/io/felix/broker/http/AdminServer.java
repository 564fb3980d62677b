package io.felix.broker.http;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.typed.ActorSystem;
import io.felix.broker.tls.TlsSettings;
import org.apache.pekko.http.javadsl.ConnectionContext;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBuilder;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Binds the admin routes on {@code felix.http.host:port}; {@link #port()} is the bound port (port 0 in tests). */
public final class AdminServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(AdminServer.class);

  private final ServerBinding binding;

  private AdminServer(ServerBinding binding) {
    this.binding = binding;
  }

  public static AdminServer bind(ActorSystem<?> system, HttpSettings settings, AdminRoutes routes) {
    return bind(system, settings, TlsSettings.off(), routes);
  }

  /** As above, serving HTTPS only under felix.tls. */
  public static AdminServer bind(ActorSystem<?> system, HttpSettings settings, TlsSettings tls, AdminRoutes routes) {
    try {
      ServerBuilder server = Http.get(system).newServerAt(settings.host(), settings.port());
      if (tls.enabled()) {
        server = server.enableHttps(ConnectionContext.httpsServer(tls::clientFacingEngine));
      }
      ServerBinding binding = server
          .bind(routes.routes())
          .toCompletableFuture().get(10, TimeUnit.SECONDS);
      log.info("Admin HTTP API listening on {}{}", binding.localAddress(), tls.enabled() ? " (HTTPS)" : "");
      return new AdminServer(binding);
    } catch (Exception e) {
      throw new IllegalStateException("cannot bind the admin HTTP API on " + settings.host() + ":" + settings.port()
          + ": " + e.getMessage(), e);
    }
  }

  public int port() {
    return binding.localAddress().getPort();
  }

  @Override
  public void close() {
    try {
      binding.terminate(Duration.ofSeconds(2)).toCompletableFuture().get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      log.warn("Admin HTTP API did not stop cleanly: {}", e.toString());
    }
  }
}

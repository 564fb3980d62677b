package io.felix.broker.tls;

import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.remote.artery.tcp.SSLEngineProvider;
import scala.Option;

/**
 * Artery's {@code tls-tcp} engines from {@code felix.tls} (set as pekko.remote.artery.ssl.ssl-engine-provider by
 * NodeConfig), so Artery uses the same key material as the other listeners, PEM or PKCS12. Mutual: both ends
 * present a certificate signed by the cluster CA, and each must name a broker, so a client certificate from the
 * same CA cannot join the cluster.
 */
public final class ArteryTlsEngines implements SSLEngineProvider {
  private final TlsSettings settings;

  /** Pekko calls this constructor (a public one taking the ActorSystem). */
  public ArteryTlsEngines(ActorSystem system) {
    this.settings = TlsSettings.fromConfig(system.settings().config());
  }

  @Override
  public SSLEngine createServerSSLEngine(String hostname, int port) {
    return settings.brokerServerEngine();
  }

  @Override
  public SSLEngine createClientSSLEngine(String hostname, int port) {
    return settings.brokerClientEngine(hostname, port);
  }

  @Override
  public Option<Throwable> verifyClientSession(String hostname, SSLSession session) {
    return brokerOnly(session);
  }

  @Override
  public Option<Throwable> verifyServerSession(String hostname, SSLSession session) {
    return brokerOnly(session);
  }

  private static Option<Throwable> brokerOnly(SSLSession session) {
    try {
      PeerCertificates.requireBroker(session);
      return Option.empty();
    } catch (PeerRefusedException e) {
      return Option.apply(e);
    }
  }
}

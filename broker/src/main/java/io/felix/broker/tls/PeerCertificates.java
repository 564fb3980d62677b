package io.felix.broker.tls;

import io.felix.broker.assignment.BrokerRole;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.OptionalInt;
import java.util.Set;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * Which broker a TLS peer is: a broker's certificate (signed by the cluster CA, which the handshake checked) has
 * the common name {@code broker-N}, as {@code felix certs create} writes it. A client certificate from the same CA
 * names no broker, so it opens neither a replication connection nor an Artery one.
 */
public final class PeerCertificates {
  private PeerCertificates() {}

  /** The broker id the peer's certificate names; empty when it names none (or the peer sent no certificate). */
  public static OptionalInt brokerId(SSLSession session) {
    String name = commonName(session);
    return name == null ? OptionalInt.empty() : BrokerRole.idOf(Set.of(name));
  }

  /** The peer certificate's common name, or null. */
  public static String commonName(SSLSession session) {
    try {
      Certificate[] chain = session.getPeerCertificates();
      if (chain.length == 0 || !(chain[0] instanceof X509Certificate leaf)) {
        return null;
      }
      for (Rdn rdn : new LdapName(leaf.getSubjectX500Principal().getName()).getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) {
          return rdn.getValue().toString();
        }
      }
      return null;
    } catch (SSLPeerUnverifiedException | InvalidNameException e) {
      return null;
    }
  }

  /** Throws {@link PeerRefusedException} (ending the handshake) unless the peer's certificate names a broker. */
  public static int requireBroker(SSLSession session) {
    OptionalInt id = brokerId(session);
    if (id.isEmpty()) {
      throw new PeerRefusedException("the peer's certificate (CN=" + commonName(session)
          + ") names no broker (CN=broker-N)");
    }
    return id.getAsInt();
  }
}

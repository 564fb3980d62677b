package io.felix.broker.tls;

/** Whether a TLS listener for clients (the client listener, the admin API) asks for a client certificate. */
public enum TlsClientAuth {
  /** No client certificate is asked for. */
  NONE,
  /** A client may present a certificate; it must then be signed by the CA. */
  REQUESTED,
  /** A client must present a certificate signed by the CA. */
  REQUIRED
}

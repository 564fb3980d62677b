package io.felix.broker.tls;

import java.util.function.Consumer;
import java.util.function.Supplier;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSession;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.TLSClosing;
import org.apache.pekko.stream.TLSProtocol;
import org.apache.pekko.stream.javadsl.BidiFlow;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.TLS;
import org.apache.pekko.util.ByteString;

/**
 * TLS at the byte-stream layer of a Pekko Streams TCP connection: what a listener or a dialler did over plain bytes
 * it does unchanged over the decrypted ones. {@code verify} sees the session once the handshake is done and before
 * any application byte passes; it refuses the peer by throwing (the connection then fails).
 */
public final class TlsFlows {
  /** The first byte of every TLS record that opens a connection (a handshake record, RFC 8446 5.1). */
  private static final byte HANDSHAKE_RECORD = 0x16;

  private TlsFlows() {}

  /** Plain bytes on top, network bytes below: (app out, net out, net in, app in). */
  private static BidiFlow<ByteString, ByteString, ByteString, ByteString, NotUsed> tls(Supplier<SSLEngine> engine,
      Consumer<SSLSession> verify) {
    BidiFlow<ByteString, TLSProtocol.SslTlsOutbound, TLSProtocol.SslTlsInbound, ByteString, NotUsed> bytes =
        BidiFlow.fromFlows(
            Flow.<ByteString>create().map(b -> (TLSProtocol.SslTlsOutbound) new TLSProtocol.SendBytes(b)),
            Flow.<TLSProtocol.SslTlsInbound>create()
                .collectType(TLSProtocol.SessionBytes.class)
                .map(TLSProtocol.SessionBytes::bytes));
    return bytes.atop(TLS.create(engine, verify, TLSClosing.eagerClose()));
  }

  /** A server connection's flow (network bytes in and out) that runs {@code app} over TLS. */
  public static <M> Flow<ByteString, ByteString, M> server(Flow<ByteString, ByteString, M> app,
      Supplier<SSLEngine> engine, Consumer<SSLSession> verify) {
    return tls(engine, verify).reversed().join(app, (NotUsed tlsMat, M appMat) -> appMat);
  }

  /** A dialled connection ({@code network}: bytes to and from the peer) as a flow of plain bytes. */
  public static <M> Flow<ByteString, ByteString, M> client(Flow<ByteString, ByteString, M> network,
      Supplier<SSLEngine> engine, Consumer<SSLSession> verify) {
    return tls(engine, verify).join(network, (NotUsed tlsMat, M networkMat) -> networkMat);
  }

  /**
   * A server connection that speaks TLS only: one whose first bytes are not a TLS handshake (a plaintext client)
   * gets {@code plaintextAnswer} in the clear and is closed, so that client can say what went wrong.
   */
  public static Flow<ByteString, ByteString, NotUsed> serverOnly(Flow<ByteString, ByteString, NotUsed> tlsConnection,
      Supplier<ByteString> plaintextAnswer) {
    return Flow.<ByteString>create()
        .prefixAndTail(1)
        .flatMapConcat(firstAndRest -> {
          if (firstAndRest.first().isEmpty()) {
            return Source.<ByteString>empty();
          }
          ByteString first = firstAndRest.first().get(0);
          Source<ByteString, NotUsed> all = Source.single(first).concat(firstAndRest.second());
          if (first.apply(0) != HANDSHAKE_RECORD) {
            return Source.single(plaintextAnswer.get());
          }
          return all.via(tlsConnection);
        });
  }
}

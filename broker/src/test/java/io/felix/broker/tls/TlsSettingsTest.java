package io.felix.broker.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import io.felix.launcher.CertificateAuthority;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** felix.tls read from config: off by default; on with PEM or PKCS12 files; every mistake named. */
class TlsSettingsTest {
  @TempDir
  Path dir;

  private static Config config(Map<String, Object> tls) {
    return ConfigFactory.parseMap(tls).withFallback(ConfigFactory.defaultReference()).resolve();
  }

  @Test
  void offByDefault() {
    TlsSettings settings = TlsSettings.fromConfig(ConfigFactory.defaultReference());
    assertFalse(settings.enabled());
    assertEquals(TlsClientAuth.NONE, settings.clientAuth());
  }

  @Test
  void readsPemAndPkcs12KeysAndNamesEveryMistake() throws Exception {
    CertificateAuthority ca = CertificateAuthority.create("test CA");
    ca.writeCa(dir);
    ca.issue(dir, "broker-0", List.of("127.0.0.1"), "pw".toCharArray());

    Map<String, Object> pem = new HashMap<>(Map.of("felix.tls.enabled", "on",
        "felix.tls.certificate-file", dir.resolve("broker-0.crt").toString(),
        "felix.tls.private-key-file", dir.resolve("broker-0.key").toString(),
        "felix.tls.ca-file", dir.resolve("ca.crt").toString(),
        "felix.tls.client-auth", "required"));
    TlsSettings fromPem = TlsSettings.fromConfig(config(pem));
    assertTrue(fromPem.enabled());
    assertTrue(fromPem.clientFacingEngine().getNeedClientAuth(), "client-auth = required");

    Map<String, Object> p12 = new HashMap<>(Map.of("felix.tls.enabled", "on",
        "felix.tls.key-store-file", dir.resolve("broker-0.p12").toString(), "felix.tls.key-store-password", "pw",
        "felix.tls.ca-file", dir.resolve("ca.crt").toString()));
    assertTrue(TlsSettings.fromConfig(config(p12)).brokerServerEngine().getNeedClientAuth(), "brokers: mutual TLS");

    p12.put("felix.tls.key-store-password", "wrong");
    assertMessage(p12, "cannot open the PKCS12 keystore");
    Map<String, Object> noKey = new HashMap<>(Map.of("felix.tls.enabled", "on",
        "felix.tls.ca-file", dir.resolve("ca.crt").toString()));
    assertMessage(noKey, "felix.tls.enabled = on needs the broker's key");
    pem.put("felix.tls.ca-file", dir.resolve("missing.crt").toString());
    assertMessage(pem, "felix.tls.ca-file names " + dir.resolve("missing.crt"));
    pem.put("felix.tls.ca-file", dir.resolve("ca.crt").toString());
    pem.put("felix.tls.private-key-file", dir.resolve("ca.crt").toString());
    assertMessage(pem, "holds no unencrypted PKCS#8 key");
    pem.put("felix.tls.private-key-file", dir.resolve("broker-0.key").toString());
    pem.put("felix.tls.client-auth", "sometimes");
    assertMessage(pem, "felix.tls.client-auth must be none, requested or required");
  }

  private static void assertMessage(Map<String, Object> tls, String expected) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> TlsSettings.fromConfig(config(tls)));
    assertTrue(e.getMessage().contains(expected), "expected '" + expected + "' in: " + e.getMessage());
  }
}

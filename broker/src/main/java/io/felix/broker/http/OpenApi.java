package io.felix.broker.http;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;

/** GET /v1/openapi.json: the admin API described in OpenAPI 3.0 (the resource openapi.json beside this class). */
final class OpenApi {
  private static final byte[] DOCUMENT = load();

  private OpenApi() {}

  static byte[] document() {
    return DOCUMENT;
  }

  private static byte[] load() {
    try (InputStream in = OpenApi.class.getResourceAsStream("openapi.json")) {
      if (in == null) {
        throw new IllegalStateException("openapi.json is missing from the broker's classpath");
      }
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

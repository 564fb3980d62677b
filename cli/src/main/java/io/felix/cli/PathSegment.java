package io.felix.cli;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/** A name put into an admin API path, percent-encoded so that any name reaches the broker intact. */
final class PathSegment {
  private PathSegment() {}

  static String encode(String name) {
    return URLEncoder.encode(name, StandardCharsets.UTF_8).replace("+", "%20");
  }
}

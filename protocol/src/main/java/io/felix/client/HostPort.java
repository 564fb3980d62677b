package io.felix.client;

import java.util.ArrayList;
import java.util.List;

/** A broker's client address. */
public record HostPort(String host, int port) {
  public HostPort {
    if (host == null || host.isBlank()) {
      throw new IllegalArgumentException("host must not be empty");
    }
    if (port < 1 || port > 65535) {
      throw new IllegalArgumentException("port must be in 1..65535, got " + port);
    }
  }

  /** Parses "host:port". */
  public static HostPort parse(String text) {
    int colon = text == null ? -1 : text.lastIndexOf(':');
    if (colon <= 0 || colon == text.length() - 1) {
      throw new IllegalArgumentException("address must be host:port, got '" + text + "'");
    }
    int port;
    try {
      port = Integer.parseInt(text.substring(colon + 1));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("address must be host:port with a numeric port, got '" + text + "'");
    }
    return new HostPort(text.substring(0, colon), port);
  }

  /** Parses a comma-separated list "h1:p1,h2:p2". */
  public static List<HostPort> parseList(String text) {
    List<HostPort> out = new ArrayList<>();
    for (String part : text.split(",")) {
      if (!part.isBlank()) {
        out.add(parse(part.trim()));
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("address list is empty: '" + text + "'");
    }
    return List.copyOf(out);
  }

  @Override
  public String toString() {
    return host + ":" + port;
  }
}

package io.felix.cli;

import io.felix.client.HostPort;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One broker's admin API as {@code --admin} names it: {@code HOST:PORT}, {@code http://HOST:PORT} or
 * {@code https://HOST:PORT}. Without a scheme the API is called over HTTPS when a CA is given ({@code --tls-ca}),
 * else over plain HTTP.
 */
public record AdminAddress(Scheme scheme, String host, int port) {

  /** How the API is reached. */
  public enum Scheme {
    /** No scheme given: HTTPS with a CA, else HTTP. */
    UNSPECIFIED,
    HTTP,
    HTTPS
  }

  /** {@code HOST:PORT[,...]}, each optionally with {@code http://} or {@code https://} (a trailing / is allowed). */
  public static List<AdminAddress> parseList(String value) {
    List<AdminAddress> out = new ArrayList<>();
    for (String item : value.split(",")) {
      String text = item.trim();
      Scheme scheme = Scheme.UNSPECIFIED;
      String lower = text.toLowerCase(Locale.ROOT);
      if (lower.startsWith("https://")) {
        scheme = Scheme.HTTPS;
        text = text.substring("https://".length());
      } else if (lower.startsWith("http://")) {
        scheme = Scheme.HTTP;
        text = text.substring("http://".length());
      } else if (lower.contains("://")) {
        throw new IllegalArgumentException("the admin API is http:// or https://, got '" + item.trim() + "'");
      }
      if (text.endsWith("/")) {
        text = text.substring(0, text.length() - 1);
      }
      if (text.contains("/")) {
        throw new IllegalArgumentException("give the admin API's address without a path, got '" + item.trim() + "'");
      }
      HostPort hostPort = HostPort.parse(text);
      out.add(new AdminAddress(scheme, hostPort.host(), hostPort.port()));
    }
    return out;
  }

  /** Whether the API is called over HTTPS, given whether a CA was named. */
  public boolean https(boolean caGiven) {
    return scheme == Scheme.HTTPS || scheme == Scheme.UNSPECIFIED && caGiven;
  }

  @Override
  public String toString() {
    return (scheme == Scheme.UNSPECIFIED ? "" : scheme.name().toLowerCase(Locale.ROOT) + "://") + host + ":" + port;
  }
}

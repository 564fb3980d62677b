package io.felix.broker.http;

import static org.apache.pekko.http.javadsl.server.Directives.concat;
import static org.apache.pekko.http.javadsl.server.Directives.get;
import static org.apache.pekko.http.javadsl.server.Directives.getFromResource;
import static org.apache.pekko.http.javadsl.server.Directives.getFromResourceDirectory;
import static org.apache.pekko.http.javadsl.server.Directives.pathPrefix;
import static org.apache.pekko.http.javadsl.server.Directives.pathSingleSlash;

import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * The web console: {@code GET /} serves its page and {@code /console/*} its script and style sheet, all from the
 * broker jar ({@code resources/console}), so a browser beside a cluster needs nothing from the internet. The page
 * is plain HTML, CSS and one JavaScript module, with no build step: it only reads and calls the public admin API.
 */
final class ConsoleRoute {

  private static final String RESOURCES = "console";

  private ConsoleRoute() {}

  /** Whether the path is the console's page or one of its assets (static files, no cluster data). */
  static boolean serves(String path) {
    return path.equals("/") || path.startsWith("/" + RESOURCES + "/");
  }

  static Route create() {
    // The path first, then the method: a get() that passes cancels the method rejections of every other route,
    // so wrapped around all of them it would turn "405 method not allowed" on /v1/... into 404.
    return concat(
        pathSingleSlash(() -> get(() -> getFromResource(RESOURCES + "/index.html", ContentTypes.TEXT_HTML_UTF8))),
        pathPrefix(RESOURCES, () -> get(() -> getFromResourceDirectory(RESOURCES))));
  }
}

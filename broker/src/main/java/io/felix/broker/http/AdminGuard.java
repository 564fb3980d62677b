package io.felix.broker.http;

import io.felix.broker.security.AclEntry;
import io.felix.broker.security.BrokerSecurity;
import io.felix.broker.security.Operation;
import io.felix.broker.security.ResourceType;
import io.felix.broker.security.SecuritySettings;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.model.HttpMethods;
import org.apache.pekko.http.javadsl.model.HttpRequest;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * Admin API authentication and authorization (felix.security.admin-authentication, .authorization). With
 * authentication on, every path but /health and /ready (which supervisors and load balancers poll) needs
 * {@code Authorization: Bearer <token>}; a missing or unknown token is answered 401. The console's page and
 * assets ({@link ConsoleRoute}) are open too: they hold no data, and the page asks for a token on a 401. With
 * authorization on, the principal needs an ACL on the cluster: {@code describe} for reads, {@code alter} for
 * changes, {@code admin} for users and ACLs (/v1/users, /v1/acls); otherwise 403. Both answers are the API's JSON
 * errors and change nothing.
 */
final class AdminGuard extends AllDirectives {
  private static final Set<String> OPEN_PATHS = Set.of("/health", "/ready");

  private final BrokerSecurity security;
  private final AdminRequests requests;

  AdminGuard(ActorSystem<?> system, AdminRequests requests) {
    this.security = BrokerSecurity.of(system);
    this.requests = requests;
  }

  Route guard(Supplier<Route> inner) {
    SecuritySettings settings = security.settings();
    if (!settings.adminAuthentication() && !settings.authorization()) {
      return inner.get();
    }
    return extractRequest(request -> {
      String path = request.getUri().path();
      if (OPEN_PATHS.contains(path) || ConsoleRoute.serves(path)) {
        return inner.get();
      }
      Optional<String> principal = settings.adminAuthentication() ? bearer(request).flatMap(security::adminPrincipal)
          : Optional.of(BrokerSecurity.ANONYMOUS);
      if (principal.isEmpty()) {
        return respondWithHeader(RawHeader.create("WWW-Authenticate", "Bearer realm=\"felix\""), () ->
            requests.error(StatusCodes.UNAUTHORIZED, bearer(request).isPresent()
                ? "the bearer token is not valid on this cluster"
                : "this admin API needs authentication: send 'Authorization: Bearer <token>'"));
      }
      Operation needed = needed(request, path);
      if (!security.authorized(principal.get(), ResourceType.CLUSTER, AclEntry.CLUSTER_NAME, needed)) {
        return requests.error(StatusCodes.FORBIDDEN, "principal '" + principal.get() + "' may not "
            + needed.wireName() + " the cluster (" + request.method().value() + " " + path
            + "): no ACL allows it; nothing was done");
      }
      return inner.get();
    });
  }

  private static Operation needed(HttpRequest request, String path) {
    if (path.startsWith("/v1/users") || path.startsWith("/v1/acls")) {
      return Operation.ADMIN;
    }
    return request.method().equals(HttpMethods.GET) || request.method().equals(HttpMethods.HEAD)
        ? Operation.DESCRIBE : Operation.ALTER;
  }

  private static Optional<String> bearer(HttpRequest request) {
    return request.getHeader("Authorization").map(h -> h.value())
        .filter(v -> v.regionMatches(true, 0, "Bearer ", 0, 7)).map(v -> v.substring(7).strip())
        .filter(v -> !v.isEmpty());
  }
}

package io.felix.broker.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.felix.broker.control.PlacementController;
import io.felix.broker.security.AclEntry;
import io.felix.broker.security.BrokerSecurity;
import io.felix.broker.security.Operation;
import io.felix.broker.security.ResourceType;
import io.felix.broker.security.SecurityEvent;
import io.felix.broker.security.SecurityState;
import io.felix.protocol.scram.Scram;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Map;
import java.util.function.Function;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * /v1/users and /v1/acls: SCRAM users, their admin tokens, and ACLs. Passwords arrive here and go no further: this
 * broker salts and iterates them into a SCRAM credential, and only that travels to the placement singleton and its
 * journal; an issued token is shown once and stored as its hash. Reads answer from this broker's copy of the state
 * the singleton pushes, so a change shows a moment after its 201.
 */
final class SecurityRoutes extends AllDirectives {
  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
  private static final SecureRandom RANDOM = new SecureRandom();

  private final BrokerSecurity security;
  private final AdminRequests requests;

  SecurityRoutes(ActorSystem<?> system, AdminRequests requests) {
    this.security = BrokerSecurity.of(system);
    this.requests = requests;
  }

  Route routes() {
    return concat(
        path("users", () -> concat(
            get(() -> requests.ok(users(security.state()))),
            post(() -> requests.body(this::createUser)))),
        path(PathMatchers.segment("users").slash(PathMatchers.segment()), name ->
            delete(() -> requests.command(StatusCodes.NO_CONTENT,
                r -> new PlacementController.ChangeSecurity(new SecurityEvent.UserDeleted(name), r)))),
        path(PathMatchers.segment("users").slash(PathMatchers.segment()).slash("tokens"), this::issueToken),
        path("acls", () -> concat(
            get(() -> requests.ok(acls(security.state()))),
            post(() -> requests.body(body -> acl(body, SecurityEvent.AclAdded::new))),
            delete(() -> parameterMap(query -> acl(queryBody(query), SecurityEvent.AclRemoved::new))))));
  }

  /** POST /v1/users {"name": "...", "password": "..."}: creates the user, or sets a new password. */
  private Route createUser(JsonNode body) {
    AdminRequests.onlyFields(body, "name", "password");
    String name = AdminRequests.text(body, "name");
    String password = AdminRequests.text(body, "password");
    if (password.length() < 8) {
      return requests.error(StatusCodes.BAD_REQUEST, "password: must have at least 8 characters");
    }
    SecurityEvent change = new SecurityEvent.UserCredentialSet(name,
        Scram.newCredential(password, security.settings().scramIterations()));
    return requests.command(StatusCodes.CREATED, r -> new PlacementController.ChangeSecurity(change, r));
  }

  /** POST /v1/users/{name}/tokens: a new bearer token for the user, shown in this answer only. */
  private Route issueToken(String user) {
    return post(() -> {
      byte[] bytes = new byte[32];
      RANDOM.nextBytes(bytes);
      String token = Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
      SecurityEvent change = new SecurityEvent.TokenIssued(user, BrokerSecurity.tokenHash(token));
      return requests.command(StatusCodes.CREATED, "; token: " + token,
          r -> new PlacementController.ChangeSecurity(change, r));
    });
  }

  /** POST or DELETE /v1/acls: the ACL named by the body or the query; a bad field or an unknown name is a 400. */
  private Route acl(JsonNode body, Function<AclEntry, SecurityEvent> change) {
    return requests.checked(() -> {
      SecurityEvent event = change.apply(aclEntry(body));
      return requests.command(event instanceof SecurityEvent.AclAdded ? StatusCodes.CREATED : StatusCodes.NO_CONTENT,
          r -> new PlacementController.ChangeSecurity(event, r));
    });
  }

  private static AclEntry aclEntry(JsonNode body) {
    AdminRequests.onlyFields(body, "principal", "resource_type", "resource_name", "operation");
    try {
      ResourceType type = ResourceType.fromWire(AdminRequests.text(body, "resource_type"));
      return new AclEntry(AdminRequests.text(body, "principal"), type,
          type == ResourceType.CLUSTER ? AclEntry.CLUSTER_NAME : AdminRequests.text(body, "resource_name"),
          Operation.fromWire(AdminRequests.text(body, "operation")));
    } catch (IllegalArgumentException e) {
      throw new AdminRequests.BadField(e.getMessage());
    }
  }

  private static JsonNode queryBody(Map<String, String> query) {
    ObjectNode body = JSON.objectNode();
    query.forEach(body::put);
    return body;
  }

  private static JsonNode users(SecurityState state) {
    ArrayNode users = JSON.arrayNode();
    state.users().forEach((name, credential) -> users.addObject().put("name", name)
        .put("mechanism", Scram.MECHANISM).put("iterations", credential.iterations())
        .put("tokens", state.tokens().values().stream().filter(name::equals).count()));
    return JSON.objectNode().set("users", users);
  }

  private static JsonNode acls(SecurityState state) {
    ArrayNode acls = JSON.arrayNode();
    state.acls().forEach(acl -> acls.addObject().put("principal", acl.principal())
        .put("resource_type", acl.resourceType().wireName()).put("resource_name", acl.resourceName())
        .put("operation", acl.operation().wireName()));
    return JSON.objectNode().set("acls", acls);
  }
}

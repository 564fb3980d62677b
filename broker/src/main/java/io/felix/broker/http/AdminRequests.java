package io.felix.broker.http;

import io.felix.broker.assignment.AssignmentTable;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.felix.broker.control.ControlReply;
import io.felix.broker.control.ControlView;
import io.felix.broker.control.PlacementController;
import io.felix.broker.control.StreamList;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.AskPattern;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaType;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.Age;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;

/**
 * How every admin route reads a request and answers it, so that the API behaves the same on every path:
 * <ul>
 *   <li>asking the placement singleton, for its view ({@link #withView}) or with a command ({@link #command}):
 *       a {@link ControlReply.Done} is the route's success status, a {@link ControlReply.Rejected} is 400, 404 or
 *       409 by its refusal, and no answer within felix.http.singleton-timeout is 503;</li>
 *   <li>reading a JSON object body ({@link #body}) and its fields ({@link #text}, {@link #integer},
 *       {@link #optionalLong}, {@link #onlyFields}): a malformed body or a bad field ({@link BadField}) is a 400
 *       naming the problem, a body that is not JSON a 415;</li>
 *   <li>answering: a JSON document ({@link #ok}, {@link #json}) or the API's JSON error ({@link #error}), as a
 *       route or, for routes that complete with a future, as a response ({@link #response},
 *       {@link #errorResponse}).</li>
 * </ul>
 * Stateless apart from its references: one instance serves every request of a broker's admin server.
 */
final class AdminRequests extends AllDirectives {

  private static final ObjectMapper MAPPER = new ObjectMapper();

  /**
   * Bodies read as JSON: application/json, and what clients send without saying (application/octet-stream, curl -d's
   * form-urlencoded, text/plain).
   */
  private static final Set<MediaType> JSON_BODY_TYPES = Set.of(MediaTypes.APPLICATION_JSON,
      MediaTypes.APPLICATION_OCTET_STREAM, MediaTypes.APPLICATION_X_WWW_FORM_URLENCODED, MediaTypes.TEXT_PLAIN);

  private final ActorSystem<?> system;
  private final ActorRef<PlacementController.Command> singleton;
  private final Duration timeout;
  private final Duration listMaxWait;
  /** The singleton's view as the lists share it ({@link #withSharedView}), keyed by {@link #commandsAnswered}. */
  private final SharedAnswer<ControlView> sharedView;
  /** The singleton's streams as the stream list shares them ({@link #withSharedStreams}), keyed likewise. */
  private final SharedAnswer<StreamList> sharedStreams;
  /** The commands this broker has had answered: a view asked before the last one may not show it. */
  private final AtomicLong commandsAnswered = new AtomicLong();
  /** The newest assignment table version a command this broker answered was stored at: a table below may lack it. */
  private final AtomicLong ownChangesTableVersion = new AtomicLong();

  /**
   * @param listMaxAge how long a view serves the lists ({@link #withSharedView})
   * @param listMaxWait how long a list waits for a new view when an earlier one exists
   * @param listMaxStale how old that earlier one may be
   */
  AdminRequests(ActorSystem<?> system, ActorRef<PlacementController.Command> singleton, Duration timeout,
      Duration listMaxAge, Duration listMaxWait, Duration listMaxStale) {
    this.system = system;
    this.singleton = singleton;
    this.timeout = timeout;
    this.listMaxWait = listMaxWait;
    this.sharedView = new SharedAnswer<>(listMaxAge, listMaxStale, System::nanoTime);
    this.sharedStreams = new SharedAnswer<>(listMaxAge, listMaxStale, System::nanoTime);
  }

  /** How long a request waits for the singleton (felix.http.singleton-timeout), and for another broker's answer. */
  Duration timeout() {
    return timeout;
  }

  /** A status and a JSON document (null: no body, for 204). */
  record Response(StatusCode status, JsonNode body) {}

  /** A request field that is missing, of the wrong type or not allowed: answered 400 with this message. */
  static final class BadField extends RuntimeException {
    BadField(String message) {
      super(message, null, false, false);
    }
  }

  // ---- asking the singleton

  /** Hands the singleton's current view on; 503 when it does not answer in time. */
  Route withView(Function<ControlView, Route> handler) {
    return withAnswer(askView(), handler);
  }

  /**
   * As {@link #withView}, with a view shared between the list requests ({@link SharedAnswer}, felix.http.list-max-age):
   * never one asked before a command this broker has answered since, so a client sees its own changes. A list waits
   * at most felix.http.list-max-wait for a new view when an earlier one (since that command) exists.
   */
  Route withSharedView(Function<SharedAnswer.Served<ControlView>, Route> handler) {
    return withAnswer(sharedView.get(commandsAnswered.get(), this::askView, listMaxWait, false), handler);
  }

  private CompletionStage<ControlView> askView() {
    return AskPattern.ask(singleton, PlacementController.GetView::new, timeout, system.scheduler());
  }

  /**
   * Hands the singleton's streams on (without their shards, see {@link StreamList}), shared as
   * {@link #withSharedView} shares the view; 503 when it does not answer in time.
   */
  Route withSharedStreams(Function<SharedAnswer.Served<StreamList>, Route> handler) {
    return withAnswer(sharedStreams.get(commandsAnswered.get(),
        () -> AskPattern.ask(singleton, PlacementController.GetStreams::new, timeout, system.scheduler()),
        listMaxWait, false), handler);
  }

  /**
   * Whether this broker's assignment table {@code table} shows every change this broker's commands made (so a
   * client that changed something through this broker sees it in a list read from the table).
   */
  boolean showsOwnChanges(AssignmentTable table) {
    return table.version() > 0 && table.version() >= ownChangesTableVersion.get();
  }

  /** How long a list waits for a new answer when an earlier one exists (felix.http.list-max-wait). */
  Duration listMaxWait() {
    return listMaxWait;
  }

  /**
   * Answers a list with {@code body}; served from answers {@code staleMillis} old (not the current ones, which took
   * too long: see {@link SharedAnswer.Served}), it says so in an {@code Age} header, in whole seconds as HTTP has it.
   */
  Route okList(JsonNode body, long staleMillis) {
    return staleMillis <= 0 ? ok(body)
        : respondWithHeader(Age.create((staleMillis + 999) / 1000), () -> ok(body));
  }

  private <T> Route withAnswer(CompletionStage<T> answer, Function<T, Route> handler) {
    return onComplete(answer, result -> result.isSuccess() ? handler.apply(result.get())
        : unavailable(result.failed().get()));
  }

  /** Asks the singleton; done answers 200 with its message. */
  Route command(Function<ActorRef<ControlReply>, PlacementController.Command> command) {
    return command(StatusCodes.OK, command);
  }

  /** Asks the singleton; done answers {@code success} (with its message, or no body for 204). */
  Route command(StatusCode success, Function<ActorRef<ControlReply>, PlacementController.Command> command) {
    return command(success, "", command);
  }

  /** As above, with {@code note} appended to the done message. */
  Route command(StatusCode success, String note,
      Function<ActorRef<ControlReply>, PlacementController.Command> command) {
    CompletionStage<ControlReply> reply = AskPattern.ask(singleton, command::apply, timeout, system.scheduler())
        .whenComplete((answered, failure) -> { // before the client hears of it
          if (answered instanceof ControlReply.Done done) {
            ownChangesTableVersion.accumulateAndGet(done.tableVersion(), Math::max);
          }
          commandsAnswered.incrementAndGet();
        });
    return respond(reply.thenApply(r -> toResponse(r, success, note)));
  }

  /** Answers with the response once it is computed; a failure (the singleton's silence) is 503. */
  Route respond(CompletionStage<Response> response) {
    return onComplete(response, result -> result.isSuccess()
        ? json(result.get().status(), result.get().body())
        : unavailable(result.failed().get()));
  }

  private static Response toResponse(ControlReply reply, StatusCode success, String note) {
    if (reply instanceof ControlReply.Done done) {
      return new Response(success, success.equals(StatusCodes.NO_CONTENT) ? null
          : AdminJson.message(done.message() + note));
    }
    ControlReply.Rejected rejected = (ControlReply.Rejected) reply;
    StatusCode status = switch (rejected.refusal()) {
      case INVALID -> StatusCodes.BAD_REQUEST;
      case NOT_FOUND -> StatusCodes.NOT_FOUND;
      case CONFLICT -> StatusCodes.CONFLICT;
    };
    return new Response(status, AdminJson.error(status.intValue(), rejected.error()));
  }

  private Route unavailable(Throwable failure) {
    Throwable cause = failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause() : failure;
    if (cause instanceof TimeoutException) {
      return error(StatusCodes.SERVICE_UNAVAILABLE, "the placement singleton did not answer within "
          + timeout.toMillis() + " ms");
    }
    return error(StatusCodes.SERVICE_UNAVAILABLE, "the placement singleton cannot be reached: " + cause);
  }

  // ---- reading the request

  /** Parses the body as a JSON object and hands it on; a malformed body or a bad field is a 400. */
  Route body(Function<JsonNode, Route> handler) {
    return jsonText(text -> {
      JsonNode node;
      try {
        node = MAPPER.readTree(text);
      } catch (JsonProcessingException e) {
        return error(StatusCodes.BAD_REQUEST, "malformed JSON body: " + e.getOriginalMessage());
      }
      if (node == null || !node.isObject()) {
        return error(StatusCodes.BAD_REQUEST, "the body must be a JSON object");
      }
      return checked(() -> handler.apply(node));
    });
  }

  /** The route, or a 400 with the message of the {@link BadField} it threw while reading the request. */
  Route checked(Supplier<Route> route) {
    try {
      return route.get();
    } catch (BadField e) {
      return error(StatusCodes.BAD_REQUEST, e.getMessage());
    }
  }

  /**
   * The request body as text, unless its Content-Type says it is something other than JSON (415). Bodies sent
   * without one (application/octet-stream), or as curl -d sends them (form-urlencoded), or as text/plain are read
   * as JSON.
   */
  Route jsonText(Function<String, Route> handler) {
    return extractRequest(request -> {
      MediaType type = request.entity().getContentType().mediaType();
      if (!JSON_BODY_TYPES.contains(type)) {
        return error(StatusCodes.UNSUPPORTED_MEDIA_TYPE, "the body must be JSON (Content-Type: application/json), "
            + "got " + type);
      }
      return entity(Unmarshaller.entityToString(), handler);
    });
  }

  /** Refuses a body with fields other than {@code known} (a misspelt optional field would be ignored silently). */
  static void onlyFields(JsonNode body, String... known) {
    List<String> unknown = new ArrayList<>();
    body.fieldNames().forEachRemaining(f -> {
      if (!Arrays.asList(known).contains(f)) {
        unknown.add("'" + f + "'");
      }
    });
    if (!unknown.isEmpty()) {
      throw new BadField("unknown field" + (unknown.size() > 1 ? "s " : " ") + String.join(", ", unknown)
          + " (known: " + String.join(", ", known) + ")");
    }
  }

  static String text(JsonNode body, String field) {
    JsonNode value = body.get(field);
    if (value == null || !value.isTextual()) {
      throw new BadField(field + ": required, a string");
    }
    return value.asText();
  }

  static int integer(JsonNode body, String field) {
    JsonNode value = body.get(field);
    if (value == null || !value.isIntegralNumber() || !value.canConvertToInt()) {
      throw new BadField(field + ": required, an integer");
    }
    return value.intValue();
  }

  /** An optional integer field: null when absent. */
  static Long optionalLong(JsonNode body, String field) {
    JsonNode value = body.get(field);
    if (value == null) {
      return null;
    }
    if (!value.isIntegralNumber() || !value.canConvertToLong()) {
      throw new BadField(field + ": must be an integer");
    }
    return value.longValue();
  }

  // ---- answering

  Route ok(JsonNode body) {
    return json(StatusCodes.OK, body);
  }

  Route error(StatusCode status, String message) {
    return json(status, AdminJson.error(status.intValue(), message));
  }

  Route json(StatusCode status, JsonNode body) {
    return complete(response(status, body));
  }

  /** The answer as a response, for routes that complete with a future of one; a null body is none (204). */
  static HttpResponse response(StatusCode status, JsonNode body) {
    if (body == null) {
      return HttpResponse.create().withStatus(status);
    }
    try {
      return HttpResponse.create().withStatus(status)
          .withEntity(ContentTypes.APPLICATION_JSON, MAPPER.writeValueAsBytes(body));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot render JSON", e);
    }
  }

  /** The API's JSON error as a response. */
  static HttpResponse errorResponse(StatusCode status, String message) {
    return response(status, AdminJson.error(status.intValue(), message));
  }
}

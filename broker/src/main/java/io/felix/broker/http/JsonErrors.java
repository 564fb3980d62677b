package io.felix.broker.http;

import org.apache.pekko.http.javadsl.model.HttpEntity;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;

/**
 * Turns Pekko HTTP's own error answers (plain text: unknown path, method not allowed, body too large, a failure)
 * into the API's JSON errors ({@link AdminRequests#errorResponse}), keeping their status, headers and message; the
 * API's own answers pass unchanged.
 */
final class JsonErrors {
  private JsonErrors() {}

  static HttpResponse ofResponse(HttpResponse response) {
    int status = response.status().intValue();
    if (status < 400 || response.entity().getContentType().mediaType().equals(MediaTypes.APPLICATION_JSON)) {
      return response;
    }
    String message = response.entity() instanceof HttpEntity.Strict strict && !strict.getData().isEmpty()
        ? strict.getData().utf8String().strip() : response.status().reason();
    return response.withEntity(AdminRequests.errorResponse(response.status(), message).entity());
  }
}

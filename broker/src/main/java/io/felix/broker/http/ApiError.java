package io.felix.broker.http;

/**
 * The admin API's kinds of error: each error answer is {@code {"error": "what went wrong", "code": "not_found"}},
 * the code telling scripts the kind without parsing the message.
 */
enum ApiError {
  BAD_REQUEST(400, "bad_request"),
  UNAUTHORIZED(401, "unauthorized"),
  FORBIDDEN(403, "forbidden"),
  NOT_FOUND(404, "not_found"),
  METHOD_NOT_ALLOWED(405, "method_not_allowed"),
  CONFLICT(409, "conflict"),
  PAYLOAD_TOO_LARGE(413, "payload_too_large"),
  UNSUPPORTED_MEDIA_TYPE(415, "unsupported_media_type"),
  INTERNAL(500, "internal_error"),
  UNAVAILABLE(503, "unavailable");

  private final int status;
  private final String code;

  ApiError(int status, String code) {
    this.status = status;
    this.code = code;
  }

  String code() {
    return code;
  }

  /** The kind of an error status; statuses without their own kind map to bad_request (4xx) or internal_error. */
  static ApiError of(int status) {
    for (ApiError e : values()) {
      if (e.status == status) {
        return e;
      }
    }
    return status >= 500 ? INTERNAL : BAD_REQUEST;
  }
}

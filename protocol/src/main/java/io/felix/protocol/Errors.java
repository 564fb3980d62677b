package io.felix.protocol;

import io.felix.protocol.client.Error;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.Response;

/**
 * Names and builds protocol errors the same way on both sides of a connection. Protocol errors are values: a
 * code, a message naming the problem, and for {@code NOT_LEADER} the current leader when known.
 *
 * <p>Retriable means "a later attempt, possibly elsewhere, may succeed". It does not mean "safe to retry without
 * a duplicate": see {@link #definitelyNotAppended(Error)}.
 */
public final class Errors {
  public static final int UNKNOWN_LEADER = -1;
  public static final long UNKNOWN_EPOCH = -1;
  public static final long UNKNOWN_VERSION = -1;

  private Errors() {}

  public static Error of(ErrorCode code, String message) {
    return Error.newBuilder().setCode(code).setMessage(message).setLeaderId(UNKNOWN_LEADER).build();
  }

  /** A produce refused before any append: the broker guarantees nothing was stored. */
  public static Error notAppended(ErrorCode code, String message) {
    return of(code, message).toBuilder().setNotAppended(true).build();
  }

  /** {@code leaderAddress} is host:port of the leader's client listener, or empty when unknown. */
  public static Error notLeader(String stream, int shard, int leaderId, String leaderAddress) {
    return notLeader(stream, shard, leaderId, leaderAddress, UNKNOWN_EPOCH, UNKNOWN_VERSION);
  }

  /**
   * NOT_LEADER naming the leader with its leader epoch and the assignment-table version the answer was read from
   * ({@link #UNKNOWN_EPOCH} / {@link #UNKNOWN_VERSION} when unknown), so a client can order the hint against what
   * it already knows.
   */
  public static Error notLeader(String stream, int shard, int leaderId, String leaderAddress, long leaderEpoch,
      long assignmentVersion) {
    String known = leaderId >= 0
        ? "; the leader is broker " + leaderId + (leaderEpoch >= 0 ? " at epoch " + leaderEpoch : "")
        : "; the leader is not known yet";
    return Error.newBuilder()
        .setCode(ErrorCode.NOT_LEADER)
        .setMessage("this broker does not lead " + stream + "/" + shard + known)
        .setLeaderId(leaderId)
        .setLeaderAddress(leaderAddress == null ? "" : leaderAddress)
        .setLeaderEpoch(leaderId >= 0 ? leaderEpoch : UNKNOWN_EPOCH)
        .setAssignmentVersion(assignmentVersion)
        .setNotAppended(true)
        .build();
  }

  public static Response response(long correlationId, Error error) {
    return Response.newBuilder().setCorrelationId(correlationId).setError(error).build();
  }

  /** True for an error that is set and is not NONE. */
  public static boolean isError(Response response) {
    return response.hasError() && response.getError().getCode() != ErrorCode.NONE;
  }

  public static boolean isRetriable(ErrorCode code) {
    switch (code) {
      case NOT_LEADER:
      case NOT_ENOUGH_REPLICAS:
      case TIMEOUT:
      case OUT_OF_ORDER_SEQUENCE:
      case NOT_COORDINATOR:
        return true;
      default:
        return false;
    }
  }

  /**
   * True when a failed produce certainly left nothing behind, so retrying it cannot duplicate: NOT_LEADER always
   * (a non-leader never appends), any other code only when the broker set {@code not_appended}.
   */
  public static boolean definitelyNotAppended(Error error) {
    return error.getCode() == ErrorCode.NOT_LEADER || error.getNotAppended();
  }

  /** What the code means, for messages and logs. */
  public static String describe(ErrorCode code) {
    switch (code) {
      case NONE:
        return "no error";
      case NOT_LEADER:
        return "the broker does not lead this shard";
      case UNKNOWN_STREAM:
        return "no such stream";
      case UNKNOWN_SHARD:
        return "no such shard in the stream";
      case OFFSET_OUT_OF_RANGE:
        return "the offset is outside the shard's log";
      case NOT_ENOUGH_REPLICAS:
        return "the requested acks could not be met in time";
      case TIMEOUT:
        return "the request timed out on the broker";
      case INVALID_REQUEST:
        return "the request is invalid";
      case FRAME_TOO_LARGE:
        return "the frame is larger than the broker accepts";
      case RESOURCE_LIMIT:
        return "a broker limit refused the request";
      case OUT_OF_ORDER_SEQUENCE:
        return "the batch's sequence number does not continue the producer's last stored batch";
      case INVALID_PRODUCER_EPOCH:
        return "the producer epoch is older than one the shard has stored";
      case UNKNOWN_CACHE:
        return "no such cache";
      case ENTRY_TOO_LARGE:
        return "the cache entry's key or value is over the broker's limit";
      case NOT_COORDINATOR:
        return "the broker does not coordinate this consumer group";
      case UNKNOWN_MEMBER:
        return "the member is not a member of the consumer group";
      case ILLEGAL_GENERATION:
        return "the member's generation is not the consumer group's current one";
      case REBALANCE_IN_PROGRESS:
        return "the consumer group was rebalanced; join again";
      case AUTHENTICATION_FAILED:
        return "the connection is not authenticated (SASL/SCRAM-SHA-256), or the credentials are wrong";
      case AUTHORIZATION_FAILED:
        return "no ACL allows this principal the operation on the resource";
      default:
        return "error code " + code;
    }
  }

  /** "NOT_LEADER: this broker does not lead s/3; the leader is broker 2" style text. */
  public static String format(Error error) {
    String message = error.getMessage().isEmpty() ? describe(error.getCode()) : error.getMessage();
    return error.getCode() + ": " + message;
  }
}

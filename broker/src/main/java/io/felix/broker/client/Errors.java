package io.felix.broker.client;

import io.felix.protocol.client.Error;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.Response;

/** TEMPORARY until io.felix.protocol.Errors lands on main: same signatures. */
public final class Errors {
  private Errors() {}

  public static Error of(ErrorCode code, String message) {
    return Error.newBuilder().setCode(code).setMessage(message).setLeaderId(-1).build();
  }

  public static Error notAppended(ErrorCode code, String message) {
    return of(code, message);
  }

  public static Error notLeader(String stream, int shard, int leaderId, String leaderAddress) {
    String known = leaderId >= 0 ? "; the leader is broker " + leaderId : "; the leader is not known yet";
    return Error.newBuilder().setCode(ErrorCode.NOT_LEADER)
        .setMessage("this broker does not lead " + stream + "/" + shard + known)
        .setLeaderId(leaderId).setLeaderAddress(leaderAddress == null ? "" : leaderAddress).build();
  }

  public static Response response(long correlationId, Error error) {
    return Response.newBuilder().setCorrelationId(correlationId).setError(error).build();
  }
}

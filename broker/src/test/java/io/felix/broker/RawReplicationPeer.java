package io.felix.broker;

import io.felix.broker.assignment.ShardId;
import io.felix.protocol.replication.FetchSessionRequest;
import io.felix.protocol.replication.PeerHello;
import io.felix.protocol.replication.ReplicaFetch;
import io.felix.protocol.replication.ReplicaFetchResult;
import io.felix.protocol.replication.ReplicationFrame;
import io.felix.protocol.replication.ShardRef;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;

/** A hand-driven peer on a broker's replication port, for sending exact (stale, newer) epochs. */
final class RawReplicationPeer implements AutoCloseable {
  private final int selfId;
  private final Socket socket;
  private final DataInputStream in;
  private final DataOutputStream out;
  /** This peer's fetch session with the broker: sequence 0 starts it. */
  private final long sessionId = System.nanoTime();
  private long sequence;

  RawReplicationPeer(String host, int port, int selfId) throws IOException {
    this.selfId = selfId;
    socket = new Socket(host, port);
    socket.setSoTimeout(20_000);
    in = new DataInputStream(socket.getInputStream());
    out = new DataOutputStream(socket.getOutputStream());
    send(ReplicationFrame.newBuilder().setHello(PeerHello.newBuilder().setBrokerId(selfId)).build());
  }

  /**
   * Gives the position "offset 0" of {@code id} under {@code epoch} in this peer's fetch session, then asks until
   * the broker's answer for that position comes, and returns it.
   */
  ReplicaFetchResult fetch(ShardId id, long epoch, long fetchId) throws IOException {
    request(ReplicaFetch.newBuilder()
        .setShard(ShardRef.newBuilder().setStream(id.stream()).setShard(id.shard())).setLeaderEpoch(epoch)
        .setFollowerId(selfId).setFetchOffset(0).setLastFetchedEpoch(-1).setMaxBytes(1 << 20).setFetchId(fetchId)
        .build());
    while (true) {
      byte[] body = new byte[in.readInt()];
      in.readFully(body);
      ReplicationFrame frame = ReplicationFrame.parseFrom(body);
      if (!frame.hasSessionAnswer()) {
        continue;
      }
      for (ReplicaFetchResult result : frame.getSessionAnswer().getResultsList()) {
        if (result.getFetchId() == fetchId && result.getShard().getStream().equals(id.stream())) {
          return result;
        }
      }
      request(null); // the long poll ended without it: ask again
    }
  }

  private void request(ReplicaFetch entry) throws IOException {
    FetchSessionRequest.Builder request = FetchSessionRequest.newBuilder().setSessionId(sessionId)
        .setSequence(sequence++);
    if (entry != null) {
      request.addEntries(entry);
    }
    send(ReplicationFrame.newBuilder().setSessionRequest(request).build());
  }

  private void send(ReplicationFrame frame) throws IOException {
    byte[] body = frame.toByteArray();
    out.writeInt(body.length);
    out.write(body);
    out.flush();
  }

  @Override
  public void close() throws IOException {
    socket.close();
  }
}

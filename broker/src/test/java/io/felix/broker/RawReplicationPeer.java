package io.felix.broker;

import io.felix.broker.assignment.ShardId;
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

  RawReplicationPeer(String host, int port, int selfId) throws IOException {
    this.selfId = selfId;
    socket = new Socket(host, port);
    socket.setSoTimeout(20_000);
    in = new DataInputStream(socket.getInputStream());
    out = new DataOutputStream(socket.getOutputStream());
    send(ReplicationFrame.newBuilder().setHello(PeerHello.newBuilder().setBrokerId(selfId)).build());
  }

  /** Fetches from offset 0 under {@code epoch} and returns the leader's answer to it. */
  ReplicaFetchResult fetch(ShardId id, long epoch, long fetchId) throws IOException {
    send(ReplicationFrame.newBuilder().setFetch(ReplicaFetch.newBuilder()
        .setShard(ShardRef.newBuilder().setStream(id.stream()).setShard(id.shard())).setLeaderEpoch(epoch)
        .setFollowerId(selfId).setFetchOffset(0).setLastFetchedEpoch(-1).setMaxBytes(1 << 20).setFetchId(fetchId))
        .build());
    while (true) {
      byte[] body = new byte[in.readInt()];
      in.readFully(body);
      ReplicationFrame frame = ReplicationFrame.parseFrom(body);
      if (frame.hasFetchResult() && frame.getFetchResult().getFetchId() == fetchId) {
        return frame.getFetchResult();
      }
    }
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

package io.felix.cli;

import com.google.protobuf.ByteString;
import io.felix.protocol.Errors;
import io.felix.protocol.FrameCodec;
import io.felix.protocol.RecordLists;
import io.felix.protocol.client.BrokerAddress;
import io.felix.protocol.client.ErrorCode;
import io.felix.protocol.client.FetchRequest;
import io.felix.protocol.client.FetchResponse;
import io.felix.protocol.client.InitProducerIdResponse;
import io.felix.protocol.client.MetadataResponse;
import io.felix.protocol.client.ProduceRequest;
import io.felix.protocol.client.ProduceResponse;
import io.felix.protocol.client.RecordBatch;
import io.felix.protocol.client.Request;
import io.felix.protocol.client.Response;
import io.felix.protocol.client.ShardMetadata;
import io.felix.protocol.client.StreamMetadata;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A test peer for the load generator's own pipeline: it speaks the real framing on a loopback socket, keeps
 * each shard's produced batches in memory (every batch acknowledged at once, offsets assigned in order) and
 * serves fetches from them. Tests damage the stored batches to check that {@code consume --verify} notices. It
 * has none of a broker's replication or durability: it only stands in for one so the load generator can be run
 * end to end.
 */
final class InMemoryShardPeer implements AutoCloseable {
  private static final FrameCodec CODEC = FrameCodec.withDefaults();

  private final String stream;
  private final List<List<RecordBatch>> shards = new ArrayList<>();
  private final ServerSocket server;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private long nextProducerId = 1;

  InMemoryShardPeer(String stream, int shardCount) throws IOException {
    this.stream = stream;
    for (int i = 0; i < shardCount; i++) {
      shards.add(new ArrayList<>());
    }
    server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread t = new Thread(this::accept, "in-memory-peer");
    t.setDaemon(true);
    t.start();
  }

  String address() {
    return "127.0.0.1:" + server.getLocalPort();
  }

  /** The stored batches of a shard, for tests to damage. */
  synchronized List<RecordBatch> batches(int shard) {
    return shards.get(shard);
  }

  /** Re-bases every batch of the shard to contiguous offsets after a test removed or added batches. */
  synchronized void renumber(int shard) {
    List<RecordBatch> list = shards.get(shard);
    long next = 0;
    for (int i = 0; i < list.size(); i++) {
      list.set(i, list.get(i).toBuilder().setBaseOffset(next).build());
      next += list.get(i).getRecordCount();
    }
  }

  private void accept() {
    try {
      while (true) {
        Socket s = server.accept();
        s.setTcpNoDelay(true);
        sockets.add(s);
        Thread t = new Thread(() -> serve(s), "in-memory-peer-conn");
        t.setDaemon(true);
        t.start();
      }
    } catch (IOException e) {
      // closed
    }
  }

  private void serve(Socket s) {
    try (s) {
      InputStream in = new BufferedInputStream(s.getInputStream());
      OutputStream out = s.getOutputStream();
      while (true) {
        byte[] body = CODEC.readFrame(in);
        if (body == null) {
          return;
        }
        Request r = CODEC.parseRequest(body);
        Response.Builder answer = answer(r);
        out.write(CODEC.encode(answer.setCorrelationId(r.getCorrelationId()).build()));
        out.flush();
      }
    } catch (IOException e) {
      // connection closed
    }
  }

  private synchronized Response.Builder answer(Request r) {
    if (r.hasInitProducerId()) { // the load generator's producers are idempotent: each asks once for an id
      return Response.newBuilder().setInitProducerId(InitProducerIdResponse.newBuilder().setProducerId(nextProducerId++));
    }
    if (r.hasMetadata()) {
      StreamMetadata.Builder sm = StreamMetadata.newBuilder().setName(stream);
      for (int i = 0; i < shards.size(); i++) {
        sm.addShards(ShardMetadata.newBuilder().setShard(i).setLeader(0).addReplicas(0).setLeaderEpoch(1));
      }
      return Response.newBuilder().setMetadata(MetadataResponse.newBuilder()
          .addBrokers(BrokerAddress.newBuilder().setId(0).setHost("127.0.0.1").setPort(server.getLocalPort()))
          .addStreams(sm).setAssignmentVersion(1));
    }
    if (r.hasProduce()) {
      ProduceRequest p = r.getProduce();
      int count = RecordLists.countRecords(p.getRecords());
      List<RecordBatch> log = shards.get(p.getShard());
      long base = end(log);
      log.add(RecordBatch.newBuilder().setBaseOffset(base).setRecordCount(count).setLeaderEpoch(1)
          .setRecords(p.getRecords()).build());
      return Response.newBuilder().setProduce(ProduceResponse.newBuilder().setBaseOffset(base).setLeaderEpoch(1));
    }
    if (r.hasFetch()) {
      FetchRequest f = r.getFetch();
      List<RecordBatch> log = shards.get(f.getShard());
      FetchResponse.Builder fr = FetchResponse.newBuilder().setCommitOffset(end(log));
      int bytes = 0;
      for (RecordBatch b : log) {
        if (b.getBaseOffset() + b.getRecordCount() > f.getOffset() && bytes < f.getMaxBytes()) {
          fr.addBatches(b);
          bytes += b.getRecords().size();
        }
      }
      return Response.newBuilder().setFetch(fr);
    }
    return Response.newBuilder().setError(Errors.of(ErrorCode.INVALID_REQUEST, "empty request"));
  }

  private static long end(List<RecordBatch> log) {
    return log.isEmpty() ? 0 : log.get(log.size() - 1).getBaseOffset() + log.get(log.size() - 1).getRecordCount();
  }

  /** A copy of a batch with one record's value byte flipped. */
  static RecordBatch flipValueByte(RecordBatch b, int record, int at) {
    var list = RecordLists.decode(b.getRecords()).toBuilder();
    byte[] v = list.getRecords(record).getValue().toByteArray();
    v[at] ^= 0x01;
    list.setRecords(record, list.getRecords(record).toBuilder().setValue(ByteString.copyFrom(v)));
    return b.toBuilder().setRecords(list.build().toByteString()).build();
  }

  @Override
  public void close() throws IOException {
    server.close();
    for (Socket s : sockets) {
      s.close();
    }
  }
}

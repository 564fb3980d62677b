package io.felix.client;

/** Which replica of a cache shard answers a read ({@link FelixCache#get(byte[], ReadFrom)}). */
public enum ReadFrom {
  /**
   * The shard's leader: the latest committed entry; a writer reads its own writes acknowledged with acks QUORUM or
   * ALL.
   */
  LEADER,
  /**
   * Any replica (follower reads): the reads are spread over the brokers, and a broker holding a follower replica in
   * contact with its leader answers from the entries committed as far as it knows (by default at most about a
   * second older than the leader's view); a broker without one passes the read to the leader. Every entry read is
   * committed, and carries its offset.
   */
  ANY_REPLICA
}

package io.felix.broker.group;

import java.util.List;
import java.util.Map;

/**
 * A group as its coordinator sees it, for the admin API: the stream it consumes (empty before the first join), the
 * generation, the members with their shards, and the committed offset per shard of that stream.
 */
public record GroupView(String group, int coordinator, String stream, int generation,
    List<GroupMembership.MemberView> members, Map<Integer, Long> committed) {}

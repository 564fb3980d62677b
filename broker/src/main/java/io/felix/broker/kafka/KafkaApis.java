package io.felix.broker.kafka;

import java.util.EnumMap;
import java.util.Map;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersionCollection;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;

/**
 * The Kafka APIs the listener answers and the versions of each, as ApiVersions tells clients. The ranges stop
 * below versions that need what Felix lacks: Produce 13 and Fetch 13+ address topics by id only, OffsetCommit and
 * OffsetFetch 10 likewise, Metadata 13 adds a top-level error clients then rely on. A request for any other API, or
 * another version, is answered UNSUPPORTED_VERSION in that API's own response shape.
 */
final class KafkaApis {
  private static final Map<ApiKeys, short[]> SUPPORTED = new EnumMap<>(ApiKeys.class);

  static {
    range(ApiKeys.API_VERSIONS, 0, 4);
    range(ApiKeys.METADATA, 0, 12);
    range(ApiKeys.PRODUCE, 3, 12);
    range(ApiKeys.FETCH, 4, 12);
    range(ApiKeys.LIST_OFFSETS, 1, 8);
    range(ApiKeys.OFFSET_FOR_LEADER_EPOCH, 2, 4);
    range(ApiKeys.INIT_PRODUCER_ID, 0, 5);
    range(ApiKeys.CREATE_TOPICS, 2, 7);
    range(ApiKeys.DELETE_TOPICS, 1, 5);
    range(ApiKeys.CREATE_PARTITIONS, 0, 3);
    range(ApiKeys.DESCRIBE_CONFIGS, 1, 4);
    range(ApiKeys.DESCRIBE_CLUSTER, 0, 1);
    range(ApiKeys.FIND_COORDINATOR, 0, 6);
    range(ApiKeys.JOIN_GROUP, 0, 9);
    range(ApiKeys.SYNC_GROUP, 0, 5);
    range(ApiKeys.HEARTBEAT, 0, 4);
    range(ApiKeys.LEAVE_GROUP, 0, 5);
    range(ApiKeys.OFFSET_COMMIT, 2, 9);
    range(ApiKeys.OFFSET_FETCH, 1, 7);
    range(ApiKeys.LIST_GROUPS, 0, 4);
    range(ApiKeys.DESCRIBE_GROUPS, 0, 5);
    range(ApiKeys.SASL_HANDSHAKE, 1, 1);
    range(ApiKeys.SASL_AUTHENTICATE, 0, 2);
  }

  private KafkaApis() {}

  private static void range(ApiKeys api, int min, int max) {
    short lowest = (short) Math.max(min, api.oldestVersion());
    short highest = (short) Math.min(max, api.latestVersion(false));
    SUPPORTED.put(api, new short[] {lowest, highest});
  }

  static boolean supports(ApiKeys api, short version) {
    short[] range = SUPPORTED.get(api);
    return range != null && version >= range[0] && version <= range[1];
  }

  static boolean supports(ApiKeys api) {
    return SUPPORTED.containsKey(api);
  }

  /** The ApiVersions answer: every supported API with its range, and {@code error}. */
  static ApiVersionsResponseData apiVersions(Errors error) {
    ApiVersionCollection keys = new ApiVersionCollection();
    SUPPORTED.forEach((api, range) -> keys.add(new ApiVersion().setApiKey(api.id).setMinVersion(range[0])
        .setMaxVersion(range[1])));
    return new ApiVersionsResponseData().setErrorCode(error.code()).setApiKeys(keys).setThrottleTimeMs(0);
  }

  /** The supported range of an API, "min..max", for messages. */
  static String describe(ApiKeys api) {
    short[] range = SUPPORTED.get(api);
    return range == null ? "none" : range[0] + ".." + range[1];
  }
}

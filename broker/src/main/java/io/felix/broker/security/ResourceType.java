package io.felix.broker.security;

/** What an ACL names. {@code CLUSTER} has the one resource name {@link AclEntry#CLUSTER_NAME}. */
public enum ResourceType {
  STREAM, CACHE, CONSUMER_GROUP, CLUSTER;

  /** The name used in the admin API and the CLI: lower case, '-' for '_'. */
  public String wireName() {
    return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }

  public static ResourceType fromWire(String text) {
    for (ResourceType t : values()) {
      if (t.wireName().equals(text)) {
        return t;
      }
    }
    throw new IllegalArgumentException("resource_type must be one of stream, cache, consumer-group, cluster; got '"
        + text + "'");
  }
}

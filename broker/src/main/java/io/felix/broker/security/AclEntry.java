package io.felix.broker.security;

/**
 * One allow rule: {@code principal} may do {@code operation} on the resource. {@code resourceName} is a name, or
 * {@link #ANY} for every resource of the type; a CLUSTER rule's name is {@link #CLUSTER_NAME}. There are no deny
 * rules: with authorization on, what no rule allows is refused.
 */
public record AclEntry(String principal, ResourceType resourceType, String resourceName, Operation operation) {
  public static final String ANY = "*";
  public static final String CLUSTER_NAME = "cluster";

  public AclEntry {
    if (principal == null || principal.isBlank()) {
      throw new IllegalArgumentException("principal must not be empty");
    }
    if (resourceType == null || operation == null) {
      throw new IllegalArgumentException("resource_type and operation must be set");
    }
    if (resourceType == ResourceType.CLUSTER) {
      resourceName = CLUSTER_NAME;
    }
    if (resourceName == null || resourceName.isBlank()) {
      throw new IllegalArgumentException("resource_name must not be empty ('*' for every " + resourceType.wireName()
          + ")");
    }
  }

  boolean allows(String who, ResourceType type, String name, Operation wanted) {
    return principal.equals(who) && resourceType == type && (resourceName.equals(ANY) || resourceName.equals(name))
        && operation.implies(wanted);
  }
}

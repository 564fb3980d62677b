package io.felix.broker.security;

/**
 * What an ACL allows. Produce and consume are the data operations; describe reads metadata and the admin API's
 * GETs; alter changes a resource (create, delete, patch a stream; drain, move); admin manages users and ACLs.
 * An ACL for {@code ADMIN} implies every other operation on its resource, {@code ALTER} implies {@code DESCRIBE}.
 */
public enum Operation {
  PRODUCE, CONSUME, DESCRIBE, ALTER, ADMIN;

  public String wireName() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  public static Operation fromWire(String text) {
    for (Operation o : values()) {
      if (o.wireName().equals(text)) {
        return o;
      }
    }
    throw new IllegalArgumentException("operation must be one of produce, consume, describe, alter, admin; got '"
        + text + "'");
  }

  /** Whether an ACL granting this operation allows {@code wanted}. */
  public boolean implies(Operation wanted) {
    return this == wanted || this == ADMIN || (this == ALTER && wanted == DESCRIBE);
  }
}

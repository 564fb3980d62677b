package io.felix.protocol.scram;

import java.util.LinkedHashMap;
import java.util.Map;

/** The comma-separated {@code a=value} attributes of a SCRAM message, by their one-letter names. */
public final class ScramAttributes {
  private final Map<Character, String> values = new LinkedHashMap<>();

  private ScramAttributes() {}

  public static ScramAttributes parse(String message, String what) {
    ScramAttributes attributes = new ScramAttributes();
    for (String part : message.split(",", -1)) {
      if (part.length() < 2 || part.charAt(1) != '=') {
        throw new ScramException(what + ": '" + part + "' is not an attribute (a=value)");
      }
      attributes.values.putIfAbsent(part.charAt(0), part.substring(2));
    }
    return attributes;
  }

  public String require(char name, String what) {
    String value = values.get(name);
    if (value == null || value.isEmpty()) {
      throw new ScramException(what + " has no '" + name + "=' attribute");
    }
    return value;
  }

  public String get(char name) {
    return values.get(name);
  }
}

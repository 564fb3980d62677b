package io.felix.broker.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The console uses only the public admin API: every path its script calls is one that {@code /v1/openapi.json}
 * documents (which {@code AdminApiErrorsTest} keeps true against the routes).
 */
class ConsoleApiTest {

  /** A string or template literal naming an admin API path, up to its query. */
  private static final Pattern API_PATH = Pattern.compile("[\"`](/v1/[^\"`?]*)");
  /** A call of the script's api(method, path, ...) or getJson(path): the method (none for GET) and the rest. */
  private static final Pattern CALL = Pattern.compile("(?:api\\(\"([A-Z]+)\",|getJson\\()([^\\n]*)");
  private static final Pattern PARAMETER = Pattern.compile("\\$\\{[^}]*}|\\{[^}]*}");

  @Test
  void everyPathTheConsoleCallsIsDocumentedInTheOpenApiDocument() throws IOException {
    Set<String> documented = new TreeSet<>();
    JsonNode openApi = new ObjectMapper().readTree(resource("io/felix/broker/http/openapi.json"));
    openApi.get("paths").fieldNames().forEachRemaining(path -> documented.add(shape(path)));

    Set<String> called = new TreeSet<>();
    Matcher m = API_PATH.matcher(new String(resource("console/console.js"), StandardCharsets.UTF_8));
    while (m.find()) {
      called.add(shape(m.group(1)));
    }
    assertEquals(Set.of("/v1/brokers", "/v1/brokers/{}/drain", "/v1/groups", "/v1/groups/{}", "/v1/placement",
        "/v1/placement/pause", "/v1/placement/resume", "/v1/replication-status", "/v1/shard-moves", "/v1/streams",
        "/v1/streams/{}"), called, "the paths found in console.js");
    for (String path : called) {
      assertTrue(documented.contains(path), "console.js calls " + path + ", which /v1/openapi.json does not document");
    }
  }

  @Test
  void everyMethodTheConsoleCallsIsDocumentedForItsPath() throws IOException {
    JsonNode paths = new ObjectMapper().readTree(resource("io/felix/broker/http/openapi.json")).get("paths");
    Map<String, JsonNode> byShape = new TreeMap<>();
    paths.fieldNames().forEachRemaining(path -> byShape.put(shape(path), paths.get(path)));

    Set<String> calls = new TreeSet<>();
    Matcher call = CALL.matcher(new String(resource("console/console.js"), StandardCharsets.UTF_8));
    while (call.find()) {
      String method = call.group(1) == null ? "get" : call.group(1).toLowerCase(Locale.ROOT);
      Matcher path = API_PATH.matcher(call.group(2));
      while (path.find()) {
        calls.add(method + " " + shape(path.group(1)));
      }
    }
    assertEquals(Set.of("delete /v1/brokers/{}/drain", "delete /v1/streams/{}", "get /v1/brokers", "get /v1/groups",
        "get /v1/groups/{}", "get /v1/placement", "get /v1/replication-status", "get /v1/shard-moves",
        "get /v1/streams", "post /v1/brokers/{}/drain", "post /v1/placement/pause", "post /v1/placement/resume",
        "post /v1/shard-moves", "post /v1/streams"), calls, "the calls found in console.js");
    for (String c : calls) {
      String[] methodAndPath = c.split(" ");
      assertTrue(byShape.get(methodAndPath[1]).has(methodAndPath[0]),
          "console.js calls " + c + ", which /v1/openapi.json does not document");
    }
  }

  /** The path with every parameter ({@code ${...}} in the script, {@code {name}} in the document) as {@code {}}. */
  private static String shape(String path) {
    return PARAMETER.matcher(path).replaceAll("{}");
  }

  private static byte[] resource(String name) throws IOException {
    try (InputStream in = ConsoleApiTest.class.getClassLoader().getResourceAsStream(name)) {
      assertTrue(in != null, name + " is not on the classpath");
      return in.readAllBytes();
    }
  }
}

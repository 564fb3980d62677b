package io.felix.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The broker's packages form layers: no package of {@code io.felix.broker} depends, through any chain, on a package
 * that depends on it. A dependency is an {@code import} (static or not) or a fully qualified name in the code
 * (comments and string literals do not count) of a type in another {@code io.felix.broker.*} package, read from the
 * main sources. A cycle fails the test with the chain and, for each step, a file that makes it. Where a lower
 * package needs something of a higher one, the lower one owns an interface that the higher one implements (as
 * {@code metrics.ConsumerGroupLag} does for {@code group.GroupLag}), or the piece moves down.
 */
class PackageCycleTest {

  private static final Path SOURCES = Path.of("src", "main", "java", "io", "felix", "broker");
  private static final Pattern REFERENCE = Pattern.compile("\\bio\\.felix\\.broker\\.([a-z_][a-z0-9_]*)\\.");

  @Test
  void brokerPackagesHaveNoCycle() throws IOException {
    assertTrue(Files.isDirectory(SOURCES), "the broker's main sources are not at " + SOURCES.toAbsolutePath());
    PackageGraph graph = PackageGraph.read(SOURCES);
    assertTrue(graph.packages().size() > 10, "read too few packages to check: " + graph.packages());
    List<String> cycles = graph.cycles();
    assertTrue(cycles.isEmpty(), "import cycles between io.felix.broker packages:\n" + String.join("\n", cycles));
  }

  @Test
  void aCycleIsReportedWithTheFilesThatMakeIt() {
    PackageGraph graph = new PackageGraph();
    graph.add("metrics", "group", "metrics/BrokerMetrics.java");
    graph.add("group", "shard", "group/OffsetsStore.java");
    graph.add("shard", "metrics", "shard/ShardLeader.java");
    graph.add("shard", "log", "shard/ShardReplica.java");
    graph.add("http", "group", "http/GroupRoutes.java");

    assertEquals(List.of("group -> shard (group/OffsetsStore.java) -> metrics (shard/ShardLeader.java)"
        + " -> group (metrics/BrokerMetrics.java)"), graph.cycles());
  }

  @Test
  void layersWithoutACycleAreAccepted() {
    PackageGraph graph = new PackageGraph();
    graph.add("group", "metrics", "group/GroupLag.java");
    graph.add("group", "shard", "group/OffsetsStore.java");
    graph.add("shard", "metrics", "shard/ShardLeader.java");

    assertEquals(List.of(), graph.cycles());
  }

  @Test
  void commentsAndStringsAreNoDependency() {
    String source = """
        package io.felix.broker.metrics;
        import io.felix.broker.assignment.ShardId;
        /** Reported by {@link io.felix.broker.group.GroupLag}. */
        class X { // io.felix.broker.shard.ShardLeader
          String s = "io.felix.broker.http.AdminRoutes";
          io.felix.broker.log.ShardLog log;
        }
        """;
    assertEquals(Set.of("assignment", "log"), PackageGraph.referencedPackages(source));
  }

  /** Package to package dependencies, each with the first file seen making it. */
  static final class PackageGraph {
    private final Map<String, Map<String, String>> edges = new TreeMap<>();

    static PackageGraph read(Path root) throws IOException {
      PackageGraph graph = new PackageGraph();
      try (Stream<Path> files = Files.walk(root)) {
        for (Path file : files.filter(f -> f.toString().endsWith(".java")).sorted().toList()) {
          Path relative = root.relativize(file);
          String from = relative.getName(0).toString();
          if (relative.getNameCount() < 2) {
            continue; // a file in io.felix.broker itself
          }
          graph.edges.computeIfAbsent(from, p -> new TreeMap<>());
          for (String to : referencedPackages(Files.readString(file))) {
            graph.add(from, to, relative.toString());
          }
        }
      }
      return graph;
    }

    /** The io.felix.broker.* packages named in the code of a source file (not in its comments or strings). */
    static Set<String> referencedPackages(String source) {
      Set<String> packages = new TreeSet<>();
      Matcher m = REFERENCE.matcher(codeOnly(source));
      while (m.find()) {
        packages.add(m.group(1));
      }
      // its own package statement names itself
      Matcher own = Pattern.compile("^package io\\.felix\\.broker\\.([a-z0-9_]+)", Pattern.MULTILINE).matcher(source);
      if (own.find()) {
        packages.remove(own.group(1));
      }
      return packages;
    }

    /** The source with comments, string and character literals (and text blocks) blanked out. */
    private static String codeOnly(String s) {
      StringBuilder out = new StringBuilder(s.length());
      int i = 0;
      while (i < s.length()) {
        if (s.startsWith("//", i)) {
          i = end(s, s.indexOf('\n', i), 0);
        } else if (s.startsWith("/*", i)) {
          i = end(s, s.indexOf("*/", i + 2), 2);
        } else if (s.startsWith("\"\"\"", i)) {
          i = end(s, s.indexOf("\"\"\"", i + 3), 3);
        } else if (s.charAt(i) == '"' || s.charAt(i) == '\'') {
          char quote = s.charAt(i++);
          while (i < s.length() && s.charAt(i) != quote) {
            i += s.charAt(i) == '\\' ? 2 : 1;
          }
          i++;
        } else {
          out.append(s.charAt(i++));
          continue;
        }
        out.append(' ');
      }
      return out.toString();
    }

    private static int end(String s, int found, int closerLength) {
      return found < 0 ? s.length() : found + closerLength;
    }

    void add(String from, String to, String file) {
      edges.computeIfAbsent(from, p -> new TreeMap<>()).putIfAbsent(to, file);
      edges.computeIfAbsent(to, p -> new TreeMap<>());
    }

    Set<String> packages() {
      return edges.keySet();
    }

    /**
     * One cycle per strongly connected set of packages (Tarjan), written as the shortest chain from the set's first
     * package back to itself, each step followed by a file that makes it.
     */
    List<String> cycles() {
      List<String> cycles = new ArrayList<>();
      for (Set<String> component : stronglyConnected()) {
        if (component.size() > 1) {
          cycles.add(describe(shortestCycle(component.iterator().next(), component)));
        }
      }
      return cycles;
    }

    private String describe(List<String> cycle) {
      StringBuilder text = new StringBuilder(cycle.get(0));
      for (int i = 1; i < cycle.size(); i++) {
        text.append(" -> ").append(cycle.get(i))
            .append(" (").append(edges.get(cycle.get(i - 1)).get(cycle.get(i))).append(")");
      }
      return text.toString();
    }

    private List<String> shortestCycle(String start, Set<String> within) {
      Map<String, String> previous = new HashMap<>();
      Deque<String> queue = new ArrayDeque<>(List.of(start));
      while (!queue.isEmpty()) {
        String at = queue.poll();
        for (String next : edges.get(at).keySet()) {
          if (next.equals(start)) {
            List<String> path = new ArrayList<>(List.of(start));
            for (String p = at; !p.equals(start); p = previous.get(p)) {
              path.add(1, p);
            }
            path.add(start);
            return path;
          }
          if (within.contains(next) && !previous.containsKey(next)) {
            previous.put(next, at);
            queue.add(next);
          }
        }
      }
      throw new IllegalStateException(start + " is in no cycle of " + within);
    }

    private List<Set<String>> stronglyConnected() {
      Map<String, Integer> index = new HashMap<>();
      Map<String, Integer> low = new HashMap<>();
      Deque<String> stack = new ArrayDeque<>();
      List<Set<String>> components = new ArrayList<>();
      for (String node : edges.keySet()) {
        if (!index.containsKey(node)) {
          connect(node, index, low, stack, components);
        }
      }
      return components;
    }

    private void connect(String node, Map<String, Integer> index, Map<String, Integer> low, Deque<String> stack,
        List<Set<String>> components) {
      index.put(node, index.size());
      low.put(node, index.get(node));
      stack.push(node);
      for (String next : edges.get(node).keySet()) {
        if (!index.containsKey(next)) {
          connect(next, index, low, stack, components);
          low.put(node, Math.min(low.get(node), low.get(next)));
        } else if (stack.contains(next)) {
          low.put(node, Math.min(low.get(node), index.get(next)));
        }
      }
      if (low.get(node).equals(index.get(node))) {
        Set<String> component = new TreeSet<>();
        String member;
        do {
          member = stack.pop();
          component.add(member);
        } while (!member.equals(node));
        components.add(component);
      }
    }
  }
}

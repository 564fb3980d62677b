package io.felix.placement.cli;

import io.felix.placement.ClusterSnapshot;
import io.felix.placement.InvalidLayoutException;
import io.felix.placement.SimulationResult;
import io.felix.placement.Simulator;
import io.felix.placement.json.SimulateJson;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * {@code felix-placement simulate [--input FILE] [--max-passes N]}: reads a cluster layout (stdin by default),
 * simulates placement to convergence and prints the JSON result. Bad input or usage prints one line on stderr
 * and exits with status 2; nothing else is printed.
 */
public final class PlacementCli {

  static final int OK = 0;
  static final int BAD_INPUT = 2;
  private static final String USAGE = "usage: felix-placement simulate [--input FILE] [--max-passes N] < layout.json";

  private PlacementCli() {}

  public static void main(String[] args) {
    System.exit(run(args, System.in, System.out, System.err));
  }

  static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
    try {
      if (args.length == 0 || !"simulate".equals(args[0])) {
        throw new UsageException(args.length == 0 ? "no command given" : "unknown command '" + args[0] + "'");
      }
      Path input = null;
      int maxPasses = Simulator.DEFAULT_MAX_PASSES;
      for (int i = 1; i < args.length; i++) {
        switch (args[i]) {
          case "--input" -> input = Path.of(value(args, ++i, "--input"));
          case "--max-passes" -> maxPasses = positive(value(args, ++i, "--max-passes"));
          default -> throw new UsageException("unknown option '" + args[i] + "'");
        }
      }
      String json = input == null ? new String(in.readAllBytes(), StandardCharsets.UTF_8) : read(input);
      ClusterSnapshot snapshot = SimulateJson.readSnapshot(json);
      SimulationResult result = Simulator.run(snapshot, maxPasses);
      out.println(SimulateJson.write(SimulateJson.resultToJson(result)));
      return OK;
    } catch (UsageException e) {
      err.println("felix-placement: " + e.getMessage() + "; " + USAGE);
      return BAD_INPUT;
    } catch (InvalidLayoutException e) {
      err.println("felix-placement: invalid input: " + oneLine(e.getMessage()));
      return BAD_INPUT;
    } catch (IOException e) {
      err.println("felix-placement: cannot read input: " + oneLine(String.valueOf(e.getMessage())));
      return BAD_INPUT;
    }
  }

  private static String read(Path input) throws IOException {
    try {
      return Files.readString(input, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new UsageException("input file not found: " + input);
    }
  }

  private static String value(String[] args, int i, String option) {
    if (i >= args.length) {
      throw new UsageException(option + " needs a value");
    }
    return args[i];
  }

  private static int positive(String text) {
    try {
      int n = Integer.parseInt(text);
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new UsageException("--max-passes must be a positive integer, got '" + text + "'");
  }

  private static String oneLine(String message) {
    return message.replaceAll("\\s*\\R\\s*", " ");
  }

  private static final class UsageException extends RuntimeException {
    UsageException(String message) {
      super(message);
    }
  }
}

package io.felix.placement.cli;

import io.felix.placement.ClusterSnapshot;
import io.felix.placement.InvalidLayoutException;
import io.felix.placement.SimulationResult;
import io.felix.placement.Simulator;
import io.felix.placement.json.SimulateJson;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code felix-placement simulate [--input FILE] [--max-passes N]}: reads a cluster layout (stdin by default),
 * simulates placement to convergence and prints the JSON result. Options are parsed by picocli, as every felix
 * command's are. Bad input or usage prints its message on stderr and exits with status 2 (bad usage adds the
 * usage); nothing goes to stdout.
 */
@Command(name = "felix-placement", mixinStandardHelpOptions = true, subcommands = PlacementCli.Simulate.class,
    description = "The placement library's offline tools.")
public final class PlacementCli {

  static final int OK = 0;
  static final int BAD_INPUT = 2;

  private PlacementCli() {}

  public static void main(String[] args) {
    System.exit(run(args, System.in, System.out, System.err));
  }

  static int run(String[] args, InputStream in, PrintStream out, PrintStream err) {
    CommandLine cli = new CommandLine(new PlacementCli());
    ((Simulate) cli.getSubcommands().get("simulate").getCommand()).in = in;
    cli.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
    cli.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
    cli.setParameterExceptionHandler((e, given) -> {
      CommandLine command = e.getCommandLine();
      command.getErr().println("felix-placement: " + e.getMessage());
      command.usage(command.getErr());
      return BAD_INPUT;
    });
    cli.setExecutionExceptionHandler((e, command, parsed) -> {
      if (e instanceof InvalidLayoutException) {
        command.getErr().println("felix-placement: invalid input: " + oneLine(e.getMessage()));
        return BAD_INPUT;
      }
      if (e instanceof IOException) {
        command.getErr().println("felix-placement: cannot read input: " + oneLine(String.valueOf(e.getMessage())));
        return BAD_INPUT;
      }
      throw e;
    });
    int code = cli.execute(args);
    cli.getErr().flush();
    return code;
  }

  /** {@code simulate}: one layout in, the simulation's JSON out. */
  @Command(name = "simulate", mixinStandardHelpOptions = true,
      description = "Simulate placement of a layout (JSON on stdin or --input) until it converges.")
  static final class Simulate implements Callable<Integer> {
    InputStream in = System.in;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--input", paramLabel = "FILE", description = "the layout (default: stdin)")
    Path input;

    @Option(names = "--max-passes", paramLabel = "N", description = "default: " + Simulator.DEFAULT_MAX_PASSES)
    int maxPasses = Simulator.DEFAULT_MAX_PASSES;

    @Override
    public Integer call() throws IOException {
      if (maxPasses < 1) {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "--max-passes must be a positive integer, got '" + maxPasses + "'");
      }
      String json;
      try {
        json = input == null ? new String(in.readAllBytes(), StandardCharsets.UTF_8)
            : Files.readString(input, StandardCharsets.UTF_8);
      } catch (NoSuchFileException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), "input file not found: " + input);
      }
      ClusterSnapshot snapshot = SimulateJson.readSnapshot(json);
      SimulationResult result = Simulator.run(snapshot, maxPasses);
      spec.commandLine().getOut().println(SimulateJson.write(SimulateJson.resultToJson(result)));
      spec.commandLine().getOut().flush();
      return OK;
    }
  }

  private static String oneLine(String message) {
    return message.replaceAll("\\s*\\R\\s*", " ");
  }
}

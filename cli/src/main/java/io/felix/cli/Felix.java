package io.felix.cli;

import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code felix}: the one command line of Felix ({@code bin/felix} builds the jars when they are missing, then runs
 * this). Admin commands talk to a broker's admin HTTP API, {@code produce} and {@code consume} (the console tools) to
 * the client port, {@code local} runs a local cluster of broker processes (the launcher), {@code demo} shows one at
 * work; the load generator ({@code perf}), {@code bench} and {@code chaos} live here too, so every option of every
 * tool is parsed one way (picocli: {@code --name value} and {@code --name=value}).
 *
 * <p>Exit status: 0 done; 1 the command failed (the broker refused, a record was not acknowledged, a check
 * failed); 2 bad usage (the message names the option, the usage follows).
 */
@Command(name = "felix", mixinStandardHelpOptions = true, versionProvider = FelixVersion.class,
    description = "Felix streaming broker: a local cluster, streams, brokers, moves, placement, console producer and "
        + "consumer, load generator, benchmarks, fault suite.",
    subcommands = {
        LocalCommand.class,
        DemoCommand.class,
        StreamCommand.class,
        BrokerCommand.class,
        MoveCommand.class,
        PlacementCommand.class,
        StatusCommand.class,
        ProduceCommand.class,
        ConsumeCommand.class,
        PerfCommand.class,
        BenchCommand.class,
        ChaosCommand.class,
        GroupCommand.class,
        UserCommand.class,
        AclCommand.class,
        CertsCommand.class,
        AutoComplete.GenerateCompletion.class})
public final class Felix {

  /** Exit status of a failed command (usage errors exit with picocli's 2). */
  public static final int FAILED = 1;

  private final InputStream in;
  private final PrintStream out;
  private final PrintStream err;
  private final Map<String, String> environment;

  Felix(InputStream in, PrintStream out, PrintStream err, Map<String, String> environment) {
    this.in = in;
    this.out = out;
    this.err = err;
    this.environment = environment;
  }

  public static void main(String[] args) {
    int code = run(args, System.in, System.out, System.err, System.getenv());
    System.out.flush();
    System.exit(code);
  }

  /**
   * Runs one command line and returns its exit status.
   *
   * @param environment where FELIX_BOOTSTRAP, FELIX_ADMIN and FELIX_PROFILE are looked up (the process's own in
   *     {@link #main}; tests pass their own)
   */
  public static int run(String[] args, InputStream in, PrintStream out, PrintStream err,
      Map<String, String> environment) {
    CommandLine cli = commandLine(new Felix(in, out, err, environment));
    args = earlierSpellings(args);
    cli.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
    cli.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
    int code = cli.execute(args);
    cli.getOut().flush();
    cli.getErr().flush();
    return code;
  }

  /**
   * The load generator's spellings of earlier versions, run as {@code felix perf ...}: {@code produce --stream NAME},
   * {@code consume --stream NAME} (the console tools take the stream as an argument, never as --stream) and
   * {@code cache ...}.
   */
  static String[] earlierSpellings(String[] args) {
    if (args.length == 0) {
      return args;
    }
    boolean load = args[0].equals("cache") || (args[0].equals("produce") || args[0].equals("consume"))
        && Arrays.stream(args).anyMatch(a -> a.equals("--stream") || a.startsWith("--stream="));
    if (!load) {
      return args;
    }
    String[] perf = new String[args.length + 1];
    perf[0] = "perf";
    System.arraycopy(args, 0, perf, 1, args.length);
    return perf;
  }

  static CommandLine commandLine(Felix felix) {
    CommandLine cli = new CommandLine(felix);
    cli.setExecutionExceptionHandler((e, command, parseResult) -> {
      if (e instanceof CommandFailure failure) {
        command.getErr().println(command.getCommandSpec().qualifiedName() + ": " + failure.getMessage());
        return FAILED;
      }
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
        command.getErr().println(command.getCommandSpec().qualifiedName() + ": interrupted");
        return FAILED;
      }
      if (e instanceof java.io.IOException) {
        command.getErr().println(command.getCommandSpec().qualifiedName() + ": " + e.getMessage());
        return FAILED;
      }
      throw e;
    });
    // Every usage error: the message naming the option, suggestions for a mistyped name, then the usage.
    cli.setParameterExceptionHandler((e, args) -> {
      CommandLine command = e.getCommandLine();
      command.getErr().println(e.getMessage());
      CommandLine.UnmatchedArgumentException.printSuggestions(e, command.getErr());
      command.usage(command.getErr());
      return command.getCommandSpec().exitCodeOnInvalidInput();
    });
    cli.setUsageHelpAutoWidth(true);
    return cli;
  }

  InputStream in() {
    return in;
  }

  /** Standard output as the load generator's runs print to it (picocli's own writer wraps the same stream). */
  PrintStream out() {
    return out;
  }

  PrintStream err() {
    return err;
  }

  Map<String, String> environment() {
    return environment;
  }

  /** Standard output of the felix run that parsed {@code spec} (System.out when the command runs alone). */
  public static PrintStream out(CommandLine.Model.CommandSpec spec) {
    return spec.root().userObject() instanceof Felix felix ? felix.out : System.out;
  }

  /** The Felix instance at the root of {@code spec}'s command tree. */
  static Felix of(CommandLine.Model.CommandSpec spec) {
    return (Felix) spec.root().userObject();
  }
}

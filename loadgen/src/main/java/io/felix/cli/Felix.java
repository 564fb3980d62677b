package io.felix.cli;

import io.felix.loadgen.bench.BenchCommand;
import io.felix.loadgen.chaos.ChaosCommand;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code felix}: the one command line of Felix (bin/felix hands every command but its local-cluster verbs to it).
 * Admin commands talk to a broker's admin HTTP API, {@code produce} and {@code consume} to the client port; the
 * load generator ({@code produce --stream}, {@code consume --stream}), {@code bench} and {@code chaos} live here
 * too, so every option of every tool is parsed one way (picocli: {@code --name value} and {@code --name=value}).
 *
 * <p>Exit status: 0 done; 1 the command failed (the broker refused, a record was not acknowledged, a check
 * failed); 2 bad usage (the message names the option, the usage follows).
 */
@Command(name = "felix", mixinStandardHelpOptions = true, versionProvider = FelixVersion.class,
    description = "Felix streaming broker: streams, brokers, moves, placement, console producer and consumer, "
        + "load generator.",
    subcommands = {
        StreamCommand.class,
        BrokerCommand.class,
        MoveCommand.class,
        PlacementCommand.class,
        StatusCommand.class,
        ProduceCommand.class,
        ConsumeCommand.class,
        BenchCommand.class,
        ChaosCommand.class,
        GroupCommand.class,
        CacheCommand.class,
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
    cli.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
    cli.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
    int code = cli.execute(args);
    cli.getOut().flush();
    cli.getErr().flush();
    return code;
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

package io.felix.loadgen.chaos;

import io.felix.loadgen.UsageException;
import java.io.IOException;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;

/**
 * {@code loadgen chaos [options]} ({@code bin/felix chaos}): the fault suite. See {@link ChaosOptions} for the
 * options, {@link FaultKind} for the faults and {@link ChaosRound} for what each round checks.
 *
 * <p>Exit status: 0 when every round kept every acknowledged record exactly once and in order and had every
 * shard writable within the bound; 1 otherwise (or when the cluster could not be started); 2 bad usage.
 */
public final class ChaosCommand {
  private ChaosCommand() {}

  /** Runs {@code chaos ARGS} (the word "chaos" already consumed); returns the exit status. */
  public static int run(List<String> args, PrintStream out, PrintStream err) throws UsageException {
    ChaosOptions options = ChaosOptions.parse(args);
    try {
      return exitStatus(execute(options, Map.of(), out));
    } catch (IOException e) {
      err.println("chaos: " + e.getMessage());
      return 1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return 1;
    }
  }

  /**
   * Runs the rounds and prints the table per fault kind.
   *
   * @param launcherEnvironment added to {@code bin/felix}'s environment (e.g. FELIX_BROKER_CLASSPATH in tests)
   */
  public static ChaosTable execute(ChaosOptions options, Map<String, String> launcherEnvironment, PrintStream out)
      throws IOException, InterruptedException {
    ChaosTable table = new ChaosRun(options, launcherEnvironment, out).run();
    out.print(table.render());
    out.println(table.ok() ? "chaos: OK" : "chaos: FAILED");
    return table;
  }

  public static int exitStatus(ChaosTable table) {
    return table.ok() ? 0 : 1;
  }
}

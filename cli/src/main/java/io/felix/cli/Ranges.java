package io.felix.cli;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;

/** Bounds of numeric options: a value outside them is a usage error naming the option (exit status 2). */
public final class Ranges {
  private Ranges() {}

  public static long within(CommandSpec spec, String option, long value, long min, long max) {
    if (value < min || value > max) {
      throw new ParameterException(spec.commandLine(),
          option + ": expected a number from " + min + " to " + max + ", got " + value);
    }
    return value;
  }

  public static int within(CommandSpec spec, String option, int value, int min, int max) {
    return (int) within(spec, option, (long) value, min, max);
  }

  /** A usage error of the command, printed with its usage. */
  public static ParameterException usage(CommandSpec spec, String message) {
    return new ParameterException(spec.commandLine(), message);
  }
}

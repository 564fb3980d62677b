package io.felix.cli;

/**
 * A command that ran and failed (the broker refused, nothing answered, a record was not acknowledged); felix
 * prints the message after the command's name and exits with status 1.
 */
public final class CommandFailure extends Exception {
  public CommandFailure(String message) {
    super(message, null, false, false);
  }
}

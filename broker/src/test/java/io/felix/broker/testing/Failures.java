package io.felix.broker.testing;

import io.felix.client.FelixException;
import java.util.concurrent.CompletionException;

/** The failure a client call ends with, for tests that expect one. */
public final class Failures {

  /** A call that may throw. */
  public interface Call {
    Object run() throws Exception;
  }

  private Failures() {}

  /** The {@link FelixException} {@code call} fails with; the test fails when the call succeeds. */
  public static FelixException of(Call call) {
    try {
      call.run();
    } catch (Exception e) {
      return FelixException.from(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
    }
    throw new AssertionError("expected a failure");
  }
}

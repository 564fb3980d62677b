package io.felix.launcher;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The Felix checkout a launcher works in: where the default local cluster directory ({@code data/local}) and the
 * broker jar ({@code broker/target/felix-broker.jar}) are. FELIX_HOME (bin/felix sets it), else the first directory
 * upward from the working directory, then from this code's jar or classes, that holds {@code bin/felix}, else the
 * working directory.
 */
public final class FelixHome {
  private FelixHome() {}

  public static Path of(Map<String, String> env) {
    String home = env.get("FELIX_HOME");
    if (home != null && !home.isBlank()) {
      return Path.of(home).toAbsolutePath().normalize();
    }
    Path workingDirectory = Path.of("").toAbsolutePath();
    for (Path start : List.of(workingDirectory, codeLocation())) {
      for (Path d = start; d != null; d = d.getParent()) {
        if (Files.isRegularFile(d.resolve("bin/felix"))) {
          return d;
        }
      }
    }
    return workingDirectory;
  }

  /** Where this class was loaded from (a jar, or a classes directory). */
  private static Path codeLocation() {
    try {
      return Path.of(FelixHome.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toAbsolutePath();
    } catch (Exception unknown) {
      return Path.of(System.getProperty("java.class.path").split(File.pathSeparator)[0]).toAbsolutePath();
    }
  }
}

package io.felix.cli;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** {@code felix --version}: the project version Maven wrote into felix-version.properties at build time. */
public final class FelixVersion implements IVersionProvider {

  @Override
  public String[] getVersion() throws IOException {
    Properties p = new Properties();
    try (InputStream in = FelixVersion.class.getResourceAsStream("felix-version.properties")) {
      if (in != null) {
        p.load(in);
      }
    }
    return new String[] {"felix " + p.getProperty("version", "unknown") + " (Java "
        + System.getProperty("java.version") + ")"};
  }
}

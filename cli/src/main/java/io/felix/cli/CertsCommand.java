package io.felix.cli;

import io.felix.launcher.CertificateAuthority;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code felix certs create}: a local CA with broker and client certificates, for felix.tls. */
@Command(name = "certs", description = "TLS certificates for a cluster", subcommands = CertsCommand.Create.class)
final class CertsCommand {

  @Command(name = "create", mixinStandardHelpOptions = true,
      description = "Creates a local CA and a certificate per broker (CN=broker-N) and per client in --out: "
          + "ca.crt, NAME.crt (with the CA after it), NAME.key (PKCS#8) and NAME.p12 (PKCS12) each. "
          + "Point felix.tls at them (bin/felix local up --tls does).")
  static final class Create implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "directory to write into (created)")
    Path out;

    @Option(names = "--brokers", defaultValue = "3", paramLabel = "N",
        description = "brokers 0..N-1 get broker-N certificates (default ${DEFAULT-VALUE})")
    int brokers;

    @Option(names = "--clients", defaultValue = "client", split = ",", paramLabel = "NAME[,NAME...]",
        description = "client certificates to issue (default ${DEFAULT-VALUE})")
    List<String> clients;

    @Option(names = "--host", split = ",", paramLabel = "NAME",
        description = "host names and addresses the broker certificates are valid for, besides localhost, "
            + "127.0.0.1 and broker-N (e.g. the compose service names)")
    List<String> hosts = new ArrayList<>();

    @Option(names = "--p12-password", defaultValue = "felix", paramLabel = "PASSWORD",
        description = "password of the PKCS12 keystores (default ${DEFAULT-VALUE})")
    String p12Password;

    @Override
    public Integer call() throws IOException {
      if (brokers < 1) {
        throw Ranges.usage(spec, "--brokers must be at least 1, got " + brokers);
      }
      if (Files.exists(out.resolve("ca.key"))) {
        throw Ranges.usage(spec, "--out " + out + " already holds a CA (ca.key); remove it or choose another directory");
      }
      CertificateAuthority.writeCluster(out, brokers, hosts, clients, p12Password.toCharArray());
      spec.commandLine().getOut().println("felix: wrote a CA, " + brokers + " broker and " + clients.size() + " client certificate(s) to "
          + out);
      return 0;
    }
  }
}

package io.felix.cli;

import picocli.CommandLine.Command;

/**
 * {@code felix perf produce|consume|cache}: the load generator (felix-loadgen's runs). The spellings of earlier
 * versions, {@code felix produce --stream NAME ...}, {@code felix consume --stream NAME ...} and
 * {@code felix cache ...}, still run these (see {@link Felix#run}).
 */
@Command(name = "perf", mixinStandardHelpOptions = true,
    description = "The load generator: generated records at a rate, latency percentiles, and a reader that checks "
        + "every record against the producers' ledger.",
    subcommands = {PerfProduceCommand.class, PerfConsumeCommand.class, CacheCommand.class})
final class PerfCommand {
}

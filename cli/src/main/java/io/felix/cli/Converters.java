package io.felix.cli;

import io.felix.client.ClientMode;
import io.felix.client.HostPort;
import io.felix.protocol.client.Acks;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** The option types every felix command shares, each converted (and refused) one way. */
public final class Converters {
  private Converters() {}

  private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h)");

  /** Durations like 500ms, 30s, 5m, 1h; longer than zero. */
  public static final class PositiveDuration implements ITypeConverter<Duration> {
    @Override
    public Duration convert(String value) {
      Matcher m = DURATION.matcher(value.trim().toLowerCase(Locale.ROOT));
      if (!m.matches()) {
        throw new TypeConversionException("expected a duration like 500ms, 30s, 5m or 1h, got '" + value + "'");
      }
      long n = Long.parseLong(m.group(1));
      Duration d = switch (m.group(2)) {
        case "ms" -> Duration.ofMillis(n);
        case "s" -> Duration.ofSeconds(n);
        case "m" -> Duration.ofMinutes(n);
        default -> Duration.ofHours(n);
      };
      if (d.isZero()) {
        throw new TypeConversionException("must be longer than zero, got '" + value + "'");
      }
      return d;
    }
  }

  /** {@code host:port[,host:port...]}. */
  public static final class Addresses implements ITypeConverter<List<HostPort>> {
    @Override
    public List<HostPort> convert(String value) {
      try {
        return HostPort.parseList(value);
      } catch (IllegalArgumentException e) {
        throw new TypeConversionException(e.getMessage());
      }
    }
  }

  /** quorum, all or leader (any case). */
  public static final class AcksWord implements ITypeConverter<Acks> {
    @Override
    public Acks convert(String value) {
      return switch (value.toLowerCase(Locale.ROOT)) {
        case "quorum" -> Acks.QUORUM;
        case "all" -> Acks.ALL;
        case "leader" -> Acks.LEADER;
        default -> throw new TypeConversionException("expected one of quorum, all, leader, got '" + value + "'");
      };
    }
  }

  /** cluster or plain (any case). */
  public static final class ModeWord implements ITypeConverter<ClientMode> {
    @Override
    public ClientMode convert(String value) {
      return switch (value.toLowerCase(Locale.ROOT)) {
        case "cluster" -> ClientMode.CLUSTER;
        case "plain" -> ClientMode.PLAIN;
        default -> throw new TypeConversionException("expected one of cluster, plain, got '" + value + "'");
      };
    }
  }

  /** Whole numbers; underscores allowed as in Java literals (1_000_000). */
  public static final class WholeNumber implements ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      try {
        return Long.parseLong(value.replace("_", ""));
      } catch (NumberFormatException e) {
        throw new TypeConversionException("expected a whole number, got '" + value + "'");
      }
    }
  }
}

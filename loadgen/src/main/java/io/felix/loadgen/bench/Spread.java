package io.felix.loadgen.bench;

import java.util.List;

/** The median and range of a few repeated measurements: what a benchmark that alternates its runs reports. */
record Spread(double median, double min, double max) {

  static Spread of(List<Double> values) {
    if (values.isEmpty()) {
      throw new IllegalArgumentException("no measurements");
    }
    List<Double> sorted = values.stream().sorted().toList();
    int n = sorted.size();
    double median = n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    return new Spread(median, sorted.get(0), sorted.get(n - 1));
  }

  /** e.g. {@code 52,100 [48,000-60,300]} with the given format for each number. */
  String format(String number) {
    return String.format(number + " [" + number + "-" + number + "]", median, min, max);
  }
}

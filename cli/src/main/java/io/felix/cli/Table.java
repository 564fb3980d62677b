package io.felix.cli;

import java.util.ArrayList;
import java.util.List;

/** Rows under upper-case headers, each column as wide as its widest cell, two spaces apart. */
final class Table {
  private final List<String> headers;
  private final List<List<String>> rows = new ArrayList<>();

  Table(String... headers) {
    this.headers = List.of(headers);
  }

  Table row(Object... cells) {
    if (cells.length != headers.size()) {
      throw new IllegalArgumentException("a row of " + headers.size() + " cells expected, got " + cells.length);
    }
    List<String> row = new ArrayList<>();
    for (Object c : cells) {
      row.add(c == null ? "-" : c.toString());
    }
    rows.add(row);
    return this;
  }

  String render() {
    int[] width = new int[headers.size()];
    for (int i = 0; i < width.length; i++) {
      width[i] = headers.get(i).length();
      for (List<String> row : rows) {
        width[i] = Math.max(width[i], row.get(i).length());
      }
    }
    StringBuilder out = new StringBuilder();
    line(out, headers, width);
    rows.forEach(row -> line(out, row, width));
    return out.toString();
  }

  private static void line(StringBuilder out, List<String> cells, int[] width) {
    StringBuilder line = new StringBuilder();
    for (int i = 0; i < cells.size(); i++) {
      line.append(cells.get(i));
      if (i < cells.size() - 1) {
        line.append(" ".repeat(width[i] - cells.get(i).length() + 2));
      }
    }
    out.append(line.toString().stripTrailing()).append('\n');
  }
}

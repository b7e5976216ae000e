/// \file nsc/io/nats_sss.hpp
/// Reader for shared/data/nats-bench-sss/nats_sss_32768.csv.
///
///     nats_sss_record                  one row: index, channels string, c0..c4, the three
///                                      accuracies (%), the three params_computed_* columns
///     nats_sss_limits                  bounds on untrusted input (line length, columns, rows)
///     read_nats_sss(std::istream&, source_name, limits)
///     read_nats_sss(path, limits)      through nsc/io/input_file.hpp (file size limit)
///
/// Format: comma-separated, a header line naming the columns (any order; extra columns are
/// ignored), one architecture per line. Required columns: channels, c0, c1, c2, c3, c4,
/// cifar10_acc, cifar100_acc, imagenet16_120_acc, params_computed_cifar10,
/// params_computed_cifar100, params_computed_imagenet16_120; nats_index is optional (default:
/// the row position, from 0). Blank lines are skipped; a trailing '\r' (CRLF files) is removed.
///
/// Every malformed input throws std::invalid_argument naming the source, the line, the data row,
/// the column and the value, e.g.
///   "nsc::io::read_nats_sss: nats.csv line 5 (row 4), column 'c3': expected an integer >= 1
///    (got '8x')"
/// Rules: integers are plain decimal (c0..c4 and params >= 1, nats_index >= 0); accuracies are
/// finite numbers in [0, 100]; channels must equal "c0:c1:c2:c3:c4"; every row has as many
/// fields as the header. Bounded work on hostile input: a line longer than
/// limits.max_line_bytes (1 MiB), a header of more than limits.max_columns (1024) fields or more
/// than limits.max_rows (1,000,000) data rows is refused when reached, before storing it; values
/// are quoted truncated (io::excerpt). The path overload reads through io::read_input_file: a
/// missing file, a directory or a file above its size limit (64 MiB) is a std::invalid_argument
/// naming the path.
#ifndef NSC_IO_NATS_SSS_HPP
#define NSC_IO_NATS_SSS_HPP

#include <nsc/io/input_file.hpp>

#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace nsc::io {

/// One architecture of nats_sss_32768.csv.
struct nats_sss_record {
  std::int64_t index = 0; ///< nats_index (or the row position when the column is absent)
  std::string channels;   ///< "c0:c1:c2:c3:c4"
  std::array<std::int64_t, 5> c{};
  double cifar10_acc = 0; ///< top-1 accuracy in %
  double cifar100_acc = 0;
  double imagenet16_120_acc = 0;
  std::int64_t params_cifar10 = 0; ///< params_computed_cifar10
  std::int64_t params_cifar100 = 0;
  std::int64_t params_imagenet16_120 = 0;
};

/// Bounds on what read_nats_sss accepts (the real file: 13 columns, 32,768 rows of ~80 bytes).
struct nats_sss_limits {
  std::size_t max_line_bytes = std::size_t(1) << 20; ///< one line, without its '\n'
  std::size_t max_columns = 1024;                    ///< fields of the header
  std::size_t max_rows = 1000000;                    ///< data rows
};

namespace detail {

/// The fields of `line`, at most `max_fields` + 1 of them (a caller that needs exactly
/// max_fields sees the excess without splitting a hostile line into millions of views).
inline std::vector<std::string_view> nats_split(std::string_view line, std::size_t max_fields) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = line.find(',', pos);
    out.push_back(line.substr(pos, comma == std::string_view::npos ? line.npos : comma - pos));
    if (comma == std::string_view::npos || out.size() > max_fields) break;
    pos = comma + 1;
  }
  return out;
}

/// The number of fields of `line` (commas + 1), without splitting it.
inline std::size_t nats_field_count(std::string_view line) {
  std::size_t n = 1;
  for (char c : line) n += c == ',';
  return n;
}

inline std::string_view nats_trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

struct nats_reader_context {
  const std::string& source;
  std::size_t line = 0;
  std::size_t row = 0;

  [[noreturn]] void fail(std::string_view column, std::string_view rule,
                         std::string_view value) const {
    std::string msg = "nsc::io::read_nats_sss: ";
    msg.append(source).append(" line ").append(std::to_string(line));
    if (row > 0) msg.append(" (row ").append(std::to_string(row)).append(")");
    if (!column.empty()) msg.append(", column '").append(column).append("'");
    msg.append(": ").append(rule).append(" (got '").append(excerpt(value)).append("')");
    throw std::invalid_argument(msg);
  }

  /// The next line of `in` without its '\n' (and a trailing '\r'); false at the end of input.
  /// A line longer than `max_bytes` is refused once that many bytes are read.
  bool next_line(std::istream& in, std::string& out, std::size_t max_bytes) {
    out.clear();
    std::streambuf* sb = in.rdbuf();
    if (!sb) return false;
    bool any = false;
    for (int c = sb->sbumpc(); c != std::char_traits<char>::eof(); c = sb->sbumpc()) {
      any = true;
      if (c == '\n') break;
      if (out.size() == max_bytes) {
        ++line;
        fail("", "line longer than the limit of " + std::to_string(max_bytes) + " bytes", out);
      }
      out.push_back(static_cast<char>(c));
    }
    if (!any) {
      in.setstate(std::ios::eofbit);
      return false;
    }
    ++line;
    if (!out.empty() && out.back() == '\r') out.pop_back();
    return true;
  }

  std::int64_t integer(std::string_view column, std::string_view field, std::int64_t min) const {
    const std::string_view t = nats_trim(field);
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size() || v < min)
      fail(column, min == 0 ? "expected an integer >= 0" : "expected an integer >= 1", field);
    return v;
  }

  double accuracy(std::string_view column, std::string_view field) const {
    const std::string_view t = nats_trim(field);
    double v = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size() || !std::isfinite(v) ||
        v < 0 || v > 100)
      fail(column, "expected an accuracy in [0, 100]", field);
    return v;
  }
};

} // namespace detail

/// Reads the CSV from `in`; `source` names it in error messages.
inline std::vector<nats_sss_record> read_nats_sss(std::istream& in,
                                                  const std::string& source = "<stream>",
                                                  const nats_sss_limits& limits = {}) {
  enum col : std::size_t {
    index,
    channels,
    c0,
    c1,
    c2,
    c3,
    c4,
    acc10,
    acc100,
    acc120,
    p10,
    p100,
    p120,
    n_cols
  };
  static constexpr std::array<std::string_view, n_cols> names{"nats_index",
                                                              "channels",
                                                              "c0",
                                                              "c1",
                                                              "c2",
                                                              "c3",
                                                              "c4",
                                                              "cifar10_acc",
                                                              "cifar100_acc",
                                                              "imagenet16_120_acc",
                                                              "params_computed_cifar10",
                                                              "params_computed_cifar100",
                                                              "params_computed_imagenet16_120"};
  detail::nats_reader_context ctx{source};
  std::string line;
  std::vector<nats_sss_record> out;

  // Header.
  bool have_header = false;
  while (ctx.next_line(in, line, limits.max_line_bytes)) {
    if (detail::nats_trim(line).empty()) continue;
    have_header = true;
    break;
  }
  if (!have_header) {
    std::string msg = "nsc::io::read_nats_sss: ";
    msg.append(source).append(": empty input, expected a header line");
    throw std::invalid_argument(msg);
  }
  std::array<std::ptrdiff_t, n_cols> pos;
  pos.fill(-1);
  const std::vector<std::string_view> header = detail::nats_split(line, limits.max_columns);
  if (header.size() > limits.max_columns)
    ctx.fail("", "header of " + std::to_string(detail::nats_field_count(line)) +
                     " columns exceeds the limit of " + std::to_string(limits.max_columns),
             line);
  for (std::size_t k = 0; k < header.size(); ++k) {
    const std::string_view h = detail::nats_trim(header[k]);
    for (std::size_t c = 0; c < n_cols; ++c) {
      if (h != names[c]) continue;
      if (pos[c] >= 0) ctx.fail(h, "duplicate column in the header", h);
      pos[c] = std::ptrdiff_t(k);
    }
  }
  for (std::size_t c = channels; c < n_cols; ++c)
    if (pos[c] < 0) ctx.fail(names[c], "missing column in the header", line);
  const std::size_t n_fields = header.size();

  // Rows.
  while (ctx.next_line(in, line, limits.max_line_bytes)) {
    if (detail::nats_trim(line).empty()) continue;
    if (++ctx.row > limits.max_rows)
      ctx.fail("", "more data rows than the limit of " + std::to_string(limits.max_rows), line);
    const std::vector<std::string_view> f = detail::nats_split(line, n_fields);
    if (f.size() != n_fields) {
      std::string rule = "expected ";
      rule.append(std::to_string(n_fields))
          .append(" fields, got ")
          .append(std::to_string(detail::nats_field_count(line)));
      ctx.fail("", rule, line);
    }
    auto field = [&](std::size_t c) { return f[std::size_t(pos[c])]; };
    nats_sss_record r;
    r.index =
        pos[index] >= 0 ? ctx.integer(names[index], field(index), 0) : std::int64_t(ctx.row - 1);
    for (std::size_t k = 0; k < 5; ++k) r.c[k] = ctx.integer(names[c0 + k], field(c0 + k), 1);
    r.channels = std::string(detail::nats_trim(field(channels)));
    std::string expect;
    for (std::size_t k = 0; k < 5; ++k) {
      if (k) expect += ':';
      expect += std::to_string(r.c[k]);
    }
    if (r.channels != expect) {
      std::string rule = "expected c0:c1:c2:c3:c4 = ";
      rule.append(expect);
      ctx.fail(names[channels], rule, field(channels));
    }
    r.cifar10_acc = ctx.accuracy(names[acc10], field(acc10));
    r.cifar100_acc = ctx.accuracy(names[acc100], field(acc100));
    r.imagenet16_120_acc = ctx.accuracy(names[acc120], field(acc120));
    r.params_cifar10 = ctx.integer(names[p10], field(p10), 1);
    r.params_cifar100 = ctx.integer(names[p100], field(p100), 1);
    r.params_imagenet16_120 = ctx.integer(names[p120], field(p120), 1);
    out.push_back(std::move(r));
  }
  return out;
}

/// Reads the CSV file at `path` through io::read_input_file (missing file, directory or a file
/// above the input size limit: std::invalid_argument naming the path).
inline std::vector<nats_sss_record> read_nats_sss(const std::string& path,
                                                  const nats_sss_limits& limits = {}) {
  std::istringstream in(read_input_file(path, "nsc::io::read_nats_sss"));
  return read_nats_sss(in, path, limits);
}

} // namespace nsc::io

#endif // NSC_IO_NATS_SSS_HPP

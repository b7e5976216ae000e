/// \file nsc/io/nats_sss.hpp
/// Reader for shared/data/nats-bench-sss/nats_sss_32768.csv (standard library only).
///
///     nats_sss_record                  one row: index, channels string, c0..c4, the three
///                                      accuracies (%), the three params_computed_* columns
///     read_nats_sss(std::istream&, source_name)
///     read_nats_sss(path)
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
/// fields as the header. A file that cannot be opened throws std::runtime_error.
#ifndef NSC_IO_NATS_SSS_HPP
#define NSC_IO_NATS_SSS_HPP

#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <istream>
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

namespace detail {

inline std::vector<std::string_view> nats_split(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t pos = 0;
  while (true) {
    const std::size_t comma = line.find(',', pos);
    out.push_back(line.substr(pos, comma == std::string_view::npos ? line.npos : comma - pos));
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  return out;
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
    msg.append(": ").append(rule).append(" (got '").append(value).append("')");
    throw std::invalid_argument(msg);
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
                                                  const std::string& source = "<stream>") {
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
  while (std::getline(in, line)) {
    ++ctx.line;
    if (!line.empty() && line.back() == '\r') line.pop_back();
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
  const std::vector<std::string_view> header = detail::nats_split(line);
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
  while (std::getline(in, line)) {
    ++ctx.line;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (detail::nats_trim(line).empty()) continue;
    ++ctx.row;
    const std::vector<std::string_view> f = detail::nats_split(line);
    if (f.size() != n_fields) {
      std::string rule = "expected ";
      rule.append(std::to_string(n_fields))
          .append(" fields, got ")
          .append(std::to_string(f.size()));
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

/// Reads the CSV file at `path` (std::runtime_error if it cannot be opened).
inline std::vector<nats_sss_record> read_nats_sss(const std::string& path) {
  std::ifstream f(path);
  if (!f) {
    std::string msg = "nsc::io::read_nats_sss: cannot open '";
    msg.append(path).append("'");
    throw std::runtime_error(msg);
  }
  return read_nats_sss(f, path);
}

} // namespace nsc::io

#endif // NSC_IO_NATS_SSS_HPP

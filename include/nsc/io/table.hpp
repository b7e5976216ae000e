/// \file nsc/io/table.hpp
/// Generic tables of architectures: CSV (RFC 4180) or JSON Lines -> named columns of text cells.
/// Used by `nsc rank --table` (nsc/io/rank_table.hpp) and by the ground-truth readers
/// (nsc/io/ground_truth.hpp, whose CSV layer is `csv_record_reader`). Needs nlohmann-json
/// (JSON Lines); an optional part like every nsc/io header.
///
/// Synopsis
///
///     table_limits                  max_columns, max_field_bytes, max_rows, file (input_limits)
///     csv_record_reader r(text, prefix[, limits]); r.next(record)   one record at a time
///     table parse_table(text, source[, format, limits])             CSV or JSON Lines in memory
///     table read_table_file(path[, format, limits])                 via read_input_file
///     t.column(name) -> std::optional<std::size_t>, t.cell(row, col)
///
/// CSV (RFC 4180): fields separated by ',', records by LF or CRLF (a lone CR too); a field in
/// double quotes may contain commas, line breaks and doubled quotes ("" = one "); a UTF-8 byte
/// order mark at the start is skipped; blank lines are skipped; the first record is the header
/// and every data record must have as many fields. Text after a closing quote other than a
/// separator is an error. Column names are compared after trimming blanks and tabs.
///
/// JSON Lines: one JSON object per non-blank line (a trailing CR is allowed). The columns are
/// the keys in order of first appearance over all lines; a key missing from a line is a blank
/// cell. Cells: a string is its text, null is blank, a number, boolean, object or array is its
/// compact JSON text (so an inline architecture object can be a cell). The format is chosen by
/// the file extension (.jsonl / .ndjson: JSON Lines; .csv: CSV), else by content: JSON Lines
/// when the first non-blank character (after a BOM) is '{'.
///
/// Limits (table_limits, all checked before the memory they bound is allocated; the whole file
/// is also bounded by input_limits::max_bytes, 64 MiB, and each JSON line by the JSON depth
/// limit): at most 65,536 columns, 16 MiB per field (a cell, or a JSON Lines line), 10,000,000
/// data rows. Duplicate column names are found in linear time (a hash set).
///
/// Rows are numbered from 1 over the data records (the CSV header is not counted; in JSON Lines
/// row R is the R-th object). Errors: std::invalid_argument "<prefix>: row R: <rule>" or
/// "<prefix>: header: <rule>", where prefix is "nsc::read_table: <source>" (the path), e.g.
///   nsc::read_table: runs.csv: row 3: expected 4 fields, got 3
///   nsc::read_table: runs.csv: header: more than 65536 columns (the limit)
///   nsc::read_table: runs.jsonl: row 2: invalid JSON: ...
/// and every quoted value is truncated (nsc::io::excerpt).
#ifndef NSC_IO_TABLE_HPP
#define NSC_IO_TABLE_HPP

#include <nsc/error_handling.hpp>
#include <nsc/io/input_file.hpp>

#include <nlohmann/json.hpp>

#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <system_error>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

namespace nsc::io {

/// Limits of the table readers (see the file comment).
struct table_limits {
  std::size_t max_columns = 65536;              ///< columns (header fields, JSON keys)
  std::size_t max_field_bytes = std::size_t(16) << 20; ///< bytes of one field / JSON line
  std::size_t max_rows = 10'000'000;            ///< data rows
  input_limits file{};                          ///< file size and JSON depth
};

/// Streaming RFC 4180 reader over text in memory: `next(record)` yields one non-blank record
/// at a time (the first is the header), in time linear in the text. Errors throw
/// std::invalid_argument "<prefix>: header: <rule>" before the first record is returned, else
/// "<prefix>: row N: <rule>" (N = the data row being read, 1-based).
class csv_record_reader {
public:
  csv_record_reader(std::string_view text, std::string prefix, const table_limits& limits = {})
      : text_(text), prefix_(std::move(prefix)), limits_(limits) {
    if (text_.size() >= 3 && text_.substr(0, 3) == "\xEF\xBB\xBF") text_.remove_prefix(3);
  }

  /// Reads the next non-blank record into `rec` (cleared first); false at the end of the text.
  bool next(std::vector<std::string>& rec) {
    for (;;) {
      rec.clear();
      if (pos_ >= text_.size()) return false;
      read_record(rec);
      if (!(rec.size() == 1 && rec[0].empty())) {
        ++records_;
        return true;
      }
    }
  }

  /// Records returned so far (1 after the header).
  std::size_t records() const noexcept { return records_; }

  /// Throws "<prefix>: header: <what>" or "<prefix>: row N: <what>" for the record being read.
  [[noreturn]] void fail(const std::string& what) const {
    if (records_ == 0) throw_invalid_argument(prefix_, "header: " + what);
    throw_invalid_argument(prefix_, "row " + std::to_string(records_) + ": " + what);
  }

  /// Throws "<prefix>: row N: <what>" for the record returned last (N = records() - 1).
  [[noreturn]] void fail_last(const std::string& what) const {
    if (records_ <= 1) throw_invalid_argument(prefix_, "header: " + what);
    throw_invalid_argument(prefix_, "row " + std::to_string(records_ - 1) + ": " + what);
  }

private:
  static bool is_break(char c) noexcept { return c == '\n' || c == '\r'; }

  void push_field(std::vector<std::string>& rec, std::string&& field) {
    if (rec.size() >= limits_.max_columns)
      fail("more than " + std::to_string(limits_.max_columns) + " fields (the limit)");
    rec.push_back(std::move(field));
  }

  void check_size(std::size_t bytes) const {
    if (bytes > limits_.max_field_bytes)
      fail("a field longer than " + std::to_string(limits_.max_field_bytes) +
           " bytes (the limit)");
  }

  void read_record(std::vector<std::string>& rec) {
    const std::size_t n = text_.size();
    for (;;) {
      std::string field;
      if (pos_ < n && text_[pos_] == '"') {
        ++pos_;
        for (;;) {
          std::size_t q = text_.find('"', pos_);
          if (q == std::string_view::npos) fail("unterminated quoted field");
          check_size(field.size() + (q - pos_));
          field.append(text_.substr(pos_, q - pos_));
          pos_ = q + 1;
          if (pos_ < n && text_[pos_] == '"') {
            field += '"';
            ++pos_;
          } else {
            break;
          }
        }
        if (pos_ < n && text_[pos_] != ',' && !is_break(text_[pos_]))
          fail("unexpected character after a closing quote");
      } else {
        std::size_t e = pos_;
        while (e < n && text_[e] != ',' && !is_break(text_[e])) ++e;
        check_size(e - pos_);
        field.assign(text_.substr(pos_, e - pos_));
        pos_ = e;
      }
      push_field(rec, std::move(field));
      if (pos_ >= n) return;
      if (text_[pos_] == ',') {
        ++pos_;
        if (pos_ == n) push_field(rec, std::string()); // trailing comma: one more empty field
        if (pos_ >= n) return;
        continue;
      }
      if (text_[pos_] == '\r' && pos_ + 1 < n && text_[pos_ + 1] == '\n') ++pos_;
      ++pos_;
      return;
    }
  }

  std::string_view text_;
  std::string prefix_;
  table_limits limits_;
  std::size_t pos_ = 0;
  std::size_t records_ = 0;
};

namespace detail {

inline std::string_view trim(std::string_view s) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t'; };
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

/// Integer, optionally written with a fractional part of zeros ("12", "-3", "906375.0").
inline std::optional<std::int64_t> parse_integer(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  const char* b = s.data();
  const char* e = b + s.size();
  if (*b == '+' && e - b > 1 && b[1] != '-') ++b;
  std::int64_t v = 0;
  const auto r = std::from_chars(b, e, v);
  if (r.ec != std::errc{} || r.ptr == b) return std::nullopt;
  const char* p = r.ptr;
  if (p != e) {
    if (*p != '.') return std::nullopt;
    for (++p; p != e; ++p)
      if (*p != '0') return std::nullopt;
  }
  return v;
}

/// A finite floating-point number.
inline std::optional<double> parse_number(std::string_view s) {
  s = trim(s);
  if (s.empty()) return std::nullopt;
  const char* b = s.data();
  const char* e = b + s.size();
  if (*b == '+' && e - b > 1 && b[1] != '-') ++b;
  double v = 0;
  const auto r = std::from_chars(b, e, v, std::chars_format::general);
  if (r.ec != std::errc{} || r.ptr != e || !std::isfinite(v)) return std::nullopt;
  return v;
}

} // namespace detail

/// Blanks and tabs trimmed from both ends.
inline std::string_view trim_blanks(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

/// Refuses a header with a repeated (trimmed) name, in linear expected time:
/// "<prefix>: duplicate column '<name>'".
inline void check_unique_columns(const std::vector<std::string>& header, std::string_view prefix) {
  std::unordered_set<std::string_view> seen;
  seen.reserve(header.size());
  for (const std::string& h : header)
    if (!seen.insert(trim_blanks(h)).second)
      throw_invalid_argument(prefix, "duplicate column '" + excerpt(trim_blanks(h)) + "'");
}

/// The two formats of a table file.
enum class table_format { automatic, csv, jsonl };

/// A table: column names and rows of text cells (every row has one cell per column).
struct table {
  std::string source;                        ///< the path (or a description) named in errors
  table_format format = table_format::csv;   ///< csv or jsonl (never automatic)
  std::vector<std::string> columns;          ///< names, trimmed
  std::vector<std::vector<std::string>> rows;

  /// The index of the column called `name`, if any.
  std::optional<std::size_t> column(std::string_view name) const {
    for (std::size_t i = 0; i < columns.size(); ++i)
      if (columns[i] == name) return i;
    return std::nullopt;
  }
  /// The cell of data row `row` (0-based) in column `col`.
  const std::string& cell(std::size_t row, std::size_t col) const { return rows[row][col]; }
  std::size_t size() const noexcept { return rows.size(); }
};

namespace detail::table_io {

inline constexpr std::string_view fn = "nsc::read_table";

inline std::string prefix(std::string_view source) {
  std::string p(fn);
  p.append(": ").append(source);
  return p;
}

/// Reads CSV text into `header` and `rows` (see the file comment): a non-empty header with
/// unique names, every data record as wide, at most limits.max_rows of them.
inline void read_csv_records(std::string_view text, const std::string& prefix,
                             const table_limits& limits, std::vector<std::string>& header,
                             std::vector<std::vector<std::string>>& rows) {
  csv_record_reader r(text, prefix, limits);
  if (!r.next(header)) throw_invalid_argument(prefix, "the file is empty (no header row)");
  check_unique_columns(header, prefix);
  std::vector<std::string> rec;
  while (r.next(rec)) {
    if (rec.size() != header.size())
      r.fail_last("expected " + std::to_string(header.size()) + " fields, got " +
                  std::to_string(rec.size()));
    if (rows.size() >= limits.max_rows)
      r.fail_last("more than " + std::to_string(limits.max_rows) + " data rows (the limit)");
    rows.push_back(std::move(rec));
    rec = {};
  }
}

inline table parse_csv_table(std::string_view text, const std::string& source,
                             const table_limits& limits) {
  table t;
  t.source = source;
  t.format = table_format::csv;
  std::vector<std::string> header;
  read_csv_records(text, prefix(source), limits, header, t.rows);
  for (const std::string& h : header) t.columns.emplace_back(trim_blanks(h));
  return t;
}

/// The text of a JSON Lines cell (see the file comment).
inline std::string cell_text(const nlohmann::json& v) {
  if (v.is_null()) return {};
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float() && !std::isfinite(v.get<double>())) return nonfinite_literal(v.get<double>());
  return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

inline table parse_jsonl_table(std::string_view text, const std::string& source,
                               const table_limits& limits) {
  table t;
  t.source = source;
  t.format = table_format::jsonl;
  const std::string pre = prefix(source);
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  std::unordered_map<std::string, std::size_t> index;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t e = text.find('\n', pos);
    if (e == std::string_view::npos) e = text.size();
    std::string_view line = text.substr(pos, e - pos);
    pos = e + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::size_t first = 0;
    while (first < line.size() && (line[first] == ' ' || line[first] == '\t')) ++first;
    if (first == line.size()) continue; // blank
    const std::string row_name = "row " + std::to_string(t.rows.size() + 1);
    if (t.rows.size() >= limits.max_rows)
      throw_invalid_argument(pre, row_name + ": more than " + std::to_string(limits.max_rows) +
                                      " data rows (the limit)");
    if (line.size() > limits.max_field_bytes)
      throw_invalid_argument(pre, row_name + ": a line longer than " +
                                      std::to_string(limits.max_field_bytes) +
                                      " bytes (the limit)");
    const nlohmann::json j = parse_json(line, fn, source + ": " + row_name, limits.file);
    if (!j.is_object())
      throw_invalid_argument(pre, row_name + ": a JSON Lines row must be an object (got " +
                                      json_excerpt(j) + ")");
    std::vector<std::string> row(t.columns.size());
    for (const auto& [key, value] : j.items()) {
      auto it = index.find(key);
      if (it == index.end()) {
        if (t.columns.size() >= limits.max_columns)
          throw_invalid_argument(pre, row_name + ": more than " +
                                          std::to_string(limits.max_columns) +
                                          " columns (the limit)");
        it = index.emplace(key, t.columns.size()).first;
        t.columns.push_back(key);
        row.emplace_back();
      }
      row[it->second] = cell_text(value);
    }
    t.rows.push_back(std::move(row));
  }
  if (t.rows.empty()) throw_invalid_argument(pre, "the file has no JSON object (no rows)");
  for (auto& r : t.rows) r.resize(t.columns.size()); // keys first seen on later rows: blank
  return t;
}

inline table_format sniff(std::string_view text) {
  if (text.size() >= 3 && text.substr(0, 3) == "\xEF\xBB\xBF") text.remove_prefix(3);
  for (char c : text) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '{' ? table_format::jsonl : table_format::csv;
  }
  return table_format::csv;
}

} // namespace detail::table_io

/// Parses a table from text (format in the file comment); `source` names it in errors.
/// `automatic` decides by content (JSON Lines when the first non-blank character is '{').
inline table parse_table(std::string_view text, const std::string& source,
                         table_format format = table_format::automatic,
                         const table_limits& limits = {}) {
  if (format == table_format::automatic) format = detail::table_io::sniff(text);
  return format == table_format::jsonl ? detail::table_io::parse_jsonl_table(text, source, limits)
                                       : detail::table_io::parse_csv_table(text, source, limits);
}

/// The format a path's extension names (.jsonl / .ndjson / .csv), else `automatic`.
inline table_format table_format_of(const std::filesystem::path& path) {
  const std::string ext = path.extension().string();
  if (ext == ".jsonl" || ext == ".ndjson" || ext == ".JSONL" || ext == ".NDJSON")
    return table_format::jsonl;
  if (ext == ".csv" || ext == ".CSV") return table_format::csv;
  return table_format::automatic;
}

/// Reads a table file through read_input_file (size limit, the path in every message); the
/// format is `format`, else the extension's, else sniffed from the content.
inline table read_table_file(const std::filesystem::path& path,
                             table_format format = table_format::automatic,
                             const table_limits& limits = {}) {
  const std::string text = read_input_file(path, detail::table_io::fn, limits.file);
  if (format == table_format::automatic) format = table_format_of(path);
  return parse_table(text, path.string(), format, limits);
}

} // namespace nsc::io

#endif // NSC_IO_TABLE_HPP

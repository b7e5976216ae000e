/// \file nsc/io/input_file.hpp
/// Reading untrusted files: every reader of user files (configs, space files, tables,
/// checkpoint headers) goes through these, so that each one
/// * names the path in every message (missing, a directory, unreadable, too large),
/// * refuses a file larger than a documented limit before reading it,
/// * refuses JSON nested deeper than a documented limit before parsing it (no recursion whose
///   depth the input controls: nlohmann's serializer and copy are recursive),
/// * reports parser errors (syntax, a number out of range such as 1e400) with the path,
/// * quotes offending values truncated (`excerpt`, `json_excerpt`), never a 10 MB line or a whole subtree,
/// * accepts the literals NaN, Infinity and -Infinity outside strings, as Python's json module
///   writes them (the hub's Nemotron-H-56B config.json holds `Infinity`): they become the
///   floating-point numbers NaN, +inf and -inf, which every reader's field check that needs a
///   finite number refuses by name ("field 'x' must be a positive integer (got Infinity)").
/// All errors are std::invalid_argument "<function>: <path>: <rule> (got <value>)".
#ifndef NSC_IO_INPUT_FILE_HPP
#define NSC_IO_INPUT_FILE_HPP

#include <nsc/error_handling.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace nsc::io {

/// Limits on input files. The defaults are far above any real config, space file or table and
/// far below what would exhaust a 3 GiB address space.
struct input_limits {
  std::uintmax_t max_bytes = std::uintmax_t(64) << 20; ///< 64 MiB per file
  std::size_t max_json_depth = 64;                     ///< nesting of objects and arrays
};

/// At most `max_chars` characters of `s`, with "... (N bytes)" appended when cut.
inline std::string excerpt(std::string_view s, std::size_t max_chars = 120) {
  if (s.size() <= max_chars) return std::string(s);
  std::string out(s.substr(0, max_chars));
  out.append("... (").append(std::to_string(s.size())).append(" bytes)");
  return out;
}

/// Python's spelling of a non-finite double: "NaN", "Infinity" or "-Infinity" (what parse_json
/// reads back).
inline std::string nonfinite_literal(double d) {
  return std::isnan(d) ? "NaN" : d > 0 ? "Infinity" : "-Infinity";
}

/// A JSON value as text for an error message, truncated. Safe on values parsed through
/// parse_json (bounded depth); invalid UTF-8 is replaced rather than thrown on. A non-finite
/// number is quoted as Python writes it (NaN, Infinity, -Infinity; nested in an object or an
/// array, nlohmann's dump writes null).
inline std::string json_excerpt(const nlohmann::json& v, std::size_t max_chars = 120) {
  if (v.is_number_float() && !std::isfinite(v.get<double>())) return nonfinite_literal(v.get<double>());
  if (v.is_structured() && v.size() > 64) // do not serialise a huge value just to cut it
    return std::string(v.is_array() ? "[array of " : "{object of ") + std::to_string(v.size()) +
           (v.is_array() ? " elements]" : " members}");
  return excerpt(std::string_view(v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)),
                 max_chars);
}

/// Throws std::invalid_argument "<function>: <source>: <rule>".
[[noreturn]] inline void throw_input_error(std::string_view function, std::string_view source,
                                           std::string_view rule) {
  std::string r(source);
  r.append(": ").append(rule);
  throw_invalid_argument(function, r);
}

/// The whole content of a regular file, refused when missing, not a regular file, unreadable
/// or larger than `limits.max_bytes` (checked before reading).
inline std::string read_input_file(const std::filesystem::path& path, std::string_view function,
                                   const input_limits& limits = {}) {
  namespace fs = std::filesystem;
  const std::string name = path.string();
  std::error_code ec;
  const auto st = fs::status(path, ec);
  if (ec || !fs::exists(st)) throw_input_error(function, name, "cannot open file (no such file)");
  if (fs::is_directory(st)) throw_input_error(function, name, "is a directory, not a file");
  if (!fs::is_regular_file(st)) throw_input_error(function, name, "is not a regular file");
  const auto size = fs::file_size(path, ec);
  if (ec) throw_input_error(function, name, "cannot read the file size");
  if (size > limits.max_bytes)
    throw_input_error(function, name,
                      "file of " + std::to_string(size) + " bytes exceeds the limit of " +
                          std::to_string(limits.max_bytes) + " bytes");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw_input_error(function, name, "cannot open file");
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  if (in.gcount() != static_cast<std::streamsize>(size))
    throw_input_error(function, name, "read failed (file changed while reading?)");
  return text;
}

/// Refuses JSON text nested deeper than `max_depth` (objects and arrays, strings skipped),
/// in one linear pass that allocates nothing.
inline void check_json_depth(std::string_view text, std::size_t max_depth,
                             std::string_view function, std::string_view source) {
  std::size_t depth = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > max_depth)
        throw_input_error(function, source,
                          "JSON nested deeper than " + std::to_string(max_depth) +
                              " levels (at byte " + std::to_string(i) + ")");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
}

namespace detail {

/// The literals NaN, Infinity and -Infinity found outside strings by python_literals: each is
/// the `value`-th string value of the rewritten text (keys not counted), in document order.
struct nonfinite_literal_at {
  std::size_t value = 0; ///< index among the string values of the document
  double number = 0;     ///< NaN, +inf or -inf
};

/// Rewrites, outside strings, each NaN, Infinity and -Infinity token of `text` into an empty
/// string "" padded with blanks to the token's length (byte offsets of parser errors stay
/// those of the file) and lists where they were. Empty when the text has none (the text is
/// then left as is). One linear pass; strings (with their escapes) are skipped.
inline std::vector<nonfinite_literal_at> python_literals(std::string& text) {
  std::vector<nonfinite_literal_at> found;
  std::size_t values = 0; // string values seen so far (keys excluded)
  bool in_string = false;
  auto is_key = [&](std::size_t end) { // end: one past the token; a key is followed by ':'
    std::size_t k = end;
    while (k < text.size() && (text[k] == ' ' || text[k] == '\t' || text[k] == '\n' || text[k] == '\r')) ++k;
    return k < text.size() && text[k] == ':';
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
        if (!is_key(i + 1)) ++values;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
      continue;
    }
    const std::string_view rest = std::string_view(text).substr(i);
    std::size_t len = 0;
    double d = 0;
    if (rest.substr(0, 3) == "NaN") {
      len = 3;
      d = std::numeric_limits<double>::quiet_NaN();
    } else if (rest.substr(0, 8) == "Infinity") {
      len = 8;
      d = std::numeric_limits<double>::infinity();
    } else if (rest.substr(0, 9) == "-Infinity") {
      len = 9;
      d = -std::numeric_limits<double>::infinity();
    }
    if (len == 0 || is_key(i + len)) continue; // not a literal, or a bare key: the parser refuses it
    text.replace(i, len, "\"\"" + std::string(len - 2, ' '));
    found.push_back({values, d});
    ++values;
    i += len - 1;
  }
  return found;
}

} // namespace detail

/// Parses JSON text from `source` (a path or a description such as "row 12, column arch"):
/// depth checked first, parser errors reported with the source. NaN, Infinity and -Infinity
/// outside strings (Python's json.dumps) are read as the non-finite doubles they name; a
/// number out of range (1e400) is still refused.
inline nlohmann::json parse_json(std::string_view text, std::string_view function,
                                 std::string_view source, const input_limits& limits = {}) {
  check_json_depth(text, limits.max_json_depth, function, source);
  try {
    if (text.find_first_of("NI") == std::string_view::npos) return nlohmann::json::parse(text.begin(), text.end());
    std::string rewritten(text);
    const std::vector<detail::nonfinite_literal_at> at = detail::python_literals(rewritten);
    if (at.empty()) return nlohmann::json::parse(rewritten);
    std::size_t values = 0, next = 0; // string values seen; the next literal to restore
    const nlohmann::json::parser_callback_t restore = [&](int, nlohmann::json::parse_event_t event,
                                                          nlohmann::json& parsed) {
      if (event == nlohmann::json::parse_event_t::value && parsed.is_string()) {
        if (next < at.size() && at[next].value == values) parsed = at[next++].number;
        ++values;
      }
      return true;
    };
    nlohmann::json j = nlohmann::json::parse(rewritten, restore);
    if (next != at.size()) // cannot happen: every rewritten literal is a string value
      throw_input_error(function, source, "invalid JSON: misplaced NaN / Infinity literal");
    return j;
  } catch (const nlohmann::json::exception& e) {
    throw_input_error(function, source, std::string("invalid JSON: ") + excerpt(std::string_view(e.what()), 200));
  }
}

/// read_input_file + parse_json.
inline nlohmann::json read_json_file(const std::filesystem::path& path, std::string_view function,
                                     const input_limits& limits = {}) {
  return parse_json(read_input_file(path, function, limits), function, path.string(), limits);
}

} // namespace nsc::io

#endif // NSC_IO_INPUT_FILE_HPP

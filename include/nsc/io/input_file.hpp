/// \file nsc/io/input_file.hpp
/// Reading untrusted files: every reader of user files (configs, space files, tables,
/// checkpoint headers) goes through these, so that each one
/// * names the path in every message (missing, a directory, unreadable, too large),
/// * refuses a file larger than a documented limit before reading it,
/// * refuses JSON nested deeper than a documented limit before parsing it (no recursion whose
///   depth the input controls: nlohmann's serializer and copy are recursive),
/// * reports parser errors (syntax, a number out of range such as 1e400) with the path,
/// * quotes offending values truncated (`excerpt`, `json_excerpt`), never a 10 MB line or a whole subtree.
/// All errors are std::invalid_argument "<function>: <path>: <rule> (got <value>)".
#ifndef NSC_IO_INPUT_FILE_HPP
#define NSC_IO_INPUT_FILE_HPP

#include <nsc/error_handling.hpp>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>

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

/// A JSON value as text for an error message, truncated. Safe on values parsed through
/// parse_json (bounded depth); invalid UTF-8 is replaced rather than thrown on.
inline std::string json_excerpt(const nlohmann::json& v, std::size_t max_chars = 120) {
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

/// Parses JSON text from `source` (a path or a description such as "row 12, column arch"):
/// depth checked first, parser errors reported with the source.
inline nlohmann::json parse_json(std::string_view text, std::string_view function,
                                 std::string_view source, const input_limits& limits = {}) {
  check_json_depth(text, limits.max_json_depth, function, source);
  try {
    return nlohmann::json::parse(text.begin(), text.end());
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

// Shared plumbing of the `nsc` command-line tool: every examples/nsc/cmd_*.cpp registers one
// subcommand through a static `nsc_cli::command` object; main.cpp builds the CLI11 app from
// the registry, parses and dispatches. Output helpers keep the formats consistent.
#ifndef NSC_EXAMPLES_CLI_HPP
#define NSC_EXAMPLES_CLI_HPP

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace nsc_cli {

/// One subcommand: `setup` adds it to the app and returns the function to run after parsing.
struct command {
  std::string name;
  std::function<std::function<int()>(CLI::App&)> setup;
  command(std::string n, std::function<std::function<int()>(CLI::App&)> s);
};

inline std::vector<command*>& registry() {
  static std::vector<command*> r;
  return r;
}

inline command::command(std::string n, std::function<std::function<int()>(CLI::App&)> s)
    : name(std::move(n)), setup(std::move(s)) {
  registry().push_back(this);
}

/// Exit codes of every subcommand: 0 an answer, 1 no answer (e.g. an infeasible budget),
/// 2 bad input or a failed write (main.cpp maps every exception to 2).
inline constexpr int exit_answer = 0;
inline constexpr int exit_no_answer = 1;
inline constexpr int exit_bad_input = 2;

/// Writes `text` to `path`, checking every step (open, write, flush, close): a full disk or an
/// unwritable path throws std::runtime_error naming the path and the reason, never a silent
/// success.
inline void write_text_file(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot open " + path + " for writing: " + std::strerror(errno));
  const std::size_t n = text.empty() ? 0 : std::fwrite(text.data(), 1, text.size(), f);
  const int write_errno = errno;
  const bool ok_write = n == text.size();
  const bool ok_flush = std::fflush(f) == 0;
  const int flush_errno = errno;
  const bool ok_close = std::fclose(f) == 0;
  if (!ok_write || !ok_flush || !ok_close)
    throw std::runtime_error("writing " + path + " failed: " +
                             std::strerror(!ok_write ? write_errno : flush_errno));
}

/// The defaults an answer used: "--flag value" for every (flag, value) the user did not give, in
/// order, joined by ", " (docs/prune.md "Defaults": every answer prints the defaults it rests on).
inline std::string defaults_text(const CLI::App& sub, const std::vector<std::pair<std::string, std::string>>& flags) {
  std::string s;
  for (const auto& [flag, value] : flags)
    if (sub.count(flag) == 0) s += (s.empty() ? "" : ", ") + flag + (value.empty() ? "" : " " + value);
  return s.empty() ? "none (every setting given)" : s;
}

/// Prints a JSON value on one line to `out` (stdout).
inline void print_json(const nlohmann::json& j, std::FILE* out = stdout) { std::fprintf(out, "%s\n", j.dump().c_str()); }

/// Prints `j` as print_json does with j[key] the array of item(0), ..., item(n - 1), each made,
/// written and freed in turn: the same text without holding the array as one JSON tree (a
/// front of 44k points of 80 layers each took 1.3 GB so, several times its solver's tables;
/// streamed, the output costs one point at a time beside the memory cap the front was listed in).
/// `out`: the stream written (stdout; a file for the plotter's input).
inline void print_json_streamed(nlohmann::json j, const std::string& key, std::size_t n,
                                const std::function<nlohmann::json(std::size_t)>& item, std::FILE* out = stdout) {
  const std::string mark = "nsc: streamed array";
  j[key] = mark;
  const std::string text = j.dump();
  const std::string slot = nlohmann::json(key).dump() + ":" + nlohmann::json(mark).dump();
  const std::size_t at = text.find(slot);
  if (at == std::string::npos) throw std::logic_error("print_json_streamed: no slot for " + key);
  const std::size_t cut = at + slot.size() - nlohmann::json(mark).dump().size();
  std::fwrite(text.data(), 1, cut, out);
  std::fputc('[', out);
  for (std::size_t i = 0; i < n; ++i) {
    if (i) std::fputc(',', out);
    const std::string s = item(i).dump();
    std::fwrite(s.data(), 1, s.size(), out);
  }
  std::fputc(']', out);
  std::fwrite(text.data() + at + slot.size(), 1, text.size() - at - slot.size(), out);
  std::fputc('\n', out);
}

/// Formats a double with `prec` significant digits (for tables).
inline std::string fmt(double v, int prec = 10) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", prec, v);
  return buf;
}

/// Thousands separators: 40211712 -> "40,211,712".
inline std::string grouped(long long v) {
  const std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return v < 0 ? "-" + out : out;
}

/// Thousands separators on a non-negative decimal string: "68310851714568382400" -> "68,310,...".
inline std::string grouped_digits(const std::string& digits) {
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

/// A count of orderings (count_orderings' decimal) in JSON: a number up to 2^53, else the string.
inline nlohmann::json orderings_json(const std::string& digits) {
  if (digits.size() < 16) return std::stoll(digits);
  return digits;
}

/// The sum of two non-negative decimal strings.
inline std::string add_digits(const std::string& a, const std::string& b) {
  std::string out;
  int carry = 0;
  for (std::size_t i = 0; i < std::max(a.size(), b.size()) || carry; ++i) {
    const int d = (i < a.size() ? a[a.size() - 1 - i] - '0' : 0) + (i < b.size() ? b[b.size() - 1 - i] - '0' : 0) + carry;
    out.insert(out.begin(), char('0' + d % 10));
    carry = d / 10;
  }
  return out;
}

/// The "ties" lines of a --top list (one entry per multiset of identical layers' choices): for
/// each value that several entries share, or an entry standing for several selections, how many
/// selections have it (the orderings summed, exact). `full`: the list may end inside the last
/// value's ties (fewer entries than asked means it does not), so its count is a lower bound.
inline void print_ties(const std::vector<double>& values, const std::vector<std::string>& orderings, bool full,
                       const char* value_name) {
  for (std::size_t i = 0; i < values.size();) {
    std::size_t j = i + 1;
    while (j < values.size() && values[j] == values[i]) ++j;
    std::string total = "0";
    for (std::size_t q = i; q < j; ++q) total = add_digits(total, orderings[q]);
    if (j - i > 1 || total != "1")
      std::printf("ties     %s %s (%s): %s%s selections (orderings of identical layers%s)\n", value_name,
                  fmt(values[i]).c_str(),
                  (j - i > 1 ? "entries " + std::to_string(i + 1) + "-" + std::to_string(j) : "entry " + std::to_string(i + 1)).c_str(),
                  full && j == values.size() ? ">= " : "", grouped_digits(total).c_str(), j - i > 1 ? ", summed" : "");
    i = j;
  }
}

/// A duration in seconds as "12.3 us", "4.56 ms" or "1.234 s".
inline std::string time_text(double s) {
  char buf[64];
  if (s < 1e-3)
    std::snprintf(buf, sizeof buf, "%.1f us", s * 1e6);
  else if (s < 1)
    std::snprintf(buf, sizeof buf, "%.2f ms", s * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.3f s", s);
  return buf;
}

/// Quotes a string for /bin/sh.
inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char ch : s) {
    if (ch == '\'')
      q += "'\\''";
    else
      q += ch;
  }
  return q + "'";
}

/// Runs `python <tail>` (tail already shell-quoted) with the first interpreter that succeeds:
/// $NSC_PYTHON, python3 on the PATH, /usr/bin/python3 (Debian's, where python3-matplotlib
/// installs). Output is discarded; true on success.
inline bool run_python(const std::string& tail) {
  std::vector<std::string> pythons;
  if (const char* env = std::getenv("NSC_PYTHON"); env && *env) pythons.emplace_back(env);
  pythons.emplace_back("python3");
  if (std::FILE* f = std::fopen("/usr/bin/python3", "rb")) {
    std::fclose(f);
    pythons.emplace_back("/usr/bin/python3");
  }
  for (const std::string& py : pythons)
    if (std::system((shell_quote(py) + " " + tail + " >/dev/null 2>&1").c_str()) == 0) return true;
  return false;
}

/// The source tree nsc was built from (defined in the generated cli_paths.cpp: one translation
/// unit carries the path, so the others compile the same in every checkout).
const char* source_dir();

/// A script of the source tree's scripts/ directory.
inline std::string script_path(const std::string& name) {
  return std::string(source_dir()) + "/scripts/" + name;
}

/// "bf16 (torch_dtype bfloat16)": a stored weight format's name and where it comes from (the
/// source alone when it starts with the name).
inline std::string weights_text(const std::string& name, const std::string& source) {
  return source.rfind(name, 0) == 0 ? source : name + " (" + source + ")";
}

/// Adds --state-dtype and --conv-state-dtype (the element types of the recurrent layers'
/// per-sequence state: Mamba-2 / Gated DeltaNet state and their convolution state; nsc score,
/// nsc prune); `scope` prefixes the help ("generic: ").
inline void add_state_dtype_options(CLI::App* sub, std::string& state, std::string& conv, const std::string& scope) {
  sub->add_option("--state-dtype", state,
                  scope + "recurrent state (Mamba-2 SSM, Gated DeltaNet) element type: bf16 (default, vLLM's auto), fp32 "
                          "(vLLM --mamba-ssm-cache-dtype float32), fp16")
      ->check(CLI::IsMember({"fp32", "bf16", "fp16"}));
  sub->add_option("--conv-state-dtype", conv,
                  scope + "recurrent layers' convolution state element type: bf16 (default), fp32, fp16")
      ->check(CLI::IsMember({"fp32", "bf16", "fp16"}));
}

} // namespace nsc_cli

#endif

// Runs scripts/plot_front.py on a front written by nsc prune / nsc design (one helper for every
// --plot of a Pareto front).
#ifndef NSC_CLI_PLOT_FRONT_HPP
#define NSC_CLI_PLOT_FRONT_HPP

#include "cli.hpp"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <filesystem>
#include <string>

namespace nsc_cli {

/// What plot_front did: whether the PNG was written, and the line to print ("plot     OUT (what)",
/// or how to run the script by hand, the data kept in a temporary file).
struct plot_outcome {
  bool written = false;
  std::string note;
};

/// Bytes plot_front.py (its own process, beside nsc's) holds per point of a generic front:
/// measured 1.0 KB (7 fields a point) to 1.3 KB (generic_json's 13) at 50,000 and 200,000
/// points (peak RSS 79 MB with none, 146 / 338 MB with 50k / 200k of 13 fields); --plot counts
/// this per listed point against --max-memory beside the listing (prune_search_settings::
/// front_point_extra_bytes), so the front and its plot fit the cap together.
inline constexpr std::size_t plot_front_point_bytes = 2048;

/// Runs plot_front.py on the input `write` puts in a temporary JSON file, into `out` with
/// `title` (run_python's interpreters), and removes the file on success.
inline plot_outcome plot_front_with(const std::function<void(std::FILE*)>& write, const std::string& out,
                                    const std::string& title, const std::string& what) {
  const std::filesystem::path tmp =
      std::filesystem::temp_directory_path() /
      ("nsc_front_" + std::to_string(reinterpret_cast<std::uintptr_t>(&write)) + ".json");
  {
    std::FILE* f = std::fopen(tmp.string().c_str(), "wb");
    if (!f) throw std::runtime_error("cannot open " + tmp.string() + " for writing: " + std::strerror(errno));
    write(f);
    const bool ok = !std::ferror(f);
    if (std::fclose(f) != 0 || !ok) throw std::runtime_error("writing " + tmp.string() + " failed");
  }
  const std::string tail = shell_quote(script_path("plot_front.py")) + " " + shell_quote(tmp.string()) + " -o " +
                           shell_quote(out) + " --title " + shell_quote(title);
  plot_outcome r;
  r.written = run_python(tail);
  if (r.written) {
    std::filesystem::remove(tmp);
    r.note = "plot     " + out + " (" + what + ")";
  } else {
    r.note = "plot     not written (python3 with matplotlib needed); run: python3 " + tail + "  (data kept in " +
             tmp.string() + ")";
  }
  return r;
}

/// plot_front_with on `data` (the plot_front.py input) as one JSON value.
inline plot_outcome plot_front(const nlohmann::json& data, const std::string& out, const std::string& title,
                               const std::string& what) {
  return plot_front_with([&](std::FILE* f) { print_json(data, f); }, out, title, what);
}

/// plot_front_with on `head` with head[key] = item(0), ..., item(n - 1), streamed one point at a
/// time (print_json_streamed): the plotter's input costs nsc no front-sized copy.
inline plot_outcome plot_front_streamed(nlohmann::json head, const std::string& key, std::size_t n,
                                        const std::function<nlohmann::json(std::size_t)>& item, const std::string& out,
                                        const std::string& title, const std::string& what) {
  return plot_front_with([&](std::FILE* f) { print_json_streamed(std::move(head), key, n, item, f); }, out, title,
                         what);
}

} // namespace nsc_cli

#endif

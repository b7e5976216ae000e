// Runs scripts/plot_front.py on a front written by nsc prune / nsc design (one helper for every
// --plot of a Pareto front).
#ifndef NSC_CLI_PLOT_FRONT_HPP
#define NSC_CLI_PLOT_FRONT_HPP

#include "cli.hpp"

#include <cstdint>
#include <filesystem>
#include <string>

namespace nsc_cli {

/// What plot_front did: whether the PNG was written, and the line to print ("plot     OUT (what)",
/// or how to run the script by hand, the data kept in a temporary file).
struct plot_outcome {
  bool written = false;
  std::string note;
};

/// Writes `data` (the plot_front.py input) to a temporary JSON file, runs plot_front.py on it into
/// `out` with `title` (run_python's interpreters) and removes the file on success.
inline plot_outcome plot_front(const nlohmann::json& data, const std::string& out, const std::string& title,
                               const std::string& what) {
  const std::filesystem::path tmp =
      std::filesystem::temp_directory_path() /
      ("nsc_front_" + std::to_string(reinterpret_cast<std::uintptr_t>(&data)) + ".json");
  write_text_file(tmp.string(), data.dump() + "\n");
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

} // namespace nsc_cli

#endif

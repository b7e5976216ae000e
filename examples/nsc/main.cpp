// nsc: score neural architectures from their specification, and search them exactly.
// Subcommands live in examples/nsc/cmd_*.cpp (see cli.hpp); this file only dispatches.
#include "cli.hpp"

#include <nsc/config.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>

int main(int argc, char** argv) {
  CLI::App app{"nsc " NSC_VERSION_STRING
               ": Neural Spectral Capacity - score architectures from their specification "
               "alone, and find the best one under a budget, exactly."};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(NSC_VERSION_STRING));
  auto& reg = nsc_cli::registry();
  std::sort(reg.begin(), reg.end(), [](auto* a, auto* b) { return a->name < b->name; });
  std::vector<std::pair<CLI::App*, std::function<int()>>> runners;
  for (auto* c : reg) {
    const std::size_t before = app.get_subcommands({}).size();
    auto run = c->setup(app);
    auto subs = app.get_subcommands({});
    if (subs.size() > before) runners.emplace_back(subs.back(), std::move(run));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help / --version (CLI11's Success and CallForHelp family) print and exit 0; every other
    // parse error (unknown option, bad value, missing subcommand: CLI11's own codes 100+) is bad
    // input, exit 2 like every other bad input (README "Exit codes").
    const int code = app.exit(e);
    return code == static_cast<int>(CLI::ExitCodes::Success) ? nsc_cli::exit_answer
                                                             : nsc_cli::exit_bad_input;
  }
  try {
    for (auto& [sub, run] : runners) {
      if (!sub->parsed()) continue;
      const int code = run();
      // Every write checked: output to a full disk or a closed pipe is a failure, not a success.
      if (std::fflush(stdout) != 0 || std::ferror(stdout))
        throw std::runtime_error(std::string("writing standard output failed: ") +
                                 std::strerror(errno));
      return code;
    }
  } catch (const std::exception& e) {
    std::cerr << "nsc: error: " << e.what() << "\n";
    return nsc_cli::exit_bad_input;
  } catch (...) {
    std::cerr << "nsc: error: unknown exception\n";
    return nsc_cli::exit_bad_input;
  }
  return nsc_cli::exit_answer;
}

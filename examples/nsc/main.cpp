// nsc: score neural architectures from their specification, and search them exactly.
// Subcommands live in examples/nsc/cmd_*.cpp (see cli.hpp); this file only dispatches.
#include "cli.hpp"

#include <nsc/config.hpp>

#include <algorithm>
#include <exception>
#include <iostream>

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
    return app.exit(e);
  }
  try {
    for (auto& [sub, run] : runners)
      if (sub->parsed()) return run();
  } catch (const std::exception& e) {
    std::cerr << "nsc: error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}

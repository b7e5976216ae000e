// The `nsc` command line as a function (run.hpp): builds the CLI11 app from the registry of
// subcommands (examples/nsc/cmd_*.cpp, see cli.hpp), parses and dispatches; main.cpp and the
// Python module (python/src/module.cpp) call it.
#include "run.hpp"

#include "cli.hpp"

#include <nsc/config.hpp>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <mutex>
#include <string>
#include <vector>

#include <unistd.h>

namespace nsc_cli {

int run(int argc, char** argv) {
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
    // input, exit 2 like every other bad input (docs/reference.md "Exit codes").
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

namespace {

std::mutex capture_mutex;

/// Redirects file descriptor `fd` to a temporary file until restore(); the destructor restores.
class fd_capture {
public:
  explicit fd_capture(int fd) : fd_(fd) {
    tmp_ = std::tmpfile();
    if (!tmp_)
      throw std::runtime_error(std::string("nsc_cli::run_captured: cannot create a temporary file: ") +
                               std::strerror(errno));
    saved_ = ::dup(fd_);
    if (saved_ < 0 || ::dup2(::fileno(tmp_), fd_) < 0) {
      const int e = errno;
      if (saved_ >= 0) ::close(saved_);
      std::fclose(tmp_);
      throw std::runtime_error(std::string("nsc_cli::run_captured: cannot redirect descriptor ") +
                               std::to_string(fd) + ": " + std::strerror(e));
    }
  }
  fd_capture(const fd_capture&) = delete;
  fd_capture& operator=(const fd_capture&) = delete;
  ~fd_capture() {
    restore();
    std::fclose(tmp_);
  }
  void restore() {
    if (saved_ < 0) return;
    ::dup2(saved_, fd_);
    ::close(saved_);
    saved_ = -1;
  }
  /// Restores the descriptor and returns what was written to it.
  std::string text() {
    restore();
    std::string s;
    const int t = ::fileno(tmp_);
    if (::lseek(t, 0, SEEK_SET) < 0) return s;
    char buf[1 << 16];
    for (;;) {
      const ssize_t n = ::read(t, buf, sizeof buf);
      if (n > 0) {
        s.append(buf, static_cast<std::size_t>(n));
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      break;
    }
    return s;
  }

private:
  int fd_;
  int saved_ = -1;
  std::FILE* tmp_ = nullptr;
};

void flush_all() {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(stdout);
  std::fflush(stderr);
}

} // namespace

int run_captured(const std::vector<std::string>& args, std::string& out, std::string& err) {
  std::lock_guard<std::mutex> lock(capture_mutex);
  flush_all();
  std::clearerr(stdout);
  std::vector<std::string> storage;
  storage.reserve(args.size() + 1);
  storage.emplace_back("nsc");
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& s : storage) argv.push_back(s.data());
  argv.push_back(nullptr);
  fd_capture o(1), e(2);
  int code = exit_bad_input;
  try {
    code = run(static_cast<int>(storage.size()), argv.data());
  } catch (...) {
    flush_all();
    throw;
  }
  flush_all();
  std::clearerr(stdout);
  out = o.text();
  err = e.text();
  return code;
}

} // namespace nsc_cli

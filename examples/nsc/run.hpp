// The `nsc` command line as a function: main.cpp calls run(argc, argv); the Python module calls
// run_captured in-process, so `nsc.score(...)` and `nsc score ...` run the same code.
#ifndef NSC_EXAMPLES_RUN_HPP
#define NSC_EXAMPLES_RUN_HPP

#include <string>
#include <vector>

namespace nsc_cli {

/// Parses argv (argv[0] is the program name) and runs the subcommand; returns the exit code
/// (0 an answer, 1 no answer, 2 bad input: docs/reference.md "Exit codes"). Writes to stdout / stderr.
int run(int argc, char** argv);

/// run() with the arguments after the program name, writing what the command prints to its
/// standard output into `out` and its standard error into `err` instead of the process's.
/// Output is captured at the file-descriptor level (descriptors 1 and 2 redirected to temporary
/// files for the duration of the call, under a process-wide mutex), so every printf / iostream /
/// child-process write of the command is captured; other threads' writes during the call are
/// captured too. Throws std::runtime_error when the redirection itself fails.
int run_captured(const std::vector<std::string>& args, std::string& out, std::string& err);

} // namespace nsc_cli

#endif

// nsc: score neural architectures from their specification, and search them exactly.
// Subcommands live in examples/nsc/cmd_*.cpp (see cli.hpp); run.cpp parses and dispatches.
#include "run.hpp"

int main(int argc, char** argv) { return nsc_cli::run(argc, argv); }

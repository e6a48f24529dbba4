// The `verifybench compare` subcommand: registration on the CLI11 app and its action. The
// comparison itself is harness/compare/compare.h; this file only wires options, files and exit codes.
#pragma once
#include <CLI/CLI.hpp>

namespace vb {

// Adds `compare` to `app`. When it is the parsed subcommand, its callback runs during
// app.parse() and stores the exit code (kCompareExit*, harness/compare/compare.h) in *exit_code;
// every error is reported on stderr ("verifybench: error: ...") inside, nothing is thrown.
// main() then returns *exit_code when the returned subcommand parsed().
CLI::App* add_compare_command(CLI::App& app, int* exit_code);

}  // namespace vb

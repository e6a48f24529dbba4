// The verifybench commands, one file each (harness/cli/cmd_*.cpp). Each adds its subcommand
// to `app`; when that subcommand is the one parsed, its callback runs the command during
// app.parse() and stores the command's exit code in *exit_code. Every error is reported on
// stderr ("verifybench: error: ...") inside the command; nothing is thrown out of parse()
// but CLI11's own parse errors.
#pragma once
#include <CLI/CLI.hpp>

#include "harness/cli/cli_common.h"

namespace vb {

CLI::App* add_list_command(CLI::App& app, int* exit_code);
CLI::App* add_plan_command(CLI::App& app, int* exit_code);
CLI::App* add_run_command(CLI::App& app, const Invocation& invocation, int* exit_code);
CLI::App* add_profile_command(CLI::App& app, const Invocation& invocation, int* exit_code);
CLI::App* add_export_command(CLI::App& app, const Invocation& invocation, int* exit_code);
// Exit codes of its own (kCompareExit*, harness/compare/compare.h).
CLI::App* add_compare_command(CLI::App& app, int* exit_code);

}  // namespace vb

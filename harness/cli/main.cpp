// verifybench: the command-line entry point. Each command lives in harness/cli/cmd_*.cpp;
// this file only builds the app, dispatches and turns CLI11's parse errors into exit code 2.
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "harness/cli/commands.h"
#include "harness/run/runner.h"

namespace {

constexpr const char* kFooter = R"(Exit codes:
  0  every check passed (GPU executors count as passed when not run for lack of a device)
  1  a check failed: some executor's output is out of tolerance or NaN/Inf misplaced
  2  bad input: scenario file error, command-line usage error, unknown case name
  3  runtime failure: a CUDA call or launch failed, or the report could not be written
     (3 wins over 1 when both happen)
Errors are one line on stderr: "verifybench: error: <message>".)";

}  // namespace

int main(int argc, char** argv) {
  // Line-buffered even into a file or pipe: a run killed by a time limit (a sanitizer on the
  // lab machine) still leaves every finished case's lines in its log.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  CLI::App app{"verifybench: validates and benchmarks the MLA tree-verify attention kernels "
               "against a CPU reference, case by case from YAML scenario files.",
               "verifybench"};
  app.footer(kFooter);  // before the subcommands: they inherit it
  app.set_version_flag("--version", vb::kToolVersion);
  app.require_subcommand(1, 1);

  const vb::Invocation invocation = vb::invocation_of(argc, argv);
  int exit_code = vb::kExitOk;
  vb::add_list_command(app, &exit_code);
  vb::add_plan_command(app, &exit_code);
  vb::add_run_command(app, invocation, &exit_code);
  vb::add_profile_command(app, invocation, &exit_code);
  vb::add_export_command(app, invocation, &exit_code);
  vb::add_compare_command(app, &exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::string message = e.what();
    if (message.find("subcommand") != std::string::npos) message += " (list, plan, run, profile, export or compare; see --help)";
    return vb::fail(vb::kExitBadInput, message);
  }
  return exit_code;
}

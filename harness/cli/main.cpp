// verifybench: the command-line entry point. Each command lives in harness/cli/cmd_*.cpp;
// this file only builds the app, dispatches and turns CLI11's parse errors into exit code 2.
#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "harness/cli/commands.h"
#include "harness/run/runner.h"

namespace {

constexpr const char* kFooter = R"(Exit codes:
  0  every check passed (GPU executors not run for lack of a device never count as passed;
     they do not fail the run either)
  1  a check failed: some executor's output is out of tolerance or NaN/Inf misplaced
  2  bad input: scenario file error, command-line usage error, unknown case name, a file
     given twice, a report folder that cannot be created or written, a report path that is
     a directory, link, device, FIFO or socket (all checked before the first case)
  3  runtime failure: a CUDA call or launch failed, or a report could not be written after
     the run
     (3 wins over 1 when both happen)
  130, 143  run stopped by SIGINT, SIGTERM: the reports hold the cases completed, marked partial
Errors are one line on stderr: "verifybench: error: <message>".)";

std::vector<std::string> command_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* command : app.get_subcommands({})) names.push_back(command->get_name());
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string did_you_mean(const std::string& wanted, const std::vector<std::string>& names) {
  const std::string near = vb::closest_name(wanted, names);
  return near.empty() ? "" : " (did you mean " + near + "?)";
}

// The first argument when it is a word but no command; CLI11 would only say that a command
// is required.
std::optional<std::string> unknown_command(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;
  const std::vector<std::string> names = command_names(app);
  if (std::find(names.begin(), names.end(), argv[1]) != names.end()) return std::nullopt;
  return "unknown command " + std::string(argv[1]) + did_you_mean(argv[1], names) + "; commands: " + joined(names);
}

// CLI11's "argument was not expected", with the nearest option of the command for each
// unknown --option.
std::string with_option_suggestions(const CLI::App& app, const std::string& message, int argc, char** argv) {
  for (const CLI::App* command : app.get_subcommands({})) {
    if (!command->parsed()) continue;
    std::vector<std::string> options;
    for (const CLI::Option* option : command->get_options()) {
      for (const std::string& name : option->get_lnames()) options.push_back("--" + name);
    }
    std::string suggestions;
    for (int i = 2; i < argc; ++i) {
      const std::string arg(argv[i]);
      if (arg.rfind("--", 0) != 0) continue;
      const std::string name = arg.substr(0, arg.find('='));
      if (std::find(options.begin(), options.end(), name) == options.end()) suggestions += did_you_mean(name, options);
    }
    return message + suggestions;
  }
  return message;
}

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
  if (const std::optional<std::string> unknown = unknown_command(app, argc, argv)) {
    return vb::fail(vb::kExitBadInput, *unknown);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ExtrasError& e) {
    return vb::fail(vb::kExitBadInput, with_option_suggestions(app, e.what(), argc, argv));
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::string message = e.what();
    if (message.find("subcommand") != std::string::npos) message += " (" + joined(command_names(app)) + "; see --help)";
    return vb::fail(vb::kExitBadInput, message);
  }
  return exit_code;
}

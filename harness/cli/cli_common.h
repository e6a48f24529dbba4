// What every verifybench command shares: the invocation, the scenario-loading options
// (--max-* limits, --planner settings), case selection by name, and the mapping of the
// commands' exceptions onto exit codes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "harness/scenario/scenario.h"

namespace vb {

inline constexpr const char* kToolVersion = "verifybench 0.1.0";

// Thrown for bad input discovered after parsing (unknown case names): exit code 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// How verifybench was called: the shell-quoted command line the reports record, and the
// program path the printed reproducers start with.
struct Invocation {
  std::string command_line;
  std::string program;
};
Invocation invocation_of(int argc, char** argv);

// Prints "verifybench: error: <message>" on stderr and returns `code`.
int fail(int code, const std::string& message);

// Runs a command's body and turns what it throws into the documented exit codes: scenario,
// usage and bad-path errors 2, export, report and every other failure 3.
int run_command(const std::function<int()>& body);

// The checks of every numeric option, run on the text before CLI11 converts it. CLI11's Range
// and PositiveNumber compare the converted value, and every comparison with NaN is false, so
// they let "nan" (and "inf" past PositiveNumber) through; its integer conversion reads 010 as
// octal 8. These take the text verifybench/decimal_text.h defines, as scenario files do.
struct NumberBounds {
  double lo, hi;
  bool lo_open = false;  // lo itself is not allowed
  bool hi_open = false;  // hi itself is not allowed
};
// A finite decimal number within `bounds`.
CLI::Validator number_in(NumberBounds bounds);
// A plain decimal integer in [lo, hi].
CLI::Validator integer_in(std::int64_t lo, std::int64_t hi);

// Checked before any work (docs/hostile-inputs.md), each throwing UsageError or BadFileError
// naming `option` and the path: a report folder is a directory that can be created and
// written (a probe file is created and removed); a report file is absent or a regular file
// (never a link, device, FIFO, socket or directory) in such a folder.
void prepare_output_dir(const std::string& dir, const std::string& option);
void prepare_output_file(const std::string& path, const std::string& option);

// How a command loads scenario files: the resource limits (--max-* options), the --planner
// settings applied to every case after its scenario's own planner: map, and --math, the tensor
// math of every case with an fp8 pool (a bf16 pool's math is bf16 whatever it says).
struct ScenarioOptions {
  ScenarioLimits limits;
  std::vector<std::string> planner_settings;
  std::string math;  // --math: "" (each scenario's own), "bf16" or "fp8"
};
void add_limit_options(CLI::App* cmd, ScenarioOptions* options);
// --planner and --math: what the production launches of every case are planned with.
void add_launch_options(CLI::App* cmd, ScenarioOptions* options);
// Throws ScenarioError for a bad file, UsageError for a bad --planner setting or a file
// given twice (the same file under two names too).
std::vector<ScenarioFile> load_all(const std::vector<std::string>& files, const ScenarioOptions& options);

// Levenshtein distance: insertions, deletions and substitutions of one character.
std::size_t edit_distance(const std::string& a, const std::string& b);
// The name of `names` nearest `wanted` when it is a typo away (a quarter of its length, at
// least 2 edits), else "".
std::string closest_name(const std::string& wanted, const std::vector<std::string>& names);

// The cases a command runs, per file, as the user named the file.
struct Selected {
  const ScenarioFile* file;
  std::string path_as_given;
  std::vector<const CaseSpec*> cases;
};
// Every case of every file when `wanted` is empty, else the named ones; throws UsageError for
// a name no file has, with the close names.
std::vector<Selected> select_cases(const std::vector<ScenarioFile>& loaded, const std::vector<std::string>& paths,
                                   const std::vector<std::string>& wanted);
// The FILE and --case options of a command that takes one case (profile, export).
void add_one_case_options(CLI::App* cmd, std::string* file, std::string* case_name);
// The one case `name` of `file` (profile, export).
const CaseSpec& select_one_case(const std::vector<ScenarioFile>& loaded, const std::string& file,
                                const std::string& name);

struct ExecutorInfo;
// The GPU executor of record name `name`, given to command-line option `option` (--executor,
// --time-executor); throws UsageError naming the option and the allowed names.
const ExecutorInfo& executor_for_option(const std::string& option, const std::string& name);

}  // namespace vb

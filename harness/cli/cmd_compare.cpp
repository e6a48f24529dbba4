// `verifybench compare BASELINE.json CURRENT.json`: loads both result files (plus pooled
// re-measurements), compares them (harness/compare/compare.h), prints the table and writes the
// Markdown / JSON reports and the list of slower cases. This file only wires options, files
// and exit codes.
#include <cstdio>
#include <exception>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "harness/cli/commands.h"
#include "harness/compare/compare.h"
#include "harness/io/files.h"
#include "harness/report/report_json.h"

namespace vb {
namespace {

constexpr const char* kCompareFooter = R"(Verdict per (case, executor), from the timing samples of --mode:
  r = median(current) / median(baseline); [lo, hi] = seeded bootstrap 95% interval of r
  (a side of more than 1000 samples is bootstrapped from 1000 evenly spaced order statistics;
  when all records together exceed 2e9 sample draws, each gets fewer resamples, >= 100).
  slower: lo > 1 + tol   faster: hi < 1 - tol   same: [lo, hi] inside [1 - tol, 1 + tol]
  ambiguous: anything else, or fewer than 3 samples on a side (noise too large; not a failure)
  tol: the case's gate_tolerance (scenario YAML `gate: {tolerance: t}`), else --tolerance.
  missing in current / missing in baseline; untimed: one side has no samples in --mode.
--normalize ceilings multiplies current times by current/baseline ceiling (mma for
compute-bound records, row-read bandwidth for memory-bound ones), cancelling machine drift;
auto does so when both files carry ceilings.
Peer rows (peer/..., from run --peers) are not compared.
Exit codes:
  0  no slower record, no correctness failure, and a complete comparison (ambiguous,
     untimed and cases only in CURRENT do not fail)
  1  regression: some record is slower
  2  bad input: unreadable file, not a regular file, over 256 MiB (or a document over 1 GiB
     parsed), not JSON (numbers that overflow a double included), schema other than
     verifybench.result/2 or /3, a field of the wrong type, a report path that is a directory,
     link, device, FIFO or socket, usage; the message names the file
  3  a report (--markdown, --json, --slower-list) could not be written
  4  correctness failure in CURRENT (incorrect or launch failed), even when faster; wins
     over 6 and 1
  5  refused: the files differ in device name, driver version, build type or build flags
     (--allow-cross-device compares anyway and marks every verdict cross-device)
  6  incomplete: the runs share no case, no (case, executor) has samples of --mode in both,
     or CURRENT lacks cases BASELINE has (--allow-missing accepts that); wins over 1
Errors are one line on stderr: "verifybench: error: <message>".)";

struct CompareArgs {
  std::string baseline, current;
  std::vector<std::string> pool_baseline, pool_current;
  double tolerance = 0.05;
  std::string mode = "cold-l2";
  std::string normalize = "none";
  bool allow_cross_device = false;
  bool allow_missing = false;
  int resamples = 2000;
  std::string markdown_path, json_path, slower_list_path;
};

// The report paths given, as (option, path).
std::vector<std::pair<std::string, std::string>> report_paths(const CompareArgs& args) {
  std::vector<std::pair<std::string, std::string>> out;
  if (!args.markdown_path.empty()) out.emplace_back("--markdown", args.markdown_path);
  if (!args.json_path.empty()) out.emplace_back("--json", args.json_path);
  if (!args.slower_list_path.empty()) out.emplace_back("--slower-list", args.slower_list_path);
  return out;
}

// Before any file is read: every report path is absent or a regular file in a writable
// folder, none is an input of this comparison, and no two are the same file.
void check_report_paths(const CompareArgs& args) {
  std::vector<std::string> inputs = {args.baseline, args.current};
  inputs.insert(inputs.end(), args.pool_baseline.begin(), args.pool_baseline.end());
  inputs.insert(inputs.end(), args.pool_current.begin(), args.pool_current.end());
  std::vector<std::string> seen;
  for (const auto& [option, path] : report_paths(args)) {
    prepare_output_file(path, option);
    std::error_code ec;
    for (const std::string& input : inputs) {
      if (std::filesystem::equivalent(path, input, ec)) {
        throw UsageError(fmt::format("{} {}: is the input {}; allowed: a path that is not read by this compare", option,
                                     path, input));
      }
    }
    for (const std::string& other : seen) {
      if (path == other || std::filesystem::equivalent(path, other, ec)) {
        throw UsageError(fmt::format("{} {}: named by another report option too", option, path));
      }
    }
    seen.push_back(path);
  }
}

// The reports, written as one set: all or none replace earlier ones.
void write_reports(const CompareArgs& args, const CompareReport& report) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const auto& [option, path] : report_paths(args)) {
    if (option == "--markdown") files.emplace_back(path, format_compare_markdown(report));
    if (option == "--json") files.emplace_back(path, compare_to_json(report).dump(2) + "\n");
    if (option == "--slower-list") {
      std::string names;  // empty file: nothing to confirm
      for (const std::string& name : report.slower_cases()) names += name + "\n";
      files.emplace_back(path, names);
    }
  }
  write_files_as_set(files);
  for (const auto& file : files) std::printf("wrote %s\n", file.first.c_str());
}

int run_compare(const CompareArgs& args) {
  check_report_paths(args);
  CompareOptions options;
  options.mode = args.mode;
  options.tolerance = args.tolerance;
  options.allow_cross_device = args.allow_cross_device;
  options.allow_missing = args.allow_missing;
  options.resamples = args.resamples;
  normalize_from_string(args.normalize, &options.normalize);  // CLI11 checked the value

  TimedRun baseline = load_timed_run(args.baseline);
  TimedRun current = load_timed_run(args.current);
  // Pooled files must come from the same device and build as the file they join.
  std::vector<std::string> pool_mismatches;
  for (const std::string& path : args.pool_baseline) {
    const TimedRun extra = load_timed_run(path);
    for (const std::string& m : device_mismatches(baseline, extra)) pool_mismatches.push_back(m);
    pool_samples(&baseline, extra);
  }
  for (const std::string& path : args.pool_current) {
    const TimedRun extra = load_timed_run(path);
    for (const std::string& m : device_mismatches(current, extra)) pool_mismatches.push_back(m);
    pool_samples(&current, extra);
  }

  CompareReport report = compare_runs(baseline, current, options);
  if (!pool_mismatches.empty()) {
    report.mismatches.insert(report.mismatches.end(), pool_mismatches.begin(),
                             pool_mismatches.end());
    if (!options.allow_cross_device) {
      report.refused = true;
      report.rows.clear();
    } else {
      for (CompareRow& row : report.rows) row.cross_device = true;
    }
  }

  std::fputs(format_compare_table(report).c_str(), stdout);
  std::fflush(stdout);
  write_reports(args, report);
  return compare_exit_code(report);
}

}  // namespace

CLI::App* add_compare_command(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* cmd = app.add_subcommand(
      "compare", "Compare the timings of two result files (verifybench run --time) case by case: "
                 "faster, same, slower or ambiguous from both runs' samples.");
  cmd->footer(kCompareFooter);
  cmd->add_option("BASELINE", args->baseline, "baseline result JSON")->required();
  cmd->add_option("CURRENT", args->current, "current result JSON")->required();
  cmd->add_option("--tolerance", args->tolerance,
                  "relative change still called same, 0 < t < 1, for cases without a "
                  "gate_tolerance (default 0.05)")
      ->check(number_in({0, 1, true, true}));
  cmd->add_option("--mode", args->mode, "timing mode to compare (default cold-l2)")
      ->check(CLI::IsMember({"cold-l2", "hot-l2", "graph", "chain", "chain-pdl"}));
  cmd->add_option("--normalize", args->normalize,
                  "none (default), ceilings (scale current times by current/baseline ceiling; "
                  "both files need ceilings) or auto (ceilings when both have them)")
      ->check(CLI::IsMember({"none", "ceilings", "auto"}));
  cmd->add_flag("--allow-cross-device", args->allow_cross_device,
                "compare across device, driver or build differences; verdicts are marked "
                "cross-device");
  cmd->add_flag("--allow-missing", args->allow_missing,
                "CURRENT may lack cases BASELINE has (a re-measured subset); without it that is "
                "exit 6");
  cmd->add_option("--markdown", args->markdown_path, "write the Markdown diff table here");
  cmd->add_option("--json", args->json_path, "write the comparison JSON (verifybench.compare/1) here");
  cmd->add_option("--slower-list", args->slower_list_path,
                  "write the names of the slower cases here, one per line (empty when none)");
  cmd->add_option("--pool-baseline", args->pool_baseline,
                  "another result file whose samples join BASELINE's (re-measurements); repeatable")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--pool-current", args->pool_current,
                  "another result file whose samples join CURRENT's; repeatable")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--resamples", args->resamples, "bootstrap resamples, 100..100000 (default 2000)")
      ->check(integer_in(100, 100000));
  cmd->callback([args, exit_code] {
    try {
      *exit_code = run_compare(*args);
    } catch (const CompareInputError& e) {
      *exit_code = fail(kCompareExitBadInput, e.what());
    } catch (const BadFileError& e) {
      *exit_code = fail(kCompareExitBadInput, e.what());
    } catch (const UsageError& e) {
      *exit_code = fail(kCompareExitBadInput, e.what());
    } catch (const FileWriteError& e) {
      *exit_code = fail(kCompareExitIo, e.what());
    } catch (const std::exception& e) {
      *exit_code = fail(kCompareExitIo, e.what());
    }
  });
  return cmd;
}

}  // namespace vb

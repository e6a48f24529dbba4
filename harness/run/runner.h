// The case runner: one CaseSpec through the fixed phases materialize -> CPU reference ->
// upload -> every GPU executor -> compare, producing one CaseResult. It prints nothing;
// the CLI decides what to show.
#pragma once
#include <string>
#include <vector>

#include "harness/run/gpu_executor.h"
#include "harness/record/result.h"
#include "harness/scenario/scenario.h"
#include "harness/measure/timing.h"

namespace vb {

// Process exit codes of the verifybench CLI (documented in --help and README.md).
inline constexpr int kExitOk = 0;              // every check passed (or not run: no GPU)
inline constexpr int kExitIncorrect = 1;       // some executor produced wrong output
inline constexpr int kExitBadInput = 2;        // scenario error, CLI usage, unknown case
inline constexpr int kExitRuntimeFailure = 3;  // a CUDA call failed, report I/O failed

struct RunOptions {
  int threads = 0;             // CPU reference threads; 0: all hardware threads
  std::string scenario_path;   // the file as named on the command line (reproducers)
  // Timing (issue 4): when `time` is set and the device is there, every executor that ran
  // (incorrect ones too: they are timed and stay flagged) is measured in each mode with
  // `timer`. Without a device the case says timing_note = "not run: no CUDA device (...)".
  bool time = false;
  TimingOptions timing;
  GpuTimer* timer = nullptr;   // required when time && gpu.available
  // Executors to time, by record name (`run --time-executor`); empty: every one that ran.
  // Every executor still runs and is checked: the filter saves device time, not checks.
  std::vector<std::string> timed_executors;
};

// Whether run_case times the executor of that record name: a timed executor of the registry
// (harness/record/executor_registry.h) that RunOptions::timed_executors names, or every one
// when it is empty.
bool times_executor(const RunOptions& options, const std::string& name);

// Runs every phase of one case: materialize -> reference -> verify (every GPU executor)
// -> [timing] -> one production launch inside the case's NVTX range (nvtx.h), and the
// traffic model. Achieved rates, speedup and mask tax need the whole run:
// annotate_roofline (traffic_model.h). Throws ScenarioError when the spec cannot be materialized;
// CUDA failures are recorded as kLaunchFailed, never thrown.
CaseResult run_case(const CaseSpec& spec, const GpuInfo& gpu, const RunOptions& options);

// verifybench run <file> --case '<case name>'
std::string reproducer_for(const std::string& scenario_path, const std::string& case_name);
// The same for a case, with `--math <its math>` where its pool is fp8 (the math may come from
// the command line).
std::string reproducer_for(const std::string& scenario_path, const CaseSpec& spec);

// kExitRuntimeFailure if any record launch-failed, else kExitIncorrect if any is
// incorrect, else kExitOk. Peer rows (is_peer_executor) are not this run's and never count.
int exit_code_for(const std::vector<CaseResult>& results);

}  // namespace vb

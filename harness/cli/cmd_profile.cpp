// `verifybench profile FILE --case NAME`: one GPU executor on one case, for Nsight Compute
// (one launch inside the case's NVTX range) or, in a timeline build, for the phase timeline.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "harness/cli/commands.h"
#include "harness/compare/compare.h"
#include "harness/measure/nvtx.h"
#include "harness/measure/timeline_summary.h"
#include "harness/measure/timing.h"
#include "harness/report/report_json.h"
#include "harness/run/case_session.h"
#include "harness/run/gpu_executor.h"
#include "harness/record/result.h"
#include "harness/run/runner.h"

namespace vb {
namespace {

struct ProfileArgs {
  std::string file, case_name, executor = kProductionExecutor;
  std::string timeline_csv_path;
  int timeline_launches = 5;
  std::string timeline_mode = "cold";
  ScenarioOptions scenario;
};

// Materialize one case, warm the production kernel up outside any range, then run it once
// inside the case's NVTX range; print the ncu command that profiles exactly that launch.
// With --timeline (a build with -DVB_DEBUG_TIMELINE=1): `launches` cold-L2 launches instead,
// each one's phase timeline read back; prints their median summary and writes every block's
// stamps as CSV. timeline_mode chain / chain-pdl: each recorded launch is instead the last of
// a chain sample's launches (kChainLaunches back to back; chain-pdl each over the previous),
// whose stamps are the ones left in the slots.
int profile_timeline(DeviceProblem& device, const ExecutorInfo& run, const GpuInfo& gpu,
                     const std::string& case_name, const std::string& csv_path, int launches,
                     const std::string& timeline_mode) {
  std::string error;
  const std::unique_ptr<GpuTimer> timer = GpuTimer::create(gpu, &error, L2Flush::kRead);
  if (!timer) return fail(kExitRuntimeFailure, "timer: " + error);
  const LaunchFn launch = [&](cudaStream_t s, bool overlap) {
    return device.launch(run.kind, run.page_kind, s, overlap);
  };
  const bool chain = timeline_mode != "cold";
  const bool overlap = timeline_mode == "chain-pdl";
  std::vector<FlashVerifyTimeline> timelines;
  std::vector<TimelineSummary> summaries;
  std::vector<double> event_us;
  for (int i = 0; i < launches; ++i) {
    if (cudaError_t err = flash_verify_timeline_clear(); err != cudaSuccess) {
      return fail(kExitRuntimeFailure, fmt::format("timeline clear failed: {}", cudaGetErrorString(err)));
    }
    const std::optional<double> ms = chain ? timer->time_launches(launch, false, kChainLaunches, overlap, &error)
                                           : timer->time_once(launch, /*flush_l2=*/true, &error);
    if (!ms) return fail(kExitRuntimeFailure, run.name + " launch failed: " + error);
    FlashVerifyTimeline t;
    if (cudaError_t err = flash_verify_timeline_read(&t); err != cudaSuccess) {
      return fail(kExitRuntimeFailure, fmt::format("timeline read failed: {}", cudaGetErrorString(err)));
    }
    if (t.main.empty()) {
      return fail(kExitBadInput, fmt::format("--timeline: executor {} recorded no production-kernel block "
                                                 "(only the production executors have stamps)", run.name));
    }
    if (i == 0 && (t.main.size() >= static_cast<std::size_t>(t.main_capacity) ||
                   t.combine.size() >= static_cast<std::size_t>(t.combine_capacity))) {
      std::printf("note: the build records %d main and %d combine blocks per launch; this launch filled them, so "
                  "the figures below cover those blocks only\n", t.main_capacity, t.combine_capacity);
    }
    summaries.push_back(summarize_timeline(t));
    timelines.push_back(std::move(t));
    event_us.push_back(*ms * 1000.0);
  }
  std::string times;
  for (double us : event_us) times += fmt::format(" {:.2f}", us);
  const std::string what =
      chain ? fmt::format("{} {} samples (the last of {} launches each; host event times per launch)", launches,
                          timeline_mode, kChainLaunches)
            : fmt::format("{} cold-L2 launches", launches);
  std::printf("timeline of %s (%s), %s; host event times (us):%s\n", case_name.c_str(), run.name.c_str(),
              what.c_str(), times.c_str());
  std::printf("medians over the launches:\n%s",
              format_timeline_summary(median_timeline_summary(summaries), median_of(event_us)).c_str());
  write_file_atomic(csv_path, timeline_csv(timelines));
  std::printf("wrote %s\n", csv_path.c_str());
  return kExitOk;
}

// reports/local/ncu-<file stem>-<case>, the case name's characters other than letters, digits
// and "_.=-" as '_': the report scripts/profile.sh writes.
std::string ncu_report_path(const std::string& scenario_file, const std::string& case_name) {
  std::string safe_case = case_name;
  for (char& c : safe_case) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && std::string_view("_.=-").find(c) == std::string_view::npos) c = '_';
  }
  return "reports/local/ncu-" + std::filesystem::path(scenario_file).stem().string() + "-" + safe_case;
}

void print_ncu_command(const ProfileArgs& args, const std::string& case_name, const std::string& range,
                       const std::string& program) {
  std::printf("ncu command for this case:\n  ncu --clock-control none --nvtx --nvtx-include %s "
              "--set full -o %s %s profile %s --case %s --executor %s\n",
              shell_quote(nvtx_case_filter(range)).c_str(), shell_quote(ncu_report_path(args.file, case_name)).c_str(),
              program.c_str(), shell_quote(args.file).c_str(), shell_quote(case_name).c_str(),
              shell_quote(args.executor).c_str());
}

// Warms the executor up outside any range, then runs it once inside the case's NVTX range,
// or hands it to the timeline.
int profile_case(const ProfileArgs& args, const std::string& program) {
  const ExecutorInfo& run = executor_for_option("--executor", args.executor);
  const std::vector<ScenarioFile> loaded = load_all({args.file}, args.scenario);
  const CaseSpec& spec = select_one_case(loaded, args.file, args.case_name);
  const bool timeline = !args.timeline_csv_path.empty();
  if (timeline && !flash_verify_timeline_built()) {
    return fail(kExitBadInput, "--timeline: this build records no timeline; build the kernels with "
                               "-DVB_DEBUG_TIMELINE=1 (scripts/bundle_variant.sh BASE OUT -DVB_DEBUG_TIMELINE=1)");
  }
  if (timeline) prepare_output_file(args.timeline_csv_path, "--timeline");
  const std::string range = nvtx_case_range_name(args.file, spec.name);
  if (!timeline) print_ncu_command(args, spec.name, range, program);
  std::fflush(stdout);
  const GpuInfo gpu = query_gpu();
  if (!gpu.available) return fail(kExitRuntimeFailure, "profile needs a GPU: " + gpu.reason);
  CaseSession session(spec);
  std::string error;
  DeviceProblem* const device = session.device(gpu, &error);
  if (!device) return fail(kExitRuntimeFailure, "upload failed: " + error);
  cudaStream_t stream = nullptr;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
    return fail(kExitRuntimeFailure, "cudaStreamCreate failed");
  }
  constexpr int kWarmup = 3;
  cudaError_t err = cudaSuccess;
  {
    NvtxRange r("warm-up");
    for (int i = 0; i < kWarmup && err == cudaSuccess; ++i) err = device->launch(run.kind, run.page_kind, stream);
    if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
  }
  if (err == cudaSuccess && timeline) {
    cudaStreamDestroy(stream);
    return profile_timeline(*device, run, gpu, spec.name, args.timeline_csv_path, args.timeline_launches,
                            args.timeline_mode);
  }
  if (err == cudaSuccess) {
    CaseLaunchRange r(range);
    err = device->launch(run.kind, run.page_kind, stream);
    if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
  }
  cudaStreamDestroy(stream);
  if (err != cudaSuccess) {
    return fail(kExitRuntimeFailure, fmt::format("{} launch failed: {}", args.executor, cudaGetErrorString(err)));
  }
  std::printf("ran %s (%s) once inside NVTX range %s (domain verifybench)\n", spec.name.c_str(),
              args.executor.c_str(), range.c_str());
  return kExitOk;
}

}  // namespace

CLI::App* add_profile_command(CLI::App& app, const Invocation& invocation, int* exit_code) {
  auto args = std::make_shared<ProfileArgs>();
  CLI::App* cmd = app.add_subcommand(
      "profile", "Warm up one GPU executor (default: the production kernel) on one case, run it once "
                 "inside the case's NVTX range, and print the ncu command that profiles exactly that launch.");
  add_one_case_options(cmd, &args->file, &args->case_name);
  add_launch_options(cmd, &args->scenario);
  cmd->add_option("--executor", args->executor,
                  "GPU executor to run (" + executor_names() + ")")
      ->capture_default_str();
  CLI::Option* timeline_option = cmd->add_option("--timeline", args->timeline_csv_path,
                  "instead of the NVTX launch: time cold-L2 launches of a build with -DVB_DEBUG_TIMELINE=1, "
                  "print where each launch's time went (medians) and write every block's stamps to this CSV file");
  cmd->add_option("--launches", args->timeline_launches, "cold launches for --timeline (1..1000)")
      ->capture_default_str()->check(integer_in(1, 1000))->needs(timeline_option);
  cmd->add_option("--timeline-mode", args->timeline_mode,
                  "what each --timeline launch is: cold (one cold-L2 launch), chain or chain-pdl (the last of a "
                  "chain sample's back-to-back launches, chain-pdl each over the previous)")
      ->capture_default_str()->check(CLI::IsMember({"cold", "chain", "chain-pdl"}))->needs(timeline_option);
  add_limit_options(cmd, &args->scenario);
  cmd->callback([args, invocation, exit_code] {
    *exit_code = run_command([&] { return profile_case(*args, invocation.program); });
  });
  return cmd;
}

}  // namespace vb

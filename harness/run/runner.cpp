// Case runner: set-up -> reference -> GPU executors -> verify, one record per executor.
#include "harness/run/runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "harness/measure/nvtx.h"
#include "harness/problem/fp8_math_error.h"
#include "harness/problem/problem.h"
#include "harness/run/case_session.h"
#include "harness/measure/traffic_model.h"
#include "verifybench/reference.h"

namespace vb {

bool times_executor(const RunOptions& options, const std::string& name) {
  const ExecutorInfo* info = find_executor_info(name);
  if (info == nullptr || !info->timed) return false;
  const auto& only = options.timed_executors;
  return only.empty() || std::find(only.begin(), only.end(), name) != only.end();
}

std::string reproducer_for(const std::string& scenario_path, const CaseSpec& spec) {
  std::string command = reproducer_for(scenario_path, spec.name);
  // An fp8 pool's math may come from --math: the reproducer names it either way.
  if (spec.kv_cache.dtype == KvDtype::kFp8E4m3) command += fmt::format(" --math {}", to_string(spec.math));
  return command;
}

std::string reproducer_for(const std::string& scenario_path, const std::string& case_name) {
  // The path is quoted only when it needs it, so the common case reads naturally.
  const bool plain = !scenario_path.empty() &&
                     scenario_path.find_first_not_of(
                         "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./+") ==
                         std::string::npos;
  return fmt::format("verifybench run {} --case {}",
                     plain ? scenario_path : shell_quote(scenario_path), shell_quote(case_name));
}

int exit_code_for(const std::vector<CaseResult>& results) {
  bool incorrect = false;
  for (const CaseResult& c : results) {
    for (const ExecutorResult& e : c.executors) {
      if (is_peer_executor(e.executor)) continue;  // another process's verdict, not this run's
      if (e.outcome == Outcome::kLaunchFailed) return kExitRuntimeFailure;
      if (e.outcome == Outcome::kIncorrect) incorrect = true;
    }
  }
  return incorrect ? kExitIncorrect : kExitOk;
}

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

ExecutorResult gpu_record(const ExecutorInfo& run, Outcome outcome, std::string detail) {
  ExecutorResult r;
  r.executor = run.name;
  r.outcome = outcome;
  r.detail = std::move(detail);
  return r;
}

std::string not_run_detail(const GpuInfo& gpu) {
  const std::string reason = gpu.reason.empty() ? "no reason given" : gpu.reason;
  if (reason.rfind("no CUDA device", 0) == 0) return "not run: " + reason;
  return "not run: no CUDA device (" + reason + ")";
}

// Each reference thread holds one request's K as doubles (4608 bytes a token): the thread
// count is capped so that all of them together stay within kReferenceGatherBudget.
constexpr std::int64_t kReferenceGatherBudget = std::int64_t{16} << 30;
constexpr std::int64_t kReferenceBytesPerToken = mla::kHeadDimQK * 8;

int reference_threads(int requested, const Problem& problem) {
  const int hw = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const int threads = requested > 0 ? requested : hw;
  std::int64_t longest = 0;
  for (const std::int32_t p : problem.prefix_len) longest = std::max<std::int64_t>(longest, p + problem.tree_size);
  const std::int64_t cap = std::max<std::int64_t>(1, kReferenceGatherBudget / std::max<std::int64_t>(1, longest * kReferenceBytesPerToken));
  return static_cast<int>(std::min<std::int64_t>(threads, cap));
}

// What an fp8 case's quantization itself costs, for information (never a criterion): the
// reference on the dequantized pool (`ref`, what the executors are checked against) against
// the reference on the same rows of the generated, unquantized data.
std::string quantization_note(const Problem& problem, const ReferenceOutput& ref, const ReferenceOptions& options) {
  const VerifyParams unquantized =
      host_params(problem, PageTableKind::kTokenIndices, nullptr, nullptr, HostPool::kUnquantized);
  const ReferenceOutput exact = reference_verify_rows(unquantized, ref.rows, options);
  double o_diff = 0, lse_diff = 0;  // NaN (poisoned rows) compares false: not counted
  for (std::size_t i = 0; i < ref.o.size(); ++i) o_diff = std::max(o_diff, std::fabs(ref.o[i] - exact.o[i]));
  for (std::size_t i = 0; i < ref.lse.size(); ++i) lse_diff = std::max(lse_diff, std::fabs(ref.lse[i] - exact.lse[i]));
  return fmt::format("fp8 KV (scale {:g}) vs the unquantized data, for information: max |dO| {:.3g}, max |dLSE| {:.3g}",
                     problem.kv_scale, o_diff, lse_diff);
}

}  // namespace

CaseResult run_case(const CaseSpec& spec, const GpuInfo& gpu, const RunOptions& options) {
  CaseResult result;
  result.case_name = spec.name;
  result.scenario = spec.scenario;
  result.source = spec.source;
  result.reproducer = reproducer_for(options.scenario_path, spec);

  result.tags = spec.tags;
  result.gate_tolerance = spec.gate.tolerance;

  // ---- set-up
  CaseSession session(spec);
  const Problem& problem = session.problem();
  result.traffic = traffic_model(traffic_input(problem));
  result.batch = problem.batch;
  result.tree_size = problem.tree_size;
  result.heads = problem.num_heads;
  result.page_size = problem.pages.page_size;
  result.kv_cache = kv_cache_label(spec.kv_cache);
  result.math = to_string(spec.math);
  result.total_kv_tokens =
      std::accumulate(problem.prefix_len.begin(), problem.prefix_len.end(), std::int64_t{0}) +
      static_cast<std::int64_t>(problem.batch) * problem.tree_size;
  const std::int64_t all_rows = problem.query_rows();

  // ---- CPU reference (the oracle every executor is checked against)
  ReferenceOptions ref_options;
  ref_options.threads = reference_threads(options.threads, problem);
  const auto ref_start = std::chrono::steady_clock::now();
  std::optional<NvtxRange> ref_range(std::in_place, "reference");
  const ReferenceOutput& ref = session.reference(ReferenceRows::kAsChecked, ref_options);
  ref_range.reset();
  const double ref_ms = ms_since(ref_start);
  const std::int64_t ref_rows = static_cast<std::int64_t>(ref.rows.size());
  const bool sampled = ref_rows < all_rows;
  const std::string ref_label =
      sampled ? fmt::format("{} (sampled {} of {} rows)", kReferenceExecutor, ref_rows, all_rows)
              : std::string(kReferenceExecutor);
  {
    ExecutorResult r;
    r.executor = kReferenceExecutor;
    r.outcome = Outcome::kNotVerified;  // it is the oracle: nothing to check it against
    r.detail = sampled ? fmt::format("CPU oracle, sampled {} of {} rows (seed {})", ref_rows,
                                     all_rows, spec.check.seed)
                       : fmt::format("CPU oracle, all {} rows", all_rows);
    if (problem.kv_dtype() == KvDtype::kFp8E4m3) r.detail += "; " + quantization_note(problem, ref, ref_options);
    r.rows_checked = ref_rows;
    r.wall_ms = ref_ms;
    result.executors.push_back(std::move(r));
  }

  // ---- GPU executors
  const auto& runs = executor_registry();
  if (!gpu.available) {
    for (const ExecutorInfo& run : runs) {
      result.executors.push_back(gpu_record(run, Outcome::kNotRun, not_run_detail(gpu)));
    }
    if (options.time) result.timing_note = not_run_detail(gpu);
    return result;
  }
  std::string upload_error;
  DeviceProblem* const device = session.device(gpu, &upload_error);
  if (device == nullptr) {
    for (const ExecutorInfo& run : runs) {
      result.executors.push_back(
          gpu_record(run, Outcome::kLaunchFailed, "upload failed: " + upload_error));
    }
    return result;
  }

  // When the CPU only sampled rows, the naive kernel's full output is the second oracle
  // for the production kernel on every row.
  std::optional<ReferenceOutput> naive_full;
  std::string naive_missing = "naive did not run";
  // fp8-math launches' tolerance, from the case's data and its reference's softmax concentration
  // (sampled rows: those rows'), made once, at the first such launch.
  std::optional<Fp8MathTolerance> fp8_math;
  std::optional<NvtxRange> verify_range(std::in_place, "verify");
  for (const ExecutorInfo& run : runs) {
    if (std::string why_not; !device->executor_applies(run.kind, &why_not)) {
      result.executors.push_back(gpu_record(run, Outcome::kNotSupported, why_not));
      continue;
    }
    GpuRunOutput out = device->run(run.kind, run.page_kind);
    if (!out.ok) {
      result.executors.push_back(gpu_record(run, Outcome::kLaunchFailed, out.error));
      if (run.kind == GpuExecutorKind::kNaive) naive_missing = "naive failed: " + out.error;
      continue;
    }
    ExecutorResult r = gpu_record(run, Outcome::kNotVerified, "");
    r.launch = out.launch;
    r.checked_against = ref_label;
    const bool fp8_math_launch = out.launch && out.launch->runs_fp8_math();
    if (fp8_math_launch && !fp8_math) fp8_math = fp8_math_tolerance_of(problem, ref.weight_square_sum, spec.tolerance);
    const ToleranceSpec& tolerance = fp8_math_launch ? fp8_math->tolerance : spec.tolerance;
    if (fp8_math_launch) {
      r.fp8_math = Fp8MathCheck{fp8_math->o_sigma, fp8_math->lse_sigma, tolerance.o_atol, tolerance.lse_atol};
    }
    const std::optional<Fp8MathCheck> fp8_math_check = r.fp8_math;
    compare_with_reference(ref, out.o, out.lse, problem.tree_size, problem.num_heads, tolerance, &r);
    result.executors.push_back(std::move(r));

    if (!sampled) continue;
    if (run.kind == GpuExecutorKind::kNaive) {
      naive_full = reference_from_full_output(out.o, out.lse, problem.batch, problem.tree_size,
                                              problem.num_heads);
    } else if (!is_sglang_adapter(run.kind)) {  // the production kernel, any path
      ExecutorResult vs = gpu_record(run, Outcome::kNotVerified, naive_missing);
      vs.launch = out.launch;
      vs.fp8_math = fp8_math_check;
      if (naive_full) {
        vs.detail.clear();
        vs.checked_against = fmt::format("{} (all {} rows)", kNaiveExecutor, all_rows);
        compare_with_reference(*naive_full, out.o, out.lse, problem.tree_size, problem.num_heads, tolerance, &vs);
      }
      result.executors.push_back(std::move(vs));
    }
  }
  verify_range.reset();

  // ---- timing: every executor that launched, in each mode; the first record of an
  // executor carries its timings (production's second record is the check vs naive).
  // Chain samples come last, after every executor's other modes: a run of large launches
  // back to back left the device slower for seconds, and the cold samples of the executors
  // timed after production's chain samples read 5-16 % slow (H200, 2026-11-30:
  // reports/h200/2026-11-30-pdl-chain call 9, in git history at 93371d3). chain and chain-pdl take their samples in turn, so that both see the same states.
  if (options.time) {
    if (options.timer == nullptr) {
      result.timing_note = "not timed: no timer (internal error)";
    } else {
      std::vector<TimingMode> single_modes, chain_modes;
      for (TimingMode mode : options.timing.modes) {
        (mode == TimingMode::kChain || mode == TimingMode::kChainPdl ? chain_modes : single_modes).push_back(mode);
      }
      for (const bool chain_phase : {false, true}) {
        for (const ExecutorInfo& run : runs) {
          if (!times_executor(options, run.name)) continue;
          ExecutorResult* record = nullptr;
          for (ExecutorResult& e : result.executors) {
            if (e.executor == run.name) {
              record = &e;
              break;
            }
          }
          if (record == nullptr || record->outcome == Outcome::kLaunchFailed ||
              record->outcome == Outcome::kNotRun || record->outcome == Outcome::kNotSupported) {
            continue;
          }
          DeviceProblem* dp = device;
          const LaunchFn launch = [dp, run](cudaStream_t stream, bool overlap_previous) {
            return dp->launch(run.kind, run.page_kind, stream, overlap_previous);
          };
          if (!chain_phase) {
            for (TimingMode mode : single_modes) {
              record->timings.push_back(options.timer->measure(mode, launch, options.timing));
            }
            continue;
          }
          std::vector<TimingMode> modes;
          for (TimingMode mode : chain_modes) {
            // chain-pdl only where the launch can overlap: elsewhere it would repeat chain.
            if (mode == TimingMode::kChainPdl && !dp->executor_overlaps(run.kind)) continue;
            modes.push_back(mode);
          }
          if (modes.empty()) continue;
          for (TimingRecord& t : options.timer->measure_interleaved(modes, launch, options.timing)) {
            record->timings.push_back(std::move(t));
          }
        }
      }
    }
  }

  // ---- exactly one production launch inside the case's NVTX range (for ncu --nvtx),
  // warmed up by everything above; outside every phase range.
  for (const ExecutorInfo& run : runs) {
    if (run.kind != GpuExecutorKind::kProduction) continue;
    cudaStream_t stream = options.timer != nullptr ? options.timer->stream() : nullptr;
    cudaError_t err;
    {
      CaseLaunchRange range(nvtx_case_range_name(options.scenario_path, spec.name));
      err = device->launch(run.kind, run.page_kind, stream);
      if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
    }
    if (err != cudaSuccess && result.timing_note.empty()) {
      result.timing_note = std::string("profiled launch failed: ") + cudaGetErrorString(err);
    }
    break;
  }
  return result;
}

}  // namespace vb

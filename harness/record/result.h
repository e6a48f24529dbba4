// Result records: what one executor did on one case. Writers (table, JSON) format these;
// they never compute anything themselves.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "verifybench/reference.h"
#include "harness/record/executor_registry.h"
#include "harness/record/launch_record.h"
#include "harness/scenario/scenario.h"

namespace vb {

// CUTLASS-profiler style outcome: "crashed" and "wrong" are never confused.
enum class Outcome {
  kPassed,        // ran, every checked element within tolerance
  kIncorrect,     // ran, some element out of tolerance or NaN/Inf mismatch
  kLaunchFailed,  // a CUDA call or launch returned an error
  kNotVerified,   // ran, nothing to compare against
  kNotSupported,  // the executor cannot take this case (says why in detail)
  kNotRun,        // this machine cannot run it (e.g. no CUDA device)
};
const char* to_string(Outcome);

// Where the worst element is, in problem coordinates.
struct ElementIndex {
  int request = -1, node = -1, head = -1, channel = -1;  // channel -1 for LSE
};

struct ErrorStats {
  std::int64_t elements_checked = 0;
  std::int64_t elements_failed = 0;     // out of tolerance
  std::int64_t nonfinite_mismatch = 0;  // NaN/Inf position or kind differs
  double max_abs_error = 0;
  double max_rel_error = 0;  // |got-ref| / max(|ref|, tiny)
  double mean_abs_error = 0;
  ElementIndex worst;          // largest |got-ref| - tolerance(ref)
  double worst_expected = 0, worst_got = 0;
};

// ---- measurement records (issue 4). Written by the timing engine / runner, formatted by the
// JSON, Markdown, CSV and SVG writers; compared across runs by `verifybench compare`.

// Launches per chain / chain-pdl sample: the sample is their time divided by this
// (harness/measure/timing.h, TimingMode::kChain).
constexpr int kChainLaunches = 8;

// One timed measurement of one executor in one mode. Times in milliseconds.
struct TimingRecord {
  std::string mode;                 // "cold-l2" | "hot-l2" | "graph" | "chain" | "chain-pdl" (harness/measure/timing.h)
  std::vector<double> samples_ms;   // every kept sample, in the order taken
  double median_ms = 0, min_ms = 0, max_ms = 0, p10_ms = 0, p90_ms = 0;
  double rel_noise = 0;             // relative std. error of the median (harness/measure/timing.h)
  std::string stop_reason;          // "noise target" | "max samples" | "time budget" | "error: ..."
  std::optional<double> sm_clock_mhz_median;  // NVML_CLOCK_SM around the samples; none: no NVML
  std::optional<double> temperature_c_max;    // NVML GPU temperature, max seen
  // NVML memory (HBM) temperature, lowest and highest seen (field NVML_FI_DEV_MEMORY_TEMP);
  // none where the device or driver does not report it.
  std::optional<double> memory_temperature_c_min, memory_temperature_c_max;
  bool throttled = false;           // a clock-event reason other than idle / app clocks was set
};

// Where one executor's time puts it on the roofline (harness/measure/traffic_model.h).
struct Achieved {
  std::string mode;                // the TimingRecord mode the rates come from
  double gbps = 0;                 // algorithmic bytes / median time, 1e9 B/s
  double tflops = 0;               // FLOPs / median time, 1e12 FLOP/s
  std::optional<double> pct_of_attainable;  // tflops / attainable(intensity); none: no ceilings
  std::string bound;               // "memory" | "compute" ("" when no ceilings)
  bool speed_of_light = false;     // gbps > memory ceiling or tflops > the tensor-core ceiling
  // The tensor-core instruction the executor's launch ran ("mma.sync", "wgmma"; "" when its
  // record names no production path) and its TFLOP/s as a % of that instruction's ceiling.
  std::string engine;
  std::optional<double> pct_of_engine_ceiling;
  std::optional<double> pct_of_memory_ceiling;  // gbps / the memory roof of the page size
};

// Bytes and FLOPs of one case (docs/background.md §4), computed from the materialized problem.
struct TrafficModel {
  std::int64_t algorithmic_bytes = 0;  // unique KV rows + q + o + lse + page table + mask
  std::int64_t page_bytes = 0;         // whole pages touched x page_size x KV row bytes
  std::int64_t kv_unique_bytes = 0;    // KV row bytes (1152 bf16, 576 fp8) x unique physical rows
  double flops = 0;                    // 2 * sum_b (P_b+T) * H * T * (576 + 512)
  std::int64_t kv_row_bytes = kKvRowBytes;  // R: kKvRowBytes (bf16 pool) or kKvRowBytesFp8
  double intensity() const {           // FLOP per algorithmic byte
    return algorithmic_bytes > 0 ? flops / static_cast<double>(algorithmic_bytes) : 0;
  }
};

// Device ceilings measured at the start of a GPU run (harness/measure/ceilings.h).
struct Ceilings {
  double row_read_contiguous_gbps = 0;  // 1152-byte rows, in order
  double row_read_shuffled_gbps = 0;    // 1152-byte rows, page size 1, shuffled
  // The same reads of 576-byte rows (an fp8 e4m3 KV row): the memory roof of fp8 cases. 0 when
  // not measured (result files before 2026-12-06's 576-byte ceiling do not have them).
  double row576_read_contiguous_gbps = 0;
  double row576_read_shuffled_gbps = 0;
  double d2d_copy_gbps = 0;             // cudaMemcpyAsync D2D, read + write bytes
  double mma_bf16_tflops = 0;           // mma.sync m16n8k16 bf16 -> fp32 issue rate
  // The SM clock inside the mma.sync probe's last pass (its block 0's cycle counter over the
  // global timer). 0 when not read (result files before 2026-12-05 do not have it).
  double mma_clock_mhz = 0;
  int sm_count = 0;  // the device's SMs; 0 in result files before 2026-12-05
  // The device's datasheet memory bandwidth, from its memory clock and bus width (2 transfers
  // a clock): what the row ceilings are a fraction of. 0 when not read (older result files).
  double memory_peak_gbps = 0;
  // sm_120's tensor rates emulated on this device (production/sm120-emu's tensor-pipe load,
  // harness/measure/ceilings.cpp): the real mma.sync work per second that the probe's compute
  // warps reach while the emulation's extra mma.sync hold the pipe: bf16 m16n8k16, and fp8 e4m3
  // m16n8k32 as the fp8-math kernels issue it on sm_90 (two f16 m16n8k16 on widened operands),
  // both fp32 accumulate. Per clock and SM they
  // are sm_120's roofs (1,024 and 2,048 FLOP) as this device emulates them. 0 when not measured
  // (not a Hopper, or older files).
  // mma.sync m16n8k32 e4m3 -> fp32 issue rate, where the device has that tensor instruction
  // (compute capability 8.9, 10.x, 12.x); 0 on a Hopper, whose ptxas lowers it to f16 HMMA.
  double mma_fp8_tflops = 0;
  double sm120_emulated_bf16_tflops = 0;
  double sm120_emulated_fp8_tflops = 0;
  // wgmma.mma_async m64n256k16 bf16 -> fp32 from shared memory (sm_90a only). 0 when not
  // measured: a device other than compute capability 9.0, or an older result file.
  double wgmma_bf16_tflops = 0;
  // The production wgmma kernel's 64 x 64 tile with only its tensor work (sm_90a only): no
  // softmax and no loads to wait for, its register budget kept (S, then PV, per warpgroup 1),
  // without and with the stage's 72 KB of cp.async copies a tile. A ceiling of the kernel's
  // design, not of the device: never a case's roof. 0 when not measured (as
  // wgmma_bf16_tflops; result files before 2026-12-05 do not have them).
  double wgmma_mla_tile_tflops = 0;
  double wgmma_mla_tile_copies_tflops = 0;
  // One empty kernel timed as a cold-L2 case sample is: no launch measures less. 0 when not
  // measured (result files before 2026-11-29 'combine' do not have it).
  double launch_floor_us = 0;
  // One empty kernel launched over the previous one (programmatic dependent launch), timed as
  // a chain-pdl case sample is: what a launch costs at least inside a serving loop. 0 when not
  // measured (no PDL before sm_90, or an older result file).
  double pdl_floor_us = 0;
  std::vector<std::pair<std::string, std::string>> method;  // name -> how it was measured
};

// A case's time on another GPU predicted from this run (harness/measure/traffic_model.h,
// predict_on_device): a prediction, never a measurement. Made from production/sm120-emu's
// cold-l2 median T_e here (the proxy's launch with the tensor pipe held to sm_120's rate per SM
// and clock):
//   C = T_e x (the mma.sync probe's clock here / sm_clock_mhz) x (busy SMs here / num_sms)
//   M = algorithmic bytes / (the device's datasheet bandwidth x rho)
//   time_us = max(C, M); interval [max(C, M_datasheet), C + M]
struct DevicePrediction {
  std::string device;               // DeviceModel slug, "rtx-pro-6000"
  double time_us = 0;               // max(sm_cycles_us, memory_us)
  double low_us = 0;                // max(sm_cycles_us, memory_datasheet_us): full overlap at the datasheet
  double high_us = 0;               // sm_cycles_us + memory_us: no overlap
  double sm_cycles_us = 0;          // C: the emulated run's SM cycles at that device's clock and SMs
  double memory_us = 0;             // M: bytes at rho of that device's datasheet bandwidth
  double memory_datasheet_us = 0;   // bytes at that device's datasheet bandwidth
  double rho = 0;                   // this run's memory ceiling of the case / this device's datasheet bandwidth
  std::string bound;                // "SM cycles" (C >= M) | "memory"
  double sm_clock_mhz = 0;          // that device's clock C is carried to
  int num_sms = 0;                  // that device's SMs C is spread over
};

// Where production/sm120-emu's rate puts it against sm_120's rates as this run emulates them
// (harness/measure/traffic_model.h, sm120_emulated_fractions), the rate of its launch's math:
// sm120_emulated_bf16_tflops, or sm120_emulated_fp8_tflops for fp8 math.
struct Sm120EmulatedFractions {
  double pct_of_emulated_rate = 0;  // achieved TFLOP/s / the emulated rate of the launch's math
  // achieved TFLOP/s / min(memory ceiling x intensity, that rate)
  double pct_of_attainable = 0;
};

// Rows of other kernels (`verifybench run --peers`, python -m verifybench.peers) are named
// "peer/<name>": a namespace no executor of the harness uses, so a peer row can never pose
// as one, and the run's own verdict leaves peer rows out (all_passed, count_outcomes).
inline constexpr const char* kPeerExecutorPrefix = "peer/";
bool is_peer_executor(const std::string& executor);
// A peer row's name: kPeerExecutorPrefix then 1..64 of [A-Za-z0-9._/-].
bool valid_peer_executor_name(const std::string& executor);

// What an fp8-math launch was checked with (harness/problem/fp8_math_error.h): the case's
// tolerance with o_atol and lse_atol widened by kFp8MathSigmas of the derived model's standard
// deviations, which the record keeps beside the errors measured against them.
struct Fp8MathCheck {
  double o_sigma = 0, lse_sigma = 0;  // the model's first-order O and LSE error, one standard deviation
  double o_atol = 0, lse_atol = 0;    // the tolerance's widened absolute terms
};

struct ExecutorResult {
  std::string executor;  // kReferenceExecutor, a registry name (executor_registry.h) or a peer's
  Outcome outcome = Outcome::kNotRun;
  // Why it did not run, which call failed, what the oracle is, or a peer row's own note; never
  // the launch (that is `launch`).
  std::string detail;
  // The launch it made (the production kernel's executors and the SGLang adapter); none for the
  // reference, the naive kernel, an executor that did not run, and result files before
  // verifybench.result/3 (their detail holds the plan's text).
  std::optional<LaunchRecord> launch;
  std::string checked_against;  // "reference", "reference (sampled N rows)", "naive"
  std::int64_t rows_checked = 0;
  ErrorStats o, lse;
  std::optional<Fp8MathCheck> fp8_math;  // the launch ran fp8 math (LaunchRecord::math)
  std::optional<double> wall_ms;  // CPU time for the reference
  std::vector<TimingRecord> timings;  // empty when not timed
  std::optional<Achieved> achieved;   // from the cold-l2 median (else hot-l2, else graph)
  // Rows of `verifybench run --peers`: this row's cold-l2 median / production's in the run.
  std::optional<double> production_speedup;
  // production/sm120-emu only (kSm120EmuExecutor): sm_120's emulated rates and the RTX PRO 6000
  // time predicted from its cold-l2 median.
  std::optional<Sm120EmulatedFractions> sm120_fractions;
  std::optional<DevicePrediction> prediction;
};

// Small launches judged as serving runs them (issue 27, item 3): the production executor's
// chain-pdl median against 1.5 x the case's roof time + the PDL floor + 3 us.
struct PdlGoal {
  std::string executor;      // whose chain-pdl median ("production")
  double chain_pdl_us = 0;
  double roof_us = 0;        // the case's time at its attainable roof
  double pdl_floor_us = 0;   // this run's PDL floor
  double bound_us = 0;       // 1.5 * roof_us + pdl_floor_us + 3
  bool met = false;          // chain_pdl_us <= bound_us
};

struct CaseResult {
  std::string case_name;
  std::string scenario;
  std::string source;
  int batch = 0, tree_size = 0, heads = 0, page_size = 1;
  std::int64_t total_kv_tokens = 0;  // sum_b P_b + T
  std::string kv_cache = "bf16";     // the KV pool: kv_cache_label() ("fp8_e4m3 scale 0.5", ...)
  std::string math = "bf16";         // the case's tensor math, to_string(MathMode) (CaseSpec::math)
  std::string reproducer;            // command line that runs exactly this case
  std::vector<std::string> tags;     // the scenario's tags (e.g. "mask-tax-baseline:<case>")
  std::optional<TrafficModel> traffic;
  std::optional<double> speedup_vs_naive;  // naive / production cold-l2 medians
  std::optional<double> mask_tax;          // production time / chain twin's - 1
  std::optional<double> gate_tolerance;    // the scenario's gate: tolerance (verifybench compare)
  std::optional<PdlGoal> pdl_goal;         // when production has a chain-pdl time and the run a PDL floor
  std::string timing_note;                 // why not timed ("not run: no CUDA device"), or ""
  std::vector<ExecutorResult> executors;
  // True when no record is kIncorrect or kLaunchFailed: executors that could not run on
  // this machine (kNotRun), were not verified or do not support the case do not fail it,
  // and peer rows are not this run's.
  bool all_passed() const;
};

// Whether a case's kv_cache label (CaseResult::kv_cache, kv_cache_label()) names an fp8 e4m3
// pool ("fp8_e4m3 scale 0.5"); "bf16" and older files' absent label are bf16.
bool kv_cache_is_fp8(const std::string& kv_cache_label);

// Compares got (bf16 O as float, fp32 LSE, all B*T*H rows, row-major) against the
// reference rows with the case tolerance. Fills o/lse stats and the outcome.
void compare_with_reference(const ReferenceOutput& ref, const std::vector<float>& got_o,
                            const std::vector<float>& got_lse, int tree_size, int num_heads,
                            const ToleranceSpec& tol, ExecutorResult* result);

// ---- added by the CLI/report owner ----
// Parses to_string(Outcome)'s text back; returns false for unknown text.
bool outcome_from_string(const std::string& text, Outcome* outcome);

// Wraps one executor's full GPU output (all B*T*H rows, as compare_with_reference takes
// it) as a ReferenceOutput, so another executor can be compared against it on every row
// (production vs naive when the CPU reference only sampled rows).
ReferenceOutput reference_from_full_output(const std::vector<float>& o,
                                           const std::vector<float>& lse, int batch,
                                           int tree_size, int num_heads);

// Outcome counts over the records of many cases. The "reference" record (the CPU oracle
// itself) is not counted: it is what the others are checked against; nor are peer rows.
struct OutcomeCounts {
  int cases = 0;
  int passed = 0, incorrect = 0, launch_failed = 0, not_verified = 0, not_supported = 0,
      not_run = 0;
};
OutcomeCounts count_outcomes(const std::vector<CaseResult>& cases);

// POSIX-shell single quoting: abc -> 'abc', it's -> 'it'\''s'.
std::string shell_quote(const std::string& text);

}  // namespace vb

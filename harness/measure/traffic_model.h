// Bytes and FLOPs of one case (docs/background.md §4) and where a measured time puts an executor on the
// roofline. Pure functions over plain values: tested on hand-computed cases on the CPU.
//
// Definitions (all bytes are what the op must move at least once, not what a kernel moves;
// R, the KV row's bytes, is 1152 for a bf16 pool and 576 for an fp8 e4m3 one):
//   kv_unique_bytes   = R * |distinct physical KV rows named by the token page table|
//                       (a shared prefix's rows count once, however many requests read them)
//   algorithmic_bytes = kv_unique_bytes + 1152*B*T*H (q) + 1024*B*T*H (o) + 4*B*T*H (lse)
//                       + page-table bytes + mask bytes, where
//     page-table bytes = 4*B (prefix_len) + token form for page size 1: 4*(B+1) kv_indptr +
//                        8*sum_b(P_b+T) kv_indices; block form otherwise:
//                        4*sum_b ceil((P_b+T)/page) block-table entries in use
//     mask bytes       = 8 * B * T * mask_words (one uint64 ancestor word per 64 nodes)
//   page_bytes        = |distinct physical pages touched| * page_size * R
//   flops             = 2 * sum_b (P_b+T) * H * T * (576 + 512)   (upper bound: the tree part
//                       is masked)
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/record/executor_registry.h"
#include "harness/record/result.h"

namespace vb {

struct Problem;

// What the model needs from a problem.
struct TrafficInput {
  int batch = 0, tree_size = 0, num_heads = 0, page_size = 1, mask_words = 1;
  std::int64_t kv_row_bytes = kKvRowBytes;  // R: kKvRowBytes (bf16 pool) or kKvRowBytesFp8
  std::vector<std::int32_t> prefix_len;  // [B]
  std::vector<std::int64_t> kv_rows;     // physical rows of every logical token, all requests
};
TrafficInput traffic_input(const Problem& problem);
TrafficModel traffic_model(const TrafficInput& in);

// Memory ceiling that applies to a page size and a KV row size (GB/s): the row-read ceiling of
// rows of `kv_row_bytes` (1152-byte rows for a bf16 pool, 576-byte rows for an fp8 e4m3 one),
// page-1 shuffled for page size 1, in order otherwise. 0 when the run did not measure it (a
// result file before the 576-byte ceiling has none for fp8 cases).
double memory_ceiling_gbps(const Ceilings& c, int page_size, std::int64_t kv_row_bytes);
// The device's best tensor-core ceiling: max(mma.sync, wgmma) TFLOP/s (wgmma measured on
// compute capability 9.0 only). The compute roof of every case, whatever engine runs it.
double tensor_ceiling_tflops(const Ceilings& c);
// The ceiling of one instruction: "mma.sync" or "wgmma"; 0 for any other name or when that
// ceiling was not measured.
double engine_ceiling_tflops(const Ceilings& c, const std::string& engine);
// A tensor rate of this device as FLOP per clock and SM: tflops x 1e6 / (the mma.sync probe's
// clock in MHz x SMs); 0 without the clock or the SM count.
double flop_per_clock_and_sm(const Ceilings& c, double tflops);
// min(memory ceiling * intensity, tensor ceiling), TFLOP/s.
double attainable_tflops(const Ceilings& c, int page_size, std::int64_t kv_row_bytes, double intensity);
// The case's time at its attainable roof, µs: max(bytes / memory ceiling of its page size and
// row size, FLOPs / tensor ceiling). 0 when a ceiling is missing.
double roof_time_us(const TrafficModel& traffic, const Ceilings& c, int page_size);

// The tensor-core engine of a record: its launch record's ("mma.sync", "wgmma"), or "" (naive,
// reference, not run, result files before verifybench.result/3).
std::string executor_engine(const ExecutorResult& e);

// The timing the rates come from: cold-l2, else hot-l2, else graph; nullptr when none has
// samples.
const TimingRecord* preferred_timing(const ExecutorResult& e);
const TimingRecord* find_timing(const ExecutorResult& e, const std::string& mode);

// Rates and roofline position for one timing of one case, against the memory ceiling of its
// page size and of traffic.kv_row_bytes; `engine` ("mma.sync", "wgmma" or "") adds the % of
// that instruction's ceiling.
Achieved achieved_for(const TrafficModel& traffic, const TimingRecord& timing,
                      const std::optional<Ceilings>& ceilings, int page_size,
                      const std::string& engine = "");

// ---- small launches as serving runs them (issue 27, item 3)
// Goal: chain-pdl median <= kPdlGoalRoofFactor * roof time + PDL floor + kPdlGoalSlackUs.
inline constexpr double kPdlGoalRoofFactor = 1.5;
inline constexpr double kPdlGoalSlackUs = 3.0;
// The goal of one case for `executor`'s chain-pdl median; none without that timing, a
// traffic model, both ceilings of the roof or a PDL floor.
std::optional<PdlGoal> pdl_goal_for(const CaseResult& c, const Ceilings& ceilings,
                                    const std::string& executor = kProductionExecutor);

// ---- sm_120's rates emulated here, and the RTX PRO 6000 time predicted from them
// achieved / sm_120's emulated rate of the launch's math (bf16, or fp8 for fp8 math), and
// achieved / min(memory ceiling x intensity, that rate): none without the emulated rate or the
// memory ceiling of the page size and row size.
std::optional<Sm120EmulatedFractions> sm120_emulated_fractions(const TrafficModel& traffic, const Achieved& achieved,
                                                               const Ceilings& ceilings, int page_size,
                                                               MathMode math = MathMode::kBf16);

struct DeviceModel;
// The time a case takes on `target`, predicted from production/sm120-emu's cold-l2 median
// `emulated_us` here (the proxy's launch with the tensor pipe held to sm_120's rate per SM and
// clock, so its SM cycles already hold sm_120's tensor work):
// - C, the SM-side time there: emulated_us x (the mma.sync probe's clock here /
//   target.sm_clock_mhz) x (busy SMs here / target.num_sms), busy SMs here = min(launch_blocks,
//   SMs here) (one block per SM; launch_blocks 0 counts every SM busy): the emulated run's SM
//   cycles at the target's clock, spread evenly over its SMs;
// - rho = the memory ceiling of the page size and traffic.kv_row_bytes here / this device's
//   datasheet bandwidth: the fraction of the datasheet a row stream reaches, taken to carry
//   over to the target's memory;
// - M = bytes / (target.memory_gbps x rho), M_datasheet = bytes / target.memory_gbps.
// time = max(C, M) (the SM side and the memory stream overlap, as the memory-bound cases show
// they do here); interval [max(C, M_datasheet), C + M]; bound "SM cycles" when C >= M, else
// "memory". None without the probe's clock, the datasheet bandwidth, the memory ceiling, the SM
// counts or the target's figures (older result files), or when emulated_us <= 0.
std::optional<DevicePrediction> predict_on_device(const TrafficModel& traffic, double emulated_us,
                                                  const Ceilings& ceilings, int page_size,
                                                  const DeviceModel& target, std::int64_t launch_blocks = 0);
// Why predict_on_device has no prediction from these ceilings for `target` (the fields it
// misses, in one line); "" when they hold all it needs.
std::string prediction_missing(const Ceilings& ceilings, const DeviceModel& target);
// The method of predict_on_device in words, for the reports.
std::string prediction_method(const DeviceModel& target);

// Fills, over all the cases of a run: every timed executor's `achieved`, each case's
// speedup_vs_naive (naive / production cold-l2 medians) and mask_tax (the production
// cold-l2 median over that of the chain twin named by a "mask-tax-baseline:<case>" tag,
// minus 1; the twin must be in the same run), each case's pdl_goal, and production/sm120-emu's
// sm_120 fractions and its prediction for the RTX PRO 6000 (device model "rtx-pro-6000"). The
// proxy and its emulation run mma.sync: their % of engine ceiling is of the mma.sync ceiling.
void annotate_roofline(std::vector<CaseResult>* cases, const std::optional<Ceilings>& ceilings);

inline constexpr const char* kMaskTaxTag = "mask-tax-baseline:";

}  // namespace vb

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

// ---- predictions for a GPU this run did not measure
struct DeviceModel;
// The time a case would take on `target`, predicted from the proxy's median `median_us` here,
// two ways:
// - the roof-fraction estimate (time_us): the fraction f of its roof the proxy reaches in this
//   run (roof = max(bytes / memory ceiling of the page size and traffic.kv_row_bytes, FLOPs /
//   mma.sync ceiling): mma.sync is the proxy's
//   engine and sm_120's only one) applied to the target's roof (max(bytes / target.memory_gbps,
//   FLOPs / target.mma_tflops)): time = target roof / f;
// - the overlap bound (overlap_bound_us): the target's roof, or the proxy's SM cycles carried
//   over if longer: median_us x (the mma.sync probe's clock here / target.sm_clock_mhz) x
//   (the SMs the launch kept busy here, min(launch_blocks, SMs here; one proxy block per SM) /
//   target.num_sms), the SM-busy cycles spread evenly over the target's SMs. A lower bound if
//   the SM-side work takes as many cycles there and overlaps the target's tensor cores and
//   memory perfectly. None without the probe's clock, the target's clock or the SM counts;
//   launch_blocks 0 (unknown) counts every SM here busy.
// None when a ceiling is missing or median_us <= 0.
std::optional<DevicePrediction> predict_on_device(const TrafficModel& traffic, double median_us,
                                                  const Ceilings& ceilings, int page_size,
                                                  const DeviceModel& target, std::int64_t launch_blocks = 0);
// The method of predict_on_device in words, for the reports.
std::string prediction_method(const DeviceModel& target);

// Fills, over all the cases of a run: every timed executor's `achieved`, each case's
// speedup_vs_naive (naive / production cold-l2 medians) and mask_tax (the production
// cold-l2 median over that of the chain twin named by a "mask-tax-baseline:<case>" tag,
// minus 1; the twin must be in the same run), each case's pdl_goal, and the sm_120 proxy's
// prediction for the RTX PRO 6000 (device model "rtx-pro-6000").
void annotate_roofline(std::vector<CaseResult>* cases, const std::optional<Ceilings>& ceilings);

inline constexpr const char* kMaskTaxTag = "mask-tax-baseline:";

}  // namespace vb

// Bytes and FLOPs of one case (SPEC.md §4) and where a measured time puts an executor on the
// roofline. Pure functions over plain values: tested on hand-computed cases on the CPU.
//
// Definitions (all bytes are what the op must move at least once, not what a kernel moves):
//   kv_unique_bytes   = 1152 * |distinct physical KV rows named by the token page table|
//                       (a shared prefix's rows count once, however many requests read them)
//   algorithmic_bytes = kv_unique_bytes + 1152*B*T*H (q) + 1024*B*T*H (o) + 4*B*T*H (lse)
//                       + page-table bytes + mask bytes, where
//     page-table bytes = 4*B (prefix_len) + token form for page size 1: 4*(B+1) kv_indptr +
//                        8*sum_b(P_b+T) kv_indices; block form otherwise:
//                        4*sum_b ceil((P_b+T)/page) block-table entries in use
//     mask bytes       = 8 * B * T * mask_words (one uint64 ancestor word per 64 nodes)
//   page_bytes        = |distinct physical pages touched| * page_size * 1152
//   flops             = 2 * sum_b (P_b+T) * H * T * (576 + 512)   (upper bound: the tree part
//                       is masked)
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/result.h"

namespace vb {

struct Problem;

inline constexpr std::int64_t kKvRowBytes = 576 * 2;  // one latent+rope row, bf16
inline constexpr std::int64_t kQRowBytes = 576 * 2;   // per (node, head)
inline constexpr std::int64_t kORowBytes = 512 * 2;
inline constexpr std::int64_t kLseBytes = 4;
inline constexpr double kFlopsPerVisiblePair = 2.0 * (576 + 512);  // QK^T + PV per (row, token)

// What the model needs from a problem.
struct TrafficInput {
  int batch = 0, tree_size = 0, num_heads = 0, page_size = 1, mask_words = 1;
  std::vector<std::int32_t> prefix_len;  // [B]
  std::vector<std::int64_t> kv_rows;     // physical rows of every logical token, all requests
};
TrafficInput traffic_input(const Problem& problem);
TrafficModel traffic_model(const TrafficInput& in);

// Memory ceiling that applies to a page size: shuffled 1152-byte rows for page size 1,
// in-order rows otherwise (GB/s).
double memory_ceiling_gbps(const Ceilings& c, int page_size);
// min(memory ceiling * intensity, mma ceiling), TFLOP/s.
double attainable_tflops(const Ceilings& c, int page_size, double intensity);

// The timing the rates come from: cold-l2, else hot-l2, else graph; nullptr when none has
// samples.
const TimingRecord* preferred_timing(const ExecutorResult& e);
const TimingRecord* find_timing(const ExecutorResult& e, const std::string& mode);

// Rates and roofline position for one timing of one case.
Achieved achieved_for(const TrafficModel& traffic, const TimingRecord& timing,
                      const std::optional<Ceilings>& ceilings, int page_size);

// Fills, over all the cases of a run: every timed executor's `achieved`, each case's
// speedup_vs_naive (naive / production cold-l2 medians) and mask_tax (the production
// cold-l2 median over that of the chain twin named by a "mask-tax-baseline:<case>" tag,
// minus 1; the twin must be in the same run).
void annotate_roofline(std::vector<CaseResult>* cases, const std::optional<Ceilings>& ceilings);

inline constexpr const char* kMaskTaxTag = "mask-tax-baseline:";

}  // namespace vb

// The split combine's shape (split_combine.cu, flash_verify_combine_kernel): what its kernel is built
// with and what the planner counts when it picks the lanes. Host and device.
#pragma once

#include "verifybench/verify_params.h"

namespace vb::combine_cfg {

// The combine's lanes hold at most kMaxSplits partials per row of a fixed-split plan
// (PlannerConfig::max_splits may ask for fewer); tile-balanced plans loop past them.
inline constexpr int kMaxSplits = 128;

constexpr int kCombineChunks = 4;
constexpr int kCombineThreadsX = mla::kHeadDimV / kCombineChunks / 4;  // 32: 4 channels each
constexpr int kCombineSlots = 8;                                        // blockDim.y: row slots x split lanes
constexpr int kCombineSlotsLog2 = 3;
static_assert(kCombineSlots == 1 << kCombineSlotsLog2, "lanes and row slots are powers of two");
constexpr int kCombineMaxPerLane = kMaxSplits / kCombineSlots;
static_assert(kCombineMaxPerLane * kCombineSlots == kMaxSplits, "every split has a lane");
// The instance that serves `loads` splits per lane (1-6, 8, 10, 12, 16), and the blocks per
// SM its launch bounds hold it to (32, 48, 64, 80, 128 registers): the lane choice counts
// on exactly these. Without the bound the row-slot indexing took instance 10 from 64 to 76
// registers (3 blocks per SM instead of 4), and one 64k request with T = 16 (512 combine
// blocks) ran 3 % slower (H200). An SM of sm_120 holds 1536 threads (6 such blocks), not
// 2048: there the smallest instances are bound to 6 blocks (a bound of 8 cannot be honoured,
// and ptxas, which the build runs with -Werror, refuses it).
constexpr int combine_instance_loads(int loads) {
  return loads <= 6 ? loads : loads <= 8 ? 8 : loads <= 10 ? 10 : loads <= 12 ? 12 : 16;
}
constexpr int combine_min_blocks_per_sm(int instance_loads, int max_threads_per_sm) {
  const int by_registers =
      instance_loads <= 3 ? 8 : instance_loads <= 6 ? 5 : instance_loads <= 10 ? 4 : instance_loads <= 12 ? 3 : 2;
  const int by_threads = max_threads_per_sm / (kCombineThreadsX * kCombineSlots);
  return by_registers < by_threads ? by_registers : by_threads;
}

// The tile-balanced instances hold one block per SM fewer (two in timeline builds), four at
// most: their loop over a long request's slots (and until v12 their walk over the lengths)
// spilled at the others' bounds (instance 10: 8 bytes at 64 registers, still so without the
// walk; instances 1-3 with the walk: up to 80 bytes at 36). At the others' bounds instance 8
// ran the skewed batch 4 % slower, with the walk and without it (H200, 2026-11-30:
// reports/h200/2026-11-30-prefetch call 2 and 2026-11-30-slot-records call 1, in git history
// at 93371d3). The lane
// choice counts these bounds (timeline builds aside; at a878038 it counted the others':
// DeepSeek's shared prefix then took 2 lanes whose 4096 blocks needed 8 waves at 4 per SM,
// not 4; with 1 lane it ran 4 % faster).
constexpr int kBalancedCombineMaxBlocksPerSm = 4;
constexpr int combine_blocks_per_sm(int instance_loads, int max_threads_per_sm, bool balanced, int fewer = 1) {
  const int bound = combine_min_blocks_per_sm(instance_loads, max_threads_per_sm);
  if (!balanced) return bound;
  const int balanced_bound = bound > fewer ? bound - fewer : 1;
  return balanced_bound < kBalancedCombineMaxBlocksPerSm ? balanced_bound : kBalancedCombineMaxBlocksPerSm;
}
}  // namespace vb::combine_cfg

// The split combine: the LSE-weighted merge of every row's split partials into final O and
// LSE, launched after the main kernel of either path when a plan has more than one split
// (launch/launcher.cu). Its instances (loads per lane, tile-balanced or not) all live here.
#include <cuda_bf16.h>

#include <cmath>
#include <vector>

#include "combine/combine_config.h"
#include "combine/split_combine.h"
#include "common/split_kv.h"
#include "common/timeline.cuh"
#include "common/warp_ops.cuh"
#include "mma_sync/mma_config.h"
#include "verifybench/kernels.h"
#include "wgmma/wgmma_config.h"

namespace vb {
namespace {

using namespace combine_cfg;

using detail::ceil_div;
using detail::SplitWorkspace;
using detail::balanced_partial_row;

// Phase timeline slots (-DVB_DEBUG_TIMELINE=1 builds; common/timeline.cuh).
VB_TIMELINE_SLOTS(g_timeline_combine, detail::kTimelineCombineSlots);

// LSE-weighted sum of every row's split partials. Block (r, chunk) owns 128 of the 512
// channels of kCombineSlots / lanes consecutive rows: thread (x, y) serves row slot
// y / lanes, split lane y % lanes, channels chunk*128 + 4x .. +3, and that row's splits
// lane, lane + lanes, ... (kPerLane of them); a row's lane sums meet in shared memory. Four
// chunks per row put one long request's few rows (32 for 8 heads x T = 4) on 128 SMs
// instead of 32. Every thread issues all its loads (its splits' LSEs and 16-byte O chunks)
// before it uses any: one memory round trip, where a loop over the splits with the LSEs
// loaded first takes several.
// The plan picks the lanes (flash_verify_combine_lanes): of as many as the splits need (up to
// 8) and the fewer lane counts with more loads each, the one whose blocks take the fewest
// waves on the device. The combine is one round trip per wave of blocks, so waves are what it
// costs (kernels/NOTES.md, "The split combine").
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1200
constexpr int kCompiledSmMaxThreads = 1536;  // sm_120: consumer Blackwell
#else
constexpr int kCompiledSmMaxThreads = 2048;  // sm_90 (and the host pass)
#endif

constexpr int combine_launch_min_blocks(int instance_loads, bool balanced) {
  return combine_blocks_per_sm(instance_loads, kCompiledSmMaxThreads, balanced, VB_DEBUG_TIMELINE ? 2 : 1);
}

// ---- the merge's roles: reduce over lanes, weight, merge the tail, store ----
// Every local array and vector of the merge (LSEs, O chunks, sums) is declared in
// combine_merge_rows and passed by reference: a role function's own is optimised before it
// is inlined, and the merge's registers then come out in another order.

// The row's largest split LSE: this lane's (the same in every thread x), then over the row's
// lanes through shared memory (a block-wide barrier: every thread calls it).
template <int kPerLane>
__device__ __forceinline__ float combine_row_max(const float (&lse)[kPerLane], float* s_lane_max, int lanes,
                                                 int slot0) {
  float max_lse = lse[0];
#pragma unroll
  for (int i = 1; i < kPerLane; ++i) max_lse = fmaxf(max_lse, lse[i]);
  if (threadIdx.x == 0) s_lane_max[threadIdx.y] = max_lse;
  __syncthreads();
  for (int l = 0; l < lanes; ++l) max_lse = fmaxf(max_lse, s_lane_max[slot0 + l]);
  return max_lse;
}

// One split's weight exp(lse - max_lse) into weight_sum and its weighted O into acc. A split
// whose tokens this row cannot see has lse -inf (weight exactly 0) and zero O.
__device__ __forceinline__ void combine_add_split(float4& acc, float& weight_sum, float lse, const float4& v,
                                                  float max_lse) {
  const float w = expf(lse - max_lse);
  weight_sum += w;
  acc.x += w * v.x; acc.y += w * v.y; acc.z += w * v.z; acc.w += w * v.w;
}

// Lane 0 of a row adds the other lanes' sums (from shared memory).
__device__ __forceinline__ void combine_sum_lanes(float4& acc, float& weight_sum,
                                                  const float4 (*s_acc)[kCombineThreadsX], const float* s_weight,
                                                  int slot0, int lanes) {
  for (int l = 1; l < lanes; ++l) {
    const float4 u = s_acc[slot0 + l][threadIdx.x];
    acc.x += u.x; acc.y += u.y; acc.z += u.z; acc.w += u.w;
    weight_sum += s_weight[slot0 + l];
  }
}

// Tile-balanced: kTailLoads more slots s0 .. s0 + kTailLoads - 1 (those below used_splits),
// merged online into acc, weight_sum and max_lse.
template <int kTailLoads>
__device__ __forceinline__ void combine_merge_tail(float4& acc, float& weight_sum, float& max_lse,
                                                   float (&tl)[kTailLoads], float4 (&tu)[kTailLoads],
                                                   const float* lse_part, const float* o_part, int s0,
                                                   int used_splits, int part_stride) {
#pragma unroll
  for (int i = 0; i < kTailLoads; ++i) {
    const bool used = s0 + i < used_splits;
    const std::int64_t part = static_cast<std::int64_t>(s0 + i) * part_stride;
    tl[i] = used ? lse_part[part] : -INFINITY;
    tu[i] = used ? *reinterpret_cast<const float4*>(o_part + part * mla::kHeadDimV) : make_float4(0.f, 0.f, 0.f, 0.f);
  }
  float m = max_lse;
#pragma unroll
  for (int i = 0; i < kTailLoads; ++i) m = fmaxf(m, tl[i]);
  const float scale = m == max_lse ? 1.f : expf(max_lse - m);  // max_lse -inf: acc and weights are 0
  acc.x *= scale; acc.y *= scale; acc.z *= scale; acc.w *= scale;
  weight_sum *= scale;
  max_lse = m;
#pragma unroll
  for (int i = 0; i < kTailLoads; ++i) {
    const float w = tl[i] == -INFINITY ? 0.f : expf(tl[i] - max_lse);
    weight_sum += w;
    acc.x += w * tu[i].x; acc.y += w * tu[i].y; acc.z += w * tu[i].z; acc.w += w * tu[i].w;
  }
}

// The row's final O chunk (bf16) and, once per row, its LSE. weight_sum > 0 always: every node
// sees itself in exactly one split.
__device__ __forceinline__ void combine_store_row(bf16_bits* out_o, float* out_lse, const float4& acc, float weight_sum,
                                                  float max_lse, std::int64_t qrow, int c) {
  const float inv = 1.f / weight_sum;
  auto* o2 = reinterpret_cast<__nv_bfloat162*>(out_o + qrow * mla::kHeadDimV + c);
  o2[0] = __floats2bfloat162_rn(acc.x * inv, acc.y * inv);
  o2[1] = __floats2bfloat162_rn(acc.z * inv, acc.w * inv);
  if (blockIdx.y == 0 && threadIdx.x == 0) out_lse[qrow] = max_lse + logf(weight_sum);
}

// The LSE-weighted merge of a thread's row and channels (the combine kernel below says who
// does what). With live false (the warm pass, used_splits 0) it loads and stores nothing but
// runs the same instructions and barriers.
template <int kPerLane, bool kBalanced>
__device__ __forceinline__ void combine_merge_rows(bf16_bits* out_o, float* out_lse, const float* lse_part,
                                                   const float* o_part, const __nv_bfloat16* o_part_bf16,
                                                   bool bf16_partials, int used_splits, int part_stride, int lanes,
                                                   int my_row, int rows, std::int64_t qrow, int c, bool finalized,
                                                   bool live, bool timeline_thread) {
  __shared__ float s_lane_max[kCombineSlots];
  __shared__ float4 s_acc[kCombineSlots][kCombineThreadsX];
  __shared__ float s_weight[kCombineSlots];
  const int slot0 = threadIdx.y & ~(lanes - 1);  // this row's first y
  const int y = threadIdx.y & (lanes - 1);       // split lane
  timeline_thread = timeline_thread && live;
  // This lane's splits y, y + lanes, ... (kPerLane of them): their LSEs and O chunks, every
  // load issued before any is used. Splits past used_splits read as LSE -inf and zero O.
  float lse[kPerLane];
  float4 v[kPerLane];
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) {
    const int s = y + i * lanes;
    const bool used = s < used_splits;
    if constexpr (kBalanced) {
      const std::int64_t part = static_cast<std::int64_t>(s) * part_stride;
      lse[i] = used ? lse_part[part] : -INFINITY;
      v[i] = used ? *reinterpret_cast<const float4*>(o_part + part * mla::kHeadDimV) : make_float4(0.f, 0.f, 0.f, 0.f);
    } else {
      lse[i] = used ? lse_part[s] : -INFINITY;
      const std::int64_t offset = static_cast<std::int64_t>(s) * mla::kHeadDimV;
      v[i] = !used           ? make_float4(0.f, 0.f, 0.f, 0.f)
             : bf16_partials ? detail::load_bf16_quad(o_part_bf16 + offset)
                             : *reinterpret_cast<const float4*>(o_part + offset);
    }
  }
  if (timeline_thread) {
    asm volatile("" ::: "memory");  // the loads above stay ahead of the stamp
    VB_TIMELINE_STAMP(g_timeline_combine, kTimelineCombineLoadsIssued);
  }
  float max_lse = combine_row_max<kPerLane>(lse, s_lane_max, lanes, slot0);
  // The lane's LSE-weighted sum of its splits' O chunks, and of their weights.
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  float weight_sum = 0.f;
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) {
    combine_add_split(acc, weight_sum, lse[i], v[i], max_lse);
  }
  if (timeline_thread) {
    asm volatile("" : "+f"(acc.x), "+f"(acc.w));  // the sums are made before the stamp
    VB_TIMELINE_STAMP(g_timeline_combine, kTimelineCombineMerged);
  }
  if (y > 0) {
    s_acc[threadIdx.y][threadIdx.x] = acc;
    if (threadIdx.x == 0) s_weight[threadIdx.y] = weight_sum;
  }
  __syncthreads();
  if (!live || y > 0 || my_row >= rows || finalized) return;
  combine_sum_lanes(acc, weight_sum, s_acc, s_weight, slot0, lanes);
  // Slots past what the lanes hold (tile-balanced plans: the combine is sized for the slots of
  // most requests, PlannerConfig::balance_combine_slots, and a long request's rows take the
  // rest here), kTailLoads loads in flight at a time, merged online.
  constexpr int kTailLoads = 4;
  for (int s0 = lanes * kPerLane; kBalanced && s0 < used_splits; s0 += kTailLoads) {
    float tl[kTailLoads];
    float4 tu[kTailLoads];
    combine_merge_tail<kTailLoads>(acc, weight_sum, max_lse, tl, tu, lse_part, o_part, s0, used_splits, part_stride);
  }
  combine_store_row(out_o, out_lse, acc, weight_sum, max_lse, qrow, c);
  if (timeline_thread) VB_TIMELINE_STAMP(g_timeline_combine, kTimelineCombineEnd);
}

// The warm pass: the instances with the most merge code (12 and 16 loads a lane, not
// tile-balanced) run the merge out of line, once before the grid wait with nothing to load or
// store, so that its instructions are fetched (into the SM and L2) while the main kernel
// still runs, then for real: after the wait, the first loads go out sooner. The other
// instances run without it: out of line, the smaller ones are slower and instances 3 and 10
// spill (kernels/NOTES.md, "The split combine").
constexpr bool combine_warm_pass(int per_lane, bool balanced) {
  return !balanced && per_lane >= 12;
}
template <int kPerLane, bool kBalanced>
__device__ __noinline__ void combine_merge_rows_outlined(bf16_bits* out_o, float* out_lse, const float* lse_part,
                                                         const float* o_part, const __nv_bfloat16* o_part_bf16,
                                                         bool bf16_partials, int used_splits, int part_stride,
                                                         int lanes, int my_row, int rows, std::int64_t qrow, int c,
                                                         bool finalized, bool live, bool timeline_thread) {
  combine_merge_rows<kPerLane, kBalanced>(out_o, out_lse, lse_part, o_part, o_part_bf16, bf16_partials, used_splits,
                                          part_stride, lanes, my_row, rows, qrow, c, finalized, live, timeline_thread);
}

// The live merge, out of line where the warm pass ran it before the wait.
template <int kPerLane, bool kBalanced, typename... Args>
__device__ __forceinline__ void combine_merge(Args... args) {
  if constexpr (combine_warm_pass(kPerLane, kBalanced)) {
    combine_merge_rows_outlined<kPerLane, kBalanced>(args...);
  } else {
    combine_merge_rows<kPerLane, kBalanced>(args...);
  }
}

// kBalanced: the tile-balanced schedule's instances (split_tiles < 0), apart so that their
// slot records and serial tail add no register to the others (instance 10 spills with them).
template <int kPerLane, bool kBalanced>
__global__ void __launch_bounds__(kCombineThreadsX* kCombineSlots, combine_launch_min_blocks(kPerLane, kBalanced))
    flash_verify_combine_kernel(const VerifyParams p, const int num_splits, const int split_tiles,
                                const int tokens_per_tile, const SplitWorkspace ws, const int lanes) {
  const bool timeline_thread = VB_DEBUG_TIMELINE && threadIdx.x == 0 && threadIdx.y == 0;
  if (timeline_thread) VB_TIMELINE_BEGIN(g_timeline_combine);
  // The stream's next kernel, if launched over this one (FlashVerifyLaunchOptions), may be
  // scheduled once every block of this grid is running; it waits for this grid to finish.
  warp::launch_dependents();
  // lanes is a power of two: shifts and masks (32-bit row numbers, as blockIdx.x was: the
  // combine's registers decide how many of its blocks are resident).
  const int lane_shift = __ffs(lanes) - 1;
  const int rows = p.batch * p.query_rows_per_request();
  const int my_row = (blockIdx.x << (kCombineSlotsLog2 - lane_shift)) + (threadIdx.y >> lane_shift);
  const std::int64_t qrow = min(my_row, rows - 1);  // the last block's spare slots compute a copy, store nothing
  const int c = blockIdx.y * (mla::kHeadDimV / kCombineChunks) + threadIdx.x * 4;
  // Length-aware plans: only the splits of this row's request that hold tiles (the main
  // kernel's ranges, from the device-side length: a replayed graph may carry other lengths);
  // the others wrote nothing. Even plans: every split (empty ones wrote LSE -inf).
  int used_splits = num_splits;
  std::int64_t part0 = qrow * num_splits;  // the row's first partial
  int part_stride = 1;                     // partials between its consecutive splits
  if (split_tiles > 0) {
    const int b = static_cast<int>(qrow / p.query_rows_per_request());
    const int num_tiles = ceil_div(p.kv_len(b), tokens_per_tile);
    used_splits = ceil_div(num_tiles, detail::split_size_tiles(num_tiles, num_splits, split_tiles));
  }
  // The partials' format (detail::bf16_partials) by the path that wrote them; the wgmma path
  // runs on sm_90 only.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1000
  constexpr bool bf16_partials = detail::bf16_partials(false, kBalanced);
#else
  static_assert(wgmma_cfg::kTokensPerTile != mma_cfg::kTokensPerTile, "the tile size tells the paths apart");
  const bool bf16_partials = tokens_per_tile == wgmma_cfg::kTokensPerTile ? detail::bf16_partials(true, kBalanced)
                                                                          : detail::bf16_partials(false, kBalanced);
#endif
  if constexpr (combine_warm_pass(kPerLane, kBalanced)) {
    combine_merge_rows_outlined<kPerLane, kBalanced>(nullptr, nullptr, nullptr, nullptr, nullptr, bf16_partials, 0, 1, lanes,
                                                     my_row, rows, qrow, c, false, false, false);
  }
  // Launched early (programmatic dependent launch): the partials are read only after the main
  // grid has finished; the lengths above are inputs it never writes.
  warp::wait_for_prerequisite_grid();
  if (timeline_thread) VB_TIMELINE_STAMP(g_timeline_combine, kTimelineCombineGridDone);
  if constexpr (kBalanced) {
    // Tile-balanced plans: the blocks that hold tiles of the row's request, as the main kernel
    // recorded them (detail::record_request_slots); their partials lie part_stride apart
    // (balanced_partial_row).
    const int rows_per_request = p.query_rows_per_request();
    const int b = static_cast<int>(qrow / rows_per_request);
    const int2 slots = ws.request_slots[b];
    part0 = balanced_partial_row(slots.x, b, rows_per_request,
                                 static_cast<int>(qrow - static_cast<std::int64_t>(b) * rows_per_request));
    part_stride = rows_per_request;
    used_splits = slots.y;
  }
  // Tile-balanced: a request one block held whole has one slot, and that block wrote its rows'
  // final O and LSE; these threads still meet the block's barriers but load and store nothing.
  const bool finalized = kBalanced && used_splits == 1;
  if (finalized) used_splits = 0;
  const float* lse_part = ws.lse_partial + part0;
  const float* o_part = ws.o_partial + part0 * mla::kHeadDimV + c;
  const __nv_bfloat16* o_part_bf16 = reinterpret_cast<const __nv_bfloat16*>(ws.o_partial) + part0 * mla::kHeadDimV + c;
  combine_merge<kPerLane, kBalanced>(p.o, p.lse, lse_part, o_part, o_part_bf16, bf16_partials, used_splits, part_stride,
                                     lanes, my_row, rows, qrow, c, finalized, true, timeline_thread);
}

// The combine instance whose kPerLane covers num_splits over `lanes` split lanes. Loads per
// lane are registers: the instance closest above the need keeps the most blocks resident
// (one 16-load instance for every split count holds 96 registers, 2 blocks per SM).
template <bool kBalanced>
detail::CombineKernel combine_instance(int num_splits, int lanes) {
  static_assert(kCombineMaxPerLane == 16, "the instances below cover kMaxSplits");
  switch (combine_instance_loads(ceil_div(num_splits, lanes))) {
    case 1: return flash_verify_combine_kernel<1, kBalanced>;
    case 2: return flash_verify_combine_kernel<2, kBalanced>;
    case 3: return flash_verify_combine_kernel<3, kBalanced>;
    case 4: return flash_verify_combine_kernel<4, kBalanced>;
    case 5: return flash_verify_combine_kernel<5, kBalanced>;
    case 6: return flash_verify_combine_kernel<6, kBalanced>;
    case 8: return flash_verify_combine_kernel<8, kBalanced>;
    case 10: return flash_verify_combine_kernel<10, kBalanced>;
    case 12: return flash_verify_combine_kernel<12, kBalanced>;
    default: return flash_verify_combine_kernel<16, kBalanced>;
  }
}

}  // namespace

namespace detail {

// combine_splits: the splits per row the lanes hold (every split, or a tile-balanced plan's
// balanced_slots).
CombineKernel combine_kernel_for(int combine_splits, int lanes, bool balanced) {
  return balanced ? combine_instance<true>(combine_splits, lanes) : combine_instance<false>(combine_splits, lanes);
}

cudaError_t combine_timeline_clear() {
#if VB_DEBUG_TIMELINE
  return timeline_clear_slots(g_timeline_combine);
#else
  return cudaErrorNotSupported;
#endif
}

cudaError_t combine_timeline_read(std::vector<FlashVerifyTimelineBlock>* out) {
#if VB_DEBUG_TIMELINE
  return timeline_read_slots(g_timeline_combine, out);
#else
  (void)out;
  return cudaErrorNotSupported;
#endif
}

}  // namespace detail
}  // namespace vb

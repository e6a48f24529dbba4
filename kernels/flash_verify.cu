// Production MLA tree-verify kernel: split-KV flash-decode over one latent KV head. This
// file holds its portable mma.sync path (sm_90 and sm_120), the split combine, the planner
// (which picks this path or the Hopper wgmma path of flash_verify_wgmma_sm90a.cu) and the
// launcher of both.
//
// What one thread block owns: request b (blockIdx.z), a tile of kRowsPerTile query rows
// of that request (blockIdx.x; rows are node-major, head-minor, so all H*T rows of a
// request share every KV tile: they are the M dimension of the tensor-core products), and
// one contiguous range of the request's logical tokens (split blockIdx.y of num_splits;
// the range covers prefix and tree tokens alike, the tree mask applies past the prefix).
//
// Warp roles: kWarps compute warps and kProducerWarps producer warps. The producers fill a
// kStages-deep ring of KV tiles (kTokensPerTile tokens each) in shared memory through the
// bulk copy engine, one 1152-byte copy per token row; per stage a "full" mbarrier counts
// the bytes in and an "empty" mbarrier counts the compute warps done with it. The compute
// warps form two independent row groups (16 rows each, 4 warps each) that share only the
// stages; per tile a group meets at two barriers of its own:
//   S  = Q K^T   the group's warps split the 576-wide contraction (kKGroups); Q lives in
//                registers as mma A fragments for the whole kernel; partial S is summed
//                through shared memory.
//   softmax      kThreadsPerRow threads per row apply the tree mask (ancestor bitmask),
//                keep the running max and sum in the log2 domain, write P as bf16.
//   O += P V     the group's warps split the 512 output channels; V is the first 512
//                columns of the same shared-memory K rows (ldmatrix.trans), no second copy.
//
// Split/combine contract: with num_splits == 1 the block writes final O (bf16) and LSE.
// Otherwise it writes its split's normalised O (bf16; fp32 under the tile-balanced schedule)
// and natural-log LSE (fp32) to the
// workspace (an empty split writes LSE -inf and zero O for even plans, nothing for
// length-aware ones) and flash_verify_combine_kernel merges the splits of every row.
// Split ranges are computed on the device from prefix_len, so a graph captured once
// replays correctly with other lengths up to the planned maximum.
#include <cuda_bf16.h>

#include <algorithm>
#include <atomic>
#include <cmath>

#include "combine_config.h"
#include "flash_verify_config.h"
#include "flash_verify_split.h"
#include "flash_verify_timeline.cuh"
#include "verifybench/kernels.h"
#include "verifybench/tile_balance.h"
#include "warp_mma.cuh"

namespace vb {
namespace {

using namespace flash_cfg;

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

__host__ __device__ constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }
constexpr std::int64_t ceil_div64(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

using detail::SplitWorkspace;
using detail::balanced_boundary_units;
using detail::balanced_partial_row;
using detail::balanced_split_tiles_arg;

std::size_t align_up(std::size_t x, std::size_t a) { return (x + a - 1) / a * a; }

// Split partials (one normalised O row and one LSE each) a plan's workspace holds: one per
// query row and split, or under the tile-balanced schedule (blocks + batch - 1) per query
// row of a request, shared by the whole batch (balanced_partial_row).
std::size_t split_partials(const FlashVerifyPlan& plan, int batch, int tree_size, int num_heads) {
  const std::size_t rows_per_request = static_cast<std::size_t>(tree_size) * num_heads;
  return plan.tile_balanced ? rows_per_request * (static_cast<std::size_t>(plan.num_splits) + batch - 1)
                            : rows_per_request * batch * plan.num_splits;
}

// The workspace: partial O, partial LSEs, and for tile-balanced plans each request's slots.
std::size_t workspace_o_bytes(std::size_t partials) { return align_up(partials * mla::kHeadDimV * 4, 256); }
std::size_t workspace_lse_bytes(std::size_t partials) { return align_up(partials * 4, 256); }
std::size_t workspace_slot_bytes(const FlashVerifyPlan& plan, int batch) {
  return plan.tile_balanced ? align_up(static_cast<std::size_t>(batch) * sizeof(int2), 256) : 0;
}

SplitWorkspace carve_workspace(void* base, std::size_t partials, bool tile_balanced) {
  auto* bytes = static_cast<unsigned char*>(base);
  const std::size_t o_bytes = workspace_o_bytes(partials);
  const std::size_t lse_bytes = workspace_lse_bytes(partials);
  return {reinterpret_cast<float*>(bytes), reinterpret_cast<float*>(bytes + o_bytes),
          tile_balanced ? reinterpret_cast<int2*>(bytes + o_bytes + lse_bytes) : nullptr};
}

// Debug builds only (-DVB_DEBUG_SYNC_COPY=1): the producers copy KV rows with plain 16-byte
// loads and shared-memory stores and then arrive on the stage's "full" mbarrier, instead of
// bulk copies that complete on it. Same stage protocol, no async proxy: compute-sanitizer
// racecheck reports bulk-copy writes against the consumers' ldmatrix reads of the default
// build (reports/h200/2026-11-29-v3/README.md); whether it also reports this build tells
// whether it objects to the protocol or to the bulk copies. Slower, same results.
#ifndef VB_DEBUG_SYNC_COPY
#define VB_DEBUG_SYNC_COPY 0
#endif
// Debug builds only (-DVB_DEBUG_LANE_ARRIVALS=1): every lane of a compute warp arrives on a
// stage's "empty" mbarrier (and, with VB_DEBUG_SYNC_COPY, every producer lane on "full"),
// instead of lane 0 after __syncwarp. The plain-copy build drew racecheck reports on the
// stage refills too (reports/h200/2026-11-29-combine/racecheck-sync-copy/), so this asks
// whether racecheck carries the other lanes' reads through __syncwarp into lane 0's release.
// Answer (reports/h200/2026-11-30-token-split/racecheck-stages): with every lane arriving,
// 0 hazards with bulk and with plain copies, where lane 0 after __syncwarp draws 0-3 and
// 43-72: racecheck does not carry them; the default protocol is kept.
#ifndef VB_DEBUG_LANE_ARRIVALS
#define VB_DEBUG_LANE_ARRIVALS 0
#endif
constexpr int kEmptyArrivalsPerWarp = VB_DEBUG_LANE_ARRIVALS ? 32 : 1;
// Token split (kernel instance kTokenSplit = true; the planner asks for it with
// FlashVerifyPlan::token_split): when only the first 16-row group of a tile holds real rows
// (H*T <= 16: decode, MTP T = 2 with 8 heads), the second group does not exit: both groups
// compute those 16 rows, group g on the tiles of parity g (its own stages: kStages is even),
// each with its own softmax state, and they merge O and the row statistics at the end
// through stage memory. It pays on splits of kTokenSplitMinTiles tiles or more (the merge
// and the second Q copy cost more on short ones), so a block of a shorter split in that
// launch runs one group. A separate instance: compiled into the one kernel, it slowed the
// plans that never use it.
constexpr int kTokenSplitBarrier = kComputeBarrier + kMGroups;  // both row groups: 256 threads
constexpr int kFullArrivalsPerWarp = VB_DEBUG_LANE_ARRIVALS && VB_DEBUG_SYNC_COPY ? 32 : 1;

// fp32 split partials in 16-byte stores: only the tile-balanced instance writes fp32
// (detail::bf16_partials). The lanes' swap is detail::store_partial_chunk_pair_bf16's, two
// floats a lane: a quad writes 64 contiguous bytes of its row per instruction instead of 32.
__device__ __forceinline__ void store_partial_chunk_pair(float* chunk_pair, float x0, float y0, float x1, float y1,
                                                         bool store) {
  const int q = threadIdx.x & 3;
  const bool odd = (q & 1) != 0;
  const float rx = __shfl_xor_sync(0xffffffffu, odd ? x0 : x1, 1);
  const float ry = __shfl_xor_sync(0xffffffffu, odd ? y0 : y1, 1);
  const float4 v = odd ? make_float4(rx, ry, x1, y1) : make_float4(x0, y0, rx, ry);
  if (store) *reinterpret_cast<float4*>(chunk_pair + (odd ? 8 + 2 * (q - 1) : 2 * q)) = v;
}

// ---- the tile-balanced schedule (FlashVerifyPlan::tile_balanced; verifybench/tile_balance.h) ----
// The kernels get the schedule through split_tiles (detail::balanced_split_tiles_arg: the
// planner's boundary units, PlannerConfig::mma_balance_boundary_units, encoded).

// A warp's place in the tile-balanced schedule, in shared memory (in registers it spilled:
// 168 per thread at 12 warps): its walk past the current segment, the current request, its
// prefix length, and whether this block holds all of its tiles (then it writes the final O).
struct BalancedWarpState {
  tile_balance::Walk walk;
  int request, prefix, whole;
};
static_assert(smem_bytes_for_stages(kMinStages) + sizeof(BalancedWarpState) * (kBlockThreads / 32) <=
                  kSm120SmemLimit,
              "the tile-balanced instance's static shared memory must fit next to sm_120's pipeline");

// Rows first_row .. first_row + 15 of a request (those below rows_per_request) that one
// tile-balanced block held whole: its partial (slot 0, balanced_partial_row) becomes the final
// O (bf16) and LSE. The row group's kGroupThreads threads, after their partial stores.
__device__ __forceinline__ void finalize_whole_request_rows(const VerifyParams& p, const SplitWorkspace& ws,
                                                            std::int64_t request_row0, int first_row,
                                                            int rows_per_request, int block, int b, int group_tid) {
  constexpr int kQuadsPerRow = mla::kHeadDimV / 4;
  for (int i = group_tid; i < kMmaM * kQuadsPerRow; i += kGroupThreads) {
    const int rr = first_row + i / kQuadsPerRow;
    if (rr >= rows_per_request) break;  // rows in order: the rest lie past the request too
    const std::int64_t part = balanced_partial_row(block, b, rows_per_request, rr);
    const float4 v = *reinterpret_cast<const float4*>(ws.o_partial + part * mla::kHeadDimV + (i % kQuadsPerRow) * 4);
    auto* o2 = reinterpret_cast<__nv_bfloat162*>(p.o + (request_row0 + rr) * mla::kHeadDimV + (i % kQuadsPerRow) * 4);
    o2[0] = __floats2bfloat162_rn(v.x, v.y);
    o2[1] = __floats2bfloat162_rn(v.z, v.w);
    if (i % kQuadsPerRow == 0) p.lse[request_row0 + rr] = ws.lse_partial[part];
  }
}

// The A fragments of Q rows row0 + 16 * mgroup .. +15, this warp's K slice, straight from
// global memory into registers (what ldmatrix_x4 gives from the staged tile: register j holds
// row lane / 4 (+ 8 for j = 1, 3), columns 2 * (lane % 4) (+ 8 for j = 2, 3) of the k-step).
// The tile-balanced kernel's later requests: the stages are busy with the next KV tiles.
__device__ __forceinline__ void load_q_fragments(std::uint32_t (&q_frag)[kKStepsPerGroup][4], const VerifyParams& p,
                                                 std::int64_t request_row0, int row0, int rows_per_request, int mgroup,
                                                 int kgroup, int lane) {
  const int r_lo = row0 + mgroup * kMmaM + lane / 4;
  const int r_hi = r_lo + 8;
  const auto* lo = reinterpret_cast<const std::uint32_t*>(p.q + (request_row0 + r_lo) * mla::kHeadDimQK);
  const auto* hi = reinterpret_cast<const std::uint32_t*>(p.q + (request_row0 + r_hi) * mla::kHeadDimQK);
  const bool lo_valid = r_lo < rows_per_request, hi_valid = r_hi < rows_per_request;  // padding rows are zeros
#pragma unroll
  for (int ks = 0; ks < kKStepsPerGroup; ++ks) {
    const int word = ((kgroup * kKStepsPerGroup + ks) * kMmaK + (lane % 4) * 2) / 2;
    q_frag[ks][0] = lo_valid ? lo[word] : 0u;
    q_frag[ks][1] = hi_valid ? hi[word] : 0u;
    q_frag[ks][2] = lo_valid ? lo[word + 4] : 0u;
    q_frag[ks][3] = hi_valid ? hi[word + 4] : 0u;
  }
}
// Brings the Q rows of the given group into L2 ahead of load_q_fragments (the group's 128
// threads, one 128-byte line each of the 16 rows' 144).
__device__ __forceinline__ void prefetch_q_rows_l2(const VerifyParams& p, std::int64_t request_row0, int row0,
                                                   int rows_per_request, int mgroup, int group_tid) {
  constexpr int kLinesPerRow = kKvRowBytes / 128;
  for (int line = group_tid; line < kMmaM * kLinesPerRow; line += kGroupThreads) {
    const int rr = row0 + mgroup * kMmaM + line / kLinesPerRow;
    if (rr >= rows_per_request) continue;
    const char* address = reinterpret_cast<const char*>(p.q + (request_row0 + rr) * mla::kHeadDimQK) +
                          (line % kLinesPerRow) * 128;
    asm volatile("prefetch.global.L2 [%0];" ::"l"(address));
  }
}

// Phase timeline slots (-DVB_DEBUG_TIMELINE=1 builds; flash_verify_timeline.cuh).
VB_TIMELINE_SLOTS(g_timeline_main, detail::kTimelineMainSlots);
VB_TIMELINE_SLOTS(g_timeline_combine, detail::kTimelineCombineSlots);

// Params: VerifyParams, or IndptrLengthParams for a launch over a kernel that is still
// writing the mask and the lengths (FlashVerifyLaunchOptions): then the lengths come from
// kv_indptr and the wait for that kernel comes after the Q copy is issued.
template <int kStages, bool kTokenSplit, bool kBalanced, class Params = VerifyParams>
__global__ void __launch_bounds__(kBlockThreads, 1)
    flash_verify_kernel(const Params p, const int num_splits, const int split_tiles, const SplitWorkspace ws) {
  static_assert(kStages >= kMinStages, "Q is staged through the last stage while tile 0 lands");
  static_assert(!(kTokenSplit && kBalanced), "the tile-balanced instance runs both row groups on their own rows");
  extern __shared__ __align__(16) unsigned char smem[];
  auto* s_kv = reinterpret_cast<bf16_bits*>(smem);  // [kStages][kTokensPerTile][kKvStride]
  auto* s_partial = reinterpret_cast<float*>(smem + kStages * kStageBytes);  // [kKGroups][rows][kSStride]
  auto* s_p = reinterpret_cast<bf16_bits*>(smem + kStages * kStageBytes + kSPartialBytes);  // [rows][kPStride]
  auto* s_rescale = reinterpret_cast<float*>(smem + kStages * kStageBytes + kSPartialBytes + kPBytes);
  float* s_final_max = s_rescale + kRowsPerTile;
  float* s_final_sum = s_final_max + kRowsPerTile;
  auto* s_full = reinterpret_cast<std::uint64_t*>(smem + kStages * kStageBytes + kSPartialBytes + kPBytes +
                                                  kRowStatBytes);  // [kStages] "stage landed"
  std::uint64_t* s_empty = s_full + kStages;                        // [kStages] "stage read"

  // The tile-balanced instance moves on from request to request (segments): b, the partial's
  // slot, the lengths and the tile range change at each; elsewhere they are the block's own.
  const int split = blockIdx.y;  // the partial's index (tile-balanced: balanced_partial_row)
  int b = blockIdx.z;
  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int lane = tid % 32;
  if (tid == 0) VB_TIMELINE_BEGIN(g_timeline_main);
  // Launched over the stream's previous kernel (FlashVerifyLaunchOptions): nothing is read
  // or written before it has finished (or, over a mask writer, no mask word: below).
  // Returns at once in an ordinary launch.
  constexpr bool kWaitBeforeTreeMask = detail::waits_before_tree_mask<Params>;
  if (!kWaitBeforeTreeMask) warp::wait_for_prerequisite_grid();

  detail::BlockWork work;
  int token_base = 0;  // kv_indptr[b]: blocks that know their request load it at entry
  // Tile-balanced: every warp walks the block's range itself (no block-wide exchange before
  // the barriers) and keeps its place in shared memory (BalancedWarpState).
  BalancedWarpState* state = nullptr;
  if constexpr (kBalanced) {
    // Raw storage: Walk's default member initializers would ask for a dynamic initialization,
    // which __shared__ variables do not get (every field is written before it is read).
    constexpr int kStateBytes = sizeof(BalancedWarpState) * (kBlockThreads / 32);
    __shared__ __align__(alignof(BalancedWarpState)) unsigned char s_states[kStateBytes];
    state = reinterpret_cast<BalancedWarpState*>(s_states) + warp;
    const int boundary = balanced_boundary_units(split_tiles);
    tile_balance::Walk w = detail::balanced_walk_warp(p, kTokensPerTile, boundary, blockIdx.y, num_splits, lane);
    tile_balance::Segment seg;
    const bool any = tile_balance::next_segment(p, kTokensPerTile, boundary, w, &seg);
    if (lane == 0) state->walk = w;
    if (any && tid == 0) detail::record_request_slots(ws, seg, blockIdx.y);
    __syncwarp();
    if (!any) return;
    b = seg.request;
    work.rows_per_request = p.query_rows_per_request();
    work.row0 = blockIdx.x * kRowsPerTile;
    work.request_row0 = static_cast<std::int64_t>(b) * work.rows_per_request;
    work.prefix = p.request_prefix(b);
    work.kv_len = p.kv_len(b);
    work.tile_begin = seg.tile_begin;
    work.tile_end = seg.tile_end;
    if (lane == 0) {
      state->request = b;
      state->prefix = work.prefix;
      state->whole = tile_balance::holds_whole_request(seg.tile_begin, seg.tile_end, kTokensPerTile, work.kv_len);
    }
    __syncwarp();
    // Timeline: the range's units (its tiles plus a boundary's units per request started in
    // it; walking the range here for the exact tiles spilled a debug build).
    if (tid == 0) VB_TIMELINE_WORK_KNOWN(g_timeline_main, static_cast<int>(w.range_end - w.range_begin));
  } else {
    token_base = detail::RequestKvRows::token_rows_base(p, b);  // in flight beside the length
    work = detail::block_work<kRowsPerTile, kTokensPerTile>(p, num_splits, split_tiles);
    constexpr bool kBf16 = detail::bf16_partials(false, false);
    if (detail::empty_split_handled<kRowsPerTile, kBf16>(work, ws, num_splits, split_tiles, tid, kBlockThreads)) return;
    if (tid == 0) VB_TIMELINE_WORK_KNOWN(g_timeline_main, work.tile_end - work.tile_begin);
  }
  const int rows_per_request = work.rows_per_request, row0 = work.row0;
  int prefix = work.prefix;
  const int kv_len = work.kv_len;                   // through current_kv_len()
  const std::int64_t request_row0 = work.request_row0;  // through current_request_row0()
  int tile_begin = work.tile_begin, tile_end = work.tile_end;
  // Made here, not in the producer branch: its page-table base load (kv_indptr[b]; in flight
  // since entry where the block knew its request) then overlaps the barrier set-up instead of
  // following it on the way to the first KV byte.
  detail::RequestKvRows rows(p, b, prefix,
                             kBalanced ? detail::RequestKvRows::token_rows_base(p, b) : token_base);
  // The current request's length and first query row: the block's own, or in the
  // tile-balanced instance derived from b and prefix where they are used (live registers
  // spilled otherwise).
  auto current_b = [&]() -> int {
    if constexpr (kBalanced) return state->request;
    return b;
  };
  auto current_prefix = [&]() -> int {
    if constexpr (kBalanced) return state->prefix;
    return prefix;
  };
  auto current_kv_len = [&]() -> int {
    if constexpr (kBalanced) return current_prefix() + p.tree_size;
    return kv_len;
  };
  auto current_request_row0 = [&]() -> std::int64_t {
    if constexpr (kBalanced) return static_cast<std::int64_t>(current_b()) * rows_per_request;
    return request_row0;
  };
  // Tile-balanced: the next segment of this block's range, if any, into b, prefix and the
  // tile range (every warp of the block walks the same segments).
  auto next_segment = [&]() -> bool {
    if constexpr (kBalanced) {
      tile_balance::Segment seg;
      if (!detail::advance_walk_warp(p, kTokensPerTile, balanced_boundary_units(split_tiles), &state->walk, &seg, lane)) {
        return false;
      }
      b = seg.request;
      prefix = p.request_prefix(b);
      tile_begin = seg.tile_begin;
      tile_end = seg.tile_end;
      if (tid == kWarps * 32) detail::record_request_slots(ws, seg, blockIdx.y);  // the first producer warp
      if (lane == 0) {
        state->request = b;
        state->prefix = prefix;
        state->whole = tile_balance::holds_whole_request(tile_begin, tile_end, kTokensPerTile, prefix + p.tree_size);
      }
      __syncwarp();
      return true;
    } else {
      return false;
    }
  };

  // Stage barriers: "full" completes when every producer warp has announced its rows' bytes and
  // they all landed; "empty" completes when every compute warp has finished reading the
  // stage (after its PV). The last stage first holds the Q tile, so its first "empty"
  // phase is the compute warps releasing Q, and its tiles wait one phase later.
  // Compute warps of row groups that hold only padding rows (H*T <= 16) exit at once, unless
  // the split is long enough for the token split.
  const int live_compute_warps = kKGroups * min(kMGroups, ceil_div(rows_per_request - row0, kMmaM));
  static_assert(!kTokenSplit || kStages % kMGroups == 0, "token split: each group owns every other stage");
  const bool token_split =
      kTokenSplit && rows_per_request - row0 <= kMmaM && tile_end - tile_begin >= kTokenSplitMinTiles;
  // Warps that read each stage: all live ones, or one group's under the token split.
  const int stage_readers = token_split ? kKGroups : live_compute_warps;
  if (tid == 0) {
#pragma unroll
    for (int s = 0; s < kStages; ++s) {
      warp::mbarrier_init(&s_full[s], kProducerWarps * kFullArrivalsPerWarp);
      warp::mbarrier_init(&s_empty[s], stage_readers * kEmptyArrivalsPerWarp);
    }
    warp::fence_mbarrier_init();
  }
  __syncthreads();  // barriers initialised before anyone uses them; the only block-wide barrier
  // Programmatic dependent launch: once every block of this grid is running, the combine
  // kernel may be scheduled into the room they leave; it waits (griddepcontrol.wait) for
  // this grid to finish before reading a byte, so its launch latency overlaps our tiles.
  warp::launch_dependents();

  if (warp >= kWarps) {
    // ---- producers: lane l of producer warp w copies token row w*kRowsPerProducer + l ----
    // One bulk copy per 1152-byte row. The copy takes uniform operands, so a warp issues
    // its rows one after another (~40 cycles each): here that runs beside the math
    // instead of in front of it. Rows past kv_len re-read the last row (finite data, masked
    // out), so a stage always receives exactly kTokensPerTile rows. The page-table word of
    // the next tile is loaded while this tile's stage is awaited (ncu on v1: 36 % of all
    // warp stall samples sat on that dependent load when it was made at use). The token-split
    // instance loads words kStages tiles ahead instead (the loop unrolled by kStages, one
    // register per stage: moving a word still in flight would wait for it): its compute is
    // fast enough that one table round trip per tile showed (H200 A/B, 1d04129: MTP T2 B8
    // 50.6 -> 48.5 us, decode B64 -2 %), while the two-group plans ran 1-5 % slower with it.
    // The tile-balanced instance goes on into its next segment's tiles without waiting for
    // the compute warps: the ring position (iter) runs on across segments.
    constexpr int kAhead = kTokenSplit ? kStages : 1;
    const int row_in_tile = (warp - kWarps) * kRowsPerProducer + lane;
    const bool is_copy_lane = lane < kRowsPerProducer;
    auto token_of = [&](int tile) { return min(tile * kTokensPerTile + row_in_tile, current_kv_len() - 1); };
    int iter0 = 0;  // tiles of earlier segments
    for (;;) {
      std::int64_t entry[kAhead];
#pragma unroll
      for (int j = 0; j < kAhead; ++j) {
        entry[j] = is_copy_lane && (j == 0 || tile_begin + j < tile_end) ? rows.table_entry(token_of(tile_begin + j))
                                                                         : 0;
      }
      for (int first = tile_begin; first < tile_end; first += kAhead) {
#pragma unroll
        for (int j = 0; j < kAhead; ++j) {
          const int tile = first + j;
          if (kAhead > 1 && tile >= tile_end) break;
          const int iter = iter0 + tile - tile_begin;
          const int stage = kAhead == kStages ? j : iter % kStages;
          const int round = iter / kStages + (stage == kStages - 1 ? 1 : 0);  // Q's phase first
          if (round > 0) warp::mbarrier_wait_parity(&s_empty[stage], (round - 1) & 1);
          const bf16_bits* src = rows.row_ptr(token_of(tile), entry[j]);
          if (VB_DEBUG_TIMELINE && iter == 0 && warp == kWarps && lane == 0) {
            asm volatile("" ::"l"(src));  // the page-table word is in
            VB_TIMELINE_STAMP(g_timeline_main, kTimelineTableIn);
          }
          bf16_bits* dst = s_kv + (stage * kTokensPerTile + row_in_tile) * kKvStride;
          if (is_copy_lane && tile + kAhead < tile_end) entry[j] = rows.table_entry(token_of(tile + kAhead));
#if VB_DEBUG_SYNC_COPY
          if (is_copy_lane) {
            const auto* from = reinterpret_cast<const uint4*>(src);
            auto* to = reinterpret_cast<uint4*>(dst);
            for (int i = 0; i < kKvRowBytes / 16; ++i) to[i] = from[i];
          }
          __syncwarp();
          if (kFullArrivalsPerWarp > 1 || lane == 0) warp::mbarrier_arrive(&s_full[stage]);  // release: rows are in
#else
          if (lane == 0) warp::mbarrier_arrive_expect_tx(&s_full[stage], kRowsPerProducer * kKvRowBytes);
          __syncwarp();
          if (is_copy_lane) warp::bulk_copy_g2s(dst, src, kKvRowBytes, &s_full[stage]);
#endif
          if (VB_DEBUG_TIMELINE && iter == 0 && warp == kWarps && lane == 0) {
            VB_TIMELINE_STAMP(g_timeline_main, kTimelineFirstIssue);
          }
        }
      }
      iter0 += tile_end - tile_begin;
      if (!next_segment()) break;
      rows = detail::RequestKvRows(p, b, prefix);
    }
    return;  // the compute warps synchronise among themselves from here on
  }

  // ---- compute warps: two independent row groups ----
  // Row group g (warps 4g..4g+3) owns rows 16g..16g+15 of the tile end to end: their S (the
  // 4 warps split the 576-wide contraction), their softmax, and their O (the 4 warps split
  // the 512 channels). The groups share only the KV stages and meet at no barrier, so one
  // group's softmax may run beside the other's mma (measured: 1.3 % faster than one 8-warp
  // group on the A/B geomean, decode 3-6 %). A group of padding rows only (H*T <= 16) takes
  // every other tile of the first group's rows (token split) or, in short splits, exits.
  const int kgroup = warp % kKGroups;  // K slice of S, channel quarter of O
  const int mgroup = warp / kKGroups;  // row group
  const int group_barrier = kComputeBarrier + mgroup;
  if (!token_split && row0 + mgroup * kMmaM >= rows_per_request) return;  // s_empty counts live warps only
  // The query rows this group computes: its own 16 (scratch row = tile row), or under the
  // token split the tile's first 16 for both groups (scratch rows stay 16g .. 16g+15).
  auto query_row_of = [&](int scratch_row) { return token_split ? scratch_row % kMmaM : scratch_row; };

  // Q rows of this group through the last stage (cp.async), into registers.
  {
    const int q_row = tid / kLoadThreadsPerRow;  // 16g .. 16g+15 for the threads of group g
    const int q_chunk0 = tid % kLoadThreadsPerRow;
    const int rr = row0 + query_row_of(q_row);
    const bool valid = rr < rows_per_request;  // padding rows are zeros
    const bf16_bits* src = valid ? p.q + (current_request_row0() + rr) * mla::kHeadDimQK : p.q;
    bf16_bits* dst = s_kv + ((kStages - 1) * kTokensPerTile + q_row) * kKvStride;
#pragma unroll
    for (int j = 0; j < kChunksPerThread; ++j) {
      const int chunk = q_chunk0 + j * kLoadThreadsPerRow;
      warp::cp_async_16(dst + chunk * 8, src + chunk * 8, valid);
    }
    warp::cp_async_commit();
  }
  // Over a mask writer, the compute warps (which alone read the mask) wait here, with their
  // Q rows and the producers' first tiles in flight: out of the tile loop (in its tree-tile
  // branch the wait spilled 4 bytes in the balanced timeline build).
  if (kWaitBeforeTreeMask) warp::wait_for_prerequisite_grid();
  warp::cp_async_wait<0>();
  warp::fence_proxy_async_shared();  // Q's bytes in the last stage are later overwritten by bulk copies
  warp::named_barrier_sync(group_barrier, kGroupThreads);

  std::uint32_t q_frag[kKStepsPerGroup][4];
#pragma unroll
  for (int ks = 0; ks < kKStepsPerGroup; ++ks) {
    const int row = mgroup * kMmaM + lane % 16;
    const int col = (kgroup * kKStepsPerGroup + ks) * kMmaK + (lane / 16) * 8;
    warp::ldmatrix_x4(q_frag[ks], s_kv + ((kStages - 1) * kTokensPerTile + row) * kKvStride + col);
  }
  __syncwarp();
  if (tid == 0) VB_TIMELINE_STAMP(g_timeline_main, kTimelineQReady);
  // Whether this lane arrives on the "empty" stage mbarriers for its warp: lane 0 after
  // __syncwarp, or every lane in the VB_DEBUG_LANE_ARRIVALS builds.
  const bool signals_empty = kEmptyArrivalsPerWarp > 1 || lane == 0;
  // The last stage is free for KV. Under the token split only the group that owns it counts
  // on its "empty" barrier, and the other group must be done with its Q copy there first.
  if (token_split) warp::named_barrier_sync(kTokenSplitBarrier, kThreads);
  if (signals_empty && (!token_split || mgroup == (kStages - 1) % kMGroups)) warp::mbarrier_arrive(&s_empty[kStages - 1]);

  // ---- per-row softmax state, owned by kThreadsPerRow consecutive lanes ----
  const int srow = tid / kThreadsPerRow;  // a row of this group
  const int scol0 = (tid % kThreadsPerRow) * kTokensPerThread;
  const int srow_global = row0 + query_row_of(srow);
  const bool srow_valid = srow_global < rows_per_request;
  const int srow_node = srow_valid ? srow_global / p.num_heads : 0;  // its mask row is found per tree tile
  const float scale_log2 = p.sm_scale * kLog2e;
  // Where query row qrow (row rr of its request) keeps this block's partial.
  auto partial_row = [&](std::int64_t qrow, int rr) -> std::int64_t {
    return kBalanced ? balanced_partial_row(blockIdx.y, current_b(), rows_per_request, rr) : qrow * num_splits + split;
  };
  int iter0 = 0;  // tiles of earlier segments (tile-balanced): the ring position runs on
  for (;;) {      // segments: one, or the tile-balanced instance's requests in turn
    float row_max = -INFINITY;  // log2 domain
    float row_sum = 0.f;

    float o_acc[kNTilesO][4];
#pragma unroll
    for (int nt = 0; nt < kNTilesO; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) o_acc[nt][e] = 0.f;

    // Two group barriers per tile: (1) the group's partial S is complete; (2) its P and
    // rescale factors are complete. "Tile landed" is the stage's "full" mbarrier; each warp
    // releases the stage on its "empty" mbarrier after its PV, and the producers refill it.
    const int tile_step = token_split ? kMGroups : 1;
    for (int tile = tile_begin + (token_split ? mgroup : 0); tile < tile_end; tile += tile_step) {
      const int iter = iter0 + tile - tile_begin;
      const int stage = iter % kStages;
      warp::mbarrier_wait_parity(&s_full[stage], (iter / kStages) & 1);
      if constexpr (kBalanced) {
        // Three tiles before this segment ends, the next request's Q rows into L2 (earlier,
        // the KV stream through L2 would evict them again; shorter segments do without).
        const tile_balance::Walk& walk = state->walk;
        if (tile + 3 == tile_end && walk.request < p.batch && walk.request_start < walk.range_end) {
          prefetch_q_rows_l2(p, static_cast<std::int64_t>(walk.request) * rows_per_request, row0, rows_per_request,
                             mgroup, tid % kGroupThreads);
        }
      }
      if (VB_DEBUG_TIMELINE && tid == 0 && iter == 0) VB_TIMELINE_STAMP(g_timeline_main, kTimelineFirstTile);
      const bf16_bits* kv_tile = s_kv + stage * kTokensPerTile * kKvStride;

      // ---- S partial over this warp's K slice, the group's 16 rows, all tokens ----
      float s_acc[kNTilesS][4];
#pragma unroll
      for (int nt = 0; nt < kNTilesS; ++nt)
#pragma unroll
        for (int e = 0; e < 4; ++e) s_acc[nt][e] = 0.f;
#pragma unroll
      for (int ks = 0; ks < kKStepsPerGroup; ++ks) {
        const int col = (kgroup * kKStepsPerGroup + ks) * kMmaK + ((lane >> 3) & 1) * 8;
#pragma unroll
        for (int np = 0; np < kNTilesS / 2; ++np) {
          std::uint32_t k_frag[4];
          const int token = np * 2 * kMmaN + (lane & 7) + ((lane >> 4) << 3);
          warp::ldmatrix_x4(k_frag, kv_tile + token * kKvStride + col);
          warp::mma_bf16_16816(s_acc[2 * np], q_frag[ks], k_frag[0], k_frag[1]);
          warp::mma_bf16_16816(s_acc[2 * np + 1], q_frag[ks], k_frag[2], k_frag[3]);
        }
      }
      float* partial = s_partial + kgroup * kRowsPerTile * kSStride;
#pragma unroll
      for (int nt = 0; nt < kNTilesS; ++nt) {
        const int r = mgroup * kMmaM + lane / 4;
        const int c = nt * kMmaN + (lane % 4) * 2;
        *reinterpret_cast<float2*>(partial + r * kSStride + c) = make_float2(s_acc[nt][0], s_acc[nt][1]);
        *reinterpret_cast<float2*>(partial + (r + 8) * kSStride + c) = make_float2(s_acc[nt][2], s_acc[nt][3]);
      }
      warp::named_barrier_sync(group_barrier, kGroupThreads);  // (1)
      // ---- masked online softmax of this tile, one row per kThreadsPerRow lanes ----
      {
        float s[kTokensPerThread];
        float4 sum = *reinterpret_cast<const float4*>(s_partial + srow * kSStride + scol0);
#pragma unroll
        for (int kg = 1; kg < kKGroups; ++kg) {
          const float4 v = *reinterpret_cast<const float4*>(s_partial + (kg * kRowsPerTile + srow) * kSStride + scol0);
          sum.x += v.x; sum.y += v.y; sum.z += v.z; sum.w += v.w;
        }
        s[0] = sum.x; s[1] = sum.y; s[2] = sum.z; s[3] = sum.w;
        float tile_max = -INFINITY;
        if ((tile + 1) * kTokensPerTile <= current_prefix()) {  // block-uniform: all prefix, all visible
#pragma unroll
          for (int c = 0; c < kTokensPerThread; ++c) {
            s[c] *= scale_log2;
            tile_max = fmaxf(tile_max, s[c]);
          }
        } else {
#pragma unroll
          for (int c = 0; c < kTokensPerThread; ++c) {
            const int t = tile * kTokensPerTile + scol0 + c;
            // Padding rows (zero Q) see everything: finite, never stored.
            const bool visible = !srow_valid || t < current_prefix() ||
                                 (t < current_kv_len() &&
                                  tree_node_visible(p.node_mask(current_b(), srow_node), t - current_prefix()));
            s[c] = visible ? s[c] * scale_log2 : -INFINITY;
            tile_max = fmaxf(tile_max, s[c]);
          }
        }
#pragma unroll
        for (int offset = 1; offset < kThreadsPerRow; offset *= 2) {
          tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, offset));
        }
        const float new_max = fmaxf(row_max, tile_max);
        const float exp_base = new_max == -INFINITY ? 0.f : new_max;  // nothing visible yet
        const float rescale = warp::fast_exp2(row_max - exp_base);
        float tile_sum = 0.f;
#pragma unroll
        for (int c = 0; c < kTokensPerThread; ++c) {
          s[c] = warp::fast_exp2(s[c] - exp_base);
          tile_sum += s[c];
        }
#pragma unroll
        for (int offset = 1; offset < kThreadsPerRow; offset *= 2) {
          tile_sum += __shfl_xor_sync(0xffffffffu, tile_sum, offset);
        }
        row_sum = row_sum * rescale + tile_sum;
        row_max = new_max;
        *reinterpret_cast<uint2*>(s_p + srow * kPStride + scol0) =
            make_uint2(warp::pack_bf16x2(s[0], s[1]), warp::pack_bf16x2(s[2], s[3]));
        if (tid % kThreadsPerRow == 0) s_rescale[srow] = rescale;
      }
      warp::named_barrier_sync(group_barrier, kGroupThreads);  // (2)

      // ---- O = O * rescale + P V over the group's 16 rows and this warp's 128 channels ----
      // Once the running maxima settle most tiles rescale by exactly 1: skip the multiplies
      // when no row of this warp's fragments moved.
      const float a_lo = s_rescale[mgroup * kMmaM + lane / 4];
      const float a_hi = s_rescale[mgroup * kMmaM + lane / 4 + 8];
      if (__any_sync(0xffffffffu, a_lo != 1.f || a_hi != 1.f)) {
#pragma unroll
        for (int nt = 0; nt < kNTilesO; ++nt) {
          o_acc[nt][0] *= a_lo; o_acc[nt][1] *= a_lo;
          o_acc[nt][2] *= a_hi; o_acc[nt][3] *= a_hi;
        }
      }
#pragma unroll
      for (int ks = 0; ks < kKStepsPV; ++ks) {
        std::uint32_t p_frag[4];
        warp::ldmatrix_x4(p_frag, s_p + (mgroup * kMmaM + lane % 16) * kPStride + ks * kMmaK + (lane / 16) * 8);
#pragma unroll
        for (int np = 0; np < kNTilesO / 2; ++np) {
          std::uint32_t v_frag[4];
          const int token = ks * kMmaK + (lane & 7) + ((lane >> 3) & 1) * 8;
          const int col = kgroup * kChannelsPerWarp + np * 2 * kMmaN + (lane >> 4) * 8;
          warp::ldmatrix_x4_trans(v_frag, kv_tile + token * kKvStride + col);
          warp::mma_bf16_16816(o_acc[2 * np], p_frag, v_frag[0], v_frag[1]);
          warp::mma_bf16_16816(o_acc[2 * np + 1], p_frag, v_frag[2], v_frag[3]);
        }
      }
      __syncwarp();
      if (signals_empty) warp::mbarrier_arrive(&s_empty[stage]);  // this warp is done with the stage
    }

    // ---- epilogue: normalise, write final O/LSE or this split's partials ----
    if (tid == 0) VB_TIMELINE_STAMP(g_timeline_main, kTimelineTilesDone);
    if (tid % kThreadsPerRow == 0) {
      s_final_max[srow] = row_max;
      s_final_sum[srow] = row_sum;
    }
    warp::named_barrier_sync(group_barrier, kGroupThreads);
    // Token split: group 1 hands its O (unnormalised) over through stage memory, which no one
    // reads any more once both groups are past their last tile; group 0 rescales both halves
    // to the common maximum of each row and adds them (and the row sums).
    float merged_sum[2] = {0.f, 0.f};
    if (token_split) {
      float* handover = reinterpret_cast<float*>(s_kv);  // [kNTilesO * 4][kGroupThreads]
      const int wtid = tid % kGroupThreads;
      warp::named_barrier_sync(kTokenSplitBarrier, kThreads);  // both groups past every stage
      if (mgroup == 1) {
#pragma unroll
        for (int nt = 0; nt < kNTilesO; ++nt)
#pragma unroll
          for (int e = 0; e < 4; ++e) handover[(nt * 4 + e) * kGroupThreads + wtid] = o_acc[nt][e];
      }
      warp::named_barrier_sync(kTokenSplitBarrier, kThreads);  // group 1's O and statistics are in
      if (mgroup == 1) return;
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int r = lane / 4 + half * 8;
        const float m0 = s_final_max[r], m1 = s_final_max[r + kMmaM];
        const float m = fmaxf(m0, m1);
        const float a0 = m == -INFINITY ? 0.f : warp::fast_exp2(m0 - m);
        const float a1 = m == -INFINITY ? 0.f : warp::fast_exp2(m1 - m);
        merged_sum[half] = s_final_sum[r] * a0 + s_final_sum[r + kMmaM] * a1;
#pragma unroll
        for (int nt = 0; nt < kNTilesO; ++nt)
#pragma unroll
          for (int j = 0; j < 2; ++j) {
            const int e = 2 * half + j;
            o_acc[nt][e] = o_acc[nt][e] * a0 + handover[(nt * 4 + e) * kGroupThreads + wtid] * a1;
          }
      }
      if (tid % kThreadsPerRow == 0) {  // this thread's row statistics, merged for its LSE
        const float m1 = s_final_max[srow + kMmaM];
        const float m = fmaxf(row_max, m1);
        row_sum = m == -INFINITY ? 0.f
                                 : row_sum * warp::fast_exp2(row_max - m) + s_final_sum[srow + kMmaM] * warp::fast_exp2(m1 - m);
        row_max = m;
      }
    }
    if (detail::bf16_partials(false, kBalanced) && num_splits > 1) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        const int r = mgroup * kMmaM + lane / 4 + half * 8;
        const std::int64_t qrow = current_request_row0() + row0 + r;
        const float sum = token_split ? merged_sum[half] : s_final_sum[r];
        const float inv = sum > 0.f ? 1.f / sum : 0.f;
        __nv_bfloat16* row = reinterpret_cast<__nv_bfloat16*>(ws.o_partial) +
                             partial_row(qrow, row0 + r) * mla::kHeadDimV + kgroup * kChannelsPerWarp;
#pragma unroll
        for (int nt = 0; nt < kNTilesO; nt += 2) {
          detail::store_partial_chunk_pair_bf16(row + nt * kMmaN, o_acc[nt][2 * half] * inv,
                                                o_acc[nt][2 * half + 1] * inv, o_acc[nt + 1][2 * half] * inv,
                                                o_acc[nt + 1][2 * half + 1] * inv, row0 + r < rows_per_request);
        }
      }
    } else
    // The 16-byte stores, for blocks whose second row group holds rows too (H*T > 16 past row0),
    // outside the token-split instance: decode and the token split measured faster with the
    // 8-byte stores below. Block-uniform: every lane reaches the shuffles.
    if (!kTokenSplit && num_splits > 1 && rows_per_request - row0 > kMmaM) {
#pragma unroll
      for (int half = 0; half < 2; ++half) {
        // Warp-uniform: the 8 rows of this half all lie past the request (decode's padding).
        if (row0 + mgroup * kMmaM + half * 8 >= rows_per_request) continue;
        const int r = mgroup * kMmaM + lane / 4 + half * 8;
        const std::int64_t qrow = current_request_row0() + row0 + r;
        const float sum = s_final_sum[r];  // no token split in this branch
        const float inv = sum > 0.f ? 1.f / sum : 0.f;
        float* row = ws.o_partial + partial_row(qrow, row0 + r) * mla::kHeadDimV + kgroup * kChannelsPerWarp;
#pragma unroll
        for (int nt = 0; nt < kNTilesO; nt += 2) {
          store_partial_chunk_pair(row + nt * kMmaN, o_acc[nt][2 * half] * inv, o_acc[nt][2 * half + 1] * inv,
                                   o_acc[nt + 1][2 * half] * inv, o_acc[nt + 1][2 * half + 1] * inv,
                                   row0 + r < rows_per_request);
        }
      }
    } else
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int r = mgroup * kMmaM + lane / 4 + half * 8;
      if (row0 + r >= rows_per_request) continue;
      const std::int64_t qrow = current_request_row0() + row0 + r;
      const float sum = token_split ? merged_sum[half] : s_final_sum[r];
      const float inv = sum > 0.f ? 1.f / sum : 0.f;
#pragma unroll
      for (int nt = 0; nt < kNTilesO; ++nt) {
        const int col = kgroup * kChannelsPerWarp + nt * kMmaN + (lane % 4) * 2;
        const float x = o_acc[nt][2 * half] * inv;
        const float y = o_acc[nt][2 * half + 1] * inv;
        if (num_splits == 1) {
          *reinterpret_cast<__nv_bfloat162*>(p.o + qrow * mla::kHeadDimV + col) = __floats2bfloat162_rn(x, y);
        } else {
          *reinterpret_cast<float2*>(ws.o_partial + partial_row(qrow, row0 + r) * mla::kHeadDimV + col) =
              make_float2(x, y);
        }
      }
    }
    if (tid % kThreadsPerRow == 0 && srow_valid) {
      const std::int64_t qrow = current_request_row0() + srow_global;
      const float lse = row_sum == 0.f ? -INFINITY : row_max * kLn2 + logf(row_sum);
      if (num_splits == 1) {
        p.lse[qrow] = lse;
      } else {
        ws.lse_partial[partial_row(qrow, srow_global)] = lse;
      }
    }
    if constexpr (kBalanced) {
      // A request this block holds whole has one slot, which the combine leaves alone: the
      // group turns its rows' partials (just written, in L2) into the final O and LSE. Done
      // here, after the registers of O are free: a second store path in the epilogue spilled.
      if (state->whole != 0 && num_splits > 1) {
        warp::named_barrier_sync(group_barrier, kGroupThreads);  // the group's partial stores are done
        finalize_whole_request_rows(p, ws, current_request_row0(), row0 + mgroup * kMmaM, rows_per_request, blockIdx.y,
                                    current_b(), tid % kGroupThreads);
      }
    }
    if (tid == 0) VB_TIMELINE_STAMP(g_timeline_main, kTimelineEnd);
    iter0 += tile_end - tile_begin;
    if (!next_segment()) break;
    // Loaded here, after the partial's write: loaded in the last tile or under the write, the
    // fragments' registers spilled (168 per thread).
    load_q_fragments(q_frag, p, current_request_row0(), row0, rows_per_request, mgroup, kgroup, lane);
  }
}

// LSE-weighted sum of every row's split partials. Block (r, chunk) owns 128 of the 512
// channels of kCombineSlots / lanes consecutive rows: thread (x, y) serves row slot
// y / lanes, split lane y % lanes, channels chunk*128 + 4x .. +3, and that row's splits
// lane, lane + lanes, ... (kPerLane of them); a row's lane sums meet in shared memory. Four
// chunks per row put one long request's few rows (32 for 8 heads x T = 4) on 128 SMs
// instead of 32. Every thread issues all its loads (its splits' LSEs and 16-byte O chunks)
// before it uses any: one memory round trip, where a loop over the splits with the LSEs
// loaded first took several (H200: one 64k request 37.0 -> 34.2 us).
// The launcher picks lanes (flash_verify_combine_lanes): of as many as the splits need (up
// to 8) and the fewer lane counts with more loads each, the one whose blocks take the fewest
// waves on the device. The combine is one round trip per wave of blocks, so waves are what
// it costs: with one row per block of min(splits, 8) lanes, 1024-4096-row batches took
// 4-13 us after the main kernel (H200, 0a13f4b, against a build without the combine: MTP T4
// B32 5.5 us, mixed lengths 13.3 us, DeepSeek shared prefix 11.7 us); with the lanes chosen,
// those cases ran 1.7-4.3 % faster in all (64d94d7 against 0a13f4b).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 1200
constexpr int kCompiledSmMaxThreads = 1536;  // sm_120: consumer Blackwell
#else
constexpr int kCompiledSmMaxThreads = 2048;  // sm_90 (and the host pass)
#endif

constexpr int combine_launch_min_blocks(int instance_loads, bool balanced) {
  return combine_blocks_per_sm(instance_loads, kCompiledSmMaxThreads, balanced, VB_DEBUG_TIMELINE ? 2 : 1);
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
  // The row's largest split LSE: this lane's (the same in every thread x), then over lanes.
  float max_lse = lse[0];
#pragma unroll
  for (int i = 1; i < kPerLane; ++i) max_lse = fmaxf(max_lse, lse[i]);
  if (threadIdx.x == 0) s_lane_max[threadIdx.y] = max_lse;
  __syncthreads();
  for (int l = 0; l < lanes; ++l) max_lse = fmaxf(max_lse, s_lane_max[slot0 + l]);
  // A split whose tokens this row cannot see has lse -inf (weight exactly 0) and zero O.
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  float weight_sum = 0.f;
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) {
    const float w = expf(lse[i] - max_lse);
    weight_sum += w;
    acc.x += w * v[i].x; acc.y += w * v[i].y; acc.z += w * v[i].z; acc.w += w * v[i].w;
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
  for (int l = 1; l < lanes; ++l) {
    const float4 u = s_acc[slot0 + l][threadIdx.x];
    acc.x += u.x; acc.y += u.y; acc.z += u.z; acc.w += u.w;
    weight_sum += s_weight[slot0 + l];
  }
  // Slots past what the lanes hold (tile-balanced plans: the combine is sized for the slots
  // of most requests, PlannerConfig::balance_combine_slots, and a long request's rows take the rest here),
  // kTailLoads loads in flight at a time, merged online.
  constexpr int kTailLoads = 4;
  for (int s0 = lanes * kPerLane; kBalanced && s0 < used_splits; s0 += kTailLoads) {
    float tl[kTailLoads];
    float4 tu[kTailLoads];
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
  // weight_sum > 0 always: every node sees itself in exactly one split.
  const float inv = 1.f / weight_sum;
  auto* o2 = reinterpret_cast<__nv_bfloat162*>(out_o + qrow * mla::kHeadDimV + c);
  o2[0] = __floats2bfloat162_rn(acc.x * inv, acc.y * inv);
  o2[1] = __floats2bfloat162_rn(acc.z * inv, acc.w * inv);
  if (blockIdx.y == 0 && threadIdx.x == 0) out_lse[qrow] = max_lse + logf(weight_sum);
  if (timeline_thread) VB_TIMELINE_STAMP(g_timeline_combine, kTimelineCombineEnd);
}

// The warm pass: the instances with the most merge code (12 and 16 loads a lane, not
// tile-balanced) run the merge out of line, once before the grid wait with nothing to load or
// store, so that its instructions are fetched (into the SM and L2) while the main kernel
// still runs, then for real. After the wait their first loads had taken 0.9-1.5 us to go out
// with nothing to wait for; with the pass, 1.0-1.2 us (H200 timelines,
// reports/h200/2026-11-30-slot-records, calls 2, 3 and 9). Measured (call 9, 3 rounds): one
// 16k / 32k / 64k / 128k request -3.6 / -2.1 / -2.0 / -0.9 %, the other 9 cases +-1.3 %.
// For every instance (call 8) dp128 decode B8 (8 loads) ran 1.7 % slower and instances 3 and
// 10 spilled out of line.
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
// slot records and serial tail add no register to the others (instance 10 spilled).
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
  static_assert(wgmma_cfg::kTokensPerTile != kTokensPerTile, "the tile size tells the paths apart");
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
// (one 16-load instance for 65 splits: 96 registers, 2 blocks per SM, and one 64k request
// with T = 16 was 2 % slower than v4's loop).
using CombineKernel = void (*)(VerifyParams, int, int, int, SplitWorkspace, int);
template <bool kBalanced>
CombineKernel combine_kernel_for(int num_splits, int lanes) {
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
// combine_splits: the splits per row the lanes hold (every split, or a tile-balanced plan's
// balanced_slots).
CombineKernel combine_kernel_for(int combine_splits, int lanes, bool balanced) {
  return balanced ? combine_kernel_for<true>(combine_splits, lanes) : combine_kernel_for<false>(combine_splits, lanes);
}

bool aligned_to(const void* ptr, std::uintptr_t bytes) { return reinterpret_cast<std::uintptr_t>(ptr) % bytes == 0; }

bool params_valid(const VerifyParams& p) {
  if (p.batch <= 0 || p.num_heads <= 0 || p.tree_size <= 0 || p.tree_size > mla::kMaxTreeNodes) return false;
  // The softmax takes row maxima of unscaled scores (wgmma path): a positive scale keeps them.
  if (!(p.sm_scale > 0.f) || !std::isfinite(p.sm_scale)) return false;
  if (p.mask_words != ceil_div(p.tree_size, mla::kMaskWordBits)) return false;
  if (!p.q || !p.kv_pool || !p.prefix_len || !p.tree_mask || !p.o || !p.lse) return false;
  // Q (cp.async) and KV rows (bulk copies) move in 16-byte units from 16-byte aligned
  // addresses; O is written as bf16 pairs, LSE as floats. A misaligned tensor would fault
  // on the device: refuse it here instead.
  if (!aligned_to(p.q, 16) || !aligned_to(p.kv_pool, 16) || !aligned_to(p.tree_kv, 16)) return false;
  if (!aligned_to(p.o, 4) || !aligned_to(p.lse, 4)) return false;
  if (p.page_kind == PageTableKind::kTokenIndices) return p.kv_indptr && p.kv_indices;
  return p.block_table && p.page_size > 0 && p.max_pages > 0;
}

// The production kernel's instances besides the pipeline depth: the plain one, the token
// split and the tile-balanced schedule.
enum class Instance : int { kPlain = 0, kTokenSplit = 1, kBalanced = 2 };
constexpr int kNumInstances = 3;

// The production kernel instance for a pipeline depth, and its dynamic shared memory.
// over_mask_writer: the instance for launches over a kernel still writing the mask and the
// lengths (IndptrLengthParams); `kernel` then stays null.
struct KernelVariant {
  void (*kernel)(VerifyParams, int, int, SplitWorkspace);
  void (*over_mask_writer)(IndptrLengthParams, int, int, SplitWorkspace);
  int stages;
  int smem_bytes;
  const void* function() const {
    return kernel != nullptr ? reinterpret_cast<const void*>(kernel) : reinterpret_cast<const void*>(over_mask_writer);
  }
};

template <int kStages, class Params>
auto instance_kernel(Instance instance) {
  return instance == Instance::kTokenSplit ? flash_verify_kernel<kStages, true, false, Params>
         : instance == Instance::kBalanced ? flash_verify_kernel<kStages, false, true, Params>
                                           : flash_verify_kernel<kStages, false, false, Params>;
}

template <int kStages>
KernelVariant make_variant(Instance instance, bool over_mask_writer) {
  if (over_mask_writer) {
    return {nullptr, instance_kernel<kStages, IndptrLengthParams>(instance), kStages, smem_bytes_for_stages(kStages)};
  }
  return {instance_kernel<kStages, VerifyParams>(instance), nullptr, kStages, smem_bytes_for_stages(kStages)};
}

KernelVariant variant_for_stages(int stages, Instance instance, bool over_mask_writer) {
  switch (stages) {
    case 4: return make_variant<4>(instance, over_mask_writer);
    case 2: return make_variant<2>(instance, over_mask_writer);
  }
  return {nullptr, nullptr, stages, 0};
}

// Per device, variant and instance, the dynamic shared memory the kernel's limit has been
// raised to. cudaFuncSetAttribute is a driver call; launched outside a CUDA graph the kernel
// makes it once per device and size, not per launch. Two threads racing on the first launch
// both set the same attribute, which is harmless. (cudaDeviceReset would drop the attribute
// behind the cache's back; nothing in verifybench resets a device.)
constexpr int kMaxCachedDevices = 64;
constexpr int kNumVariants = static_cast<int>(sizeof(kPipelineVariants) / sizeof(kPipelineVariants[0]));
std::atomic<int> g_smem_limit_raised[kMaxCachedDevices][kNumVariants][kNumInstances][2];  // [.][over_mask_writer]

Instance instance_for(KernelInstance instance) {
  return instance == KernelInstance::kMmaTokenSplit ? Instance::kTokenSplit
         : instance == KernelInstance::kMmaBalanced ? Instance::kBalanced
                                                    : Instance::kPlain;
}

// The plan's variant, with the kernel's shared-memory limit raised to the plan's request.
cudaError_t select_variant(const LaunchPlan& plan, bool over_mask_writer, KernelVariant* out) {
  const Instance instance = instance_for(plan.instance);
  for (int i = 0; i < kNumVariants; ++i) {
    if (kPipelineVariants[i] != plan.pipeline_stages) continue;
    const KernelVariant v = variant_for_stages(plan.pipeline_stages, instance, over_mask_writer);
    if (plan.smem_bytes < v.smem_bytes) return cudaErrorInvalidConfiguration;
    *out = v;
    out->smem_bytes = plan.smem_bytes;
    int device = 0;
    if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return err;
    const bool cacheable = device >= 0 && device < kMaxCachedDevices;
    std::atomic<int>* raised =
        cacheable ? &g_smem_limit_raised[device][i][static_cast<int>(instance)][over_mask_writer ? 1 : 0] : nullptr;
    if (raised && raised->load(std::memory_order_acquire) >= plan.smem_bytes) return cudaSuccess;
    const cudaError_t err =
        cudaFuncSetAttribute(out->function(), cudaFuncAttributeMaxDynamicSharedMemorySize, plan.smem_bytes);
    if (err == cudaSuccess && raised) raised->store(plan.smem_bytes, std::memory_order_release);
    return err;
  }
  return cudaErrorInvalidConfiguration;  // not a built depth
}

}  // namespace

int flash_verify_balance_boundary_units(FlashVerifyPath path) {
  const PlannerConfig defaults;
  return path == FlashVerifyPath::kWgmma ? defaults.wgmma_balance_boundary_units : defaults.mma_balance_boundary_units;
}

bool flash_verify_timeline_built() { return VB_DEBUG_TIMELINE != 0; }

cudaError_t flash_verify_timeline_clear() {
#if VB_DEBUG_TIMELINE
  if (cudaError_t err = detail::timeline_clear_slots(g_timeline_main); err != cudaSuccess) return err;
  if (cudaError_t err = detail::timeline_clear_slots(g_timeline_combine); err != cudaSuccess) return err;
  return detail::wgmma_timeline_clear();
#else
  return cudaErrorNotSupported;
#endif
}

cudaError_t flash_verify_timeline_read(FlashVerifyTimeline* out) {
  *out = FlashVerifyTimeline{};
#if VB_DEBUG_TIMELINE
  out->main_capacity = detail::kTimelineMainSlots;
  out->combine_capacity = detail::kTimelineCombineSlots;
  if (cudaError_t err = detail::timeline_read_slots(g_timeline_main, &out->main); err != cudaSuccess) return err;
  if (cudaError_t err = detail::wgmma_timeline_read(&out->main); err != cudaSuccess) return err;
  return detail::timeline_read_slots(g_timeline_combine, &out->combine);
#else
  return cudaErrorNotSupported;
#endif
}

FlashVerifyConfigInfo flash_verify_config() {
  return {kRowsPerTile, kTokensPerTile, kBlockThreads, smem_bytes_for_stages(kMinStages), kTokenSplitMinTiles,
          kMaxSplits};
}

FlashVerifyConfigInfo flash_verify_path_config(FlashVerifyPath path) {
  if (path == FlashVerifyPath::kWgmma) {
    return {wgmma_cfg::kRowsPerTile, wgmma_cfg::kTokensPerTile, wgmma_cfg::kThreads, wgmma_cfg::kSmemBytes, 0,
            kMaxSplits};
  }
  return {kRowsPerTile, kTokensPerTile, kBlockThreads, smem_bytes_for_stages(kPipelineVariants[0]),
          kTokenSplitMinTiles, kMaxSplits};
}

std::size_t flash_verify_workspace_bytes(const FlashVerifyPlan& plan, int batch, int tree_size,
                                         int num_heads) {
  if (plan.num_splits <= 1) return 0;
  const std::size_t partials = split_partials(plan, batch, tree_size, num_heads);
  return workspace_o_bytes(partials) + workspace_lse_bytes(partials) + workspace_slot_bytes(plan, batch);
}

int flash_verify_blocks_per_sm(cudaError_t* error) {
  int device = 0, optin = 0, blocks = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  LaunchPlan deepest;
  deepest.instance = KernelInstance::kMmaPlain;
  deepest.pipeline_stages = flash_verify_stages_for_smem_optin(optin);
  deepest.smem_bytes = flash_verify_smem_bytes(deepest.pipeline_stages);
  KernelVariant v{};
  if (err == cudaSuccess) err = select_variant(deepest, false, &v);
  if (err == cudaSuccess) {
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, v.kernel, kBlockThreads, v.smem_bytes);
  }
  if (error) *error = err;
  return err == cudaSuccess ? blocks : 0;
}

int flash_verify_sm120_blocks_per_sm(cudaError_t* error) {
  const int stages = flash_verify_stages_for_smem_optin(Sm120Limits::kSmemPerBlockOptin);
  const KernelVariant v = variant_for_stages(stages, Instance::kPlain, false);
  cudaFuncAttributes attributes{};
  const cudaError_t err = v.kernel != nullptr ? cudaFuncGetAttributes(&attributes, v.function())
                                              : cudaErrorInvalidConfiguration;  // no depth fits 99 KB
  if (error) *error = err;
  if (err != cudaSuccess) return 0;
  // Registers are allocated per warp in units of 256.
  constexpr int kRegisterUnit = 256;
  const int registers_per_warp = ceil_div(attributes.numRegs * 32, kRegisterUnit) * kRegisterUnit;
  const int by_registers = Sm120Limits::kRegistersPerSm / (registers_per_warp * (kBlockThreads / 32));
  const int by_threads = Sm120Limits::kThreadsPerSm / kBlockThreads;
  const int block_smem = v.smem_bytes + static_cast<int>(attributes.sharedSizeBytes) + Sm120Limits::kSmemReservedPerBlock;
  const int by_smem = Sm120Limits::kSmemPerSm / block_smem;
  return std::min({by_registers, by_threads, by_smem});
}

DeviceTarget sm120_proxy_target(cudaError_t* error) {
  DeviceTarget t;
  int device = 0, smem_per_sm = 0, reserved_per_block = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&t.num_sms, cudaDevAttrMultiProcessorCount, device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  if (err == cudaSuccess) {
    err = cudaDeviceGetAttribute(&reserved_per_block, cudaDevAttrReservedSharedMemoryPerBlock, device);
  }
  if (err == cudaSuccess) t.main_blocks_per_sm = flash_verify_sm120_blocks_per_sm(&err);
  if (err == cudaSuccess && t.main_blocks_per_sm < 1) err = cudaErrorInvalidConfiguration;  // no block fits sm_120
  t.max_threads_per_sm = Sm120Limits::kThreadsPerSm;
  t.smem_optin_bytes = Sm120Limits::kSmemPerBlockOptin;
  t.wgmma = false;
  // The smallest request of which main_blocks_per_sm + 1 blocks overflow this device's SM, in
  // the 128-byte units shared memory is allocated in.
  constexpr int kSmemUnit = 128;
  const int overflowing = smem_per_sm / (t.main_blocks_per_sm + 1) - reserved_per_block + 1;
  t.mma_smem_request_bytes = ceil_div(overflowing, kSmemUnit) * kSmemUnit;
  if (error) *error = err;
  return t;
}

int flash_verify_plan_blocks_per_sm(const LaunchPlan& plan, cudaError_t* error) {
  KernelVariant v{};
  cudaError_t err = plan.schedule.path == FlashVerifyPath::kMmaSync ? select_variant(plan, false, &v)
                                                                    : cudaErrorInvalidValue;
  int blocks = 0;
  if (err == cudaSuccess) {
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, v.kernel, plan.main_threads, plan.smem_bytes);
  }
  if (error) *error = err;
  return err == cudaSuccess ? blocks : 0;
}

bool flash_verify_wgmma_supported(cudaError_t* error) {
  bool supported = false;
  const cudaError_t err = detail::wgmma_path_supported(&supported);
  if (error) *error = err;
  return err == cudaSuccess && supported;
}

namespace {
// Whether `plan` is one this build can run over `params`: the planner's own output always is;
// a plan made by hand (tests) or for another shape may not be.
bool plan_matches(const VerifyParams& params, const LaunchPlan& plan) {
  const FlashVerifyPlan& s = plan.schedule;
  const bool wgmma = s.path == FlashVerifyPath::kWgmma;
  const bool wgmma_instance = plan.instance == KernelInstance::kWgmmaGather ||
                              plan.instance == KernelInstance::kWgmmaRunBoxes ||
                              plan.instance == KernelInstance::kWgmmaPageBoxes ||
                              plan.instance == KernelInstance::kWgmmaBalanced;
  const int rows = params.tree_size * params.num_heads;
  if (!plan.valid || wgmma != wgmma_instance || (s.path != FlashVerifyPath::kMmaSync && !wgmma)) return false;
  if (s.num_splits < 1 || s.num_splits > 65535 || params.batch > 65535 || s.tiles_per_split < 0) return false;
  if (s.num_splits > (s.tile_balanced ? PlannerConfig{}.balance_max_blocks : kMaxSplits)) return false;
  if (s.m_tiles != ceil_div(rows, plan.rows_per_tile) ||
      plan.rows_per_tile != (wgmma ? wgmma_cfg::kRowsPerTile : kRowsPerTile)) {
    return false;
  }
  if (plan.main_grid.x != static_cast<unsigned>(s.m_tiles) || plan.main_grid.y != static_cast<unsigned>(s.num_splits) ||
      plan.main_grid.z != static_cast<unsigned>(s.tile_balanced ? 1 : params.batch)) {
    return false;
  }
  if (s.token_split != (plan.instance == KernelInstance::kMmaTokenSplit) || (s.token_split && rows > kMmaM)) return false;
  if (s.tile_balanced != (plan.instance == KernelInstance::kMmaBalanced || plan.instance == KernelInstance::kWgmmaBalanced)) {
    return false;
  }
  if (s.tile_balanced && (s.tiles_per_split != 0 || s.balanced_slots < 1 || s.balanced_slots > s.num_splits ||
                          plan.split_tiles_arg >= 0)) {
    return false;
  }
  if (!s.tile_balanced && plan.split_tiles_arg != s.tiles_per_split) return false;
  if (wgmma ? plan.smem_bytes != wgmma_cfg::kSmemBytes || plan.main_threads != wgmma_cfg::kThreads
            : plan.main_threads != kBlockThreads) {
    return false;
  }
  if (plan.instance == KernelInstance::kWgmmaPageBoxes &&
      (params.page_kind != PageTableKind::kBlockTable || params.page_size < wgmma_cfg::kTmaBoxRows ||
       (params.page_size & (params.page_size - 1)) != 0)) {
    return false;
  }
  if (s.num_splits > 1) {
    const int lanes = plan.combine_lanes;
    if (plan.combine_splits != flash_verify_combine_splits(s)) return false;
    // Fixed-split plans' lanes hold every split; a tile-balanced row with more slots than its
    // lanes hold merges the rest in a loop.
    if ((lanes != 1 && lanes != 2 && lanes != 4 && lanes != 8) ||
        (!s.tile_balanced && ceil_div(plan.combine_splits, lanes) > kCombineMaxPerLane) ||
        plan.combine_loads_per_lane != combine_instance_loads(ceil_div(plan.combine_splits, lanes))) {
      return false;
    }
  }
  return true;
}
}  // namespace

cudaError_t flash_verify_launch(const VerifyParams& params, const LaunchPlan& plan,
                                void* workspace, std::size_t workspace_bytes, cudaStream_t stream) {
  return flash_verify_launch(params, plan, workspace, workspace_bytes, stream, FlashVerifyLaunchOptions{});
}

cudaError_t flash_verify_launch(const VerifyParams& params, const LaunchPlan& plan,
                                void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
                                const FlashVerifyLaunchOptions& options) {
  if (!params_valid(params)) return cudaErrorInvalidValue;
  // Query rows are numbered in 32 bits on the device (grid.x of the combine was one per row).
  if (static_cast<std::int64_t>(params.batch) * params.tree_size * params.num_heads > INT32_MAX) {
    return cudaErrorInvalidConfiguration;
  }
  // Over a kernel still writing the mask and the lengths: the lengths come from kv_indptr.
  const bool over_mask_writer = options.previous_kernel_writes_only_mask_and_lengths;
  if (over_mask_writer && (!options.overlap_previous_kernel || params.page_kind != PageTableKind::kTokenIndices)) {
    return cudaErrorInvalidValue;
  }
  if (!plan_matches(params, plan)) return cudaErrorInvalidConfiguration;
  const FlashVerifyPlan& s = plan.schedule;
  const std::size_t needed = flash_verify_workspace_bytes(s, params.batch, params.tree_size, params.num_heads);
  if (workspace_bytes < needed || (needed > 0 && workspace == nullptr)) return cudaErrorInvalidValue;
  const SplitWorkspace ws =
      needed > 0 ? carve_workspace(workspace, split_partials(s, params.batch, params.tree_size, params.num_heads),
                                   s.tile_balanced)
                 : SplitWorkspace{nullptr, nullptr, nullptr};
  const void* launched_main = nullptr;
  if (s.path == FlashVerifyPath::kWgmma) {
    launched_main = detail::wgmma_main_kernel_of(plan, over_mask_writer);
    bool supported = false;
    if (cudaError_t err = detail::wgmma_path_supported(&supported); err != cudaSuccess) return err;
    if (!supported) return cudaErrorInvalidConfiguration;  // not a compute capability 9.0 device
    if (cudaError_t err =
            detail::launch_wgmma_main(params, plan, ws, options.overlap_previous_kernel, over_mask_writer, stream);
        err != cudaSuccess) {
      return err;
    }
  } else {
    KernelVariant variant{};
    if (cudaError_t err = select_variant(plan, over_mask_writer, &variant); err != cudaSuccess) return err;
    launched_main = variant.function();
    const dim3 grid(plan.main_grid.x, plan.main_grid.y, plan.main_grid.z);
    cudaLaunchAttribute attribute{};
    const cudaLaunchConfig_t config = detail::launch_config(grid, dim3(plan.main_threads), plan.smem_bytes, stream,
                                                            options.overlap_previous_kernel, &attribute);
    const cudaError_t err =
        over_mask_writer
            ? cudaLaunchKernelEx(&config, variant.over_mask_writer, IndptrLengthParams(params), s.num_splits,
                                 plan.split_tiles_arg, ws)
            : cudaLaunchKernelEx(&config, variant.kernel, params, s.num_splits, plan.split_tiles_arg, ws);
    if (err != cudaSuccess) return err;
  }
  if (options.record != nullptr) {
    *options.record = FlashVerifyLaunchRecord{};
    options.record->main_kernel = launched_main;
    options.record->main_grid = plan.main_grid;
    options.record->main_threads = plan.main_threads;
    options.record->main_smem_bytes = plan.smem_bytes;
  }
  if (s.num_splits == 1) return cudaSuccess;
  const cudaError_t err = detail::launch_split_combine(params, plan, ws, stream);
  if (err == cudaSuccess && options.record != nullptr) {
    options.record->combine_kernel = flash_verify_combine_kernel_of(plan);
    options.record->combine_grid = plan.combine_grid;
    options.record->combine_block = plan.combine_block;
  }
  return err;
}

const void* flash_verify_main_kernel_of(const LaunchPlan& plan, bool over_mask_writer) {
  if (plan.schedule.path == FlashVerifyPath::kWgmma) return detail::wgmma_main_kernel_of(plan, over_mask_writer);
  return variant_for_stages(plan.pipeline_stages, instance_for(plan.instance), over_mask_writer).function();
}

const void* flash_verify_combine_kernel_of(const LaunchPlan& plan) {
  if (plan.schedule.num_splits <= 1) return nullptr;
  return reinterpret_cast<const void*>(
      combine_kernel_for(plan.combine_splits, plan.combine_lanes, plan.schedule.tile_balanced));
}

namespace detail {

cudaError_t launch_split_combine(const VerifyParams& params, const LaunchPlan& plan, const SplitWorkspace& ws,
                                 cudaStream_t stream) {
  // Programmatic dependent launch (sm_90+): the combine is scheduled while the main
  // kernel's last blocks run and waits on the device for its results.
  cudaLaunchAttribute attribute{};
  const cudaLaunchConfig_t config =
      launch_config(dim3(plan.combine_grid.x, plan.combine_grid.y, plan.combine_grid.z),
                    dim3(plan.combine_block.x, plan.combine_block.y, plan.combine_block.z), 0, stream,
                    /*overlap_previous_kernel=*/true, &attribute);
  const bool balanced = plan.schedule.tile_balanced;
  return cudaLaunchKernelEx(&config, combine_kernel_for(plan.combine_splits, plan.combine_lanes, balanced), params,
                            plan.schedule.num_splits, plan.split_tiles_arg, plan.tokens_per_tile, ws,
                            plan.combine_lanes);
}

}  // namespace detail

}  // namespace vb

// The mma.sync main kernel (sm_90 and sm_120): device code, included by the instance files
// (mma_sync/mma_plain.cu, mma_sync/mma_token_split.cu, mma_sync/mma_balanced.cu),
// each of which compiles one instance family in its own translation unit.
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
// fp8 e4m3 KV (the kFp8Kv instances, VerifyParams::kv_dtype): the producers bulk-copy the
// 576-byte rows into the back half of their stage rows and, a tile or two later, widen them
// to bf16 (exact) in place, then arrive on the stage's "full" mbarrier; the compute warps are
// unchanged. The pool's scale folds into sm_scale for the scores and into O's normalisation
// (final O and split partials alike, so the combine, linear in the partials, needs nothing).
// With fp8 math (the kFp8Math instances, LaunchPlan::math) nothing is widened: the rows land
// as e4m3 (kKvStrideFp8-byte rows) and the tensor cores run e4m3 m16n8k32 with Q quantized per
// row and P as e4m3 (the "fp8 math" section below; kernels/NOTES.md).
//
// Split contract: with num_splits == 1 the block writes final O (bf16) and LSE. Otherwise it
// writes its split's normalised O (bf16; fp32 under the tile-balanced schedule) and
// natural-log LSE (fp32) to the workspace (an empty split writes LSE -inf and zero O for even
// plans, nothing for length-aware ones), and combine/split_combine.cu merges the splits of
// every row. Split ranges are computed on the device from prefix_len, so a graph captured
// once replays correctly with other lengths up to the planned maximum.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cmath>
#include <type_traits>
#include <vector>

#include "common/split_kv.h"
#include "common/timeline.cuh"
#include "common/warp_ops.cuh"
#include "mma_sync/mma_config.h"
#include "mma_sync/mma_instances.h"
#include "verifybench/kernels.h"
#include "verifybench/sm120_emulation.cuh"
#include "verifybench/tile_balance.h"

namespace vb {
namespace {

using namespace mma_cfg;

// sm_120's tensor rate emulated: what the instances without it carry instead of the extra
// load (Sm120TensorLoad, below), which issues nothing.
struct NoTensorLoad {
  __device__ __forceinline__ explicit NoTensorLoad(unsigned) {}
  __device__ __forceinline__ void owe(int) {}
  __device__ __forceinline__ void keep_live(float*) const {}
};

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

using detail::ceil_div;
using detail::SplitWorkspace;
using detail::balanced_boundary_units;
using detail::balanced_partial_row;

// Racecheck build (-DVB_DEBUG_SYNC_COPY=1): the producers copy KV rows with plain 16-byte
// loads and shared-memory stores and then arrive on the stage's "full" mbarrier, instead of
// bulk copies that complete on it. Same stage protocol, no async proxy, so racecheck's
// reports on this build are about the protocol, not the bulk copies. Slower, same results.
#ifndef VB_DEBUG_SYNC_COPY
#define VB_DEBUG_SYNC_COPY 0
#endif
// Racecheck build (-DVB_DEBUG_LANE_ARRIVALS=1): every lane of a compute warp arrives on a
// stage's "empty" mbarrier (and, with VB_DEBUG_SYNC_COPY, every producer lane on "full"),
// instead of lane 0 after __syncwarp. Racecheck does not carry the other lanes' reads through
// __syncwarp into lane 0's release, so only this build shows the protocol free of hazards
// (kernels/NOTES.md, "Synchronisation and the sanitizers").
#ifndef VB_DEBUG_LANE_ARRIVALS
#define VB_DEBUG_LANE_ARRIVALS 0
#endif
constexpr int kEmptyArrivalsPerWarp = VB_DEBUG_LANE_ARRIVALS ? 32 : 1;
// Token split (kernel instance kTokenSplit = true; the planner asks for it with
// SplitSchedule::token_split): when only the first 16-row group of a tile holds real rows
// (H*T <= 16: decode, MTP T = 2 with 8 heads), the second group does not exit: both groups
// compute those 16 rows, group g on the tiles of parity g (its own stages: kStages is even),
// each with its own softmax state, and they merge O and the row statistics at the end
// through stage memory. It pays on splits of kTokenSplitMinTiles tiles or more (the merge
// and the second Q copy cost more on short ones), so a block of a shorter split in that
// launch runs one group. It is an instance of its own because its code, compiled into every
// instance, slows the plans that never use it.
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

// ---- the tile-balanced schedule (SplitSchedule::tile_balanced; verifybench/tile_balance.h) ----
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

// Phase timeline slots of this instance file (-DVB_DEBUG_TIMELINE=1 builds;
// common/timeline.cuh); the launcher reads every file's through its MmaKernelFamily.
VB_TIMELINE_SLOTS(g_timeline_main, detail::kTimelineMainSlots);

// Tile-balanced: the block's first segment seg (of request b) as its work, and in the warp's
// shared state.
template <class Params>
__device__ __forceinline__ void start_balanced_request(const Params& p, BalancedWarpState* state,
                                                       const tile_balance::Segment& seg, detail::BlockWork& work,
                                                       int b, int lane) {
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
}

// Tile-balanced: the warp's walk moves on to the block's next segment, if any, into b, prefix
// and the tile range, and into the warp's shared state; the first producer warp records the
// request's slots for the combine. Every warp of the block walks the same segments.
template <class Params>
__device__ __forceinline__ bool next_balanced_segment(const Params& p, const SplitWorkspace& ws,
                                                      BalancedWarpState* state, tile_balance::Segment& seg, int& b,
                                                      int& prefix, int& tile_begin, int& tile_end, int split_tiles,
                                                      int tid, int lane) {
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
}

// ---- the kernel's roles, in the order a tile meets them ----
// Each role is a force-inlined function of the kernel's values. Every local array of the
// kernel (fragments, accumulators, scores) is declared in the kernel and passed by reference,
// in the order the kernel uses them: a role function's own array is optimised before it is
// inlined, and the kernel's registers then come out in another order (other machine code;
// scripts/kernel_text_digest.sh shows it).

// One producer warp's rows of a tile into its stage: lane l < kRowsPerProducer copies row l
// (one bulk copy of kRowBytes: a bf16 row's 1152, or an fp8 row's 576 into the back of its stage
// row), completing on the mbarrier `landed`, to which lane 0 has announced the warp's bytes.
template <int kRowBytes>
__device__ __forceinline__ void copy_rows_to_stage(void* dst, const void* src, bool is_copy_lane, int lane,
                                                   std::uint64_t* landed) {
#if VB_DEBUG_SYNC_COPY
  if (is_copy_lane) {
    const auto* from = reinterpret_cast<const uint4*>(src);
    auto* to = reinterpret_cast<uint4*>(dst);
    // 4 chunks at a time: unrolled whole, 36 loads in flight spilled the tile-balanced fp8-math
    // instance (its producers share the compute warps' 168 registers).
#pragma unroll 4
    for (int i = 0; i < kRowBytes / 16; ++i) to[i] = from[i];
  }
  __syncwarp();
  if (kFullArrivalsPerWarp > 1 || lane == 0) warp::mbarrier_arrive(landed);  // release: rows are in
#else
  if (lane == 0) warp::mbarrier_arrive_expect_tx(landed, kRowsPerProducer * kRowBytes);
  __syncwarp();
  if (is_copy_lane) warp::bulk_copy_g2s(dst, src, kRowBytes, landed);
#endif
}

// fp8 KV, in two steps per tile so that the copies run ahead of the widening:
//   copy_rows_to_stage   lane l < kRowsPerProducer bulk-copies row l's 576 e4m3 bytes into the
//                        last 576 bytes of its stage row (kFp8RawOffsetBytes), completing on the
//                        warp's own "raw" mbarrier of the stage;
//   widen_fp8_rows_in_place, kFp8WidenLag tiles later: the warp reads its rows' raw bytes,
//                        writes them back widened to bf16 (exact) from the start of the same
//                        rows, and arrives on the stage's "full" mbarrier.
// In place is safe: value j moves from byte kFp8RawOffsetBytes + j to bytes 2j, 2j + 1, and
// the warp reads every raw byte of its rows before any lane writes (__syncwarp between).
// The lanes split the rows' 8-byte raw chunks in row order (chunk c of the warp is chunk
// c % 72 of row c / 72), so a load instruction reads 256 contiguous-per-row bytes and a
// store writes 512.
constexpr int kFp8ChunksPerRow = mla::kHeadDimQK / 8;                       // 72
constexpr int kFp8ChunksPerLane = kRowsPerProducer * kFp8ChunksPerRow / 32;  // 18
static_assert(kFp8ChunksPerLane * 32 == kRowsPerProducer * kFp8ChunksPerRow, "the warp's chunks split evenly");
// The widening trails the copies by this many tiles: one tile being widened while the next
// kFp8WidenLag tiles' bytes are in flight, and never a tile the compute warps wait for (the
// copy of tile i waits for the compute warps to release tile i - kStages; by then the
// producers have widened tile i - 1 - kFp8WidenLag, so kFp8WidenLag <= kStages - 2 keeps the
// widening of the next tile beside the math of this one; 2 stages allow only 1).
template <int kStages>
inline constexpr int kFp8WidenLag = kStages >= 4 ? kStages - 2 : 1;

// Two e4m3 values (low byte first) as a bf16 pair, exactly (cvt.rn.f16x2.e4m3x2, then f16 ->
// f32 -> bf16, each exact for e4m3 values; NaN stays NaN).
__device__ __forceinline__ std::uint32_t widen_e4m3x2(std::uint32_t two) {
  const __half2 h(__nv_cvt_fp8x2_to_halfraw2(static_cast<__nv_fp8x2_storage_t>(two & 0xffffu), __NV_E4M3));
  const __nv_bfloat162 b = __float22bfloat162_rn(__half22float2(h));
  return *reinterpret_cast<const std::uint32_t*>(&b);
}

// Eight e4m3 values (4 in each word, lowest byte first) as eight bf16 values.
__device__ __forceinline__ uint4 widen_e4m3x8(std::uint32_t lo, std::uint32_t hi) {
  return make_uint4(widen_e4m3x2(lo), widen_e4m3x2(lo >> 16), widen_e4m3x2(hi), widen_e4m3x2(hi >> 16));
}

// warp_rows: the warp's first stage row. The "full" arrival is a release after the widened
// stores; the fence orders those generic stores before the async-proxy (bulk) copies that
// later refill the rows.
__device__ __forceinline__ void widen_fp8_rows_in_place(bf16_bits* warp_rows, int lane, std::uint64_t* raw,
                                                        std::uint32_t raw_parity, std::uint64_t* full) {
  warp::mbarrier_wait_parity(raw, raw_parity);
  auto* rows = reinterpret_cast<unsigned char*>(warp_rows);
  uint2 chunk[kFp8ChunksPerLane];
#pragma unroll
  for (int i = 0; i < kFp8ChunksPerLane; ++i) {
    const int c = lane + 32 * i;
    chunk[i] = *reinterpret_cast<const uint2*>(rows + (c / kFp8ChunksPerRow) * (kKvStride * 2) + kFp8RawOffsetBytes +
                                               (c % kFp8ChunksPerRow) * 8);
  }
  __syncwarp();
#pragma unroll
  for (int i = 0; i < kFp8ChunksPerLane; ++i) {
    const int c = lane + 32 * i;
    *reinterpret_cast<uint4*>(rows + (c / kFp8ChunksPerRow) * (kKvStride * 2) + (c % kFp8ChunksPerRow) * 16) =
        widen_e4m3x8(chunk[i].x, chunk[i].y);
  }
  warp::fence_proxy_async_shared();
  __syncwarp();
  if (kFullArrivalsPerWarp > 1 || lane == 0) warp::mbarrier_arrive(full);  // release: rows are in
}

// The stages' "full" barriers (one arrival per producer warp, plus the bytes) and "empty"
// barriers (one arrival per warp that reads the stage), and for an fp8 pool each producer
// warp's "raw" barriers (its rows' raw bytes), made visible to the copy engine.
template <int kStages, bool kFp8Kv>
__device__ __forceinline__ void init_stage_barriers(std::uint64_t* s_full, std::uint64_t* s_empty,
                                                    std::uint64_t* s_raw, int stage_readers) {
#pragma unroll
  for (int s = 0; s < kStages; ++s) {
    warp::mbarrier_init(&s_full[s], kProducerWarps * kFullArrivalsPerWarp);
    warp::mbarrier_init(&s_empty[s], stage_readers * kEmptyArrivalsPerWarp);
    if constexpr (kFp8Kv) {
      for (int w = 0; w < kProducerWarps; ++w) warp::mbarrier_init(&s_raw[s * kProducerWarps + w], kFullArrivalsPerWarp);
    }
  }
  warp::fence_mbarrier_init();
}

// A producer warp's rows of one segment's tiles [tile_begin, tile_end) into the ring, from
// ring position iter0 on, each stage once the compute warps have released it. The page-table
// word of the next tile is loaded while this tile's stage is awaited, because a word loaded at
// its use stalls the copies behind it. The token-split instance loads words kStages tiles
// ahead (the loop unrolled by kStages, one register per stage: moving a word still in flight
// would wait for it): its compute is fast enough for one table round trip per tile to show,
// where the two-group plans are slower that way. An fp8 pool's tiles are widened
// kFp8WidenLag tiles behind their copies, and the segment's last ones after the loop; under
// fp8 math (kFp8Math) they land as they are, kKvStrideFp8 bytes a row, on "full".
// after_tile() runs once per tile copied (the sm_120 emulation's extra tensor work).
template <int kStages, bool kTokenSplit, bool kFp8Math, class Element, class TokenOf, class AfterTile>
__device__ __forceinline__ void copy_segment_tiles(std::int64_t (&entry)[kTokenSplit ? kStages : 1],
                                                   const detail::RequestKvRows<Element>& rows, int iter0,
                                                   int tile_begin, int tile_end, bf16_bits* s_kv,
                                                   std::uint64_t* s_full, std::uint64_t* s_empty,
                                                   std::uint64_t* s_raw, int warp, int lane, int row_in_tile,
                                                   bool is_copy_lane, const TokenOf& token_of,
                                                   const AfterTile& after_tile) {
  constexpr int kAhead = kTokenSplit ? kStages : 1;
  constexpr bool kFp8Kv = std::is_same_v<Element, fp8_e4m3_bits>;
  constexpr bool kWiden = kFp8Kv && !kFp8Math;
  static_assert(kFp8Kv || !kFp8Math, "fp8 math reads an fp8 pool");
  const int producer = warp - kWarps;
  // fp8: the rows of ring position iter (this warp's first row) made bf16 and announced.
  auto widen = [&](int iter) {
    const int stage = iter % kStages;
    widen_fp8_rows_in_place(s_kv + (stage * kTokensPerTile + producer * kRowsPerProducer) * kKvStride, lane,
                            &s_raw[stage * kProducerWarps + producer], (iter / kStages) & 1, &s_full[stage]);
  };
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
      const Element* src = rows.row_ptr(token_of(tile), entry[j]);
      if (VB_DEBUG_TIMELINE && iter == 0 && warp == kWarps && lane == 0) {
        asm volatile("" ::"l"(src));  // the page-table word is in
        VB_TIMELINE_STAMP(g_timeline_main, kTimelineTableIn);
      }
      bf16_bits* dst = s_kv + (stage * kTokensPerTile + row_in_tile) * kKvStride;
      if (is_copy_lane && tile + kAhead < tile_end) entry[j] = rows.table_entry(token_of(tile + kAhead));
      if constexpr (kFp8Math) {
        copy_rows_to_stage<kKvRowBytesFp8>(
            reinterpret_cast<unsigned char*>(s_kv + stage * kTokensPerTile * kKvStride) + row_in_tile * kKvStrideFp8,
            src, is_copy_lane, lane, &s_full[stage]);
      } else if constexpr (kFp8Kv) {
        copy_rows_to_stage<kKvRowBytesFp8>(reinterpret_cast<unsigned char*>(dst) + kFp8RawOffsetBytes, src,
                                           is_copy_lane, lane, &s_raw[stage * kProducerWarps + producer]);
      } else {
        copy_rows_to_stage<kKvRowBytes>(dst, src, is_copy_lane, lane, &s_full[stage]);
      }
      if (VB_DEBUG_TIMELINE && iter == 0 && warp == kWarps && lane == 0) {
        VB_TIMELINE_STAMP(g_timeline_main, kTimelineFirstIssue);
      }
      if constexpr (kWiden) {
        if (tile - tile_begin >= kFp8WidenLag<kStages>) widen(iter - kFp8WidenLag<kStages>);
      }
      after_tile();
    }
  }
  if constexpr (kWiden) {
    const int tiles = tile_end - tile_begin;
    for (int iter = iter0 + max(0, tiles - kFp8WidenLag<kStages>); iter < iter0 + tiles; ++iter) widen(iter);
  }
}

// The group's Q rows into the last stage with cp.async (committed, not awaited): the stage is
// free until the compute warps release it after reading Q.
template <int kStages, class Params, class QueryRowOf, class Request0>
__device__ __forceinline__ void stage_q_rows(const Params& p, bf16_bits* s_kv, int row0, int rows_per_request, int tid,
                                             const QueryRowOf& query_row_of, const Request0& current_request_row0) {
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

// This warp's Q A fragments (its K slice of the group's 16 rows) from the staged Q tile.
template <int kStages>
__device__ __forceinline__ void q_fragments_from_stage(std::uint32_t (&q_frag)[kKStepsPerGroup][4],
                                                       const bf16_bits* s_kv, int mgroup, int kgroup, int lane) {
#pragma unroll
  for (int ks = 0; ks < kKStepsPerGroup; ++ks) {
    const int row = mgroup * kMmaM + lane % 16;
    const int col = (kgroup * kKStepsPerGroup + ks) * kMmaK + (lane / 16) * 8;
    warp::ldmatrix_x4(q_frag[ks], s_kv + ((kStages - 1) * kTokensPerTile + row) * kKvStride + col);
  }
}

// S = Q K^T over this warp's K slice for the group's 16 rows and all the tile's tokens, into the
// warp's slice of s_partial: the group's warps split the 576-wide contraction, and the
// softmax sums their slices.
__device__ __forceinline__ void scores_partial(float (&s_acc)[kNTilesS][4], std::uint32_t (&k_frag)[4],
                                               float* s_partial, const bf16_bits* kv_tile,
                                               const std::uint32_t (&q_frag)[kKStepsPerGroup][4], int kgroup,
                                               int mgroup, int lane) {
#pragma unroll
  for (int nt = 0; nt < kNTilesS; ++nt)
#pragma unroll
    for (int e = 0; e < 4; ++e) s_acc[nt][e] = 0.f;
#pragma unroll
  for (int ks = 0; ks < kKStepsPerGroup; ++ks) {
    const int col = (kgroup * kKStepsPerGroup + ks) * kMmaK + ((lane >> 3) & 1) * 8;
#pragma unroll
    for (int np = 0; np < kNTilesS / 2; ++np) {
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
}

// This thread's kTokensPerThread scores of its softmax row srow: the K slices' partials summed,
// scaled into the log2 domain, and -inf where the row's tree node cannot see the token.
// Prefix-only tiles skip the mask test. Returns their maximum.
template <class Params, class Prefix, class KvLen, class Request>
__device__ __forceinline__ float masked_scores(float (&s)[kTokensPerThread], float4& sum, const Params& p,
                                               const float* s_partial, int tile, int srow, int scol0, bool srow_valid,
                                               int srow_node, float scale_log2, const Prefix& current_prefix,
                                               const KvLen& current_kv_len, const Request& current_b) {
  sum = *reinterpret_cast<const float4*>(s_partial + srow * kSStride + scol0);
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
  return tile_max;
}

// A row's running maximum after this tile (over its kThreadsPerRow threads), the base its
// weights are taken against (0 while nothing is visible), and the factor that rescales its O
// and sum: what both softmax steps (bf16 and fp8 P) begin with.
struct RowMaxStep {
  float new_max, exp_base, rescale;
};
__device__ __forceinline__ RowMaxStep row_max_step(float tile_max, float row_max) {
#pragma unroll
  for (int offset = 1; offset < kThreadsPerRow; offset *= 2) {
    tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, offset));
  }
  const float new_max = fmaxf(row_max, tile_max);
  const float exp_base = new_max == -INFINITY ? 0.f : new_max;
  return {new_max, exp_base, warp::fast_exp2(row_max - exp_base)};
}

// A value summed over the row's kThreadsPerRow threads.
__device__ __forceinline__ float sum_over_row_threads(float v) {
#pragma unroll
  for (int offset = 1; offset < kThreadsPerRow; offset *= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// The online softmax step of one tile for row srow: the row's new running max (over its
// kThreadsPerRow threads) and sum, P = 2^(s - max) as bf16 into s_p, and the factor that
// rescales the row's O into s_rescale.
__device__ __forceinline__ void online_softmax_step(float (&s)[kTokensPerThread], float tile_max, float& row_max,
                                                    float& row_sum, bf16_bits* s_p, float* s_rescale, int srow,
                                                    int scol0, int tid) {
  const auto [new_max, exp_base, rescale] = row_max_step(tile_max, row_max);
  float tile_sum = 0.f;
#pragma unroll
  for (int c = 0; c < kTokensPerThread; ++c) {
    s[c] = warp::fast_exp2(s[c] - exp_base);
    tile_sum += s[c];
  }
  row_sum = row_sum * rescale + sum_over_row_threads(tile_sum);
  row_max = new_max;
  *reinterpret_cast<uint2*>(s_p + srow * kPStride + scol0) =
      make_uint2(warp::pack_bf16x2(s[0], s[1]), warp::pack_bf16x2(s[2], s[3]));
  if (tid % kThreadsPerRow == 0) s_rescale[srow] = rescale;
}

// O *= rescale for the group's 16 rows and this warp's 128 channels. Once the running maxima
// settle most tiles rescale by exactly 1, so the multiplies are skipped when no row of this
// warp's fragments moved.
__device__ __forceinline__ void pv_rescale_o(float (&o_acc)[kNTilesO][4], const float* s_rescale, int mgroup,
                                             int lane) {
  const float a_lo = s_rescale[mgroup * kMmaM + lane / 4];
  const float a_hi = s_rescale[mgroup * kMmaM + lane / 4 + 8];
  if (__any_sync(0xffffffffu, a_lo != 1.f || a_hi != 1.f)) {
#pragma unroll
    for (int nt = 0; nt < kNTilesO; ++nt) {
      o_acc[nt][0] *= a_lo; o_acc[nt][1] *= a_lo;
      o_acc[nt][2] *= a_hi; o_acc[nt][3] *= a_hi;
    }
  }
}

// O += P V for the group's 16 rows and this warp's 128 channels. V is the first 512 columns of
// the tile's K rows, read transposed (ldmatrix.trans), so there is no second copy.
__device__ __forceinline__ void pv_mma(float (&o_acc)[kNTilesO][4], std::uint32_t (&p_frag)[4],
                                       std::uint32_t (&v_frag)[4], const bf16_bits* s_p, const bf16_bits* kv_tile,
                                       int kgroup, int mgroup, int lane) {
#pragma unroll
  for (int ks = 0; ks < kKStepsPV; ++ks) {
    warp::ldmatrix_x4(p_frag, s_p + (mgroup * kMmaM + lane % 16) * kPStride + ks * kMmaK + (lane / 16) * 8);
#pragma unroll
    for (int np = 0; np < kNTilesO / 2; ++np) {
      const int token = ks * kMmaK + (lane & 7) + ((lane >> 3) & 1) * 8;
      const int col = kgroup * kChannelsPerWarp + np * 2 * kMmaN + (lane >> 4) * 8;
      warp::ldmatrix_x4_trans(v_frag, kv_tile + token * kKvStride + col);
      warp::mma_bf16_16816(o_acc[2 * np], p_frag, v_frag[0], v_frag[1]);
      warp::mma_bf16_16816(o_acc[2 * np + 1], p_frag, v_frag[2], v_frag[3]);
    }
  }
}

// ---- fp8 math (the kFp8Math instances; kernels/NOTES.md, "fp8 math") ----
// The tile stays e4m3 in shared memory (kKvStrideFp8-byte rows) and the tensor cores run
// m16n8k32 e4m3 -> fp32. Q is quantized per query row to e4m3 with its own scale
// (amax |q| / 448) into A fragments; P is stored as e4m3 of P x 2^8; K and V are the pool's
// bytes. Softmax and accumulation stay fp32.
constexpr float kE4m3Max = 448.f;
// P in [0, 1] is stored as e4m3 of P x kPScaleFp8: 2^8 is the largest power of two that keeps
// P = 1 below 448, and keeps P >= 2^-14 out of e4m3's subnormals (below 2^-6).
constexpr float kPScaleFp8 = 256.f;
// sm_120's tensor rate emulated (kSm120Emu instances): the extra load issues the instruction the
// math issues on sm_90 (sm120_emulation.cuh): bf16 m16n8k16 for bf16 math (an fp8 pool's tiles
// are widened to bf16 too), f16 m16n8k16 for fp8 math (sm_90 widens e4m3 to f16 pairs,
// warp::mma_e4m3_16832). On kSm120LoadChains chains: 16 where the registers allow, fewer where
// the producers spill with more (sm_90, ptxas, 2026-12-06): bf16 math's tile-balanced instance
// 8; fp8 math's plain 8, token split 4, tile-balanced 6.
template <bool kTokenSplit, bool kBalanced, bool kFp8Math>
inline constexpr int kSm120LoadChains = !kFp8Math    ? (kBalanced ? 8 : sm120_emulation::kChains)
                                        : kBalanced   ? 6
                                        : kTokenSplit ? 4
                                                      : 8;
template <bool kTokenSplit, bool kBalanced, bool kFp8Math>
using Sm120TensorLoad = std::conditional_t<
    !kFp8Math,
    sm120_emulation::TensorLoad<sm120_emulation::kBf16MathExtraShape, sm120_emulation::kBf16ExtraNum,
                                sm120_emulation::kBf16ExtraDen, kSm120LoadChains<kTokenSplit, kBalanced, kFp8Math>>,
    sm120_emulation::TensorLoad<sm120_emulation::kFp8MathExtraShape, sm120_emulation::kFp8MathExtraNum,
                                sm120_emulation::kFp8MathExtraDen, kSm120LoadChains<kTokenSplit, kBalanced, kFp8Math>>>;

// The k32 steps of this warp's K slice: warps 0 and 1 take 5, warps 2 and 3 take 4.
__device__ __forceinline__ int fp8_first_k_step(int kgroup) {
  return kgroup * (kKStepsPerGroupFp8 - 1) + min(kgroup, kKStepsLongGroupsFp8);
}
__device__ __forceinline__ int fp8_k_steps(int kgroup) {
  return kgroup < kKStepsLongGroupsFp8 ? kKStepsPerGroupFp8 : kKStepsPerGroupFp8 - 1;
}
// e4m3 mma a compute warp of k-group kgroup issues per tile: S's k32 steps x n8 tiles (20 or
// 16), PV's one k32 step x 16 n8 tiles (what the sm_120 emulation's extra work is owed for).
__device__ __forceinline__ int fp8_mma_per_warp_tile(int kgroup) {
  return fp8_k_steps(kgroup) * kNTilesS + kTokensPerTile / kMmaKFp8 * kNTilesO;
}

// max |x| over a bf16 row of 576 values, by the 4 lanes of a quad (each 18 16-byte chunks);
// row may be in shared or global memory.
__device__ __forceinline__ float quad_row_amax(const bf16_bits* row, int lane) {
  __nv_bfloat162 amax = __floats2bfloat162_rn(0.f, 0.f);
#pragma unroll 1
  for (int j = 0; j < kChunksPerRow / 4; ++j) {
    const uint4 chunk = *reinterpret_cast<const uint4*>(row + ((lane % 4) + 4 * j) * 8);
    const std::uint32_t words[4] = {chunk.x, chunk.y, chunk.z, chunk.w};
#pragma unroll
    for (const std::uint32_t w : words) amax = __hmax2(amax, __habs2(*reinterpret_cast<const __nv_bfloat162*>(&w)));
  }
  float m = fmaxf(__low2float(amax), __high2float(amax));
  m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 1));
  return fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 2));
}

// Four consecutive bf16 values (8 bytes) times inv_scale as four e4m3 bytes, lowest first.
__device__ __forceinline__ std::uint32_t quantize_bf16x4(const bf16_bits* x, float inv_scale) {
  const uint2 v = *reinterpret_cast<const uint2*>(x);
  const float2 lo = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&v.x));
  const float2 hi = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&v.y));
  return warp::pack_e4m3x2(lo.x * inv_scale, lo.y * inv_scale) |
         (warp::pack_e4m3x2(hi.x * inv_scale, hi.y * inv_scale) << 16);
}

// The group's Q rows lane / 4 (row_lo) and lane / 4 + 8 (row_hi) quantized per row to e4m3
// with scale amax / 448 (1 for an all-zero row; a null row is a padding row: zeros): this
// warp's k32 steps of them into q8 (the group's 16 e4m3 rows, kKvStrideFp8 bytes each), where
// only this warp reads them (scores_partial_fp8), and the scales into the warp's own q_scale
// slot (row i of the group at [i]). Kept in registers through the tile loop, the Q fragments
// spilled (168 a thread, sm_90's widened e4m3 operands); from q8 they cost one ldmatrix a step.
// before_store runs between the last read of the rows and the first write of q8: with it
// (kBarrier) every word is quantized first, held in registers across it, then stored; without,
// each step is stored as it is quantized (the tile-balanced kernel's later requests: holding
// the words there spilled).
template <bool kBarrier, class BeforeStore>
__device__ __forceinline__ void quantize_q_rows_fp8(unsigned char* q8, float* q_scale, const bf16_bits* row_lo,
                                                    const bf16_bits* row_hi, int kgroup, int lane,
                                                    const BeforeStore& before_store) {
  const bf16_bits* rows[2] = {row_lo, row_hi};
  float inv[2], scale[2];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const float amax = rows[h] != nullptr ? quad_row_amax(rows[h], lane) : 0.f;
    scale[h] = amax > 0.f ? amax / kE4m3Max : 1.f;
    inv[h] = amax > 0.f ? kE4m3Max / amax : 1.f;
  }
  // Word j of a step: row lo (j = 0, 2) or hi (1, 3), k 4 * (lane % 4) .. +3 (+16 for j = 2, 3).
  const int first = fp8_first_k_step(kgroup);
  auto word = [&](int ks, int j) -> std::uint32_t {
    const bf16_bits* row = rows[j % 2];
    return row != nullptr ? quantize_bf16x4(row + (first + ks) * kMmaKFp8 + (lane % 4) * 4 + (j / 2) * 16, inv[j % 2])
                          : 0u;
  };
  auto store = [&](int ks, int j, std::uint32_t w) {
    const int k = (first + ks) * kMmaKFp8 + (lane % 4) * 4 + (j / 2) * 16;
    *reinterpret_cast<std::uint32_t*>(q8 + (lane / 4 + 8 * (j % 2)) * kKvStrideFp8 + k) = w;
  };
  if constexpr (kBarrier) {
    std::uint32_t words[kKStepsPerGroupFp8][4];
#pragma unroll
    for (int ks = 0; ks < kKStepsPerGroupFp8; ++ks)
#pragma unroll
      for (int j = 0; j < 4; ++j) words[ks][j] = ks < fp8_k_steps(kgroup) ? word(ks, j) : 0u;
    before_store();
#pragma unroll
    for (int ks = 0; ks < kKStepsPerGroupFp8; ++ks) {
      if (ks >= fp8_k_steps(kgroup)) break;  // warp-uniform
#pragma unroll
      for (int j = 0; j < 4; ++j) store(ks, j, words[ks][j]);
    }
  } else {
#pragma unroll 1
    for (int ks = 0; ks < fp8_k_steps(kgroup); ++ks) {
#pragma unroll
      for (int j = 0; j < 4; ++j) store(ks, j, word(ks, j));
    }
  }
  if (lane % 4 == 0) {
    q_scale[lane / 4] = scale[0];
    q_scale[lane / 4 + 8] = scale[1];
  }
  __syncwarp();  // q8 and the scales are read by other lanes
}

// S = Q8 K8^T over this warp's k32 steps for the group's 16 rows and all the tile's tokens,
// times each row's q_scale, into the warp's slice of s_partial (as scores_partial). Q's A
// fragments come from q8 and K's B fragments from the stage by ldmatrix's b16 view of byte
// rows: 8 rows x 16 bytes is one register a lane holding k 4 * (lane % 4) .. +3 of row
// lane / 4, both the k32 A layout (a0..a3: rows +0/+8, k +0/+16) and the B layout.
__device__ __forceinline__ void scores_partial_fp8(float (&s_acc)[kNTilesS][4], std::uint32_t (&q_frag)[4],
                                                   std::uint32_t (&k_frag)[4], float* s_partial,
                                                   const unsigned char* kv_tile, const unsigned char* q8,
                                                   const float* q_scale, int kgroup, int mgroup, int lane) {
#pragma unroll
  for (int nt = 0; nt < kNTilesS; ++nt)
#pragma unroll
    for (int e = 0; e < 4; ++e) s_acc[nt][e] = 0.f;
  const int first = fp8_first_k_step(kgroup);
  const int steps = fp8_k_steps(kgroup);
#pragma unroll
  for (int ks = 0; ks < kKStepsPerGroupFp8; ++ks) {
    if (ks >= steps) break;  // warp-uniform
    const int step_byte = (first + ks) * kMmaKFp8;
    warp::ldmatrix_x4(q_frag, q8 + (lane % 16) * kKvStrideFp8 + step_byte + (lane / 16) * 16);
    const int byte = step_byte + ((lane >> 3) & 1) * 16;
#pragma unroll
    for (int np = 0; np < kNTilesS / 2; ++np) {
      const int token = np * 2 * kMmaN + (lane & 7) + ((lane >> 4) << 3);
      warp::ldmatrix_x4(k_frag, kv_tile + token * kKvStrideFp8 + byte);
      warp::mma_e4m3_16832(s_acc[2 * np], q_frag, k_frag[0], k_frag[1]);
      warp::mma_e4m3_16832(s_acc[2 * np + 1], q_frag, k_frag[2], k_frag[3]);
    }
  }
  float* partial = s_partial + kgroup * kRowsPerTile * kSStride;
  const float scale_lo = q_scale[lane / 4], scale_hi = q_scale[lane / 4 + 8];
#pragma unroll
  for (int nt = 0; nt < kNTilesS; ++nt) {
    const int r = mgroup * kMmaM + lane / 4;
    const int c = nt * kMmaN + (lane % 4) * 2;
    *reinterpret_cast<float2*>(partial + r * kSStride + c) =
        make_float2(s_acc[nt][0] * scale_lo, s_acc[nt][1] * scale_lo);
    *reinterpret_cast<float2*>(partial + (r + 8) * kSStride + c) =
        make_float2(s_acc[nt][2] * scale_hi, s_acc[nt][3] * scale_hi);
  }
}

// Where token t of a tile sits in a row of P (fp8 math): k-position 4q + i of each 16-token
// half holds tokens {2q, 2q + 1, 8 + 2q, 9 + 2q}[i], the order in which pv_mma_fp8's byte
// permutes deliver V's tokens.
__host__ __device__ constexpr int fp8_p_position(int t) {
  return (t / 16) * 16 + ((t % 8) / 2) * 4 + ((t % 16) / 8) * 2 + t % 2;
}
static_assert(fp8_p_position(0) == 0 && fp8_p_position(1) == 1 && fp8_p_position(8) == 2 && fp8_p_position(9) == 3 &&
                  fp8_p_position(2) == 4 && fp8_p_position(15) == 15 && fp8_p_position(16) == 16,
              "P's k-positions follow V's permuted tokens");

// The online softmax step (as online_softmax_step) with P stored as e4m3 of P x kPScaleFp8 at
// its permuted positions. row_sum sums the stored weights (divided by kPScaleFp8): O is divided
// by exactly the sum of the weights it was made with, and the LSE shares it (a second, exact
// sum for the LSE alone spilled registers; scenarios/README.md bounds what it costs the LSE).
__device__ __forceinline__ void online_softmax_step_fp8(float (&s)[kTokensPerThread], float tile_max,
                                                        float& row_max, float& row_sum, unsigned char* s_p8,
                                                        float* s_rescale, int srow, int scol0, int tid) {
  const auto [new_max, exp_base, rescale] = row_max_step(tile_max, row_max);
#pragma unroll
  for (int c = 0; c < kTokensPerThread; ++c) s[c] = warp::fast_exp2(s[c] - exp_base) * kPScaleFp8;
  const std::uint32_t p01 = warp::pack_e4m3x2(s[0], s[1]);
  const std::uint32_t p23 = warp::pack_e4m3x2(s[2], s[3]);
  const float2 q01 = warp::unpack_e4m3x2(p01), q23 = warp::unpack_e4m3x2(p23);
  float tile_sum = ((q01.x + q01.y) + (q23.x + q23.y)) * (1.f / kPScaleFp8);
  row_sum = row_sum * rescale + sum_over_row_threads(tile_sum);
  row_max = new_max;
  // Tokens scol0, scol0 + 1 are adjacent in P's order, and so are scol0 + 2, scol0 + 3, 4 bytes on
  // (scol0 is a multiple of 4: fp8_p_position(scol0 + 2) == fp8_p_position(scol0) + 4).
  static_assert(kTokensPerThread == 4 && fp8_p_position(6) == fp8_p_position(4) + 4 &&
                    fp8_p_position(30) == fp8_p_position(28) + 4,
                "a thread's tokens are two adjacent pairs of P's order, 4 bytes apart");
  unsigned char* pair01 = s_p8 + srow * kPStrideFp8 + fp8_p_position(scol0);
  *reinterpret_cast<std::uint16_t*>(pair01) = static_cast<std::uint16_t>(p01);
  *reinterpret_cast<std::uint16_t*>(pair01 + 4) = static_cast<std::uint16_t>(p23);
  if (tid % kThreadsPerRow == 0) s_rescale[srow] = rescale;
}

// O += P8 V8 for the group's 16 rows and this warp's 128 channels, one k32 step (the tile's
// 32 tokens). V is token-major; the k32 B fragment wants 4 consecutive k (tokens) of one
// channel in a register. Per 16-channel block, ldmatrix.x4.trans over the 4 8-token blocks
// (b16 = a channel pair; lane l addresses token l) gives register i = tokens 8i + 2q,
// 8i + 2q + 1 of channel pair lane / 4 (q = lane % 4), bytes (even ch, odd ch) per token.
// Byte permutes split even and odd channels: k-positions 4q .. 4q+3 then hold tokens
// {2q, 2q+1, 8+2q, 9+2q} (+16 for b1), as P's row (fp8_p_position). The even channels are
// n8 tile 2b, the odd ones tile 2b + 1: this thread's accumulators c0, c1 of the pair are
// channels 16b + 4q .. 4q+3 in the order (2b)[0], (2b+1)[0], (2b)[1], (2b+1)[1]
// (fp8_accumulators_to_bf16_layout puts them back in pv_mma's order).
__device__ __forceinline__ void pv_mma_fp8(float (&o_acc)[kNTilesO][4], std::uint32_t (&p_frag)[4],
                                           std::uint32_t (&v_frag)[4], const unsigned char* s_p8,
                                           const unsigned char* kv_tile, int kgroup, int mgroup, int lane) {
  warp::ldmatrix_x4(p_frag, s_p8 + (mgroup * kMmaM + lane % 16) * kPStrideFp8 + (lane / 16) * 16);
#pragma unroll
  for (int blk = 0; blk < kNTilesO / 2; ++blk) {
    warp::ldmatrix_x4_trans(v_frag, kv_tile + lane * kKvStrideFp8 + kgroup * kChannelsPerWarp + blk * 2 * kMmaN);
    const std::uint32_t even_b0 = __byte_perm(v_frag[0], v_frag[1], 0x6420);
    const std::uint32_t even_b1 = __byte_perm(v_frag[2], v_frag[3], 0x6420);
    const std::uint32_t odd_b0 = __byte_perm(v_frag[0], v_frag[1], 0x7531);
    const std::uint32_t odd_b1 = __byte_perm(v_frag[2], v_frag[3], 0x7531);
    warp::mma_e4m3_16832(o_acc[2 * blk], p_frag, even_b0, even_b1);
    warp::mma_e4m3_16832(o_acc[2 * blk + 1], p_frag, odd_b0, odd_b1);
  }
}

// pv_mma_fp8's accumulators into pv_mma's layout (tile 2b: channels 16b + 2q, 2q+1; tile
// 2b+1: 16b + 8 + 2q, 9 + 2q), so that the epilogue's stores serve both: a quad's lanes q
// hold channels 4q .. 4q+3, so channels 2q, 2q+1 come from lane q / 2 and 8 + 2q, 9 + 2q
// from lane 2 + q / 2, the first or second pair of that lane's four as q is even or odd.
__device__ __forceinline__ void fp8_accumulators_to_bf16_layout(float (&o_acc)[kNTilesO][4], int lane) {
  const int quad = lane & ~3;
  const int q = lane & 3;
  const bool second_pair = (q & 1) != 0;
#pragma unroll
  for (int blk = 0; blk < kNTilesO / 2; ++blk) {
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const float held[4] = {o_acc[2 * blk][2 * half], o_acc[2 * blk + 1][2 * half], o_acc[2 * blk][2 * half + 1],
                             o_acc[2 * blk + 1][2 * half + 1]};
      float low[4], high[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        low[i] = __shfl_sync(0xffffffffu, held[i], quad + q / 2);
        high[i] = __shfl_sync(0xffffffffu, held[i], quad + 2 + q / 2);
      }
      o_acc[2 * blk][2 * half] = second_pair ? low[2] : low[0];
      o_acc[2 * blk][2 * half + 1] = second_pair ? low[3] : low[1];
      o_acc[2 * blk + 1][2 * half] = second_pair ? high[2] : high[0];
      o_acc[2 * blk + 1][2 * half + 1] = second_pair ? high[3] : high[1];
    }
  }
}

// fp8 math's load_q_fragments: the tile-balanced kernel's later requests, their Q rows
// quantized straight from global memory into q8 (padding rows past the request: zeros). Not
// inlined: once a segment, a call costs nothing, and inlined its loads were scheduled beside
// live registers of the tile loop and spilled them (sm_90).
__device__ __noinline__ void load_q_rows_fp8(unsigned char* q8, float* q_scale, const VerifyParams& p,
                                                std::int64_t request_row0, int row0, int rows_per_request, int mgroup,
                                                int kgroup, int lane) {
  const int r_lo = row0 + mgroup * kMmaM + lane / 4;
  const int r_hi = r_lo + 8;
  quantize_q_rows_fp8</*kBarrier=*/false>(
      q8, q_scale, r_lo < rows_per_request ? p.q + (request_row0 + r_lo) * mla::kHeadDimQK : nullptr,
      r_hi < rows_per_request ? p.q + (request_row0 + r_hi) * mla::kHeadDimQK : nullptr, kgroup, lane, [] {});
}

// Token split, both groups past their last tile: group 1 hands its O (unnormalised) to group 0
// through stage memory, which no one reads any more. Returns where it lies.
__device__ __forceinline__ const float* token_split_hand_over(const float (&o_acc)[kNTilesO][4], bf16_bits* s_kv,
                                                              int mgroup, int tid) {
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
  return handover;
}

// Group 0 rescales both halves to each row's common maximum and adds them, and the row sums
// (merged_sum for O's normalisation, row_max / row_sum for the LSE).
__device__ __forceinline__ void token_split_merge(float (&o_acc)[kNTilesO][4], float (&merged_sum)[2], float& row_max,
                                                  float& row_sum, const float* handover, const float* s_final_max,
                                                  const float* s_final_sum, int srow, int lane, int tid) {
  const int wtid = tid % kGroupThreads;
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
    row_sum = m == -INFINITY
                  ? 0.f
                  : row_sum * warp::fast_exp2(row_max - m) + s_final_sum[srow + kMmaM] * warp::fast_exp2(m1 - m);
    row_max = m;
  }
}

// ---- the epilogue's O stores, one per output format ----
// bf16 split partials (fixed-size and even plans), 8 bytes a lane: a quad fills whole sectors
// (detail::store_partial_chunk_pair_bf16).
template <class Request0, class PartialRow>
__device__ __forceinline__ void store_bf16_partials(const SplitWorkspace& ws, const float (&o_acc)[kNTilesO][4],
                                                    bool token_split, const float (&merged_sum)[2],
                                                    const float* s_final_sum, float o_scale, int row0,
                                                    int rows_per_request, int mgroup, int kgroup, int lane,
                                                    const Request0& current_request_row0,
                                                    const PartialRow& partial_row) {
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    const int r = mgroup * kMmaM + lane / 4 + half * 8;
    const std::int64_t qrow = current_request_row0() + row0 + r;
    const float sum = token_split ? merged_sum[half] : s_final_sum[r];
    const float inv = sum > 0.f ? o_scale / sum : 0.f;
    __nv_bfloat16* row = reinterpret_cast<__nv_bfloat16*>(ws.o_partial) +
                         partial_row(qrow, row0 + r) * mla::kHeadDimV + kgroup * kChannelsPerWarp;
#pragma unroll
    for (int nt = 0; nt < kNTilesO; nt += 2) {
      detail::store_partial_chunk_pair_bf16(row + nt * kMmaN, o_acc[nt][2 * half] * inv,
                                            o_acc[nt][2 * half + 1] * inv, o_acc[nt + 1][2 * half] * inv,
                                            o_acc[nt + 1][2 * half + 1] * inv, row0 + r < rows_per_request);
    }
  }
}

// fp32 split partials in 16-byte stores (the tile-balanced instance), for blocks whose second
// row group holds rows too (H*T > 16 past row0); decode and the token split are faster with
// store_o_row's 8-byte stores. Block-uniform: every lane reaches the shuffles.
template <class Request0, class PartialRow>
__device__ __forceinline__ void store_fp32_partials(const SplitWorkspace& ws, const float (&o_acc)[kNTilesO][4],
                                                    const float* s_final_sum, float o_scale, int row0,
                                                    int rows_per_request,
                                                    int mgroup, int kgroup, int lane,
                                                    const Request0& current_request_row0,
                                                    const PartialRow& partial_row) {
#pragma unroll
  for (int half = 0; half < 2; ++half) {
    // Warp-uniform: the 8 rows of this half all lie past the request (decode's padding).
    if (row0 + mgroup * kMmaM + half * 8 >= rows_per_request) continue;
    const int r = mgroup * kMmaM + lane / 4 + half * 8;
    const std::int64_t qrow = current_request_row0() + row0 + r;
    const float sum = s_final_sum[r];  // no token split in this branch
    const float inv = sum > 0.f ? o_scale / sum : 0.f;
    float* row = ws.o_partial + partial_row(qrow, row0 + r) * mla::kHeadDimV + kgroup * kChannelsPerWarp;
#pragma unroll
    for (int nt = 0; nt < kNTilesO; nt += 2) {
      store_partial_chunk_pair(row + nt * kMmaN, o_acc[nt][2 * half] * inv, o_acc[nt][2 * half + 1] * inv,
                               o_acc[nt + 1][2 * half] * inv, o_acc[nt + 1][2 * half + 1] * inv,
                               row0 + r < rows_per_request);
    }
  }
}

// One fragment row's 128 channels of this warp, normalised by inv: final O (bf16, one split)
// or fp32 partials in 8-byte stores.
template <class Params, class PartialRow>
__device__ __forceinline__ void store_o_row(const Params& p, const SplitWorkspace& ws,
                                            const float (&o_acc)[kNTilesO][4], int half, float inv, std::int64_t qrow,
                                            int rr, int num_splits, int kgroup, int lane,
                                            const PartialRow& partial_row) {
#pragma unroll
  for (int nt = 0; nt < kNTilesO; ++nt) {
    const int col = kgroup * kChannelsPerWarp + nt * kMmaN + (lane % 4) * 2;
    const float x = o_acc[nt][2 * half] * inv;
    const float y = o_acc[nt][2 * half + 1] * inv;
    if (num_splits == 1) {
      *reinterpret_cast<__nv_bfloat162*>(p.o + qrow * mla::kHeadDimV + col) = __floats2bfloat162_rn(x, y);
    } else {
      *reinterpret_cast<float2*>(ws.o_partial + partial_row(qrow, rr) * mla::kHeadDimV + col) =
          make_float2(x, y);
    }
  }
}

// The row's LSE (natural log; -inf where it saw nothing), final or its split's partial: one
// thread of the row's kThreadsPerRow.
template <class Params, class Request0, class PartialRow>
__device__ __forceinline__ void store_row_lse(const Params& p, const SplitWorkspace& ws, float row_max, float row_sum,
                                              int num_splits, int srow_global, bool srow_valid, int tid,
                                              const Request0& current_request_row0, const PartialRow& partial_row) {
  if (tid % kThreadsPerRow == 0 && srow_valid) {
    const std::int64_t qrow = current_request_row0() + srow_global;
    const float lse = row_sum == 0.f ? -INFINITY : row_max * kLn2 + logf(row_sum);
    if (num_splits == 1) {
      p.lse[qrow] = lse;
    } else {
      ws.lse_partial[partial_row(qrow, srow_global)] = lse;
    }
  }
}


// Params: VerifyParams, or IndptrLengthParams for a launch over a kernel that is still
// writing the mask and the lengths (FlashVerifyLaunchOptions): then the lengths come from
// kv_indptr and the wait for that kernel comes after the Q copy is issued.
// kFp8Kv: the instance for an fp8 e4m3 pool (VerifyParams::kv_dtype; tree_kv rows fp8 too).
// kFp8Math (with kFp8Kv): the tile stays e4m3 and the tensor cores run e4m3 math (LaunchPlan::math).
// kSm120Emu: sm_120's tensor rate on a Hopper SM (production/sm120-emu; sm120_emulation.cuh):
// the producer warps issue the extra mma.sync owed for each tile's math.
template <int kStages, bool kTokenSplit, bool kBalanced, class Params = VerifyParams, bool kFp8Kv = false,
          bool kFp8Math = false, bool kSm120Emu = false>
__global__ void __launch_bounds__(kBlockThreads, 1)
    flash_verify_mma_kernel(const Params p, const int num_splits, const int split_tiles, const SplitWorkspace ws) {
  static_assert(kStages >= kMinStages, "Q is staged through the last stage while tile 0 lands");
  static_assert(!(kTokenSplit && kBalanced), "the tile-balanced instance runs both row groups on their own rows");
  static_assert(kFp8Kv || !kFp8Math, "fp8 math reads an fp8 pool");
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
  std::uint64_t* s_raw = s_empty + kStages;  // fp8: [kStages][kProducerWarps] "raw rows landed"

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
    start_balanced_request(p, state, seg, work, b, lane);
    // Timeline: the range's units (its tiles plus a boundary's units per request started in
    // it; walking the range here for the exact tiles spilled a debug build).
    if (tid == 0) VB_TIMELINE_WORK_KNOWN(g_timeline_main, static_cast<int>(w.range_end - w.range_begin));
  } else {
    token_base = detail::RequestKvRows<>::token_rows_base(p, b);  // in flight beside the length
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
  using KvRows = detail::RequestKvRows<std::conditional_t<kFp8Kv, fp8_e4m3_bits, bf16_bits>>;
  KvRows rows(p, b, prefix, kBalanced ? KvRows::token_rows_base(p, b) : token_base);
  // The current request's length and first query row: the block's own, or in the
  // tile-balanced instance read from the warp's state where they are used (live registers
  // spill otherwise).
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
      return next_balanced_segment(p, ws, state, seg, b, prefix, tile_begin, tile_end, split_tiles, tid, lane);
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
  if (tid == 0) init_stage_barriers<kStages, kFp8Kv && !kFp8Math>(s_full, s_empty, s_raw, stage_readers);
  __syncthreads();  // barriers initialised before anyone uses them; the only block-wide barrier
  // Programmatic dependent launch: once every block of this grid is running, the combine
  // kernel may be scheduled into the room they leave; it waits (griddepcontrol.wait) for
  // this grid to finish before reading a byte, so its launch latency overlaps our tiles.
  warp::launch_dependents();

  if (warp >= kWarps) {
    // ---- producers: lane l of producer warp w copies token row w*kRowsPerProducer + l ----
    // The copies take uniform operands, so a warp issues its rows one after another: here that
    // runs beside the math instead of in front of it. Rows past kv_len re-read the last row
    // (finite data, masked out), so a stage always receives exactly kTokensPerTile rows. The
    // tile-balanced instance goes on into its next segment's tiles without waiting for the
    // compute warps: the ring position (iter) runs on across segments.
    constexpr int kAhead = kTokenSplit ? kStages : 1;
    const int row_in_tile = (warp - kWarps) * kRowsPerProducer + lane;
    const bool is_copy_lane = lane < kRowsPerProducer;
    auto token_of = [&](int tile) { return min(tile * kTokensPerTile + row_in_tile, current_kv_len() - 1); };
    // kSm120Emu: per tile, the extra tensor work owed for the math of the compute warps on this
    // warp's SM sub-partition (warp w runs on sub-partition w % 4, as do compute warps w % 4
    // and w % 4 + 4, one of each row group, both of k-group w % 4): one or both of them read
    // each tile.
    const int readers_here = token_split ? 1 : live_compute_warps / kKGroups;
    std::conditional_t<kSm120Emu, Sm120TensorLoad<kTokenSplit, kBalanced, kFp8Math>, NoTensorLoad> tensor_load(warp);
    auto after_tile = [&] {
      // Only the fp8-math load counts per k-group (the expression, dead elsewhere, changed
      // ptxas's code for the other fp8-math kernels).
      if constexpr (kSm120Emu && kFp8Math) {
        tensor_load.owe(readers_here * fp8_mma_per_warp_tile(warp % kKGroups));
      } else {
        tensor_load.owe(readers_here * kMmaPerWarpTile);
      }
    };
    int iter0 = 0;  // tiles of earlier segments
    for (;;) {
      std::int64_t entry[kAhead];
      copy_segment_tiles<kStages, kTokenSplit, kFp8Math>(entry, rows, iter0, tile_begin, tile_end, s_kv, s_full,
                                                         s_empty, s_raw, warp, lane, row_in_tile, is_copy_lane,
                                                         token_of, after_tile);
      iter0 += tile_end - tile_begin;
      if (!next_segment()) break;
      rows = KvRows(p, b, prefix);
    }
    tensor_load.keep_live(p.lse);
    return;  // the compute warps synchronise among themselves from here on
  }

  // ---- compute warps: two independent row groups ----
  // Row group g (warps 4g..4g+3) owns rows 16g..16g+15 of the tile end to end: their S (the
  // 4 warps split the 576-wide contraction), their softmax, and their O (the 4 warps split
  // the 512 channels). The groups share only the KV stages and meet at no barrier, so one
  // group's softmax may run beside the other's mma. A group of padding rows only (H*T <= 16)
  // takes every other tile of the first group's rows (token split) or, in short splits, exits.
  const int kgroup = warp % kKGroups;  // K slice of S, channel quarter of O
  const int mgroup = warp / kKGroups;  // row group
  const int group_barrier = kComputeBarrier + mgroup;
  if (!token_split && row0 + mgroup * kMmaM >= rows_per_request) return;  // s_empty counts live warps only
  // The query rows this group computes: its own 16 (scratch row = tile row), or under the
  // token split the tile's first 16 for both groups (scratch rows stay 16g .. 16g+15).
  auto query_row_of = [&](int scratch_row) { return token_split ? scratch_row % kMmaM : scratch_row; };

  // Q rows of this group through the last stage (cp.async), into registers.
  stage_q_rows<kStages>(p, s_kv, row0, rows_per_request, tid, query_row_of, current_request_row0);
  // Over a mask writer, the compute warps (which alone read the mask) wait here, with their
  // Q rows and the producers' first tiles in flight: out of the tile loop, because in its
  // tree-tile branch the wait spills registers in the balanced timeline build.
  if (kWaitBeforeTreeMask) warp::wait_for_prerequisite_grid();
  warp::cp_async_wait<0>();
  warp::fence_proxy_async_shared();  // Q's bytes in the last stage are later overwritten by bulk copies
  warp::named_barrier_sync(group_barrier, kGroupThreads);

  // fp8 math: q_frag is the A fragment of one k32 step (Q lives in q8, in shared memory).
  std::uint32_t q_frag[kFp8Math ? 1 : kKStepsPerGroup][4];
  // fp8 math: the group's e4m3 Q rows and this warp's scales of them (mma_config.h: stage tails).
  unsigned char* q8 = smem + mgroup * kStageBytes + kFp8MathQ8Offset;
  float* q_scale = reinterpret_cast<float*>(smem + kFp8MathQScaleOffset) + warp * kMmaM;
  if constexpr (kFp8Math) {
    const bf16_bits* staged = s_kv + ((kStages - 1) * kTokensPerTile + mgroup * kMmaM + lane / 4) * kKvStride;
    // q8 may overlap the group's staged bf16 rows (2 stages: group 1's q8 lies in the Q stage).
    quantize_q_rows_fp8</*kBarrier=*/true>(q8, q_scale, staged, staged + 8 * kKvStride, kgroup, lane,
                        [&] { warp::named_barrier_sync(group_barrier, kGroupThreads); });
  } else {
    q_fragments_from_stage<kStages>(q_frag, s_kv, mgroup, kgroup, lane);
  }
  __syncwarp();
  if (tid == 0) VB_TIMELINE_STAMP(g_timeline_main, kTimelineQReady);
  // Whether this lane arrives on the "empty" stage mbarriers for its warp: lane 0 after
  // __syncwarp, or every lane in the VB_DEBUG_LANE_ARRIVALS builds.
  const bool signals_empty = kEmptyArrivalsPerWarp > 1 || lane == 0;
  // The last stage is free for KV. Under the token split only the group that owns it counts
  // on its "empty" barrier, and the other group must be done with its Q copy there first.
  if (token_split) warp::named_barrier_sync(kTokenSplitBarrier, kThreads);
  if (signals_empty && (!token_split || mgroup == (kStages - 1) % kMGroups)) {
    warp::mbarrier_arrive(&s_empty[kStages - 1]);
  }

  // ---- per-row softmax state, owned by kThreadsPerRow consecutive lanes ----
  const int srow = tid / kThreadsPerRow;  // a row of this group
  const int scol0 = (tid % kThreadsPerRow) * kTokensPerThread;
  const int srow_global = row0 + query_row_of(srow);
  const bool srow_valid = srow_global < rows_per_request;
  const int srow_node = srow_valid ? srow_global / p.num_heads : 0;  // its mask row is found per tree tile
  // fp8 KV: scores and O of the stored values, times kv_scale (K and V are the same row).
  const float scale_log2 = (kFp8Kv ? p.sm_scale * p.kv_scale : p.sm_scale) * kLog2e;
  // fp8 math: P was stored times kPScaleFp8, row_sum was not.
  const float o_scale = kFp8Math ? p.kv_scale / kPScaleFp8 : kFp8Kv ? p.kv_scale : 1.f;
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
      std::uint32_t k_frag[4];
      if constexpr (kFp8Math) {
        scores_partial_fp8(s_acc, q_frag[0], k_frag, s_partial, reinterpret_cast<const unsigned char*>(kv_tile), q8,
                           q_scale, kgroup, mgroup, lane);
      } else {
        scores_partial(s_acc, k_frag, s_partial, kv_tile, q_frag, kgroup, mgroup, lane);
      }
      warp::named_barrier_sync(group_barrier, kGroupThreads);  // (1)
      // ---- masked online softmax of this tile, one row per kThreadsPerRow lanes ----
      {
        float s[kTokensPerThread];
        float4 sum;
        const float tile_max = masked_scores(s, sum, p, s_partial, tile, srow, scol0, srow_valid, srow_node, scale_log2,
                                             current_prefix, current_kv_len, current_b);
        if constexpr (kFp8Math) {
          online_softmax_step_fp8(s, tile_max, row_max, row_sum, reinterpret_cast<unsigned char*>(s_p), s_rescale,
                                  srow, scol0, tid);
        } else {
          online_softmax_step(s, tile_max, row_max, row_sum, s_p, s_rescale, srow, scol0, tid);
        }
      }
      warp::named_barrier_sync(group_barrier, kGroupThreads);  // (2)

      // ---- O = O * rescale + P V over the group's 16 rows and this warp's 128 channels ----
      pv_rescale_o(o_acc, s_rescale, mgroup, lane);
      std::uint32_t p_frag[4], v_frag[4];
      if constexpr (kFp8Math) {
        pv_mma_fp8(o_acc, p_frag, v_frag, reinterpret_cast<const unsigned char*>(s_p),
                   reinterpret_cast<const unsigned char*>(kv_tile), kgroup, mgroup, lane);
      } else {
        pv_mma(o_acc, p_frag, v_frag, s_p, kv_tile, kgroup, mgroup, lane);
      }
      __syncwarp();
      if (signals_empty) warp::mbarrier_arrive(&s_empty[stage]);  // this warp is done with the stage
    }

    // ---- epilogue: normalise, write final O/LSE or this split's partials ----
    if (tid == 0) VB_TIMELINE_STAMP(g_timeline_main, kTimelineTilesDone);
    if constexpr (kFp8Math) fp8_accumulators_to_bf16_layout(o_acc, lane);
    if (tid % kThreadsPerRow == 0) {
      s_final_max[srow] = row_max;
      s_final_sum[srow] = row_sum;
    }
    warp::named_barrier_sync(group_barrier, kGroupThreads);
    // Token split: group 1 hands its O and row statistics to group 0, which merges them.
    float merged_sum[2] = {0.f, 0.f};
    if (token_split) {
      const float* handover = token_split_hand_over(o_acc, s_kv, mgroup, tid);
      if (mgroup == 1) return;
      token_split_merge(o_acc, merged_sum, row_max, row_sum, handover, s_final_max, s_final_sum, srow, lane, tid);
    }
    // ---- O in the plan's format: bf16 or fp32 partials, or the final O ----
    if (detail::bf16_partials(false, kBalanced) && num_splits > 1) {
      store_bf16_partials(ws, o_acc, token_split, merged_sum, s_final_sum, o_scale, row0, rows_per_request, mgroup,
                          kgroup, lane, current_request_row0, partial_row);
    } else if (!kTokenSplit && num_splits > 1 && rows_per_request - row0 > kMmaM) {
      store_fp32_partials(ws, o_acc, s_final_sum, o_scale, row0, rows_per_request, mgroup, kgroup, lane,
                          current_request_row0, partial_row);
    } else
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const int r = mgroup * kMmaM + lane / 4 + half * 8;
      if (row0 + r >= rows_per_request) continue;
      const std::int64_t qrow = current_request_row0() + row0 + r;
      const float sum = token_split ? merged_sum[half] : s_final_sum[r];
      const float inv = sum > 0.f ? o_scale / sum : 0.f;
      store_o_row(p, ws, o_acc, half, inv, qrow, row0 + r, num_splits, kgroup, lane, partial_row);
    }
    store_row_lse(p, ws, row_max, row_sum, num_splits, srow_global, srow_valid, tid, current_request_row0,
                  partial_row);
    if constexpr (kBalanced) {
      // A request this block holds whole has one slot, which the combine leaves alone: the
      // group turns its rows' partials (just written, in L2) into the final O and LSE. Done
      // here, after the registers of O are free: a second store path in the epilogue spills.
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
    // fragments' registers spill (168 per thread).
    if constexpr (kFp8Math) {
      load_q_rows_fp8(q8, q_scale, p, current_request_row0(), row0, rows_per_request, mgroup, kgroup, lane);
    } else {
      load_q_fragments(q_frag, p, current_request_row0(), row0, rows_per_request, mgroup, kgroup, lane);
    }
  }
}

// ---- what an instance file hands the launcher (mma_sync/mma_instances.h) ----
cudaError_t mma_timeline_clear() {
#if VB_DEBUG_TIMELINE
  return detail::timeline_clear_slots(g_timeline_main);
#else
  return cudaErrorNotSupported;
#endif
}

cudaError_t mma_timeline_read(std::vector<FlashVerifyTimelineBlock>* out) {
#if VB_DEBUG_TIMELINE
  return detail::timeline_read_slots(g_timeline_main, out);
#else
  (void)out;
  return cudaErrorNotSupported;
#endif
}

// sm_120's emulation is built into the release kernels only: the racecheck and timeline
// builds study the kernel itself (and their producers spill with the extra load's chains).
constexpr bool kBuildsSm120Emulation = !(VB_DEBUG_SYNC_COPY || VB_DEBUG_LANE_ARRIVALS || VB_DEBUG_TIMELINE);
template <int kStages, bool kTokenSplit, bool kBalanced, bool kFp8Kv, bool kFp8Math = false>
constexpr detail::MmaKernel sm120_emulation_kernel() {
  if constexpr (kBuildsSm120Emulation) {
    return flash_verify_mma_kernel<kStages, kTokenSplit, kBalanced, VerifyParams, kFp8Kv, kFp8Math,
                                   /*kSm120Emu=*/true>;
  } else {
    return nullptr;
  }
}

// One instance family's kernels at each built pipeline depth (kPipelineVariants); sm_120's
// emulation at sm_120's depth only.
template <bool kTokenSplit, bool kBalanced>
detail::MmaKernels mma_kernels_at_depth(int stages) {
  static_assert(sizeof(kPipelineVariants) / sizeof(kPipelineVariants[0]) == 2 && kPipelineVariants[0] == 4 &&
                    kPipelineVariants[1] == 2,
                "one case per built depth");
  switch (stages) {
    case 4:
      return {flash_verify_mma_kernel<4, kTokenSplit, kBalanced, VerifyParams>,
              flash_verify_mma_kernel<4, kTokenSplit, kBalanced, IndptrLengthParams>,
              flash_verify_mma_kernel<4, kTokenSplit, kBalanced, VerifyParams, /*kFp8Kv=*/true>,
              flash_verify_mma_kernel<4, kTokenSplit, kBalanced, VerifyParams, /*kFp8Kv=*/true, /*kFp8Math=*/true>,
              nullptr, nullptr, nullptr};
    case 2:
      return {flash_verify_mma_kernel<2, kTokenSplit, kBalanced, VerifyParams>,
              flash_verify_mma_kernel<2, kTokenSplit, kBalanced, IndptrLengthParams>,
              flash_verify_mma_kernel<2, kTokenSplit, kBalanced, VerifyParams, /*kFp8Kv=*/true>,
              flash_verify_mma_kernel<2, kTokenSplit, kBalanced, VerifyParams, /*kFp8Kv=*/true, /*kFp8Math=*/true>,
              sm120_emulation_kernel<2, kTokenSplit, kBalanced, /*kFp8Kv=*/false>(),
              sm120_emulation_kernel<2, kTokenSplit, kBalanced, /*kFp8Kv=*/true>(),
              sm120_emulation_kernel<2, kTokenSplit, kBalanced, /*kFp8Kv=*/true, /*kFp8Math=*/true>()};
  }
  return {nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr};
}

template <bool kTokenSplit, bool kBalanced>
detail::MmaKernelFamily mma_kernel_family() {
  return {mma_kernels_at_depth<kTokenSplit, kBalanced>, mma_timeline_clear, mma_timeline_read};
}

}  // namespace
}  // namespace vb

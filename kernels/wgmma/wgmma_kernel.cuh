// The wgmma main kernel (sm_90a only): device code, included by the instance files
// (wgmma/wgmma_gather_sm90a.cu, wgmma/wgmma_run_boxes_sm90a.cu, wgmma/wgmma_page_boxes_sm90a.cu,
// wgmma/wgmma_balanced_sm90a.cu), each of which compiles one instance family in its own translation
// unit; wgmma/wgmma_launch_sm90a.cu launches them.
//
// The contract is the mma.sync path's (mma_sync/mma_kernel.cuh: split-KV flash decode, one block
// per request x row tile x token range, node-major head-minor rows, the tree mask past the
// prefix, the same split workspace and combine), with another engine, for requests with
// H*T >= 64 rows, where the mma.sync path is bound by its issue rate.
//
// One block = 64 query rows (one wgmma M) and 64-token tiles, three warpgroups:
//   producer   (warpgroup 0, 88 registers) loads Q once and every KV tile with 16-byte
//              cp.async gathers straight into the 128-byte-swizzled layout wgmma reads
//              (a row of 576 values becomes 9 swizzled 128-byte rows, one per 64-value
//              column block); completion is counted on the stage's "full" mbarriers with
//              cp.async.mbarrier.arrive.noinc. Page size 1 rules out TMA tiles in general
//              (every row can live anywhere), but the token table's instance for plans of
//              >= 4 row tiles (kRunBoxes) checks each tile: a warp whose 16 rows are
//              consecutive pool rows loads them as 9 TMA boxes instead; the block table's
//              instance (kPageBoxes, pages of >= 16 rows) loads every tile inside kv_len so,
//              with no check (kernels/wgmma/wgmma_config.h).
//   softmax    (warpgroup 1, 240 registers) S = Q K^T (36 wgmma m64n64k16, both operands
//              from shared memory), the masked online softmax on the accumulators (each
//              thread owns 2 rows x 16 tokens), P as bf16 A fragments in registers, and
//              O[:, 0:256] += P V (wgmma m64n256k16, A from registers, V from the same
//              shared-memory rows, MN-major).
//   second PV  (warpgroup 2, 176 registers) O[:, 256:512] += P V with P and the rescale
//              factors handed over through shared memory (named barriers 1 and 2).
// Each stage is released on its "empty" mbarrier by all 8 consumer warps once their wgmma
// reads of it have completed. PV of tile i-1 and S of tile i are in flight together on the
// softmax warpgroup.
//
// The kernel (flash_verify_wgmma_kernel, at the end) is the outline: the block's work, the
// barriers, then one branch per warpgroup with its loop over tiles (tile-balanced: and over
// segments). Each role is a force-inlined function above it, in the order of the outline:
// set-up, producer, scores, softmax, P's hand-over, PV, epilogue. Every array (accumulators,
// fragments, page-table words, row sources) is declared in the kernel and passed by reference,
// and where a role was a lambda, what the lambda captured is passed by const reference:
// otherwise nvcc numbers the kernel's values in another order and ptxas lays the tile-balanced
// instance out differently (kernels/NOTES.md, code layout). scripts/kernel_text_digest.sh
// shows whether a rearrangement keeps every instance's machine code.
#pragma once
#include <cuda.h>  // CUtensorMap
#include <cuda_bf16.h>

#include <cmath>
#include <vector>

#include "common/split_kv.h"
#include "common/timeline.cuh"
#include "common/warp_ops.cuh"
#include "verifybench/kernels.h"
#include "wgmma/wgmma_config.h"
#include "wgmma/wgmma_instances.h"
#include "wgmma/wgmma_ops.cuh"

namespace vb {
namespace {

using namespace wgmma_cfg;

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;
// Registers per thread after setmaxnreg: kProducerRegs / kSoftmaxRegs / kSecondPvRegs
// (wgmma/wgmma_config.h). The tile-balanced instance's producer also walks its segments and
// reloads Q for each request: at 88 it spills; 96 / 232 / 176 do not. (It has no TMA boxes:
// with them its producer spills at 96, and at 104 / 224 / 176 the balanced plans, which are
// memory-bound, run 2-3.5 % slower.)
constexpr int kBalancedProducerRegs = 96;
constexpr int kBalancedSoftmaxRegs = 232;
static_assert(kBalancedProducerRegs + kBalancedSoftmaxRegs + kSecondPvRegs == 3 * 168, "the block's register budget");
constexpr int kBarPFull = 1;        // softmax warpgroup -> second PV warpgroup: P(i) is in smem
constexpr int kBarPEmpty = 2;       // second PV warpgroup -> softmax warpgroup: P(i) was read
constexpr int kBarEpilogue = 3;     // final row sums are in smem
constexpr int kBarStaged = 4;       // + warpgroup - 1: a consumer warpgroup's bf16 partial is staged
constexpr int kConsumerThreads = 256;

// Debug builds only (-DVB_WGMMA_HANDOFF_SYNC=1): both sides of the P hand-over use bar.sync
// instead of an arrive on one side, so compute-sanitizer racecheck sees plain barriers (it
// reports the arrive/sync hand-over as a race). Slower (each warpgroup waits for the other),
// same results.
#ifndef VB_WGMMA_HANDOFF_SYNC
#define VB_WGMMA_HANDOFF_SYNC 0
#endif
__device__ __forceinline__ void handoff_signal(int id) {
#if VB_WGMMA_HANDOFF_SYNC
  warp::named_barrier_sync(id, kConsumerThreads);
#else
  wg::named_barrier_arrive(id, kConsumerThreads);
#endif
}
constexpr int kSTiles = kTokensPerTile / 8;   // n8 column chunks of S per thread: 8
constexpr int kSRegs = kTokensPerTile / 2;    // S accumulators per thread: 32
constexpr int kORegs = 128;                   // O accumulators per thread (64 x 256 / 128)
constexpr int kKSteps = mla::kHeadDimQK / 16;  // 36 k16 steps of S
constexpr int kPvSteps = kTokensPerTile / 16;  // 4 k16 steps of PV
// The softmax scales each score inside its exponent's FFMA (the row max is taken of unscaled
// scores: the scale is positive), prefix-only tiles skip the mask test in a loop of their
// own, and P goes to the second PV warpgroup in 16-byte accesses, one per k16 step and thread.
// Lazy rescaling (log2 units): the running row max, and with it the scale of O and of the row
// sums, moves only when a tile's max exceeds it by more than this; P is then at most 2^k.
constexpr float kLazyRescale = 8.0f;
static_assert(kLazyRescale >= 0.f && kLazyRescale <= 16.f, "P <= 2^k must stay well inside bf16 and fp32 sums");

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define VB_WGMMA_DEVICE_CODE 1
#endif

// Byte offset of 16-byte chunk `chunk` (0..71) of row `row` in a [9][rows][128 B] block
// set with the 128-byte swizzle (chunk index within its 128-byte row XOR row mod 8).
__device__ __forceinline__ int swizzled_offset(int row, int chunk, int block_bytes) {
  return (chunk >> 3) * block_bytes + row * 128 + (((chunk & 7) ^ (row & 7)) << 4);
}

// Bit c: is token tile*64 + c visible to the node whose ancestor mask is `mask`? Prefix
// tokens are, tree node j is when bit j of the mask is set, tokens past kv_len are not.
// Only called for tiles that reach past the prefix (so fewer than 64 prefix columns).
__device__ __forceinline__ std::uint64_t tile_visibility(const std::uint64_t* mask, int tile, int prefix,
                                                         int kv_len) {
  const int j0 = tile * kTokensPerTile - prefix;  // tree index of column 0
  std::uint64_t vis;
  if (j0 >= 0) {  // the words holding tree indices j0 .. j0 + 63 (j0 < T: this tile is not empty)
    const int word = j0 >> 6, shift = j0 & 63;
    const std::uint64_t lo = mask[word];
    const int tree_size = kv_len - prefix;
    const std::uint64_t hi = shift != 0 && (word + 1) * 64 < tree_size ? mask[word + 1] : 0;
    vis = shift != 0 ? (lo >> shift) | (hi << (64 - shift)) : lo;
  } else {  // columns 0 .. -j0-1 are prefix tokens, then tree nodes 0 ..
    const int n = -j0;  // 1 .. 63
    vis = (mask[0] << n) | ((1ull << n) - 1);
  }
  const int valid_columns = kv_len - tile * kTokensPerTile;
  if (valid_columns < 64) vis &= (1ull << valid_columns) - 1;
  return vis;
}

// Phase timeline slots (-DVB_DEBUG_TIMELINE=1 builds; common/timeline.cuh).
VB_TIMELINE_SLOTS(g_timeline_wgmma, detail::kTimelineMainSlots);

// Tile-balanced instance: a warp's walk over its block's range (verifybench/tile_balance.h),
// in static shared memory (registers are the budget: 88 / 240 / 176 per warpgroup). Every warp
// walks it itself, so segment changes need no block-wide exchange; all reach the same ones.
constexpr int kWalkBytes = sizeof(tile_balance::Walk) * (kThreads / 32);
static_assert(kWalkBytes <= 1024 && kSmemBytes + 1024 <= kHopperSmemLimit,
              "the walk states (static shared memory, rounded up to the dynamic base's 1024-byte alignment) must fit");

// ---- set-up ----

// The block's mbarriers (thread 0): each stage's "full" parts count one cp.async completion
// per producer thread, its "empty" one arrival per consumer warp; Q's "full" counts the producer
// threads' completions (tile-balanced: and producer thread 0's arrive once it has published the
// segment in s_next), Q's "empty" one arrival per softmax warp.
__device__ __forceinline__ void init_barriers(std::uint64_t* s_full, std::uint64_t* s_empty, std::uint64_t* s_q_full,
                                              std::uint64_t* s_q_empty, bool balanced) {
#pragma unroll
  for (int s = 0; s < kStages; ++s) {
#pragma unroll
    for (int part = 0; part < kLoadParts; ++part) warp::mbarrier_init(&s_full[s * kLoadParts + part], 128);
    warp::mbarrier_init(&s_empty[s], 8);
  }
  warp::mbarrier_init(s_q_full, balanced ? 129 : 128);
  warp::mbarrier_init(s_q_empty, 4);
  warp::fence_mbarrier_init();
}

// Tile-balanced (warp 0): the block's range of the batch's tiles and its first segment; every
// warp's walk state to s_walks, the segment (request -1: none) to s_first.
template <class Params>
__device__ __forceinline__ void first_balanced_segment(const Params& p, const detail::SplitWorkspace& ws, int boundary,
                                                       int num_splits, int lane, tile_balance::Walk* s_walks,
                                                       int* s_first) {
  tile_balance::Walk w = detail::balanced_walk_warp(p, kTokensPerTile, boundary, blockIdx.y, num_splits, lane);
  tile_balance::Segment seg;
  const bool any = tile_balance::next_segment(p, kTokensPerTile, boundary, w, &seg);
  if (lane < kThreads / 32) s_walks[lane] = w;
  if (lane == 0) {
    if (any) detail::record_request_slots(ws, seg, blockIdx.y);
    s_first[0] = any ? seg.request : -1;
    s_first[1] = seg.tile_begin;
    s_first[2] = seg.tile_end;
  }
  if (threadIdx.x == 0) VB_TIMELINE_WORK_KNOWN(g_timeline_wgmma, static_cast<int>(w.range_end - w.range_begin));
}

// ---- producer (warpgroup 0) ----

// Q rows of this tile (zeros past the request's rows) into the Q buffer, completion counted on
// s_q_full. Lane l copies 16-byte chunk (l % 8) of each 128-byte column block of 4 rows per
// pass. Tile-balanced: a pass at a time (unrolled, the reload between segments spills).
template <bool kBalanced, class Params>
__device__ __forceinline__ void load_q_rows(const Params& p, unsigned char* const& smem, std::uint64_t* const& s_q_full,
                                            const int& row0, const int& rows_per_request,
                                            const std::int64_t& request_row0, const int& row_in_pass,
                                            const int& chunk_in_block) {
#pragma unroll(kBalanced ? 1 : 4)
  for (int pass = 0; pass < 4; ++pass) {
    const int r = pass * 16 + row_in_pass;
    const bool valid = row0 + r < rows_per_request;
    const bf16_bits* src = valid ? p.q + (request_row0 + row0 + r) * mla::kHeadDimQK : p.q;
#pragma unroll
    for (int blk = 0; blk < kDimBlocks; ++blk) {
      const int chunk = blk * 8 + chunk_in_block;
      warp::cp_async_16(smem + kOffQ + swizzled_offset(r, chunk, kRowsPerTile * 128), src + chunk * 8, valid);
    }
  }
  wg::cp_async_mbarrier_arrive_noinc(s_q_full);
}

// The pool addresses of the tile's rows, one per pass, from their page-table words.
template <class TokenOf>
__device__ __forceinline__ void row_sources(const bf16_bits* (&src)[4], const detail::RequestKvRows<>& rows,
                                            const std::int64_t (&entry)[4], int tile, const TokenOf& token_of) {
#pragma unroll
  for (int pass = 0; pass < 4; ++pass) src[pass] = rows.row_ptr(token_of(tile, pass), entry[pass]);
}

// Whether the warp's 16 rows of the tile are 16 consecutive rows of the pool (a TMA box) and,
// if so, the first one's row.
__device__ __forceinline__ bool rows_form_run(const bf16_bits* (&src)[4], const bf16_bits* kv_pool, int lane,
                                              int& box_row) {
  const bf16_bits* first =
      reinterpret_cast<const bf16_bits*>(__shfl_sync(0xffffffffu, reinterpret_cast<unsigned long long>(src[0]), 0));
  bool run = true;
#pragma unroll
  for (int pass = 0; pass < 4; ++pass) {
    run = run && src[pass] == first + (pass * 4 + (lane >> 3)) * mla::kHeadDimQK;
  }
  const bool tma_box = __all_sync(0xffffffffu, run);
  if (tma_box) box_row = static_cast<int>((first - kv_pool) / mla::kHeadDimQK);  // < 2^31: the launcher checks
  return tma_box;
}

// One tile's KV rows into its stage, in column-block parts in the order S reads them. Each
// part's arrival on its "full" mbarrier fires once all of this thread's copies so far (that
// part and the earlier ones) have landed, or (TMA box) once its boxes' bytes have.
template <class KvRow>
__device__ __forceinline__ void copy_tile_parts(std::uint64_t* s_full, int stage, unsigned char* stage_base,
                                                bool tma_box, int box_row, const bf16_bits* (&src)[4],
                                                const CUtensorMap& kv_map, const KvRow& kv_row, int lane, int wg_warp,
                                                int chunk_in_block) {
#pragma unroll
  for (int part = 0; part < kLoadParts; ++part) {
    std::uint64_t* full = &s_full[stage * kLoadParts + part];
    if (tma_box) {
      if (lane == 0) {
        warp::mbarrier_arrive_expect_tx(full, kBlocksPerPart * kTmaBoxBytes);
#pragma unroll
        for (int blk = part * kBlocksPerPart; blk < (part + 1) * kBlocksPerPart; ++blk) {
          wg::tma_load_2d(warp::smem_addr(stage_base + blk * kBlockBytes + wg_warp * kTmaBoxBytes), &kv_map, blk * 64,
                          box_row, warp::smem_addr(full));
        }
      } else {
        warp::mbarrier_arrive(full);
      }
      continue;
    }
#pragma unroll
    for (int pass = 0; pass < 4; ++pass) {
      const int r = kv_row(pass);
#pragma unroll
      for (int blk = part * kBlocksPerPart; blk < (part + 1) * kBlocksPerPart; ++blk) {
        const int chunk = blk * 8 + chunk_in_block;
        warp::cp_async_16(stage_base + swizzled_offset(r, chunk, kBlockBytes), src[pass] + chunk * 8, true);
      }
    }
    wg::cp_async_mbarrier_arrive_noinc(full);
  }
}

// Tile-balanced: the walk's next segment for the softmax warpgroup (s_next, read once s_q_full
// completes with the segment's Q) and the request's slots for the combine.
__device__ __forceinline__ void publish_segment(const detail::SplitWorkspace& ws, int* s_next,
                                                const tile_balance::Segment& seg) {
  detail::record_request_slots(ws, seg, blockIdx.y);
  s_next[0] = seg.request;
  s_next[1] = seg.tile_begin;
  s_next[2] = seg.tile_end;
}

// Tile-balanced: no more segments; s_q_full completes without a Q so the softmax warpgroup
// reads the "none".
__device__ __forceinline__ void publish_no_segment(int* s_next, std::uint64_t* s_q_full, int wg_tid) {
  if (wg_tid == 0) {
    s_next[0] = -1;
    warp::mbarrier_arrive(s_q_full);
  }
  warp::mbarrier_arrive(s_q_full);
}

// A page box's first pool row: its page's first row plus the warp's offset in the page
// (< 2^31: the launcher checks).
__device__ __forceinline__ int page_box_row(std::int64_t entry, int page_shift, int first_token) {
  return static_cast<int>((entry << page_shift) + (first_token & ((1 << page_shift) - 1)));
}

// ---- scores (softmax warpgroup) ----

// S = Q K^T of one stage into s_acc: k step ks reads column block ks/4 at byte 32*(ks%4) of
// its 128-byte rows, and each load part's k steps are issued once that part has landed.
__device__ __forceinline__ void issue_scores(float (&s_acc)[kSRegs], std::uint64_t q_desc, std::uint64_t k_desc,
                                             std::uint64_t* s_full, int stage, int iter, bool timeline_thread) {
  constexpr int kStepsPerPart = kKSteps / kLoadParts;
#pragma unroll
  for (int part = 0; part < kLoadParts; ++part) {
    warp::mbarrier_wait_parity(&s_full[stage * kLoadParts + part], (iter / kStages) & 1);
    if (timeline_thread && iter == 0 && part == 0) VB_TIMELINE_STAMP(g_timeline_wgmma, kTimelineFirstTile);
    warp::fence_proxy_async_shared();  // cp.async (generic proxy) bytes read by wgmma (async proxy)
    if (part == 0) wg::fence();
#pragma unroll
    for (int ks = part * kStepsPerPart; ks < (part + 1) * kStepsPerPart; ++ks) {
      const std::uint32_t step = ((ks / 4) * kRowsPerTile * 128 + (ks % 4) * 32) >> 4;
      const std::uint32_t kstep = ((ks / 4) * kBlockBytes + (ks % 4) * 32) >> 4;
      wg::wgmma_m64n64k16_ss(s_acc, q_desc + step, k_desc + kstep, ks > 0 ? 1 : 0);
    }
  }
  wg::commit_group();
}

// ---- softmax (softmax warpgroup, log2 domain) ----

// The visibility of the tile's 64 tokens for each of the thread's rows as one 64-bit word,
// shifted so bit 8j + e&1 is this thread's column (all visible on prefix-only tiles). Over a
// mask writer the first tree tile waits for that kernel here.
template <bool kWaitBeforeTreeMask>
__device__ __forceinline__ void row_visibility(const std::uint64_t* mask_lo, const std::uint64_t* mask_hi,
                                               bool valid_lo, bool valid_hi, bool tree_tile, int tile, int prefix,
                                               int kv_len, int quad_col, std::uint64_t& vis_lo,
                                               std::uint64_t& vis_hi) {
  vis_lo = ~0ull;
  vis_hi = ~0ull;
  if (tree_tile) {
    if (kWaitBeforeTreeMask) warp::wait_for_prerequisite_grid();
    vis_lo = valid_lo ? tile_visibility(mask_lo, tile, prefix, kv_len) : ~0ull;
    vis_hi = valid_hi ? tile_visibility(mask_hi, tile, prefix, kv_len) : ~0ull;
  }
  vis_lo >>= 2 * quad_col;
  vis_hi >>= 2 * quad_col;
}

// The row maxima of the tile, scaled, for the thread's two rows (quad-uniform). On tree tiles
// the invisible scores become -inf first: vis_lo / vis_hi hold the visibility of the thread's
// columns (bit 8j + e&1), so the test is a shift and a select, with no branch. The scores stay
// raw (scaled inside the exponent's FFMA): the max of raw scores times the positive scale is
// the max of scaled ones.
__device__ __forceinline__ void masked_tile_max(float (&s_acc)[kSRegs], std::uint64_t vis_lo, std::uint64_t vis_hi,
                                                bool tree_tile, float scale_log2, float& max_lo, float& max_hi) {
  max_lo = -INFINITY;
  max_hi = -INFINITY;
  if (!tree_tile) {  // every column visible: no mask test
#pragma unroll
    for (int j = 0; j < kSTiles; ++j) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        if (e >= 2) max_hi = fmaxf(max_hi, s_acc[4 * j + e]); else max_lo = fmaxf(max_lo, s_acc[4 * j + e]);
      }
    }
  } else {
#pragma unroll
    for (int j = 0; j < kSTiles; ++j) {
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const bool hi = e >= 2;
        const bool visible = (((hi ? vis_hi : vis_lo) >> (8 * j + (e & 1))) & 1u) != 0;
        const float v = visible ? s_acc[4 * j + e] : -INFINITY;
        s_acc[4 * j + e] = v;
        if (hi) max_hi = fmaxf(max_hi, v); else max_lo = fmaxf(max_lo, v);
      }
    }
  }
#pragma unroll
  for (int offset = 1; offset < 4; offset *= 2) {
    max_lo = fmaxf(max_lo, __shfl_xor_sync(0xffffffffu, max_lo, offset));
    max_hi = fmaxf(max_hi, __shfl_xor_sync(0xffffffffu, max_hi, offset));
  }
  max_lo *= scale_log2;  // -inf stays -inf: the scale is positive (params_valid)
  max_hi *= scale_log2;
}

// One tile of the online softmax: the running max moves only when the tile's max exceeds it
// by more than kLazyRescale (the first visible score always moves it); below that P stays
// <= 2^k and O and the sums keep their scale, so most tiles skip the rescale multiplies
// (a_lo = a_hi = 1). The scores become P = 2^(score * scale - max), one FFMA per score for
// the scale and the shift together, and the row sums take them in.
__device__ __forceinline__ void online_softmax_step(float (&s_acc)[kSRegs], float max_lo, float max_hi,
                                                    float scale_log2, float& row_max_lo, float& row_max_hi,
                                                    float& row_sum_lo, float& row_sum_hi, float& a_lo, float& a_hi) {
  const bool move_lo = fmaxf(row_max_lo, max_lo) > row_max_lo + kLazyRescale;
  const bool move_hi = fmaxf(row_max_hi, max_hi) > row_max_hi + kLazyRescale;
  const float new_lo = move_lo ? max_lo : row_max_lo;
  const float new_hi = move_hi ? max_hi : row_max_hi;
  const float base_lo = new_lo == -INFINITY ? 0.f : new_lo;  // nothing visible yet
  const float base_hi = new_hi == -INFINITY ? 0.f : new_hi;
  a_lo = move_lo ? warp::fast_exp2(row_max_lo - base_lo) : 1.f;
  a_hi = move_hi ? warp::fast_exp2(row_max_hi - base_hi) : 1.f;
  row_max_lo = new_lo;
  row_max_hi = new_hi;
  row_sum_lo *= a_lo;
  row_sum_hi *= a_hi;
  auto shifted_exp = [&](float score, float base) { return warp::fast_exp2(fmaf(score, scale_log2, -base)); };
#pragma unroll
  for (int j = 0; j < kSTiles; ++j) {
    s_acc[4 * j] = shifted_exp(s_acc[4 * j], base_lo);
    s_acc[4 * j + 1] = shifted_exp(s_acc[4 * j + 1], base_lo);
    s_acc[4 * j + 2] = shifted_exp(s_acc[4 * j + 2], base_hi);
    s_acc[4 * j + 3] = shifted_exp(s_acc[4 * j + 3], base_hi);
    row_sum_lo += s_acc[4 * j] + s_acc[4 * j + 1];
    row_sum_hi += s_acc[4 * j + 2] + s_acc[4 * j + 3];
  }
}

// P as wgmma A fragments: k16 step kk covers S chunks 2kk (a0: row lo, a1: row hi) and 2kk+1
// (a2: row lo, a3: row hi).
__device__ __forceinline__ void p_fragments(std::uint32_t (&p_frag)[kPvSteps][4], const float (&s_acc)[kSRegs]) {
#pragma unroll
  for (int kk = 0; kk < kPvSteps; ++kk) {
    p_frag[kk][0] = warp::pack_bf16x2(s_acc[8 * kk], s_acc[8 * kk + 1]);
    p_frag[kk][1] = warp::pack_bf16x2(s_acc[8 * kk + 2], s_acc[8 * kk + 3]);
    p_frag[kk][2] = warp::pack_bf16x2(s_acc[8 * kk + 4], s_acc[8 * kk + 5]);
    p_frag[kk][3] = warp::pack_bf16x2(s_acc[8 * kk + 6], s_acc[8 * kk + 7]);
  }
}

// ---- P's hand-over (softmax warpgroup -> second PV warpgroup) ----

// P and the rescale factors to the second PV warpgroup (same thread index, same rows), in
// one 16-byte store per k16 step, once it has read the previous tile's (tile-balanced: and the
// previous segment's final sums).
__device__ __forceinline__ void hand_over_p(std::uint32_t* s_pexchange, float* s_rescale,
                                            const std::uint32_t (&p_frag)[kPvSteps][4], float a_lo, float a_hi,
                                            int iter, int wg_tid, int quad_col, int row_lo, int row_hi) {
  if (iter > 0) warp::named_barrier_sync(kBarPEmpty, kConsumerThreads);
#pragma unroll
  for (int kk = 0; kk < kPvSteps; ++kk) {
    reinterpret_cast<uint4*>(s_pexchange)[kk * 128 + wg_tid] =
        make_uint4(p_frag[kk][0], p_frag[kk][1], p_frag[kk][2], p_frag[kk][3]);
  }
  if (quad_col == 0) {
    s_rescale[row_lo] = a_lo;
    s_rescale[row_hi] = a_hi;
  }
  handoff_signal(kBarPFull);
}

// The second PV warpgroup's side: P of the tile, one 16-byte load per k16 step.
__device__ __forceinline__ void take_over_p(std::uint32_t (&p_frag)[kPvSteps][4], const std::uint32_t* const& s_pexchange,
                                            const int& wg_tid) {
#pragma unroll
  for (int kk = 0; kk < kPvSteps; ++kk) {
    const uint4 v = reinterpret_cast<const uint4*>(s_pexchange)[kk * 128 + wg_tid];
    p_frag[kk][0] = v.x; p_frag[kk][1] = v.y; p_frag[kk][2] = v.z; p_frag[kk][3] = v.w;
  }
}

// ---- PV (both consumer warpgroups) ----
// Accumulator layout of a wgmma m64nN tile: warp w of the warpgroup owns rows 16w..16w+15;
// lane (g = lane/4, q = lane%4) holds, for each 8-column chunk j, columns 8j+2q, 8j+2q+1
// of rows 16w+g (registers 4j, 4j+1) and 16w+g+8 (4j+2, 4j+3).

__device__ __forceinline__ void zero_o(float (&o_acc)[kORegs]) {
#pragma unroll
  for (int i = 0; i < kORegs; ++i) o_acc[i] = 0.f;
}

// V of stage `stage` for k16 step kk: MN-major, channel blocks 8192 B apart, 8-token groups
// 1024 B.
__device__ __forceinline__ std::uint64_t v_desc(std::uint32_t kv_base, int stage, int half, int kk) {
  return wg::smem_desc_sw128(kv_base + stage * kTileBytes + half * 4 * kBlockBytes + kk * 16 * 128, kBlockBytes,
                             1024);
}

// O[:, half*256 ..] += P V of stage `stage`.
__device__ __forceinline__ void issue_pv(float (&o_acc)[kORegs], std::uint32_t (&p_frag)[kPvSteps][4],
                                         const std::uint32_t& kv_base, int stage, const int& half) {
  wg::fence();
#pragma unroll
  for (int kk = 0; kk < kPvSteps; ++kk) wg::wgmma_m64n256k16_rs(o_acc, p_frag[kk], v_desc(kv_base, stage, half, kk), 1);
  wg::commit_group();
}

// O's rows scaled by the softmax's factors; nothing to do when neither row's max moved.
__device__ __forceinline__ void rescale_o(float (&o_acc)[kORegs], float a_lo, float a_hi) {
  if (a_lo == 1.f && a_hi == 1.f) return;
#pragma unroll
  for (int j = 0; j < kORegs / 4; ++j) {
    o_acc[4 * j] *= a_lo; o_acc[4 * j + 1] *= a_lo;
    o_acc[4 * j + 2] *= a_hi; o_acc[4 * j + 3] *= a_hi;
  }
}

// This warp's wgmma reads of the stage have completed: one arrival on its "empty" mbarrier.
__device__ __forceinline__ void release_stage(std::uint64_t* s_empty, int stage, int lane) {
  __syncwarp();
  if (lane == 0) warp::mbarrier_arrive(&s_empty[stage]);
}

// ---- epilogue (both consumer warpgroups) ----

// The rows' final sums (the quad's partial sums added) to shared memory for the second PV
// warpgroup, and their LSE (natural log): final, or the split's partial.
template <class Params, class PartialRow>
__device__ __forceinline__ void store_row_stats(const Params& p, const detail::SplitWorkspace& ws, float* s_final_sum,
                                                float& row_sum_lo, float& row_sum_hi, float row_max_lo,
                                                float row_max_hi, int row_lo, int row_hi, int quad_col, int row0,
                                                int rows_per_request, std::int64_t request_row0, bool whole,
                                                const PartialRow& partial_row) {
#pragma unroll
  for (int offset = 1; offset < 4; offset *= 2) {
    row_sum_lo += __shfl_xor_sync(0xffffffffu, row_sum_lo, offset);
    row_sum_hi += __shfl_xor_sync(0xffffffffu, row_sum_hi, offset);
  }
  if (quad_col == 0) {
    s_final_sum[row_lo] = row_sum_lo;
    s_final_sum[row_hi] = row_sum_hi;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = h ? row_hi : row_lo;
      if (row0 + r >= rows_per_request) continue;
      const float sum = h ? row_sum_hi : row_sum_lo;
      const float mx = h ? row_max_hi : row_max_lo;
      const float lse = sum == 0.f ? -INFINITY : mx * kLn2 + logf(sum);
      if (whole) {
        p.lse[request_row0 + row0 + r] = lse;
      } else {
        ws.lse_partial[partial_row(row0 + r)] = lse;
      }
    }
  }
}

// This warpgroup's 256 channels of the 64 rows, normalised, in bf16: the final O of a request
// the block holds whole, or its bf16 split partial (detail::bf16_partials, common/split_kv.h).
// Staged in the Q buffer (rows padded by 16 bytes, so a warp's eight rows fall in distinct
// banks), then out in 16-byte chunks, a warp per 512-byte half row: straight from the
// accumulators each store fills half of eight 32-byte sectors, and a whole request's final O
// took 5.5-5.7 us of epilogue there against 2.1 us for staged partials of the same size
// (reports/h200/2026-12-03-fixed-cost).
// row_out(r): where row r of the tile goes.
template <class RowOut>
__device__ __forceinline__ void store_bf16_rows_staged(const float (&o_acc)[kORegs], unsigned char* smem, float sum_lo,
                                                       float sum_hi, int row_lo, int row_hi, int quad_col, int half,
                                                       int wg_tid, int row0, int rows_per_request,
                                                       const RowOut& row_out) {
  constexpr int kRowWords = mla::kHeadDimV / 2 + 4;
  static_assert(kRowsPerTile * kRowWords * 4 <= kQBytes, "the staged rows fit the Q buffer");
  auto* staged = reinterpret_cast<std::uint32_t*>(smem + kOffQ);
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int r = h ? row_hi : row_lo;
    const float sum = h ? sum_hi : sum_lo;
    const float inv = sum > 0.f ? 1.f / sum : 0.f;
#pragma unroll
    for (int j = 0; j < kORegs / 4; ++j) {
      staged[r * kRowWords + half * 128 + 4 * j + quad_col] =
          warp::pack_bf16x2(o_acc[4 * j + 2 * h] * inv, o_acc[4 * j + 2 * h + 1] * inv);
    }
  }
  warp::named_barrier_sync(kBarStaged + half, 128);
#pragma unroll 4
  for (int i = wg_tid; i < kRowsPerTile * 32; i += 128) {
    const int r = i / 32, chunk = i % 32;  // 8 channels each
    if (row0 + r >= rows_per_request) break;  // rows in order: the rest lie past the request too
    const uint4 v = *reinterpret_cast<const uint4*>(staged + r * kRowWords + half * 128 + chunk * 4);
    *reinterpret_cast<uint4*>(row_out(r) + half * 256 + chunk * 8) = v;
  }
}

// This warpgroup's 256 channels of the thread's two rows, normalised, straight from the
// accumulators (the tile-balanced instance, whose Q buffer may already hold the next segment's
// Q): the final O (bf16) when the block holds the request whole, else the fp32 partial.
template <class Params, class PartialRow>
__device__ __forceinline__ void store_o_rows(const Params& p, const detail::SplitWorkspace& ws,
                                             const float (&o_acc)[kORegs], float sum_lo, float sum_hi, int row_lo,
                                             int row_hi, int quad_col, int half, int row0, int rows_per_request,
                                             std::int64_t request_row0, bool whole, const PartialRow& partial_row) {
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    const int r = h ? row_hi : row_lo;
    if (row0 + r >= rows_per_request) continue;
    const std::int64_t qrow = request_row0 + row0 + r;
    const float sum = h ? sum_hi : sum_lo;
    const float inv = sum > 0.f ? 1.f / sum : 0.f;
#pragma unroll
    for (int j = 0; j < kORegs / 4; ++j) {
      const int col = half * 256 + 8 * j + 2 * quad_col;
      const float x = o_acc[4 * j + 2 * h] * inv;
      const float y = o_acc[4 * j + 2 * h + 1] * inv;
      if (whole) {
        *reinterpret_cast<__nv_bfloat162*>(p.o + qrow * mla::kHeadDimV + col) = __floats2bfloat162_rn(x, y);
      } else {
        *reinterpret_cast<float2*>(ws.o_partial + partial_row(row0 + r) * mla::kHeadDimV + col) = make_float2(x, y);
      }
    }
  }
}

// Params: VerifyParams, or IndptrLengthParams for a launch over a kernel that is still
// writing the mask and the lengths (FlashVerifyLaunchOptions): then the lengths come from
// kv_indptr and the softmax warpgroup waits for that kernel at its first tree tile.
// kBoxes: kNoBoxes, every KV row through cp.async gathers; kRunBoxes, the instance whose producer
// checks each tile for runs of 16 consecutive pool rows and loads those as TMA boxes (token
// table); kPageBoxes, the block table's instance, whose producer loads every tile inside kv_len
// as boxes without a check (pages of >= 16 rows, a power of two, hold 16-row groups whole).
// The planner's rule: wgmma_instance_for (planner/planner.cpp).
constexpr int kNoBoxes = 0, kRunBoxes = 1, kPageBoxes = 2;
// The producer waits for a tile's stage only after computing its row pointers, its run check
// and the next tile's table words, so the copies go out as soon as the stage frees. The softmax
// warpgroup releases the previous tile's stage before its S waits for this tile's copies, so
// the next tile's copies can go out while this tile's still land (kernels/NOTES.md).
template <bool kBalanced, class Params = VerifyParams, int kBoxes = kNoBoxes>
__global__ void __launch_bounds__(kThreads, 1)
    flash_verify_wgmma_kernel(const Params p, const int num_splits, const int split_tiles,
                              const detail::SplitWorkspace ws, const __grid_constant__ CUtensorMap kv_map,
                              const bool kv_map_ok) {
#if defined(VB_WGMMA_DEVICE_CODE)
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  unsigned char* smem = smem_raw + ((1024 - (warp::smem_addr(smem_raw) & 1023)) & 1023);
  const std::uint32_t smem_base = warp::smem_addr(smem);
  auto* s_pexchange = reinterpret_cast<std::uint32_t*>(smem + kOffPExchange);  // [kPRegs][128]
  auto* s_rescale = reinterpret_cast<float*>(smem + kOffRescale);
  auto* s_final_sum = reinterpret_cast<float*>(smem + kOffFinalSum);
  auto* s_full = reinterpret_cast<std::uint64_t*>(smem + kOffBarriers);  // [kStages][kLoadParts]
  std::uint64_t* s_empty = s_full + kStages * kLoadParts;                // [kStages]
  std::uint64_t* s_q_full = s_empty + kStages;
  std::uint64_t* s_q_empty = s_q_full + 1;  // tile-balanced only

  const int tid = threadIdx.x;
  const int warpgroup = tid / 128;
  const int wg_tid = tid % 128;
  const int wg_warp = wg_tid / 32;
  const int lane = tid % 32;
  if (tid == 0) VB_TIMELINE_BEGIN(g_timeline_wgmma);
  // Launched over the stream's previous kernel (FlashVerifyLaunchOptions): nothing is read
  // or written before it has finished (or, over a mask writer, no mask word: the softmax
  // warpgroup's tree tiles). Returns at once in an ordinary launch.
  constexpr bool kWaitBeforeTreeMask = detail::waits_before_tree_mask<Params>;
  if (!kWaitBeforeTreeMask) warp::wait_for_prerequisite_grid();

  // The current request and its tiles: the block's own, or (tile-balanced) the segment of the
  // walk each warpgroup is in; they change at a segment's end.
  detail::BlockWork work;
  int b = blockIdx.z;
  int token_base = 0;  // kv_indptr[b]: blocks that know their request load it at entry
  int split = 0;                         // the partial's index (tile-balanced: balanced_partial_row)
  bool whole = false;                    // tile-balanced: this block holds all of the request's tiles
  tile_balance::Walk* walk = nullptr;
  // Tile-balanced: the producer's walk hands each next segment (request -1: none) to the
  // softmax warpgroup through s_next, published with the segment's Q (a walk loop in the
  // softmax warpgroup's own code makes ptxas serialise every wgmma: C7520).
  int* s_next = nullptr;
  const int boundary = detail::balanced_boundary_units(split_tiles);
  if constexpr (kBalanced) {
    // Warp 0 finds the block's range and first segment and hands them to every warp through
    // shared memory: with each warp walking here itself (loops of ballots ahead of the
    // warpgroup branches), ptxas serialises every wgmma of the kernel (C7520).
    __shared__ __align__(alignof(tile_balance::Walk)) unsigned char s_walks[kWalkBytes];
    __shared__ int s_first[3];         // request (-1: none), tile_begin, tile_end
    __shared__ int s_next_segment[3];  // the same, for the softmax warpgroup's next segment
    s_next = s_next_segment;
    walk = reinterpret_cast<tile_balance::Walk*>(s_walks) + tid / 32;
    if (tid < 32) {
      first_balanced_segment(p, ws, boundary, num_splits, lane, reinterpret_cast<tile_balance::Walk*>(s_walks),
                             s_first);
    }
    __syncthreads();
    if (s_first[0] < 0) return;  // the same for every thread
    b = s_first[0];
    work.rows_per_request = p.query_rows_per_request();
    work.row0 = blockIdx.x * kRowsPerTile;
    work.request_row0 = static_cast<std::int64_t>(b) * work.rows_per_request;
    work.prefix = p.request_prefix(b);
    work.kv_len = p.kv_len(b);
    work.tile_begin = s_first[1];
    work.tile_end = s_first[2];
    whole = tile_balance::holds_whole_request(work.tile_begin, work.tile_end, kTokensPerTile, work.kv_len);
  } else {
    token_base = detail::RequestKvRows<>::token_rows_base(p, b);  // in flight beside the length
    work = detail::block_work<kRowsPerTile, kTokensPerTile>(p, num_splits, split_tiles);
    constexpr bool kBf16 = detail::bf16_partials(true, false);
    if (detail::empty_split_handled<kRowsPerTile, kBf16>(work, ws, num_splits, split_tiles, tid, kThreads)) return;
    split = blockIdx.y;
    whole = num_splits == 1;
    if (tid == 0) VB_TIMELINE_WORK_KNOWN(g_timeline_wgmma, work.tile_end - work.tile_begin);
  }
  const int rows_per_request = work.rows_per_request, row0 = work.row0;
  int prefix = work.prefix, kv_len = work.kv_len;
  std::int64_t request_row0 = work.request_row0;
  int tile_begin = work.tile_begin, tile_end = work.tile_end;
  // Tile-balanced: moves this warp on to its walk's next segment (false: no more). The
  // segment's values are assigned only by the caller, after what still uses the old ones.
  auto next_segment = [&](tile_balance::Segment* seg) {
    if constexpr (kBalanced) return detail::advance_walk_warp(p, kTokensPerTile, boundary, walk, seg, threadIdx.x & 31);
    return false;
  };
  auto enter_segment = [&](const tile_balance::Segment& seg) {
    b = seg.request;
    prefix = p.request_prefix(b);
    kv_len = p.kv_len(b);
    request_row0 = static_cast<std::int64_t>(b) * rows_per_request;
    tile_begin = seg.tile_begin;
    tile_end = seg.tile_end;
    // tile_balance::holds_whole_request, written out: through the helper ptxas lays this
    // instance out differently, and this kernel's speed moves with its layout (kernels/NOTES.md).
    whole = seg.tile_begin == 0 && seg.tile_end * kTokensPerTile >= kv_len;
  };
  // Made before the barrier set-up so its page-table base load overlaps it (see the mma.sync
  // kernel); only the producer uses it.
  detail::RequestKvRows<> rows(p, b, prefix,
                             kBalanced ? detail::RequestKvRows<>::token_rows_base(p, b) : token_base);

  if (tid == 0) init_barriers(s_full, s_empty, s_q_full, s_q_empty, kBalanced);
  __syncthreads();
  warp::launch_dependents();  // the combine may be scheduled; it waits for this grid

  if (warpgroup == 0) {
    // ---------------- producer ----------------
    wg::setmaxnreg_dec<kBalanced ? kBalancedProducerRegs : kProducerRegs>();
    // Lane l copies 16-byte chunk (l % 8) of each 128-byte column block of 4 rows per
    // pass; a warp covers 4 rows per pass, the warpgroup 16, four passes a 64-row tile.
    // Eight lanes read 128 contiguous bytes of one row per instruction.
    const int chunk_in_block = lane & 7;
    const int row_in_pass = wg_warp * 4 + (lane >> 3);
    // KV rows (Q keeps the order above): in the TMA instance each warp owns 16 consecutive rows
    // of a tile (one box), four per pass.
    static_assert(!(kBalanced && kBoxes != kNoBoxes), "the tile-balanced instance has no TMA boxes");
    constexpr bool kTmaInstance = kBoxes != kNoBoxes;
    constexpr bool kPageInstance = kBoxes == kPageBoxes;
    auto kv_row = [&](int pass) {
      return kTmaInstance ? wg_warp * kTmaBoxRows + pass * 4 + (lane >> 3) : pass * 16 + row_in_pass;
    };
    const bool tma_runs = kTmaInstance && kv_map_ok;
    if (tma_runs && wg_tid == 0) wg::prefetch_tensormap(&kv_map);
    load_q_rows<kBalanced>(p, smem, s_q_full, row0, rows_per_request, request_row0, row_in_pass, chunk_in_block);
    if (kBalanced && wg_tid == 0) warp::mbarrier_arrive(s_q_full);

    // Rows past kv_len re-read the last row (finite, masked out by the softmax).
    auto token_of = [&](int tile, int pass) { return min(tile * kTokensPerTile + kv_row(pass), kv_len - 1); };
    // Page boxes (kPageInstance, block table): every tile inside kv_len with no dense tree row
    // lands as boxes, four per column block, one per warp; the warp's 16 rows lie whole in one
    // page of >= 16 rows (a power of two), so only that page's table word is needed (entry[0],
    // the same word in every lane). Other tiles take the gather and every row's word.
    auto page_box_tile = [&](int tile) {
      return tma_runs && rows.block_form && rows.page_shift >= 4 &&
             (tile + 1) * kTokensPerTile <= (rows.tree_rows != nullptr ? prefix : kv_len);
    };
    auto warp_first_token = [&](int tile) { return tile * kTokensPerTile + wg_warp * kTmaBoxRows; };
    auto load_page_entries = [&](std::int64_t* e, int tile) {
      if (page_box_tile(tile)) {
        e[0] = rows.table_entry(warp_first_token(tile));
      } else {
#pragma unroll
        for (int pass = 0; pass < 4; ++pass) e[pass] = rows.table_entry(token_of(tile, pass));
      }
    };
    // Tile-balanced: the ring position (iter) runs on across segments, and the producer goes
    // on into the next segment's Q and tiles as soon as the ring and Q allow.
    int segment = 1;
    int iter0 = 0;  // tiles of earlier segments
    for (;; ++segment) {
      std::int64_t entry[4];
      if constexpr (kPageInstance) {
        load_page_entries(entry, tile_begin);
      } else {
#pragma unroll
        for (int pass = 0; pass < 4; ++pass) entry[pass] = rows.table_entry(token_of(tile_begin, pass));
      }
      for (int tile = tile_begin; tile < tile_end; ++tile) {
        const int iter = iter0 + tile - tile_begin;
        const int stage = iter % kStages;
        unsigned char* stage_base = smem + kOffKv + stage * kTileBytes;
        const bf16_bits* src[4];
        bool tma_box = false;
        int box_row = 0;
        if constexpr (kPageInstance) {
          tma_box = page_box_tile(tile);
          if (tma_box) {
            box_row = page_box_row(entry[0], rows.page_shift, warp_first_token(tile));
          } else {
            row_sources(src, rows, entry, tile, token_of);
          }
          if (VB_DEBUG_TIMELINE && tid == 0 && tile == tile_begin && iter0 == 0) {
            asm volatile("" ::"l"(entry[0]));  // the (first) page-table word is in
            VB_TIMELINE_STAMP(g_timeline_wgmma, kTimelineTableIn);
          }
        } else {
          row_sources(src, rows, entry, tile, token_of);
          if (VB_DEBUG_TIMELINE && tid == 0 && tile == tile_begin && iter0 == 0) {
            asm volatile("" ::"l"(src[0]), "l"(src[3]));  // the page-table words are in
            VB_TIMELINE_STAMP(g_timeline_wgmma, kTimelineTableIn);
          }
          // One TMA box for this warp's 16 rows when they are consecutive rows of the pool: in a
          // tile with no dense tree row and no row past kv_len (those repeat the last row).
          if (tma_runs && (tile + 1) * kTokensPerTile <= (rows.tree_rows != nullptr ? prefix : kv_len)) {
            tma_box = rows_form_run(src, p.kv_pool_bf16(), lane, box_row);
          }
        }
        if (tile + 1 < tile_end) {
          if constexpr (kPageInstance) {
            load_page_entries(entry, tile + 1);
          } else {
#pragma unroll
            for (int pass = 0; pass < 4; ++pass) entry[pass] = rows.table_entry(token_of(tile + 1, pass));
          }
        }
        // The stage's wait comes last (see the kernel's comment).
        if (iter >= kStages) warp::mbarrier_wait_parity(&s_empty[stage], ((iter / kStages) - 1) & 1);
        copy_tile_parts(s_full, stage, stage_base, tma_box, box_row, src, kv_map, kv_row, lane, wg_warp, chunk_in_block);
        if (VB_DEBUG_TIMELINE && tid == 0 && tile == tile_begin && iter0 == 0) {
          VB_TIMELINE_STAMP(g_timeline_wgmma, kTimelineFirstIssue);
        }
      }
      if constexpr (!kBalanced) break;
      tile_balance::Segment seg;
      const bool more = next_segment(&seg);
      // Once the softmax warpgroup's last S of this segment has read Q (and it has read this
      // segment from s_next): the next segment and its Q, or "none".
      warp::mbarrier_wait_parity(s_q_empty, (segment - 1) & 1);
      if (!more) {
        publish_no_segment(s_next, s_q_full, wg_tid);
        break;
      }
      iter0 += tile_end - tile_begin;
      enter_segment(seg);
      if (wg_tid == 0) publish_segment(ws, s_next, seg);
      load_q_rows<kBalanced>(p, smem, s_q_full, row0, rows_per_request, request_row0, row_in_pass, chunk_in_block);
      if (wg_tid == 0) warp::mbarrier_arrive(s_q_full);  // releases the s_next stores
      rows = detail::RequestKvRows<>(p, b, prefix);
    }
    return;
  }

  // ---------------- consumers ----------------
  // Each warpgroup raises its register budget at the top of its own branch below: code
  // that both run after a shared setmaxnreg would be held to the smaller budget. The
  // accumulator layout (which rows a thread owns) is at the PV roles above.
  const int quad_row = lane / 4;
  const int quad_col = lane % 4;
  const int row_lo = wg_warp * 16 + quad_row;  // block-local rows this thread owns
  const int row_hi = row_lo + 8;
  const int half = warpgroup - 1;  // channel half of O: 0 (softmax warpgroup) or 1
  const std::uint32_t kv_base = smem_base + kOffKv;

  float o_acc[kORegs];  // zeroed by each warpgroup after its setmaxnreg
  std::uint32_t p_frag[kPvSteps][4];
  // Where query row rr's (of this request) split partial goes.
  auto partial_row = [&](int rr) -> std::int64_t {
    if constexpr (kBalanced) return detail::balanced_partial_row(blockIdx.y, b, rows_per_request, rr);
    return (request_row0 + rr) * num_splits + split;
  };

  // Epilogue: this warpgroup's 256 channels of the 64 rows, normalised: the final O when the
  // block holds the request whole, else its partial. Called at the end of each warpgroup's
  // branch, so no code is shared between the two register budgets (a shared tail makes ptxas
  // fit both in the smaller one).
  auto store_o = [&](float sum_lo, float sum_hi) {
    if constexpr (detail::bf16_partials(true, kBalanced)) {  // the Q buffer is free: no next segment
      if (!whole) {
        const auto partial_row_out = [&](int r) {
          return reinterpret_cast<__nv_bfloat16*>(ws.o_partial) + partial_row(row0 + r) * mla::kHeadDimV;
        };
        store_bf16_rows_staged(o_acc, smem, sum_lo, sum_hi, row_lo, row_hi, quad_col, half, wg_tid, row0,
                               rows_per_request, partial_row_out);
        return;
      }
      // The page-box instance keeps the direct store: staged, its tile loop was laid out anew
      // and ran 0.6-1.8 % slower on split plans and long whole plans, more than the epilogue
      // saves there (reports/h200/2026-12-03-fixed-cost, call 3).
      if constexpr (kBoxes != kPageBoxes) {
        const auto final_row = [&](int r) {
          return reinterpret_cast<__nv_bfloat16*>(p.o) + (request_row0 + row0 + r) * mla::kHeadDimV;
        };
        store_bf16_rows_staged(o_acc, smem, sum_lo, sum_hi, row_lo, row_hi, quad_col, half, wg_tid, row0,
                               rows_per_request, final_row);
        return;
      }
    }
    store_o_rows(p, ws, o_acc, sum_lo, sum_hi, row_lo, row_hi, quad_col, half, row0, rows_per_request, request_row0,
                 whole, partial_row);
  };

  float row_sum_lo = 0.f, row_sum_hi = 0.f;  // this thread's partial sums (16 of 64 columns)
  float row_max_lo = -INFINITY, row_max_hi = -INFINITY;  // log2 domain, quad-uniform

  if (warpgroup == 1) {
    // ---------------- softmax warpgroup ----------------
    wg::setmaxnreg_inc<kBalanced ? kBalancedSoftmaxRegs : kSoftmaxRegs>();
    zero_o(o_acc);
    const bool valid_lo = row0 + row_lo < rows_per_request;
    const bool valid_hi = row0 + row_hi < rows_per_request;
    const float scale_log2 = p.sm_scale * kLog2e;
    const std::uint64_t q_desc = wg::smem_desc_sw128(smem_base + kOffQ, 16, 1024);
    float s_acc[kSRegs];
#pragma unroll
    for (int i = 0; i < kSRegs; ++i) s_acc[i] = 0.f;  // overwritten by the first k step (scale-d 0)
    const bool timeline_thread = VB_DEBUG_TIMELINE && wg_tid == 0;

    int iter0 = 0;  // tiles of earlier segments (tile-balanced)
    for (int segment = 0;; ++segment) {
      warp::mbarrier_wait_parity(s_q_full, segment & 1);
      if (kBalanced && segment > 0) {  // the producer's next segment, published with its Q
        if (s_next[0] < 0) break;
        tile_balance::Segment seg;
        seg.request = s_next[0];
        seg.tile_begin = s_next[1];
        seg.tile_end = s_next[2];
        enter_segment(seg);
      }
      if (timeline_thread && segment == 0) VB_TIMELINE_STAMP(g_timeline_wgmma, kTimelineQReady);
      // Padding rows (zero Q) see everything: finite, never stored.
      const std::uint64_t* mask_lo = p.node_mask(b, valid_lo ? (row0 + row_lo) / p.num_heads : 0);
      const std::uint64_t* mask_hi = p.node_mask(b, valid_hi ? (row0 + row_hi) / p.num_heads : 0);
      const int n_iters = tile_end - tile_begin;
      for (int it = 0; it < n_iters; ++it) {
        const int tile = tile_begin + it;
        const int iter = iter0 + it;
        const int stage = iter % kStages;
        wg::wait_group<0>();  // PV of the previous tile is done: its stage is free
        wg::fence_operands(o_acc);
        if (it > 0) release_stage(s_empty, (iter - 1) % kStages, lane);
        issue_scores(s_acc, q_desc, wg::smem_desc_sw128(kv_base + stage * kTileBytes, 16, 1024), s_full, stage, iter,
                     timeline_thread);
        wg::wait_group<0>();
        wg::fence_operands(s_acc);
        // Tile-balanced: the segment's last S has read Q; the producer may load the next request's.
        if (kBalanced && it == n_iters - 1) {
          __syncwarp();
          if (lane == 0) warp::mbarrier_arrive(s_q_empty);
        }

        // ---- masked online softmax on the accumulators (log2 domain) ----
        const bool tree_tile = (tile + 1) * kTokensPerTile > prefix;  // block-uniform: prefix-only tiles skip the mask
        std::uint64_t vis_lo, vis_hi;
        row_visibility<kWaitBeforeTreeMask>(mask_lo, mask_hi, valid_lo, valid_hi, tree_tile, tile, prefix, kv_len,
                                            quad_col, vis_lo, vis_hi);
        float max_lo, max_hi;
        masked_tile_max(s_acc, vis_lo, vis_hi, tree_tile, scale_log2, max_lo, max_hi);
        float a_lo, a_hi;  // the factors of O and the sums: 1 where the row's max stayed
        online_softmax_step(s_acc, max_lo, max_hi, scale_log2, row_max_lo, row_max_hi, row_sum_lo, row_sum_hi, a_lo,
                            a_hi);
        p_fragments(p_frag, s_acc);
        rescale_o(o_acc, a_lo, a_hi);

        hand_over_p(s_pexchange, s_rescale, p_frag, a_lo, a_hi, iter, wg_tid, quad_col, row_lo, row_hi);

        issue_pv(o_acc, p_frag, kv_base, stage, half);
      }
      wg::wait_group<0>();
      wg::fence_operands(o_acc);
      // Tile-balanced: the segment's last stage, released here (the next segment's first
      // tile does not release the one before it).
      if constexpr (kBalanced) release_stage(s_empty, (iter0 + n_iters - 1) % kStages, lane);
      if (timeline_thread) VB_TIMELINE_STAMP(g_timeline_wgmma, kTimelineTilesDone);

      store_row_stats(p, ws, s_final_sum, row_sum_lo, row_sum_hi, row_max_lo, row_max_hi, row_lo, row_hi, quad_col,
                      row0, rows_per_request, request_row0, whole, partial_row);
      wg::named_barrier_arrive(kBarEpilogue, kConsumerThreads);
      store_o(row_sum_lo, row_sum_hi);
      if constexpr (!kBalanced) break;
      iter0 += n_iters;
      zero_o(o_acc);
      row_sum_lo = row_sum_hi = 0.f;
      row_max_lo = row_max_hi = -INFINITY;
    }
    if (timeline_thread) VB_TIMELINE_STAMP(g_timeline_wgmma, kTimelineEnd);
  } else {
    // ---------------- second PV warpgroup ----------------
    wg::setmaxnreg_inc<kSecondPvRegs>();
    zero_o(o_acc);
    int iter0 = 0;  // tiles of earlier segments (tile-balanced)
    for (;;) {
      const int n_iters = tile_end - tile_begin;
      for (int it = 0; it < n_iters; ++it) {
        const int iter = iter0 + it;
        const int stage = iter % kStages;
        warp::named_barrier_sync(kBarPFull, kConsumerThreads);
        // Landed (already observed by warpgroup 1); the last part's arrival covers all parts.
        warp::mbarrier_wait_parity(&s_full[stage * kLoadParts + kLoadParts - 1], (iter / kStages) & 1);
        warp::fence_proxy_async_shared();
        take_over_p(p_frag, s_pexchange, wg_tid);
        const float a_lo = s_rescale[row_lo];
        const float a_hi = s_rescale[row_hi];
        if (it + 1 < n_iters) handoff_signal(kBarPEmpty);
        rescale_o(o_acc, a_lo, a_hi);
        issue_pv(o_acc, p_frag, kv_base, stage, half);
        wg::wait_group<0>();
        wg::fence_operands(o_acc);
        release_stage(s_empty, stage, lane);
      }
      warp::named_barrier_sync(kBarEpilogue, kConsumerThreads);
      store_o(s_final_sum[row_lo], s_final_sum[row_hi]);
      if constexpr (!kBalanced) break;
      // Tile-balanced: the walk is advanced once O is stored (its registers are free then).
      tile_balance::Segment seg;
      if (!next_segment(&seg)) break;
      // The final sums are read: the softmax warpgroup may hand over the next segment's first
      // P (and later overwrite the sums).
      handoff_signal(kBarPEmpty);
      iter0 += n_iters;
      enter_segment(seg);
      zero_o(o_acc);
    }
  }

#else
  __trap();  // built only for sm_90a; the launcher never selects it elsewhere
#endif
}

cudaError_t wgmma_timeline_clear_slots() {
#if VB_DEBUG_TIMELINE
  return detail::timeline_clear_slots(g_timeline_wgmma);
#else
  return cudaErrorNotSupported;
#endif
}

cudaError_t wgmma_timeline_read_slots(std::vector<FlashVerifyTimelineBlock>* out) {
#if VB_DEBUG_TIMELINE
  return detail::timeline_read_slots(g_timeline_wgmma, out);
#else
  (void)out;
  return cudaErrorNotSupported;
#endif
}

// An instance file's family: its two kernels (ordinary launches and over a mask writer) and its
// timeline slots.
template <bool kBalanced, int kBoxes>
detail::WgmmaKernelFamily wgmma_kernel_family() {
  return {flash_verify_wgmma_kernel<kBalanced, VerifyParams, kBoxes>,
          flash_verify_wgmma_kernel<kBalanced, IndptrLengthParams, kBoxes>, wgmma_timeline_clear_slots,
          wgmma_timeline_read_slots};
}

}  // namespace
}  // namespace vb

// What the production kernels share: the mma.sync path (mma_sync/mma_kernel.cuh), the sm_90a
// wgmma path (wgmma/wgmma_kernel.cuh), the split combine (combine/split_combine.cu) and
// the launcher (launch/launcher.cu): what a block owns, the split ranges, the split-KV
// workspace layout and the LSE combine that merges it. Internal to kernels/.
#pragma once
#include <cmath>
#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include "common/launch_config.h"
#include "common/warp_ops.cuh"
#include "verifybench/kernels.h"
#include "verifybench/tile_balance.h"

namespace vb::detail {

__host__ __device__ constexpr int ceil_div(int a, int b) { return (a + b - 1) / b; }

struct SplitWorkspace {
  // [B*T*H rows, num_splits, 512] normalised per split; tile-balanced plans:
  // [num_splits + B - 1, H*T rows of a request, 512] (balanced_partial_row).
  // fp32 for tile-balanced plans; bf16 (the same element indices) for fixed-size and even plans
  // (bf16_partials below).
  float* o_partial;
  float* lse_partial;  // the same partials' LSE, natural log (see launch_split_combine)
  // Tile-balanced plans: [B] per request, its first slot's block and its slots, written by
  // the block holding the request's last tile (record_request_slots), read by the combine.
  int2* request_slots;
};

// The split partials' O format, one rule for the writers (both main kernels, empty splits)
// and the reader (the combine): bf16 for fixed-size and even plans, fp32 for tile-balanced
// ones (LSEs are always fp32). Half the partials' bytes: one 64k request with T = 16 writes
// and reads 16.6 MB of fp32 partials.
// - wgmma path: staged through the Q buffer (free once the last S is done) and written in
//   whole 512-byte rows.
// - mma.sync path: 8 bytes a lane, store_partial_chunk_pair_bf16.
// - tile-balanced plans keep fp32: the wgmma instance's Q buffer takes the next request's Q,
//   and the mma.sync instance sits at its register limit.
// Costs one more bf16 rounding (relative 2^-9) of every split's O before the LSE-weighted sum
// (kernels/NOTES.md: what it measured and what it costs the error).
// Whether a plan of this path and schedule has bf16 partial O (else fp32).
__host__ __device__ constexpr bool bf16_partials(bool /*wgmma_path*/, bool tile_balanced) {
  return !tile_balanced;
}
__device__ __forceinline__ float4 load_bf16_quad(const __nv_bfloat16* src) {
  const uint2 bits = *reinterpret_cast<const uint2*>(src);
  const float2 lo = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&bits.x));
  const float2 hi = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&bits.y));
  return make_float4(lo.x, lo.y, hi.x, hi.y);
}

// Two adjacent 8-column chunks of an mma accumulator row: this lane holds columns 2q, 2q+1 of
// each (q = lane % 4). Lanes q and q^1 swap halves so that an even lane stores columns
// 2q..2q+3 of the first chunk and an odd lane columns 2(q-1)..2(q-1)+3 of the second, and a
// quad writes 16 contiguous columns of its row per store. Here as bf16 partials (8 bytes a
// lane: one whole 32-byte sector per quad and store). Every lane of the warp calls it (a
// shuffle); `store` false skips the store (rows past the request).
__device__ __forceinline__ void store_partial_chunk_pair_bf16(__nv_bfloat16* chunk_pair, float x0, float y0,
                                                              float x1, float y1, bool store) {
  const int q = threadIdx.x & 3;
  const bool odd = (q & 1) != 0;
  const std::uint32_t a = warp::pack_bf16x2(x0, y0), b = warp::pack_bf16x2(x1, y1);
  const std::uint32_t r = __shfl_xor_sync(0xffffffffu, odd ? a : b, 1);
  const uint2 v = odd ? make_uint2(r, b) : make_uint2(a, r);
  if (store) *reinterpret_cast<uint2*>(chunk_pair + (odd ? 8 + 2 * (q - 1) : 2 * q)) = v;
}

// Tiles per split of a request of num_tiles tiles: the plan's split size (length-aware
// plans), never less than an even division over num_splits, so no tile is ever left out
// whatever lengths a replayed graph carries. The main kernels and the combine both use it.
__device__ __forceinline__ int split_size_tiles(int num_tiles, int num_splits, int split_tiles) {
  return max(split_tiles, (num_tiles + num_splits - 1) / num_splits);
}

// Whether a main kernel over these parameters waits for the previous kernel only before it
// reads the tree mask (IndptrLengthParams: launched over a kernel still writing the mask
// and the lengths) instead of at entry.
template <class Params>
inline constexpr bool waits_before_tree_mask = std::is_same_v<Params, IndptrLengthParams>;

// What one block of either kernel owns: request b = blockIdx.z, the kRows-row tile
// blockIdx.x of its rows (node-major, head-minor), and the tiles [tile_begin, tile_end) of
// kTokens tokens of split blockIdx.y (empty when tile_begin >= tile_end).
struct BlockWork {
  int rows_per_request, row0;
  std::int64_t request_row0;  // the request's first query row in q / o / lse
  int prefix, kv_len;         // from the device-side prefix length (graphs replay other lengths)
  int tile_begin, tile_end;
};
template <int kRows, int kTokens, class Params>
__device__ __forceinline__ BlockWork block_work(const Params& p, int num_splits, int split_tiles) {
  BlockWork w;
  const int m_tile = blockIdx.x, split = blockIdx.y, b = blockIdx.z;
  w.rows_per_request = p.query_rows_per_request();
  w.row0 = m_tile * kRows;
  w.request_row0 = static_cast<std::int64_t>(b) * w.rows_per_request;
  w.prefix = p.request_prefix(b);
  w.kv_len = p.kv_len(b);
  const int num_tiles = (w.kv_len + kTokens - 1) / kTokens;
  const int tiles_per_split = split_size_tiles(num_tiles, num_splits, split_tiles);
  w.tile_begin = split * tiles_per_split;
  w.tile_end = min(num_tiles, w.tile_begin + tiles_per_split);
  return w;
}

// ---- the tile-balanced schedule, device side (both paths; verifybench/tile_balance.h) ----
// The kernels get the schedule through split_tiles: > 0 a length-aware plan's split size,
// 0 an even plan, < 0 the tile-balanced schedule with -split_tiles - 1 boundary units (the
// combine's parameter list stays the same for every plan).
// A block that holds a request whole writes its final O and LSE, and the combine leaves
// those rows.
using tile_balance::balanced_boundary_units;
using tile_balance::balanced_split_tiles_arg;

__device__ __forceinline__ std::int64_t warp_sum64(std::int64_t x) {
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) x += __shfl_xor_sync(0xffffffffu, x, offset);
  return x;
}
// Every lane of a warp calls these (requests lane, lane + 32, ... are a lane's share); they
// give what tile_balance::start_walk and its totals give on the host.
// The batch's units.
template <class Params>
__device__ __forceinline__ std::int64_t balanced_total_units_warp(const Params& p, int tokens_per_tile,
                                                                  int boundary, int lane) {
  std::int64_t t = 0;
  for (int r = lane; r < p.batch; r += 32) t += tile_balance::request_units(p.kv_len(r), tokens_per_tile, boundary);
  return warp_sum64(t);
}
// Block `block` of `blocks`: its range, positioned at the first request whose units end
// past the range's start (past the batch when the range is empty).
template <class Params>
__device__ __forceinline__ tile_balance::Walk balanced_walk_warp(const Params& p, int tokens_per_tile,
                                                                 int boundary, int block, int blocks, int lane) {
  const std::int64_t total = balanced_total_units_warp(p, tokens_per_tile, boundary, lane);
  tile_balance::Walk w;
  w.block = block;
  w.units_per_block = tile_balance::units_per_block(total, blocks);
  w.range_begin = static_cast<std::int64_t>(block) * w.units_per_block;
  w.range_end = min(w.range_begin + w.units_per_block, total);
  w.request = p.batch;
  w.request_start = total;
  std::int64_t base = 0;
  for (int r0 = 0; r0 < p.batch; r0 += 32) {  // 32 requests at a time: inclusive scan, then ballot
    const int r = r0 + lane;
    const std::int64_t u = r < p.batch ? tile_balance::request_units(p.kv_len(r), tokens_per_tile, boundary) : 0;
    std::int64_t incl = u;
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
      const std::int64_t v = __shfl_up_sync(0xffffffffu, incl, offset);
      if (lane >= offset) incl += v;
    }
    const unsigned past = __ballot_sync(0xffffffffu, r < p.batch && base + incl > w.range_begin);
    if (past != 0) {
      const int l = __ffs(past) - 1;
      w.request = r0 + l;
      w.request_start = base + __shfl_sync(0xffffffffu, incl - u, l);
      break;
    }
    base += __shfl_sync(0xffffffffu, incl, 31);
  }
  return w;
}
// Tile-balanced: the block whose segment holds its request's last tile records the request's
// partial slots for the combine. The combine used to find them by walking the batch's lengths
// in every warp (two warp sums and four 64-bit divisions): its second wave of blocks, which
// enter only as the first one leaves, spent 1-2 us there on mixed lengths' tail (H200 timeline,
// 2026-11-30: reports/h200/2026-11-30-bf16-partials call 10, in git history at 93371d3). One thread per block calls it per segment.
__device__ __forceinline__ void record_request_slots(const SplitWorkspace& ws, const tile_balance::Segment& seg,
                                                     int block) {
  if (!seg.ends_request) return;
  const tile_balance::RequestSlots r = tile_balance::slots_seen_by_last_segment(seg, block);
  ws.request_slots[seg.request] = make_int2(r.first_block, r.slots);
}
// A warp's walk (in shared memory) moved on to its next segment, into *seg (false: the
// range holds no more tiles). Every lane of the warp calls it; lane 0 writes the walk back.
template <class Params>
__device__ __forceinline__ bool advance_walk_warp(const Params& p, int tokens_per_tile, int boundary,
                                                  tile_balance::Walk* state, tile_balance::Segment* seg, int lane) {
  tile_balance::Walk w = *state;
  const bool any = tile_balance::next_segment(p, tokens_per_tile, boundary, w, seg);
  __syncwarp();  // every lane has read the walk
  if (lane == 0) *state = w;
  __syncwarp();
  return any;
}
// Where a tile-balanced block's partial of request b goes: partial (block + b) of the
// request's row set, so the workspace holds (blocks + batch - 1) partials per query row of a
// request instead of blocks per row (tile_balance::request_slots: the slots of consecutive
// requests, shifted by b, never overlap).
__host__ __device__ __forceinline__ std::int64_t balanced_partial_row(int block, int b, int rows_per_request,
                                                                      int row) {
  return (static_cast<std::int64_t>(block) + b) * rows_per_request + row;
}

// log2(x) when x is a power of two, else -1 (device code; nvcc's host pass sees no __ffs).
__device__ __forceinline__ int log2_if_power_of_two(int x) {
#if defined(__CUDA_ARCH__)
  return (x & (x - 1)) == 0 ? __ffs(x) - 1 : -1;
#else
  return -1;
#endif
}


// Where request b's KV rows live, for the producers of both kernels. The lookup is split in
// two so that the page-table word of a later tile can be loaded ahead of its use (ncu on
// v1: 36 % of all stall samples sat on that load when it was made at use):
//   table_entry(t)       the load: the pool row (token form), the page id (block form), or
//                        the dense tree row (SGLang's k_extend) of logical token t;
//   row_ptr(t, entry)    arithmetic only: the address of token t's 576-wide row.
template <class Element = bf16_bits>
struct RequestKvRows {
  const Element* tree_rows;             // this request's dense tree rows, or nullptr
  const Element* kv_pool;
  const std::int64_t* token_rows;       // token form
  const std::int32_t* request_pages;    // block form
  int prefix, page_size;
  int page_shift;                       // log2(page_size) for powers of two, else -1
  bool block_form;

  // token_base: kv_indptr[b] (token_rows_base), loaded by the caller ahead of time.
  __device__ __forceinline__ RequestKvRows(const VerifyParams& p, int b, int prefix_len, int token_base)
      : tree_rows(p.tree_kv ? static_cast<const Element*>(p.tree_kv) + static_cast<std::int64_t>(b) * p.tree_size * mla::kHeadDimQK
                            : nullptr),
        kv_pool(static_cast<const Element*>(p.kv_pool)),
        token_rows(p.page_kind == PageTableKind::kBlockTable ? nullptr : p.kv_indices + token_base),
        request_pages(p.page_kind == PageTableKind::kBlockTable
                          ? p.block_table + static_cast<std::int64_t>(b) * p.max_pages
                          : nullptr),
        prefix(prefix_len),
        page_size(p.page_size),
        // Page sizes are powers of two in practice (16, 64): shifts instead of the
        // ~20-instruction integer division (nightly, H200: the block form was 8 % slower).
        page_shift(log2_if_power_of_two(p.page_size)),
        block_form(p.page_kind == PageTableKind::kBlockTable) {}
  __device__ __forceinline__ RequestKvRows(const VerifyParams& p, int b, int prefix_len)
      : RequestKvRows(p, b, prefix_len, token_rows_base(p, b)) {}
  // The token form's offset of request b's rows in kv_indices (0 for the block form). A block
  // that knows its request at entry loads it there, beside the prefix length, instead of after
  // the empty-split test. On the H200 that moved the first copies by only 0.03 us (the base is
  // in L2 by then), but the build without it ran MTP T4 B8 and one 16k request 3 % slower in
  // the same call: code layout (2026-11-30: reports/h200/2026-11-30-slot-records call 1, in
  // git history at 93371d3).
  static __device__ __forceinline__ int token_rows_base(const VerifyParams& p, int b) {
    return p.page_kind == PageTableKind::kBlockTable ? 0 : p.kv_indptr[b];
  }

  __device__ __forceinline__ bool from_tree(int t) const { return tree_rows != nullptr && t >= prefix; }
  __device__ __forceinline__ std::int64_t table_entry(int t) const {
    if (from_tree(t)) return t - prefix;
    if (!block_form) return token_rows[t];
    const int page = page_shift >= 0 ? t >> page_shift : t / page_size;
    // Zero-extended: page ids are never negative, and a sign extension would wait on the
    // load right here (ncu: 18 % of the block-table form's stall samples in v2's draft).
    return static_cast<std::int64_t>(static_cast<std::uint32_t>(request_pages[page]));
  }
  __device__ __forceinline__ const Element* row_ptr(int t, std::int64_t entry) const {
    const bool tree = from_tree(t);
    const std::int64_t row =
        tree || !block_form ? entry : entry * page_size + (page_shift >= 0 ? t & (page_size - 1) : t % page_size);
    return (tree ? tree_rows : kv_pool) + row * mla::kHeadDimQK;
  }
};

// An empty split (a short request's) under an even plan writes LSE -inf and zero O for its
// rows, which the combine then reads (weight 0). Length-aware plans write nothing: their
// combine reads only the splits that hold tiles. Rows row0 .. row0 + kRows - 1 of a request
// whose rows start at request_row0; threads tid of `threads` share the writes.
template <int kRows, bool kBf16Partials = false>
__device__ __forceinline__ void write_empty_split(const SplitWorkspace& ws, int num_splits, int split,
                                                  std::int64_t request_row0, int row0, int rows_per_request,
                                                  int tid, int threads) {
  for (int i = tid; i < kRows * mla::kHeadDimV; i += threads) {
    const int rr = row0 + i / mla::kHeadDimV;
    if (rr >= rows_per_request) continue;
    const std::int64_t qrow = request_row0 + rr;
    const std::int64_t element = (qrow * num_splits + split) * mla::kHeadDimV + i % mla::kHeadDimV;
    if constexpr (kBf16Partials) {
      reinterpret_cast<__nv_bfloat16*>(ws.o_partial)[element] = __float2bfloat16(0.f);
    } else {
      ws.o_partial[element] = 0.f;
    }
    if (i % mla::kHeadDimV == 0) ws.lse_partial[qrow * num_splits + split] = -INFINITY;
  }
}

// True when this block's split holds no tiles (a short request's); under an even plan it
// has then written the split's partials (write_empty_split). The block returns at once.
template <int kRows, bool kBf16Partials = false>
__device__ __forceinline__ bool empty_split_handled(const BlockWork& w, const SplitWorkspace& ws, int num_splits,
                                                    int split_tiles, int tid, int threads) {
  if (w.tile_begin < w.tile_end) return false;
  if (split_tiles > 0) return true;  // a length-aware plan's combine skips empty splits
  write_empty_split<kRows, kBf16Partials>(ws, num_splits, blockIdx.y, w.request_row0, w.row0, w.rows_per_request, tid,
                                          threads);
  return true;
}

// Launches the LSE combine of every row's split partials into params.o / params.lse, as a
// programmatic dependent launch after the main kernel on `stream`, in the plan's instance
// (combine_splits, combine_lanes) and grid. With split_tiles_arg > 0 (a length-aware plan) it
// reads only the splits that hold tiles: those the main kernel's ranges give (tiles of
// tokens_per_tile tokens, max(split_tiles, even division) per split), and an empty split writes
// nothing; with 0 it reads all num_splits; with < 0 (the tile-balanced schedule) each request's
// slots (verifybench/tile_balance.h).
cudaError_t launch_split_combine(const VerifyParams& params, const LaunchPlan& plan, const SplitWorkspace& ws,
                                 cudaStream_t stream);

// The wgmma path's main kernel (wgmma/wgmma_launch_sm90a.cu), in the plan's instance. The
// launcher has checked the parameters and the plan; this raises the kernel's shared-memory
// limit once per device. overlap_previous_kernel: FlashVerifyLaunchOptions's; over_mask_writer:
// its previous_kernel_writes_only_mask_and_lengths (the IndptrLengthParams instance).
cudaError_t launch_wgmma_main(const VerifyParams& params, const LaunchPlan& plan, const SplitWorkspace& ws,
                              bool overlap_previous_kernel, bool over_mask_writer, cudaStream_t stream);
// The wgmma main kernel a plan names (its host stub), for FlashVerifyLaunchRecord.
const void* wgmma_main_kernel_of(const LaunchPlan& plan, bool over_mask_writer);

// Whether the current device can run it (sm_90 with 227 KB of shared memory per block).
cudaError_t wgmma_path_supported(bool* supported);

}  // namespace vb::detail

// The mma.sync path's 64-row kernel (FlashVerifyPath::kMmaSync64): the production kernel for
// sm_120, and on a Hopper the same machine code (sm_90) for the plans of H*T > 32 rows that
// the wgmma path does not take. Built from mma.sync, ldmatrix and bulk copies within sm_120's
// 99 KB; design and cycle budget in kernels/NOTES-sm120.md.
//
// What one thread block owns: request b (blockIdx.z), a tile of 64 query rows of it
// (blockIdx.x; node-major, head-minor rows), and split blockIdx.y of its logical tokens
// (the same ranges as the 32-row kernel, detail::block_work).
//
// Eight warps, no producer warps (sm_120's 64K registers hold 8 warps at 255 registers, the
// two register-resident operands need ~200 of them): warp w belongs to row half h = w / 4
// (rows 32h .. 32h+31) and has index g = w % 4 inside it. Each warp holds its half's 32 rows
// as two m16 tiles, so every K or V fragment it loads feeds two mma.
//   scores   S partial of the half's 32 rows x 16 tokens over dims 144g .. 144g+143
//            (Q of those rows and dims lives in registers all kernel long), to shared memory;
//   softmax  the half's 128 threads, 4 per row, sum the 4 partials, mask, and update the
//            row's running max and sum; P (bf16) and the rescale factor to shared memory;
//   PV       O of the half's 32 rows x channels 128g .. 128g+127 (registers);
//   loads    lanes 0-1 of every warp copy 2 of each tile's 16 KV rows (bulk copies) into a
//            3-stage ring, kStages - 1 tiles ahead.
// The halves share only the ring and meet at no barrier, so one half's softmax may overlap
// the other half's mma on every SM sub-partition (warps w and w + 4 share one).
//
// Split/combine contract: the 32-row kernel's (kernels/flash_verify.cu): with one split the
// block writes final O (bf16) and LSE; otherwise its split's normalised O as bf16 partials and
// LSE, and an empty split of an even plan writes LSE -inf and zero O.
#include <cuda_bf16.h>

#include <algorithm>
#include <atomic>
#include <cmath>

#include "../flash_verify_config.h"
#include "../flash_verify_split.h"
#include "../launch_config.h"
#include "../warp_mma.cuh"
#include "verifybench/kernels.h"

namespace vb {
namespace {

using namespace mma64_cfg;

constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;
constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;

// Shared memory, in the order of the layout (bytes).
struct Smem {
  unsigned char* base;
  __device__ bf16_bits* stage(int s) const { return reinterpret_cast<bf16_bits*>(base + s * kStageBytes); }
  __device__ float* partial(int g) const {  // [kKGroups][kRowsPerTile][kSStride]
    return reinterpret_cast<float*>(base + kOffPartial) + g * kRowsPerTile * kSStride;
  }
  __device__ bf16_bits* p() const { return reinterpret_cast<bf16_bits*>(base + kOffP); }  // [rows][kPStride]
  __device__ float* rescale() const { return reinterpret_cast<float*>(base + kOffRescale); }
  __device__ float* final_sum() const { return reinterpret_cast<float*>(base + kOffFinalSum); }
  __device__ std::uint64_t* full(int s) const { return reinterpret_cast<std::uint64_t*>(base + kOffBarriers) + s; }
  __device__ std::uint64_t* empty(int s) const {
    return reinterpret_cast<std::uint64_t*>(base + kOffBarriers) + kStages + s;
  }
};

// ---- loads: lanes 0 .. kCopyRowsPerWarp-1 of every warp, one 1152-byte bulk copy per row ----
// Registers: the next refill's page-table word (2). Shared memory: the ring (kStages x 18.7 KB).
struct KvLoader {
  detail::RequestKvRows rows;
  int kv_len, row_in_tile;
  bool copies;  // this lane copies a row of every tile
  std::int64_t entry = 0;  // the page-table word of the next tile it copies, loaded ahead

  __device__ int token_of(int tile) const { return min(tile * kTokensPerTile + row_in_tile, kv_len - 1); }
  __device__ void prefetch_entry(int tile) {
    if (copies) entry = rows.table_entry(token_of(tile));
  }
  // Issues this warp's rows of `tile` into `stage` (its slot must be free) and loads the
  // word of `next_tile` (ignored past the split). Rows past kv_len re-read the last row:
  // finite data, masked out, and a stage always receives exactly kTokensPerTile rows.
  __device__ void issue(const Smem& sm, int stage, int tile, int next_tile, int next_end, int lane) {
    if (lane == 0) warp::mbarrier_arrive_expect_tx(sm.full(stage), kCopyRowsPerWarp * kKvRowBytes);
    __syncwarp();
    if (copies) {
      const bf16_bits* src = rows.row_ptr(token_of(tile), entry);
      warp::bulk_copy_g2s(sm.stage(stage) + row_in_tile * kKvStride, src, kKvRowBytes, sm.full(stage));
      if (next_tile < next_end) entry = rows.table_entry(token_of(next_tile));
    }
  }
};

// ---- Q: the A fragments of rows 32h .. 32h+31 (two m16 tiles), dims 144g .. 144g+143 ----
// Registers: 2 x 9 x 4 = 72 for the whole kernel. Straight from global memory in mma's lane
// layout: register j of a k-step holds row lane / 4 (+ 8 for j = 1, 3), columns
// 2 * (lane % 4) (+ 8 for j = 2, 3). Padding rows (past the request) are zeros.
using QFragments = std::uint32_t[kMTilesPerWarp][kKStepsPerGroup][4];
__device__ __forceinline__ void load_q(QFragments& q, const VerifyParams& p, std::int64_t request_row0, int row0,
                                       int rows_per_request, int half, int group, int lane) {
#pragma unroll
  for (int m = 0; m < kMTilesPerWarp; ++m) {
    const int r_lo = row0 + half * kRowsPerWarp + m * kMmaM + lane / 4;
    const int r_hi = r_lo + 8;
    const bool lo_valid = r_lo < rows_per_request, hi_valid = r_hi < rows_per_request;
    const auto* lo = reinterpret_cast<const std::uint32_t*>(p.q + (request_row0 + (lo_valid ? r_lo : 0)) * mla::kHeadDimQK);
    const auto* hi = reinterpret_cast<const std::uint32_t*>(p.q + (request_row0 + (hi_valid ? r_hi : 0)) * mla::kHeadDimQK);
#pragma unroll
    for (int ks = 0; ks < kKStepsPerGroup; ++ks) {
      const int word = ((group * kKStepsPerGroup + ks) * kMmaK + (lane % 4) * 2) / 2;
      q[m][ks][0] = lo_valid ? lo[word] : 0u;
      q[m][ks][1] = hi_valid ? hi[word] : 0u;
      q[m][ks][2] = lo_valid ? lo[word + 4] : 0u;
      q[m][ks][3] = hi_valid ? hi[word + 4] : 0u;
    }
  }
}

// ---- scores: this warp's partial S (32 rows x 16 tokens over its 144 dims) to shared memory ----
// Registers: 16 accumulators, one K fragment (4). Shared memory: reads 9 ldmatrix.x4 of K
// (4.6 KB), writes 2 KB of fp32 partial (conflict-free: a half-warp's 4 rows x 8 columns fall
// in 32 distinct banks at the 24-word stride).
__device__ __forceinline__ void scores_partial(const QFragments& q, const bf16_bits* kv, float* partial, int half,
                                               int group, int lane) {
  float s[kMTilesPerWarp][kNTilesS][4] = {};
#pragma unroll
  for (int ks = 0; ks < kKStepsPerGroup; ++ks) {
    std::uint32_t k[4];
    const int token = (lane & 7) + ((lane >> 4) << 3);
    const int col = (group * kKStepsPerGroup + ks) * kMmaK + ((lane >> 3) & 1) * 8;
    warp::ldmatrix_x4(k, kv + token * kKvStride + col);
#pragma unroll
    for (int m = 0; m < kMTilesPerWarp; ++m) {
      warp::mma_bf16_16816(s[m][0], q[m][ks], k[0], k[1]);
      warp::mma_bf16_16816(s[m][1], q[m][ks], k[2], k[3]);
    }
  }
#pragma unroll
  for (int m = 0; m < kMTilesPerWarp; ++m) {
    const int r = half * kRowsPerWarp + m * kMmaM + lane / 4;
#pragma unroll
    for (int nt = 0; nt < kNTilesS; ++nt) {
      const int c = nt * kMmaN + (lane % 4) * 2;
      *reinterpret_cast<float2*>(partial + r * kSStride + c) = make_float2(s[m][nt][0], s[m][nt][1]);
      *reinterpret_cast<float2*>(partial + (r + 8) * kSStride + c) = make_float2(s[m][nt][2], s[m][nt][3]);
    }
  }
}

// ---- softmax: one row's running statistics, kThreadsPerRow consecutive lanes per row ----
// The row of a lane inside its warp's 8: a quarter-warp (8 lanes, one 128-bit load) reads rows
// r and r + 2, whose 16 columns fall in distinct banks at the 24-word stride.
__device__ __forceinline__ int softmax_row_in_warp(int lane) { return (lane / 16) * 4 + ((lane / 8) % 2) + ((lane / 4) % 2) * 2; }

struct RowSoftmax {
  int row;        // the block-tile row (0..63)
  int col0;       // first of this thread's kTokensPerThread tokens in a tile
  int node;       // the row's tree node (for its mask row)
  bool valid;     // the row lies inside the request (padding rows: zero Q, never stored)
  float max = -INFINITY;  // log2 domain
  float sum = 0.f;

  // Registers: 4 scores, the statistics. Shared memory: reads 4 x 16 B of partials, writes 8 B
  // of P and (one lane per row) the rescale factor.
  template <class Params>
  __device__ void tile(const Params& p, const Smem& sm, int b, int prefix, int kv_len, int tile, float scale_log2) {
    float4 acc = *reinterpret_cast<const float4*>(sm.partial(0) + row * kSStride + col0);
#pragma unroll
    for (int g = 1; g < kKGroups; ++g) {
      const float4 v = *reinterpret_cast<const float4*>(sm.partial(g) + row * kSStride + col0);
      acc.x += v.x; acc.y += v.y; acc.z += v.z; acc.w += v.w;
    }
    float s[kTokensPerThread] = {acc.x, acc.y, acc.z, acc.w};
    const bool all_prefix = (tile + 1) * kTokensPerTile <= prefix;  // block-uniform: all visible
    float tile_max = -INFINITY;
#pragma unroll
    for (int c = 0; c < kTokensPerThread; ++c) {
      const int t = tile * kTokensPerTile + col0 + c;
      const bool visible = all_prefix || !valid || t < prefix ||
                           (t < kv_len && tree_node_visible(p.node_mask(b, node), t - prefix));
      s[c] = visible ? s[c] * scale_log2 : -INFINITY;
      tile_max = fmaxf(tile_max, s[c]);
    }
#pragma unroll
    for (int offset = 1; offset < kThreadsPerRow; offset *= 2) {
      tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, offset));
    }
    const float new_max = fmaxf(max, tile_max);
    const float base = new_max == -INFINITY ? 0.f : new_max;  // nothing visible yet
    const float rescale = warp::fast_exp2(max - base);
    float tile_sum = 0.f;
#pragma unroll
    for (int c = 0; c < kTokensPerThread; ++c) {
      s[c] = warp::fast_exp2(s[c] - base);
      tile_sum += s[c];
    }
#pragma unroll
    for (int offset = 1; offset < kThreadsPerRow; offset *= 2) {
      tile_sum += __shfl_xor_sync(0xffffffffu, tile_sum, offset);
    }
    sum = sum * rescale + tile_sum;
    max = new_max;
    *reinterpret_cast<uint2*>(sm.p() + row * kPStride + col0) =
        make_uint2(warp::pack_bf16x2(s[0], s[1]), warp::pack_bf16x2(s[2], s[3]));
    if (col0 == 0) sm.rescale()[row] = rescale;
  }
};

// ---- PV: O (32 rows x 128 channels, fp32) = O * rescale + P V over one tile ----
// Registers: 128 accumulators, P fragments (8), one V fragment (4). Shared memory: reads 2
// ldmatrix.x4 of P and 8 ldmatrix.x4.trans of V (5 KB).
using OAccumulators = float[kMTilesPerWarp][kNTilesO][4];
__device__ __forceinline__ void pv_tile(OAccumulators& o, const Smem& sm, const bf16_bits* kv, int half, int group,
                                        int lane) {
  // Once the running maxima settle most tiles rescale by exactly 1: skip the multiplies when
  // no row of this warp's fragments moved.
  float a[kMTilesPerWarp][2];
#pragma unroll
  for (int m = 0; m < kMTilesPerWarp; ++m) {
    a[m][0] = sm.rescale()[half * kRowsPerWarp + m * kMmaM + lane / 4];
    a[m][1] = sm.rescale()[half * kRowsPerWarp + m * kMmaM + lane / 4 + 8];
  }
  if (__any_sync(0xffffffffu, a[0][0] != 1.f || a[0][1] != 1.f || a[1][0] != 1.f || a[1][1] != 1.f)) {
#pragma unroll
    for (int m = 0; m < kMTilesPerWarp; ++m)
#pragma unroll
      for (int nt = 0; nt < kNTilesO; ++nt) {
        o[m][nt][0] *= a[m][0]; o[m][nt][1] *= a[m][0];
        o[m][nt][2] *= a[m][1]; o[m][nt][3] *= a[m][1];
      }
  }
  std::uint32_t pf[kMTilesPerWarp][4];
#pragma unroll
  for (int m = 0; m < kMTilesPerWarp; ++m) {
    warp::ldmatrix_x4(pf[m], sm.p() + (half * kRowsPerWarp + m * kMmaM + lane % 16) * kPStride + (lane / 16) * 8);
  }
#pragma unroll
  for (int np = 0; np < kNTilesO / 2; ++np) {
    std::uint32_t v[4];
    const int token = (lane & 7) + ((lane >> 3) & 1) * 8;
    const int col = group * kChannelsPerWarp + np * 2 * kMmaN + (lane >> 4) * 8;
    warp::ldmatrix_x4_trans(v, kv + token * kKvStride + col);
#pragma unroll
    for (int m = 0; m < kMTilesPerWarp; ++m) {
      warp::mma_bf16_16816(o[m][2 * np], pf[m], v[0], v[1]);
      warp::mma_bf16_16816(o[m][2 * np + 1], pf[m], v[2], v[3]);
    }
  }
}

// ---- epilogue: this warp's O rows normalised, as final O or this split's bf16 partial ----
__device__ __forceinline__ void store_o(const OAccumulators& o, const VerifyParams& p, const detail::SplitWorkspace& ws,
                                        const Smem& sm, std::int64_t request_row0, int row0, int rows_per_request,
                                        int num_splits, int split, int half, int group, int lane) {
#pragma unroll
  for (int m = 0; m < kMTilesPerWarp; ++m)
#pragma unroll
    for (int hi = 0; hi < 2; ++hi) {
      const int r = half * kRowsPerWarp + m * kMmaM + lane / 4 + hi * 8;
      const bool store = row0 + r < rows_per_request;
      const std::int64_t qrow = request_row0 + row0 + r;
      const float sum = sm.final_sum()[r];
      const float inv = sum > 0.f ? 1.f / sum : 0.f;
      if (num_splits == 1) {
#pragma unroll
        for (int nt = 0; nt < kNTilesO; ++nt) {
          const int col = group * kChannelsPerWarp + nt * kMmaN + (lane % 4) * 2;
          if (store) {
            *reinterpret_cast<__nv_bfloat162*>(p.o + qrow * mla::kHeadDimV + col) =
                __floats2bfloat162_rn(o[m][nt][2 * hi] * inv, o[m][nt][2 * hi + 1] * inv);
          }
        }
      } else {
        __nv_bfloat16* row = reinterpret_cast<__nv_bfloat16*>(ws.o_partial) +
                             (qrow * num_splits + split) * mla::kHeadDimV + group * kChannelsPerWarp;
#pragma unroll
        for (int nt = 0; nt < kNTilesO; nt += 2) {
          detail::store_partial_chunk_pair_bf16(row + nt * kMmaN, o[m][nt][2 * hi] * inv, o[m][nt][2 * hi + 1] * inv,
                                                o[m][nt + 1][2 * hi] * inv, o[m][nt + 1][2 * hi + 1] * inv, store);
        }
      }
    }
}

// Params: VerifyParams, or IndptrLengthParams over a kernel still writing the mask and the
// lengths (FlashVerifyLaunchOptions): then the wait for it comes after the first copies and
// Q are in flight, before the first mask read.
template <class Params>
__global__ void __launch_bounds__(kThreads, 1)
    flash_verify_mma64_kernel(const Params p, const int num_splits, const int split_tiles,
                              const detail::SplitWorkspace ws) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const Smem sm{smem_raw};
  const int tid = threadIdx.x, warp_id = tid / 32, lane = tid % 32;
  const int half = warp_id / kWarpsPerHalf, group = warp_id % kWarpsPerHalf;
  constexpr bool kWaitBeforeTreeMask = detail::waits_before_tree_mask<Params>;
  if (!VB_DEBUG_NO_PREREQUISITE_WAIT && !kWaitBeforeTreeMask) warp::wait_for_prerequisite_grid();

  const int b = blockIdx.z, split = blockIdx.y;
  const detail::BlockWork work = detail::block_work<kRowsPerTile, kTokensPerTile>(p, num_splits, split_tiles);
  constexpr bool kBf16 = detail::bf16_partials(false, false);
  if (detail::empty_split_handled<kRowsPerTile, kBf16>(work, ws, num_splits, split_tiles, tid, kThreads)) return;
  if (tid == 0) {
#pragma unroll
    for (int s = 0; s < kStages; ++s) {
      warp::mbarrier_init(sm.full(s), kWarps);
      warp::mbarrier_init(sm.empty(s), kWarps);
    }
    warp::fence_mbarrier_init();
  }
  __syncthreads();  // barriers initialised; the only block-wide barrier
  warp::launch_dependents();

  // The first kStages - 1 tiles go out before Q is loaded: their latency overlaps Q's.
  KvLoader loader{detail::RequestKvRows(p, b, work.prefix), work.kv_len, warp_id * kCopyRowsPerWarp + lane,
                  lane < kCopyRowsPerWarp};
  const int first = work.tile_begin, end = work.tile_end;
  loader.prefetch_entry(first);
#pragma unroll
  for (int j = 0; j < kStages - 1; ++j) {
    if (first + j < end) loader.issue(sm, j, first + j, first + j + 1, end, lane);
  }
  QFragments q;
  load_q(q, p, work.request_row0, work.row0, work.rows_per_request, half, group, lane);
  if (!VB_DEBUG_NO_PREREQUISITE_WAIT && kWaitBeforeTreeMask) warp::wait_for_prerequisite_grid();

  const int half_tid = tid % kHalfThreads;
  RowSoftmax softmax;
  softmax.row = half * kRowsPerWarp + (half_tid / 32) * 8 + softmax_row_in_warp(lane);
  softmax.col0 = (lane % kThreadsPerRow) * kTokensPerThread;
  const int row_in_request = work.row0 + softmax.row;
  softmax.valid = row_in_request < work.rows_per_request;
  softmax.node = softmax.valid ? row_in_request / p.num_heads : 0;
  const float scale_log2 = p.sm_scale * kLog2e;
  const int half_barrier = kHalfBarrier0 + half;

  OAccumulators o = {};
  for (int tile = first; tile < end; ++tile) {
    const int iter = tile - first, stage = iter % kStages;
    warp::mbarrier_wait_parity(sm.full(stage), (iter / kStages) & 1);
    const bf16_bits* kv = sm.stage(stage);
    scores_partial(q, kv, sm.partial(group), half, group, lane);
    // Refill the stage that tile - 1 used with tile + kStages - 1, once every warp has read it.
    const int refill = tile + kStages - 1;
    if (refill < end) {
      const int refill_stage = (iter + kStages - 1) % kStages;
      if (iter >= 1) warp::mbarrier_wait_parity(sm.empty(refill_stage), ((iter - 1) / kStages) & 1);
      loader.issue(sm, refill_stage, refill, refill + 1, end, lane);
    }
    warp::named_barrier_sync(half_barrier, kHalfThreads);  // the half's partial S is complete
    softmax.tile(p, sm, b, work.prefix, work.kv_len, tile, scale_log2);
    warp::named_barrier_sync(half_barrier, kHalfThreads);  // its P and rescale factors are complete
    pv_tile(o, sm, kv, half, group, lane);
    __syncwarp();
    if (lane == 0) warp::mbarrier_arrive(sm.empty(stage));  // this warp is done with the stage
  }

  // ---- epilogue: the row sums to the PV warps; LSE from the softmax threads ----
  if (softmax.col0 == 0) sm.final_sum()[softmax.row] = softmax.sum;
  warp::named_barrier_sync(half_barrier, kHalfThreads);
  store_o(o, p, ws, sm, work.request_row0, work.row0, work.rows_per_request, num_splits, split, half, group, lane);
  if (softmax.col0 == 0 && softmax.valid) {
    const std::int64_t qrow = work.request_row0 + row_in_request;
    const float lse = softmax.sum > 0.f ? softmax.max * kLn2 + logf(softmax.sum) : -INFINITY;
    if (num_splits == 1) {
      p.lse[qrow] = lse;
    } else {
      ws.lse_partial[qrow * num_splits + split] = lse;
    }
  }
}

}  // namespace

namespace detail {

namespace {
template <class Params>
cudaError_t raise_smem_limit_once(int device, int bytes) {
  constexpr int kMaxCachedDevices = 64;
  static std::atomic<int> raised[kMaxCachedDevices] = {};
  const bool cacheable = device >= 0 && device < kMaxCachedDevices;
  if (cacheable && raised[device].load(std::memory_order_acquire) >= bytes) return cudaSuccess;
  const cudaError_t err =
      cudaFuncSetAttribute(flash_verify_mma64_kernel<Params>, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
  if (err == cudaSuccess && cacheable) {
    int seen = raised[device].load(std::memory_order_relaxed);
    while (seen < bytes && !raised[device].compare_exchange_weak(seen, bytes, std::memory_order_release)) {
    }
  }
  return err;
}
}  // namespace

const void* mma64_kernel_function() { return reinterpret_cast<const void*>(flash_verify_mma64_kernel<VerifyParams>); }

cudaError_t launch_mma64_main(const VerifyParams& params, const FlashVerifyPlan& plan, int split_tiles,
                              const SplitWorkspace& ws, bool overlap_previous_kernel, bool over_mask_writer,
                              cudaStream_t stream) {
  int device = 0, optin = 0;
  if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return err;
  if (cudaError_t err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
      err != cudaSuccess) {
    return err;
  }
  const int smem = std::max(kSmemBytes, plan.min_dynamic_smem_bytes);
  if (smem > optin) return cudaErrorInvalidConfiguration;
  const cudaError_t raised = over_mask_writer ? raise_smem_limit_once<IndptrLengthParams>(device, smem)
                                              : raise_smem_limit_once<VerifyParams>(device, smem);
  if (raised != cudaSuccess) return raised;
  const dim3 grid(plan.m_tiles, plan.num_splits, params.batch);
  cudaLaunchAttribute attribute{};
  const cudaLaunchConfig_t config =
      launch_config(grid, dim3(kThreads), smem, stream, overlap_previous_kernel, &attribute);
  return over_mask_writer ? cudaLaunchKernelEx(&config, flash_verify_mma64_kernel<IndptrLengthParams>,
                                               IndptrLengthParams(params), plan.num_splits, split_tiles, ws)
                          : cudaLaunchKernelEx(&config, flash_verify_mma64_kernel<VerifyParams>, params,
                                               plan.num_splits, split_tiles, ws);
}

int mma64_blocks_per_sm(int min_dynamic_smem_bytes, cudaError_t* error) {
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  const int smem = std::max(kSmemBytes, min_dynamic_smem_bytes);
  if (err == cudaSuccess) err = raise_smem_limit_once<VerifyParams>(device, smem);
  int blocks = 0;
  if (err == cudaSuccess) {
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, flash_verify_mma64_kernel<VerifyParams>, kThreads, smem);
  }
  if (error) *error = err;
  return err == cudaSuccess ? blocks : 0;
}

}  // namespace detail
}  // namespace vb

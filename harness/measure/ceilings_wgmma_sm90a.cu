// The wgmma ceilings' probe kernels (harness/measure/ceilings.cpp): Hopper-only
// wgmma.mma_async, so this file is built for sm_90a alone (CMakeLists.txt) and launched only
// on compute capability 9.0 devices. Harness code: kernels/ never includes it. Two probes:
// the instruction's issue rate (wgmma_bf16_kernel) and the production kernel's tile with only
// its tensor work (wgmma_mla_tile_kernel, below).
//
// wgmma_bf16_kernel: each warpgroup keeps one 64 x 256 fp32 accumulator (128 registers a thread) and issues
// kWgmmaPerGroup m64n256k16 instructions per commit group, both operands read from shared
// memory through 128-byte-swizzle K-major descriptors (the layout of the production wgmma
// path), one group left in flight behind the next. A (64 x 64) and B (256 x 64) hold random
// full-mantissa bf16 values (wgmma_probe_value), so thread 0's first accumulator after the
// loop is iterations x sum_k A[0][k] B[0][k] up to fp32 rounding, and the host can tell that
// every instruction ran.
#include "harness/measure/ceilings_kernels.h"

#include "harness/measure/ceilings_device.cuh"

#include "kernels/common/warp_ops.cuh"
#include "kernels/wgmma/wgmma_config.h"
#include "kernels/wgmma/wgmma_ops.cuh"

#include <cstdint>

namespace vb::ceiling_kernels {
namespace {

constexpr int kKRowBytes = kWgmmaK * 2;             // one K row of a tile: 64 bf16, 128 B
constexpr int kATileBytes = kWgmmaM * kKRowBytes;    // 8 KB
constexpr int kBTileBytes = kWgmmaN * kKRowBytes;    // 32 KB
constexpr int kSwizzleAtomBytes = 1024;              // 8 rows of 128 B: the K-major stride
constexpr int kUnusedLeadingOffset = 16;             // K-major operands do not use it (encodes 1)

__global__ void __launch_bounds__(kWgmmaThreads) wgmma_bf16_kernel(int iterations, float* sink, std::uint64_t* clock_span) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
  __shared__ __align__(1024) std::uint16_t a_tile[kATileBytes / 2];
  __shared__ __align__(1024) std::uint16_t b_tile[kBTileBytes / 2];
  for (int i = threadIdx.x; i < kATileBytes / 2; i += blockDim.x) a_tile[i] = wgmma_probe_value(i, 0);
  for (int i = threadIdx.x; i < kBTileBytes / 2; i += blockDim.x) b_tile[i] = wgmma_probe_value(i, 1);
  // Generic-proxy stores, read by the async proxy (wgmma).
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  const std::uint32_t a_base = static_cast<std::uint32_t>(__cvta_generic_to_shared(a_tile));
  const std::uint32_t b_base = static_cast<std::uint32_t>(__cvta_generic_to_shared(b_tile));
  float d[128];
#pragma unroll
  for (int i = 0; i < 128; ++i) d[i] = 0.f;
  const ProbeClockSpan clock(clock_span);
  for (int it = 0; it < iterations; ++it) {
    // Orders the accumulators' last register accesses before the group that reads them (as
    // every wgmma main loop does per k-block).
    wg::fence();
#pragma unroll
    for (int k = 0; k < kWgmmaPerGroup; ++k) {
      // k16 step k: 16 bf16 (32 bytes) further along every 128-byte row.
      constexpr std::uint32_t kStepBytes = 32;
      wg::wgmma_m64n256k16_ss_acc(d, wg::smem_desc_sw128(a_base + kStepBytes * k, kUnusedLeadingOffset, kSwizzleAtomBytes),
                                  wg::smem_desc_sw128(b_base + kStepBytes * k, kUnusedLeadingOffset, kSwizzleAtomBytes));
    }
    wg::commit_group();
    wg::wait_group<1>();
  }
  wg::wait_group<0>();
  clock.finish();
  // Thread 0 of each warpgroup holds D[0][0] in d[0]; the other values keep every
  // accumulator live.
  float s = 0.f;
#pragma unroll
  for (int i = 1; i < 128; ++i) s += d[i];
  if (blockIdx.x == 0 && threadIdx.x == 0) sink[0] = d[0];
  if (s == 1e30f) sink[1 + threadIdx.x % 128] = s;  // never (|D| stays far below); keeps them live
#else
  if (iterations < 0) sink[0] = 0.f;
  (void)clock_span;
#endif
}

// ---- the MLA tile's wgmma mix (wgmma_mla_tile_*) ----
// The production wgmma path's tile (kernels/wgmma/wgmma_kernel.cuh) with nothing in it but
// its tensor work: the same three warpgroups, register budgets, shared-memory layouts and
// descriptors, and per 64 x 64 tile the same instructions. Warpgroup 1 issues S = Q K^T (36
// m64n64k16, both operands from shared memory), waits for it, packs P from S (no softmax:
// P = bf16(S)) and issues O[:, 0:256] += P V (4 m64n256k16, P from registers); it waits for
// that PV before the next S, as the kernel must (O, S and P together exceed its registers).
// Warpgroup 2 issues O[:, 256:512] += P V with a fixed P, one tile in flight: it waits for no
// softmax, so its PV fills warpgroup 1's gaps as well as any schedule could. With a copy
// source the producer warpgroup lands 72 KB a tile with 16-byte cp.async, as the gather lands
// a stage, into a buffer nobody reads. The three meet at a named barrier once a tile.
namespace mla_tile {
using namespace wgmma_cfg;
constexpr int kSSteps = mla::kHeadDimQK / 16;  // 36
constexpr int kSRegs = kTokensPerTile / 2;     // 32
constexpr int kPvSteps = kTokensPerTile / 16;  // 4
constexpr int kCopyChunksPerThread = kTileBytes / 16 / 128;  // 36
constexpr int kTileBarrier = 1;
static_assert(kWgmmaMlaTileThreads == kThreads && kWgmmaMlaTileTileBytes == kTileBytes, "ceilings_kernels.h");
static_assert(kWgmmaMlaTileSmemBytes == kQBytes + 2 * kTileBytes + 1024, "Q, one stage, the copies' target, alignment");

// Warpgroup 2's fixed P: warp w's lane (g, q) holds rows 16w+g and 16w+g+8, columns
// 16kk+2q(+1) and +8(+9) of k16 step kk (the wgmma register-A layout).
__device__ __forceinline__ void fixed_p(std::uint32_t (&p)[kPvSteps][4], int wg_tid) {
  const int row = 16 * (wg_tid / 32) + (wg_tid % 32) / 4;
  const int col = 2 * (wg_tid % 4);
  auto pair = [](int r, int c) {
    return static_cast<std::uint32_t>(wgmma_probe_value(r * kTokensPerTile + c, 2)) |
           static_cast<std::uint32_t>(wgmma_probe_value(r * kTokensPerTile + c + 1, 2)) << 16;
  };
#pragma unroll
  for (int kk = 0; kk < kPvSteps; ++kk) {
    p[kk][0] = pair(row, 16 * kk + col);
    p[kk][1] = pair(row + 8, 16 * kk + col);
    p[kk][2] = pair(row, 16 * kk + col + 8);
    p[kk][3] = pair(row + 8, 16 * kk + col + 8);
  }
}

// P = bf16(S) as A fragments (the kernel's p_fragments: the accumulator layout of S is the
// A layout of P).
__device__ __forceinline__ void p_from_s(std::uint32_t (&p)[kPvSteps][4], const float (&s)[kSRegs]) {
#pragma unroll
  for (int kk = 0; kk < kPvSteps; ++kk) {
#pragma unroll
    for (int i = 0; i < 4; ++i) p[kk][i] = warp::pack_bf16x2(s[8 * kk + 2 * i], s[8 * kk + 2 * i + 1]);
  }
}

// V for k16 step kk of channel half `half`: MN-major, 64-channel blocks kBlockBytes apart.
__device__ __forceinline__ std::uint64_t v_desc(std::uint32_t kv_base, int half, int kk) {
  return wg::smem_desc_sw128(kv_base + half * 4 * kBlockBytes + kk * 16 * 128, kBlockBytes, 1024);
}

__device__ __forceinline__ void issue_pv(float (&o)[128], const std::uint32_t (&p)[kPvSteps][4], std::uint32_t kv_base,
                                         int half) {
  wg::fence();
#pragma unroll
  for (int kk = 0; kk < kPvSteps; ++kk) wg::wgmma_m64n256k16_rs(o, p[kk], v_desc(kv_base, half, kk), 1);
  wg::commit_group();
}

// Keeps every accumulator live; thread 0 of the warpgroup holds row 0, column 0 in acc[0].
template <int N>
__device__ __forceinline__ void sink_accumulators(const float (&acc)[N], float* sink, int slot, int wg_tid) {
  float s = 0.f;
#pragma unroll
  for (int i = 1; i < N; ++i) s += acc[i];
  if (blockIdx.x == 0 && wg_tid == 0) sink[slot] = acc[0];
  if (s == 1e30f) sink[kWgmmaMlaTileSinkSlots + wg_tid] = s;  // never: |acc| stays far below
}
}  // namespace mla_tile

__global__ void __launch_bounds__(kWgmmaMlaTileThreads, 1)
    wgmma_mla_tile_kernel(int tiles, const uint4* copy_src, int copy_tiles, float* sink, std::uint64_t* clock_span) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
  using namespace mla_tile;
  extern __shared__ __align__(1024) unsigned char smem_raw[];
  unsigned char* smem = smem_raw + ((1024 - (warp::smem_addr(smem_raw) & 1023)) & 1023);
  auto* halves = reinterpret_cast<std::uint16_t*>(smem);
  for (int i = threadIdx.x; i < (kQBytes + kTileBytes) / 2; i += blockDim.x) {
    halves[i] = i < kQBytes / 2 ? wgmma_probe_value(i, 0) : wgmma_probe_value(i - kQBytes / 2, 1);
  }
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // generic stores read by wgmma
  __syncthreads();
  const std::uint32_t q_base = warp::smem_addr(smem);
  const std::uint32_t kv_base = q_base + kQBytes;
  unsigned char* copy_dst = smem + kQBytes + kTileBytes;
  const int warpgroup = threadIdx.x / 128;
  const int wg_tid = threadIdx.x % 128;
  const ProbeClockSpan clock(clock_span);
  if (warpgroup == 0) {
    wg::setmaxnreg_dec<kProducerRegs>();
    for (int t = 0; t < tiles; ++t) {
      if (copy_src != nullptr) {
        const uint4* src = copy_src + static_cast<std::size_t>((blockIdx.x + t) % copy_tiles) * (kTileBytes / 16);
#pragma unroll 4
        for (int j = 0; j < kCopyChunksPerThread; ++j) {
          const int chunk = j * 128 + wg_tid;
          warp::cp_async_16(copy_dst + chunk * 16, src + chunk, true);
        }
        warp::cp_async_commit();
        warp::cp_async_wait<1>();  // at most this tile and the one before in flight
      }
      warp::named_barrier_sync(kTileBarrier, kThreads);
    }
    warp::cp_async_wait<0>();
  } else if (warpgroup == 1) {
    wg::setmaxnreg_inc<kSoftmaxRegs>();
    float s_acc[kSRegs], o_acc[128];
    std::uint32_t p[kPvSteps][4];
#pragma unroll
    for (int i = 0; i < kSRegs; ++i) s_acc[i] = 0.f;  // overwritten by each tile's first k step (scale-d 0)
#pragma unroll
    for (int i = 0; i < 128; ++i) o_acc[i] = 0.f;
    const std::uint64_t q_desc = wg::smem_desc_sw128(q_base, 16, 1024);
    const std::uint64_t k_desc = wg::smem_desc_sw128(kv_base, 16, 1024);
    for (int t = 0; t < tiles; ++t) {
      wg::fence();
#pragma unroll
      for (int ks = 0; ks < kSSteps; ++ks) {  // the kernel's issue_scores offsets
        const std::uint32_t step = ((ks / 4) * kRowsPerTile * 128 + (ks % 4) * 32) >> 4;
        const std::uint32_t kstep = ((ks / 4) * kBlockBytes + (ks % 4) * 32) >> 4;
        wg::wgmma_m64n64k16_ss(s_acc, q_desc + step, k_desc + kstep, ks > 0 ? 1 : 0);
      }
      wg::commit_group();
      wg::wait_group<0>();
      wg::fence_operands(s_acc);
      p_from_s(p, s_acc);
      issue_pv(o_acc, p, kv_base, 0);
      warp::named_barrier_sync(kTileBarrier, kThreads);
      wg::wait_group<0>();  // P's registers are free for the next S
      wg::fence_operands(o_acc);
    }
    sink_accumulators(o_acc, sink, 0, wg_tid);
    sink_accumulators(s_acc, sink, 1, wg_tid);
  } else {
    wg::setmaxnreg_inc<kSecondPvRegs>();
    std::uint32_t p[kPvSteps][4];
    fixed_p(p, wg_tid);
    float o_acc[128];
#pragma unroll
    for (int i = 0; i < 128; ++i) o_acc[i] = 0.f;
    for (int t = 0; t < tiles; ++t) {
      issue_pv(o_acc, p, kv_base, 1);
      wg::wait_group<1>();
      warp::named_barrier_sync(kTileBarrier, kThreads);
    }
    wg::wait_group<0>();
    wg::fence_operands(o_acc);
    sink_accumulators(o_acc, sink, 2, wg_tid);
  }
  __syncthreads();
  clock.finish();
#else
  if (tiles < 0) sink[0] = copy_src != nullptr ? static_cast<float>(copy_tiles) : 0.f;
  (void)clock_span;
#endif
}

}  // namespace

cudaError_t launch_wgmma_bf16(int iterations, float* sink, std::uint64_t* clock_span, int blocks,
                             cudaStream_t stream) {
  wgmma_bf16_kernel<<<blocks, kWgmmaThreads, 0, stream>>>(iterations, sink, clock_span);
  return cudaGetLastError();
}

cudaError_t wgmma_blocks_per_sm(int* blocks) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, wgmma_bf16_kernel, kWgmmaThreads, 0);
}

cudaError_t launch_wgmma_mla_tile(int tiles, const void* copy_src, int copy_tiles, float* sink,
                                  std::uint64_t* clock_span, int blocks, cudaStream_t stream) {
  const cudaError_t attr = cudaFuncSetAttribute(wgmma_mla_tile_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                kWgmmaMlaTileSmemBytes);
  if (attr != cudaSuccess) return attr;
  wgmma_mla_tile_kernel<<<blocks, kWgmmaMlaTileThreads, kWgmmaMlaTileSmemBytes, stream>>>(
      tiles, static_cast<const uint4*>(copy_src), copy_tiles, sink, clock_span);
  return cudaGetLastError();
}

}  // namespace vb::ceiling_kernels

// Thin wrappers over the warp-level instructions the production kernel is built from:
// cp.async (global -> shared, 16 B, zero-fill), ldmatrix (shared -> mma fragments),
// mma.sync m16n8k16 bf16 -> fp32 (sm_80+) and m16n8k32 e4m3 -> fp32 (sm_89+), and the sm_90+ bulk copy engine with its
// shared-memory mbarriers (cp.async.bulk, no tensor map). All exist on sm_90 and sm_120.
#pragma once
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace vb::warp {

__device__ __forceinline__ std::uint32_t smem_addr(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// Copies 16 bytes, or writes 16 zero bytes when `valid` is false (src is not read then,
// but must still be a valid address).
__device__ __forceinline__ void cp_async_16(void* smem_dst, const void* gmem_src, bool valid) {
  const int src_bytes = valid ? 16 : 0;
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_addr(smem_dst)),
               "l"(gmem_src), "r"(src_bytes));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int kPendingGroups>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPendingGroups));
}

__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(smem_row)));
}
__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&r)[4], const void* smem_row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(smem_row)));
}

// D = A(16x16, row) * B(16x8, col) + D, bf16 inputs, fp32 accumulate.
__device__ __forceinline__ void mma_bf16_16816(float (&d)[4], const std::uint32_t (&a)[4],
                                               std::uint32_t b0, std::uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Four e4m3 bytes as two f16x2 words (bytes 0, 1 and bytes 2, 3), exactly.
__device__ __forceinline__ void widen_e4m3x4_to_f16(std::uint32_t four, std::uint32_t& lo, std::uint32_t& hi) {
  asm("{\n .reg .b16 l, h;\n mov.b32 {l, h}, %2;\n cvt.rn.f16x2.e4m3x2 %0, l;\n cvt.rn.f16x2.e4m3x2 %1, h;\n}\n"
      : "=r"(lo), "=r"(hi)
      : "r"(four));
}

// D = A(16x32, row) * B(32x8, col) + D, e4m3 inputs, fp32 accumulate. Each register holds 4
// consecutive-k bytes, lowest k in the lowest byte. sm_120 runs the e4m3 mma.sync. sm_90 has no
// e4m3 tensor instruction for mma.sync: ptxas lowers the PTX one to f16 HMMA itself (the lab
// SASS check: 72 HMMA and no e4m3 MMA in each fp8-math kernel), and its lowering ran the fp8
// twins slower than this one (H100, MTP T=4 B64 with fp8 math: 388 µs against 343 µs, two calls
// of 2026-12-06). So on sm_90 the operands are widened to f16 (exact) here and the product is
// two m16n8k16 f16 mma: a thread's k positions 4q .. 4q+3 of a register play the f16
// fragment's 2q, 2q+1 (low word) and 8+2q, 9+2q (high word) in A and B alike, which leaves the
// contraction unchanged.
__device__ __forceinline__ void mma_e4m3_16832(float (&d)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                               std::uint32_t b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ == 900
#pragma unroll
  for (int half = 0; half < 2; ++half) {  // k 0..15 (a0, a1, b0), then k 16..31 (a2, a3, b1)
    std::uint32_t a_lo[2], a_hi[2], b_lo, b_hi;
    widen_e4m3x4_to_f16(a[2 * half], a_lo[0], a_hi[0]);
    widen_e4m3x4_to_f16(a[2 * half + 1], a_lo[1], a_hi[1]);
    widen_e4m3x4_to_f16(half == 0 ? b0 : b1, b_lo, b_hi);
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
        "{%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a_lo[0]), "r"(a_lo[1]), "r"(a_hi[0]), "r"(a_hi[1]), "r"(b_lo), "r"(b_hi));
  }
#else
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
      "{%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
#endif
}

// Two floats as two e4m3 bytes (lo in the low byte): round to nearest even, saturated at
// +-448 (cvt.rn.satfinite.e4m3x2.f32; NaN stays NaN).
__device__ __forceinline__ std::uint32_t pack_e4m3x2(float lo, float hi) {
  std::uint16_t two;
  asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;\n" : "=h"(two) : "f"(hi), "f"(lo));
  return two;
}

// Two e4m3 bytes (the low 16 bits) as floats, exactly (via f16x2).
__device__ __forceinline__ float2 unpack_e4m3x2(std::uint32_t two) {
  std::uint32_t h2;
  asm("cvt.rn.f16x2.e4m3x2 %0, %1;\n" : "=r"(h2) : "h"(static_cast<std::uint16_t>(two)));
  return __half22float2(*reinterpret_cast<const __half2*>(&h2));
}

__device__ __forceinline__ std::uint32_t pack_bf16x2(float lo, float hi) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
  return *reinterpret_cast<const std::uint32_t*>(&v);
}

// 2^x with the SFU's approximate exp2 (2 ulp; flushes denormal results to 0): softmax
// weights are rounded to bf16 right after, so the accurate libm path buys nothing.
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;\n" : "=f"(y) : "f"(x));
  return y;
}

// Barrier over the first `threads` threads of the block that use hardware barrier `id`
// (1..15; __syncthreads is 0): lets a subset of warps synchronise without the others.
__device__ __forceinline__ void named_barrier_sync(int id, int threads) {
  asm volatile("bar.sync %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// ---- programmatic dependent launch (sm_90+) ----
// Lets the grid launched after this one (with the programmatic-serialization attribute)
// be scheduled once every block of this grid has signalled or exited.
__device__ __forceinline__ void launch_dependents() { asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory"); }
// Waits until the grids this one depends on have completed and their writes are visible.
__device__ __forceinline__ void wait_for_prerequisite_grid() { asm volatile("griddepcontrol.wait;\n" ::: "memory"); }

// ---- mbarrier + bulk copy (sm_90+, also sm_120) ----
// One 64-bit barrier in shared memory per pipeline stage: the producer announces the bytes
// a stage will receive (expect_tx) and the copy engine counts them down as they land.
__device__ __forceinline__ void mbarrier_init(std::uint64_t* bar, std::uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(arrivals) : "memory");
}
// Makes initialised barriers visible to the copy engine (the async proxy).
__device__ __forceinline__ void fence_mbarrier_init() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
__device__ __forceinline__ void mbarrier_arrive_expect_tx(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_addr(bar)), "r"(bytes)
               : "memory");
}
// Orders this thread's earlier generic-proxy shared-memory accesses before later async-proxy
// (bulk copy) accesses to the same bytes.
__device__ __forceinline__ void fence_proxy_async_shared() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}
__device__ __forceinline__ void mbarrier_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_addr(bar)) : "memory");
}
// Spins until the barrier's phase with the given parity has completed.
__device__ __forceinline__ void mbarrier_wait_parity(std::uint64_t* bar, std::uint32_t parity) {
  std::uint32_t done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        " selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(smem_addr(bar)), "r"(parity)
        : "memory");
  } while (!done);
}
// Global -> shared copy of `bytes` (multiple of 16, both addresses 16-byte aligned) by the
// bulk copy engine; completion is counted on `bar`. One instruction per row instead of
// one cp.async per 16 bytes.
__device__ __forceinline__ void bulk_copy_g2s(void* smem_dst, const void* gmem_src, std::uint32_t bytes,
                                              std::uint64_t* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
          smem_addr(smem_dst)),
      "l"(gmem_src), "r"(bytes), "r"(smem_addr(bar))
      : "memory");
}

}  // namespace vb::warp

// Hopper-only (sm_90a) warpgroup instructions for the wgmma path of the verify kernel
// (kernels/wgmma/wgmma_kernel.cuh): wgmma.mma_async with shared-memory descriptors,
// its fence/commit/wait, setmaxnreg, the cp.async completion hook for mbarriers and TMA
// tensor-tile copies.
// Include only from translation units compiled for sm_90a.
#pragma once
#include <cstdint>

namespace vb::wg {

// ---- shared-memory matrix descriptors (PTX ISA "Matrix Descriptor Format") ----
// Every operand here uses the 128-byte swizzle: rows of 64 bf16 (128 B) with the 16-byte
// chunk index XORed with the row index mod 8, in 1024-byte atoms of 8 rows (the layout
// a TMA load with CU_TENSOR_MAP_SWIZZLE_128B writes; the producers here write it with
// cp.async). Bits: 0-13 start address >> 4, 16-29 leading byte offset >> 4, 32-45 stride
// byte offset >> 4, 62-63 layout (1 = 128-byte swizzle).
//   K-major (Q and K for S = Q K^T): rows 128 B apart, 8-row groups `sbo` = 1024 B apart;
//     the leading offset is unused (1). A k16 step moves the start by 32 B.
//   MN-major (V for O = P V, trans-b): a row is 64 channels of one token; 8-token groups
//     1024 B apart (stride offset), 64-channel blocks `lbo` apart (leading offset).
__device__ __forceinline__ std::uint64_t smem_desc_sw128(std::uint32_t smem_byte_addr, std::uint32_t lbo_bytes,
                                                         std::uint32_t sbo_bytes) {
  std::uint64_t desc = (smem_byte_addr & 0x3FFFFu) >> 4;
  desc |= static_cast<std::uint64_t>((lbo_bytes >> 4) & 0x3FFFu) << 16;
  desc |= static_cast<std::uint64_t>((sbo_bytes >> 4) & 0x3FFFu) << 32;
  desc |= static_cast<std::uint64_t>(1) << 62;
  return desc;
}

// ---- wgmma issue / completion ----
// Orders this thread's register (and shared-memory) writes before the wgmma that reads them.
__device__ __forceinline__ void fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void commit_group() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int kPending>
__device__ __forceinline__ void wait_group() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(kPending) : "memory");
}
// Tells the compiler a register may have changed here (wgmma writes its accumulators
// asynchronously): no read of it moves above a wait_group, no write below an issue.
__device__ __forceinline__ void fence_operand(float& r) { asm volatile("" : "+f"(r)::"memory"); }
template <int N>
__device__ __forceinline__ void fence_operands(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) fence_operand(r[i]);
}

// ---- register budget per warp (warp-specialised kernels) ----
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}
template <int kRegs>
__device__ __forceinline__ void setmaxnreg_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(kRegs));
}

// ---- cp.async completion on an mbarrier ----
// Arrives on `bar` once every cp.async this thread issued before it has landed. .noinc:
// the arrival counts against the barrier's expected count (initialise it with the number
// of threads that call this per phase).
__device__ __forceinline__ void cp_async_mbarrier_arrive_noinc(std::uint64_t* bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(
                   static_cast<std::uint32_t>(__cvta_generic_to_shared(bar)))
               : "memory");
}

// ---- TMA tensor tiles ----
// Global -> shared copy of one box of a 2-D tensor map at element coordinates (x: inner,
// y: outer), counted on `bar` (complete_tx). `map` is the generic address of a
// __grid_constant__ CUtensorMap kernel parameter; with CU_TENSOR_MAP_SWIZZLE_128B the box
// lands in the layout smem_desc_sw128 describes (smem_dst 1024-byte aligned).
__device__ __forceinline__ void tma_load_2d(std::uint32_t smem_dst, const void* map, int x, int y,
                                            std::uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
      ::"r"(smem_dst), "l"(map), "r"(x), "r"(y), "r"(bar)
      : "memory");
}
// Fetches the tensor map's descriptor ahead of the first copy that uses it.
__device__ __forceinline__ void prefetch_tensormap(const void* map) {
  asm volatile("prefetch.tensormap [%0];\n" ::"l"(map) : "memory");
}

// ---- named barriers split into arrive / sync (producer-consumer between warpgroups) ----
__device__ __forceinline__ void named_barrier_arrive(int id, int threads) {
  asm volatile("bar.arrive %0, %1;\n" ::"r"(id), "r"(threads) : "memory");
}

// ---- the two wgmma shapes of the kernel (operand lists written out by a script: PTX
// needs every accumulator register named) ----
// D(64x64, fp32) = A(64x16, smem desc) * B(64x16, smem desc) + (scale_d ? D : 0).
__device__ __forceinline__ void wgmma_m64n64k16_ss(float (&d)[32], std::uint64_t desc_a, std::uint64_t desc_b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15,"
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31"
      "}, %32, %33, p, 1, 1, 0, 0;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

// The 128 fp32 accumulators of a 64 x 256 wgmma: the operand placeholders %0-%127 of its
// asm string and the matching "+f" output list, shared by every m64n256 wrapper.
#define VB_WGMMA_D128_PLACEHOLDERS \
  "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15," \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31," \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47," \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63," \
  "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79," \
  "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95," \
  "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111," \
  "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127"
#define VB_WGMMA_D128_OUTPUTS(d) \
  "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
  "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
  "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
  "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
  "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
  "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
  "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
  "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), \
  "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
  "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
  "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
  "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
  "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
  "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
  "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
  "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

// D(64x256, fp32) = A(64x16, bf16 registers) * B(16x256, smem desc, MN-major: trans-b) + (scale_d ? D : 0).
__device__ __forceinline__ void wgmma_m64n256k16_rs(float (&d)[128], const std::uint32_t (&a)[4], std::uint64_t desc_b, int scale_d) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
      VB_WGMMA_D128_PLACEHOLDERS
      "}, {%128, %129, %130, %131}, %132, p, 1, 1, 1;\n}\n"
      : VB_WGMMA_D128_OUTPUTS(d)
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d));
}

// D(64x256, fp32) += A(64x16, smem desc, K-major) * B(16x256, smem desc, K-major), always
// accumulating (the in-run ceiling's probe, harness/measure/ceilings_wgmma_sm90a.cu).
__device__ __forceinline__ void wgmma_m64n256k16_ss_acc(float (&d)[128], std::uint64_t desc_a, std::uint64_t desc_b) {
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
      VB_WGMMA_D128_PLACEHOLDERS
      "}, %128, %129, p, 1, 1, 0, 0;\n}\n"
      : VB_WGMMA_D128_OUTPUTS(d)
      : "l"(desc_a), "l"(desc_b), "r"(1));
}

}  // namespace vb::wg

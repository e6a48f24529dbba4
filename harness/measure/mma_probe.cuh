// The mma.sync probes' kernel (ceilings_kernels.h, "The mma.sync probes"), shared by the run's
// ceilings (ceilings_kernels.cu) and the sm_120 emulation's calibration tool
// (bench/sm120_emulation_calibration.cu), which runs the emulated probes at candidate fractions
// of the extra load. A probe is a type (MmaProbeSpec): what its compute warps issue and, under
// the emulation, what its load warps issue.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>
#include <type_traits>

#include "harness/measure/ceilings_device.cuh"
#include "harness/measure/ceilings_kernels.h"
#include "kernels/common/warp_ops.cuh"
#include "verifybench/sm120_emulation.cuh"

namespace vb::ceiling_kernels {

using sm120_emulation::MmaShape;

// The fp8-math kernel's e4m3 m16n8k32 as the kernel issues it (warp::mma_e4m3_16832: two f16
// m16n8k16 on widened operands on sm_90), so that the emulated fp8 probe meets the pipe the
// kernel's instruction meets.
struct KernelE4m3Mma {
  __device__ __forceinline__ static void issue(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
    warp::mma_e4m3_16832(d, a, b[0], b[1]);
  }
};

// An emulated probe's load: kExtraNum / kExtraDen instructions of kShape per compute-warp
// instruction, owed kTileIterations iterations of the compute warps at a time, as the kernel's
// producers owe a KV tile's at a time (owed an iteration at a time instead, 1-2 rounds a call,
// the load issued at 60 % of its rate: ptxas drains the chains at each call's loop).
template <MmaShape kShape, int kExtraNum, int kExtraDen, int kTileIterations>
struct ProbeLoad {
  static constexpr MmaShape shape = kShape;
  static constexpr int extra_num = kExtraNum, extra_den = kExtraDen, tile_iterations = kTileIterations;
};
struct NoProbeLoad {};

// A probe: kMmaComputeWarps warps issuing Mma on operands of kShape, machine code from
// kMinArch (a lower architecture's build of the kernel issues nothing), and a Load
// (ProbeLoad: the emulated probes, kMmaLoadWarps more warps) or none.
template <MmaShape kShape, class Mma, int kMinArch, class Load = NoProbeLoad>
struct MmaProbeSpec {
  static constexpr MmaShape shape = kShape;
  using Instruction = Mma;
  static constexpr int min_arch = kMinArch;
  using ExtraLoad = Load;
  static constexpr bool emulated = !std::is_same_v<Load, NoProbeLoad>;
  static constexpr int threads = emulated ? kMmaThreads + kMmaLoadWarps * 32 : kMmaThreads;
};

// sm_120's emulated rates as the kernel meets them: bf16 math's load of bf16 m16n8k16 beside the
// kernel's bf16 instruction; fp8 math's load of f16 m16n8k16 beside the kernel's e4m3
// instruction (two f16 mma on sm_90), owed per e4m3 instruction (verifybench/sm120_emulation.cuh).
// Run on a Hopper only.
template <int kExtraNum, int kExtraDen>
using EmulatedBf16Probe =
    MmaProbeSpec<MmaShape::kBf16M16N8K16, sm120_emulation::ShapeMma<MmaShape::kBf16M16N8K16>, 900,
                 ProbeLoad<sm120_emulation::kBf16MathExtraShape, kExtraNum, kExtraDen, kMmaProbeTileIterations>>;
template <int kExtraNum, int kExtraDen>
using EmulatedFp8MathProbe =
    MmaProbeSpec<MmaShape::kFp8E4m3M16N8K32, KernelE4m3Mma, 900,
                 ProbeLoad<sm120_emulation::kFp8MathExtraShape, kExtraNum, kExtraDen, kMmaProbeTileIterationsFp8Math>>;

// Each compute warp issues `iterations` rounds on kMmaChains chains; an emulated probe's load
// warp w (on SM sub-partition w % 4) owes for compute warps w % 4 and w % 4 + 4. With
// clock_span, block 0 records its clock span (ProbeClockSpan).
template <class Spec>
__global__ void __launch_bounds__(Spec::threads) mma_probe_kernel(int iterations, float* sink,
                                                                  std::uint64_t* clock_span) {
#if defined(__CUDA_ARCH__)
  // The emulated probes run on a Hopper only: other architectures' builds of them issue nothing
  // (sm_120's code of the fp8 one took local memory, which the lab SASS check refuses).
  if constexpr (__CUDA_ARCH__ >= Spec::min_arch && (!Spec::emulated || __CUDA_ARCH__ == 900)) {
    const ProbeClockSpan clock(clock_span);
    if (!Spec::emulated || threadIdx.x < kMmaThreads) {
      sm120_emulation::MmaChains<Spec::shape, kMmaChains, typename Spec::Instruction> chains(0);
      for (int i = 0; i < iterations; ++i) chains.issue_round();
      chains.keep_live(sink + threadIdx.x);
    } else if constexpr (Spec::emulated) {
      using Load = typename Spec::ExtraLoad;
      constexpr int kComputeWarpsPerSubPartition = kMmaComputeWarps / kMmaLoadWarps;
      sm120_emulation::TensorLoad<Load::shape, Load::extra_num, Load::extra_den> load(1);
      for (int i = 0; i < iterations; i += Load::tile_iterations) {
        load.owe(kComputeWarpsPerSubPartition * kMmaChains * Load::tile_iterations);
      }
      load.keep_live(sink + threadIdx.x);
    }
    clock.finish();
    return;
  }
#endif
  if (iterations < 0) sink[0] = 0.f;
  (void)clock_span;
}

// The dynamic shared memory an emulated probe's launches take: unused, more than half of an
// SM's, so that no SM holds two of its blocks (as the production kernel is held to one); the
// kernel's limit raised to it. Call once before launching with that many bytes.
inline cudaError_t one_block_per_sm_smem_bytes(const void* kernel, int* bytes) {
  int device = 0, per_sm = 0;
  if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return err;
  if (cudaError_t err = cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
      err != cudaSuccess) {
    return err;
  }
  *bytes = per_sm / 2 + 1024;
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, *bytes);
}

}  // namespace vb::ceiling_kernels

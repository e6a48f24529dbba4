// Launchers of the ceiling micro-kernels (harness/measure/ceilings_kernels.cu), used by
// harness/measure/ceilings.cpp only. Asynchronous on `stream`; return the launch error.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace vb::ceiling_kernels {

// The KV row sizes the row-read ceiling is measured on: one MLA row of 576 values.
inline constexpr int kBf16RowBytes = 1152;  // 576 bf16
inline constexpr int kFp8RowBytes = 576;    // 576 fp8 e4m3
inline constexpr int kRowReadThreads = 256;
inline constexpr int kRowsPerWarpIteration = 4;  // rows a warp has in flight at once

// Every warp reads whole rows of `row_bytes` (one of kRowReadRowBytes; another size is
// cudaErrorInvalidValue) with 16-byte loads, lane l loading chunks l, l + 32, ...; rows named
// by `row_index` ([rows] int64, like kv_indices), grid-stride over rows; the loaded words are
// XOR-folded and stored only on an impossible value, so no load is dead.
cudaError_t launch_row_read(int row_bytes, const void* pool, const std::int64_t* row_index, std::int64_t rows,
                            unsigned* sink, int blocks, cudaStream_t stream);
// Resident blocks of the row-read kernel of `row_bytes` per SM (occupancy query).
cudaError_t row_read_blocks_per_sm(int row_bytes, int* blocks);

// Reads `bytes` (a multiple of 16) of `buf` once, grid-stride, and discards them: the
// timer's cold-L2 flush (harness/measure/timing.cpp).
inline constexpr int kStreamReadThreads = 256;
cudaError_t launch_stream_read(const void* buf, std::size_t bytes, unsigned* sink, int blocks,
                               cudaStream_t stream);

// Keeps the stream busy for `nanoseconds` (one warp spinning on the global timer) so that a
// timed sample's start event, launch and stop event are all submitted before the GPU reaches
// them: without it, a hot or graph sample of a tiny launch includes the host's submission
// (H200 probe: one empty kernel 5.8 us unheld, 2.9 us behind a busy stream).
cudaError_t launch_hold(std::uint64_t nanoseconds, cudaStream_t stream);
// One block of one warp that does nothing: the launch floor (harness/measure/ceilings.cpp).
cudaError_t launch_empty(cudaStream_t stream);

// The tensor-core probes' clock: with `clock_span` non-null, thread 0 of block 0 writes its
// SM's cycle counter and the global timer (ns) before its loop and after it:
// {cycles, ns, cycles, ns}. Cycles over nanoseconds is the clock the probe ran at, measured
// inside the pass (NVML reads its clock between passes).
inline constexpr int kClockSpanWords = 4;

// The mma.sync probes (harness/measure/mma_probe.cuh). Each of kMmaComputeWarps warps a block
// issues `iterations` x kMmaChains instructions of the probe's shape on kMmaChains independent
// accumulator chains (verifybench/sm120_emulation.cuh's MmaChains): kBf16 bf16 m16n8k16, kFp8
// the device's own e4m3 m16n8k32. The sm_120-emulated probes issue what the production kernel
// issues (kBf16Sm120Emulated bf16 m16n8k16; kFp8Sm120Emulated the fp8-math kernels' e4m3
// m16n8k32 as sm_90 runs it, two f16 m16n8k16 on widened operands) and add kMmaLoadWarps warps,
// one per SM sub-partition as the production kernel's producers, that issue the emulation's
// extra load (TensorLoad: bf16 m16n8k16 for bf16 math, f16 m16n8k16 for fp8 math) owed for the
// two compute warps of their sub-partition, a probe tile at a time: the compute warps' rate is
// then sm_120's as this device emulates it. Emulated probes run one block per SM
// (as the production kernel) and only on a Hopper (compute capability 9.x); the fp8 probes need
// compute capability 8.9.
enum class MmaProbe { kBf16, kFp8, kBf16Sm120Emulated, kFp8Sm120Emulated };
inline constexpr int kMmaComputeWarps = 8;
inline constexpr int kMmaLoadWarps = 4;
inline constexpr int kMmaThreads = kMmaComputeWarps * 32;  // a plain probe's block
inline constexpr int kMmaChains = 8;  // independent accumulator chains per warp
// The emulated probes' load owes a probe tile's extra instructions at a time, about what a KV
// tile asks of a compute warp: bf16, 8 iterations of the compute warps (64 instructions a
// warp; a tile: 68); fp8 math, 4 (32 e4m3 instructions a warp; a tile: 32 or 36).
// CeilingOptions::mma_iterations is a multiple of both.
inline constexpr int kMmaProbeTileIterations = 8;
inline constexpr int kMmaProbeTileIterationsFp8Math = 4;
bool mma_probe_emulated(MmaProbe probe);
int mma_probe_threads(MmaProbe probe);
// FLOP a compute-warp instruction counts: 4096 (bf16 m16n8k16), 8192 (e4m3 m16n8k32, however
// the device issues it).
double mma_probe_flops_per_mma(MmaProbe probe);
// The emulation's extra instructions per compute-warp instruction, num / den, which instruction
// the load issues (PTX shape text, e.g. "m16n8k32 e4m3 x e4m3") and the compute-warp iterations
// it is owed at a time.
struct ExtraLoad {
  int num, den;
  const char* instruction;
  int tile_iterations;
};
ExtraLoad mma_probe_extra_load(MmaProbe probe);
// Resident blocks of the probe per SM and the dynamic shared memory its launches take (0 for
// the plain probes; for the emulated ones, unused, more than half of an SM's so that no SM
// holds two of their blocks, as the production kernel is held to one), its limit raised to
// it: call once before launching the probe with that smem_bytes.
cudaError_t mma_probe_blocks_per_sm(MmaProbe probe, int* blocks, int* smem_bytes);
cudaError_t launch_mma_probe(MmaProbe probe, int iterations, float* sink, std::uint64_t* clock_span, int blocks,
                             int smem_bytes, cudaStream_t stream);

// wgmma ceiling (harness/measure/ceilings_wgmma_sm90a.cu, sm_90a machine code only: launch on
// compute capability 9.0 alone). Each warpgroup issues `iterations` x kWgmmaPerGroup
// wgmma.mma_async m64n256k16 bf16 -> fp32 on one shared-memory A (64 x kWgmmaK) and
// B (256 x kWgmmaK) tile, K-major; sink[0] receives block 0's D[0][0] (see
// wgmma_probe_expected_d00). `sink` holds kWgmmaSinkFloats floats.
inline constexpr int kWgmmaThreads = 384;  // three warpgroups; a 128-register accumulator each: one block per SM
inline constexpr int kWgmmaM = 64, kWgmmaN = 256, kWgmmaK = 64;
inline constexpr int kWgmmaPerGroup = kWgmmaK / 16;  // k16 instructions per commit group
inline constexpr double kFlopsPerWgmma = 2.0 * 64 * 256 * 16;
inline constexpr int kWgmmaSinkFloats = 1 + 128;
inline constexpr int kWgmmaMaxIterations = 1 << 15;
// bf16 bits of the operand element at shared-memory position `index` of tile `which` (0: A,
// 1: B): all 7 mantissa bits from a hash of the position, values in [0.5, 1). Operands as
// busy as real data: the tensor cores' power, and with it the clock they hold, depends on the
// bits they multiply (small integers ran the probe faster than real data would). Positive, so
// that the check's sum is far from 0.
__host__ __device__ inline std::uint16_t wgmma_probe_value(int index, int which) {
  std::uint32_t h = static_cast<std::uint32_t>(index) * 0x9E3779B1u + static_cast<std::uint32_t>(which) * 0x85EBCA77u;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 13;
  return static_cast<std::uint16_t>(0x3F00u | (h & 0x7Fu));
}
// The probe's check: block 0's D[0][0] within this relative distance of iterations x the dot
// product of row 0 of A and B. The tensor cores' fp32 accumulation of 8192 equal increments
// drifts by a few 1e-3 (H200: 3.3e-3 low), so the check catches a probe that ran fewer than
// 98 % of its instructions (one that did not run, or ran another shape), not a single one.
inline constexpr double kWgmmaCheckRelTolerance = 2e-2;
// What sink[0] holds after `iterations`: row 0 of both tiles lies unswizzled at positions
// 0..kWgmmaK-1 (the 128-byte swizzle XORs chunk indices with the row index mod 8).
double wgmma_probe_expected_d00(int iterations);
cudaError_t launch_wgmma_bf16(int iterations, float* sink, std::uint64_t* clock_span, int blocks,
                             cudaStream_t stream);
cudaError_t wgmma_blocks_per_sm(int* blocks);

// The MLA tile's wgmma mix (harness/measure/ceilings_wgmma_sm90a.cu, sm_90a only): one block
// per SM of the production wgmma kernel's three warpgroups issuing `tiles` 64 x 64 tiles of
// its tensor work with no softmax and no loads to wait for (S: 36 m64n64k16 from shared
// memory; PV: 2 x 4 m64n256k16 with P from registers). With `copy_src` (copy_tiles x
// kWgmmaMlaTileTileBytes, L2-resident) the producer also lands a tile's bytes a tile with
// 16-byte cp.async into a buffer nobody reads; null: no copies. Block 0 writes sink[0] =
// O[0][0] (warpgroup 1: P = bf16(S), summed over the tiles), sink[1] = S[0][0] (one tile),
// sink[2] = O[0][256] (warpgroup 2: a fixed P, summed over the tiles): see
// wgmma_mla_tile_expected. `sink` holds kWgmmaMlaTileSinkSlots + 128 floats.
inline constexpr int kWgmmaMlaTileThreads = 384;
inline constexpr int kWgmmaMlaTileTileBytes = 64 * 576 * 2;           // one KV tile: 72 KB
inline constexpr int kWgmmaMlaTileSmemBytes = 64 * 576 * 2 * 3 + 1024;  // Q, a stage, the copies' target
inline constexpr double kFlopsPerMlaTile = 2.0 * 64 * 64 * 576 + 2.0 * 64 * 64 * 512;  // S + PV
inline constexpr int kWgmmaMlaTileSinkSlots = 3;
struct MlaTileCheck {
  double o00 = 0;     // the tiles x bf16(S[0][:]) V[:][0]
  double o0_256 = 0;  // the tiles x P_fixed[0][:] V[:][256]
  double s00 = 0;     // S[0][0] = Q[0][:] K[0][:]
};
MlaTileCheck wgmma_mla_tile_expected(int tiles);
cudaError_t launch_wgmma_mla_tile(int tiles, const void* copy_src, int copy_tiles, float* sink,
                                  std::uint64_t* clock_span, int blocks, cudaStream_t stream);

// PDL floor: one empty one-warp kernel launched over the stream's previous kernel
// (programmatic dependent launch): it lets its own dependents start at once and waits for
// its prerequisite grid, as the production kernels do at entry.
cudaError_t launch_empty_pdl(cudaStream_t stream);

}  // namespace vb::ceiling_kernels

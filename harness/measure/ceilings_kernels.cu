// Ceiling micro-kernels: how fast this device can read KV rows (1152-byte bf16, 576-byte fp8
// e4m3) through an index array, and how fast it issues mma.sync bf16 and fp8, plain and under
// sm_120's tensor-rate emulation. Harness code: kernels/ never includes it.
#include "harness/measure/ceilings_kernels.h"

#include "harness/measure/ceilings_device.cuh"
#include "harness/measure/mma_probe.cuh"

#include <cstring>

namespace vb::ceiling_kernels {
namespace {

// Whole rows of kRowBytes: lane l loads 16-byte chunks l, l + 32, ... below kRowBytes / 16
// (1152-byte rows: 72 chunks, lanes 0-7 load a third; 576-byte rows: 36, lanes 0-3 a second).
template <int kRowBytes>
__global__ void __launch_bounds__(kRowReadThreads)
row_read_kernel(const uint4* __restrict__ pool, const std::int64_t* __restrict__ row_index,
                std::int64_t rows, unsigned* __restrict__ sink) {
  static_assert(kRowBytes % 16 == 0, "rows are read in 16-byte chunks");
  constexpr int kRowChunks = kRowBytes / 16;
  constexpr int kFullLoads = kRowChunks / 32;  // loads every lane makes
  constexpr int kTail = kRowChunks % 32;       // lanes that make one more
  constexpr int kLoads = kFullLoads + (kTail > 0 ? 1 : 0);
  const int lane = threadIdx.x & 31;
  const std::int64_t warp = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  const std::int64_t warps = (static_cast<std::int64_t>(gridDim.x) * blockDim.x) >> 5;
  unsigned acc = 0;
  for (std::int64_t first = warp * kRowsPerWarpIteration; first < rows;
       first += warps * kRowsPerWarpIteration) {
    uint4 v[kRowsPerWarpIteration][kLoads];
#pragma unroll
    for (int k = 0; k < kRowsPerWarpIteration; ++k) {
      const std::int64_t r = first + k;
#pragma unroll
      for (int c = 0; c < kLoads; ++c) v[k][c] = make_uint4(0, 0, 0, 0);
      if (r < rows) {
        const uint4* row = pool + row_index[r] * kRowChunks;
#pragma unroll
        for (int c = 0; c < kLoads; ++c) {
          if (c < kFullLoads || lane < kTail) v[k][c] = row[lane + 32 * c];
        }
      }
    }
#pragma unroll
    for (int k = 0; k < kRowsPerWarpIteration; ++k) {
#pragma unroll
      for (int c = 0; c < kLoads; ++c) acc ^= v[k][c].x ^ v[k][c].y ^ v[k][c].z ^ v[k][c].w;
    }
  }
  if (acc == 0x9E3779B9u) sink[threadIdx.x] = acc;  // practically never; keeps loads live
}

// Reads `words` 16-byte words grid-stride (the cold-L2 flush: L2 ends up holding clean lines
// of this buffer only), folded like the row reads so no load is dead.
__global__ void __launch_bounds__(kStreamReadThreads)
    stream_read_kernel(const uint4* __restrict__ buf, std::int64_t words, unsigned* __restrict__ sink) {
  unsigned acc = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < words;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const uint4 v = __ldcg(buf + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9E3779B9u) sink[threadIdx.x] = acc;  // practically never; keeps loads live
}

__global__ void hold_kernel(std::uint64_t nanoseconds) {
  const std::uint64_t start = global_timer_ns();
  while (global_timer_ns() - start < nanoseconds) __nanosleep(500);
}

__global__ void empty_kernel() {}

__global__ void empty_pdl_kernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
}

// The probe each MmaProbe runs (mma_probe.cuh).
template <MmaProbe kProbe>
struct ProbeSpec;
template <>
struct ProbeSpec<MmaProbe::kBf16>
    : MmaProbeSpec<MmaShape::kBf16M16N8K16, sm120_emulation::ShapeMma<MmaShape::kBf16M16N8K16>, 800> {};
template <>
struct ProbeSpec<MmaProbe::kFp8>
    : MmaProbeSpec<MmaShape::kFp8E4m3M16N8K32, sm120_emulation::ShapeMma<MmaShape::kFp8E4m3M16N8K32>, 890> {};
template <>
struct ProbeSpec<MmaProbe::kBf16Sm120Emulated>
    : EmulatedBf16Probe<sm120_emulation::kBf16ExtraNum, sm120_emulation::kBf16ExtraDen> {};
template <>
struct ProbeSpec<MmaProbe::kFp8Sm120Emulated>
    : EmulatedFp8MathProbe<sm120_emulation::kFp8MathExtraNum, sm120_emulation::kFp8MathExtraDen> {};

// f(ProbeSpec<probe>{}): the probe's spec as a value, for its compile-time members.
template <class F>
auto with_spec(MmaProbe probe, F f) {
  switch (probe) {
    case MmaProbe::kBf16: return f(ProbeSpec<MmaProbe::kBf16>{});
    case MmaProbe::kFp8: return f(ProbeSpec<MmaProbe::kFp8>{});
    case MmaProbe::kBf16Sm120Emulated: return f(ProbeSpec<MmaProbe::kBf16Sm120Emulated>{});
    case MmaProbe::kFp8Sm120Emulated: break;
  }
  return f(ProbeSpec<MmaProbe::kFp8Sm120Emulated>{});
}

const char* instruction_text(MmaShape shape) {
  switch (shape) {
    case MmaShape::kBf16M16N8K16: return "m16n8k16 bf16 x bf16";
    case MmaShape::kF16M16N8K16: return "m16n8k16 f16 x f16";
    case MmaShape::kFp8E4m3M16N8K32: break;
  }
  return "m16n8k32 e4m3 x e4m3";
}

}  // namespace

cudaError_t launch_row_read(int row_bytes, const void* pool, const std::int64_t* row_index, std::int64_t rows,
                            unsigned* sink, int blocks, cudaStream_t stream) {
  const uint4* chunks = static_cast<const uint4*>(pool);
  switch (row_bytes) {
    case kBf16RowBytes:
      row_read_kernel<kBf16RowBytes><<<blocks, kRowReadThreads, 0, stream>>>(chunks, row_index, rows, sink);
      break;
    case kFp8RowBytes:
      row_read_kernel<kFp8RowBytes><<<blocks, kRowReadThreads, 0, stream>>>(chunks, row_index, rows, sink);
      break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t row_read_blocks_per_sm(int row_bytes, int* blocks) {
  switch (row_bytes) {
    case kBf16RowBytes:
      return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, row_read_kernel<kBf16RowBytes>, kRowReadThreads, 0);
    case kFp8RowBytes:
      return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, row_read_kernel<kFp8RowBytes>, kRowReadThreads, 0);
    default: return cudaErrorInvalidValue;
  }
}

bool mma_probe_emulated(MmaProbe probe) {
  return with_spec(probe, [](auto spec) { return decltype(spec)::emulated; });
}
int mma_probe_threads(MmaProbe probe) {
  return with_spec(probe, [](auto spec) { return decltype(spec)::threads; });
}
double mma_probe_flops_per_mma(MmaProbe probe) {
  return with_spec(probe, [](auto spec) { return sm120_emulation::kFlopsPerMma<decltype(spec)::shape>; });
}

ExtraLoad mma_probe_extra_load(MmaProbe probe) {
  return with_spec(probe, [](auto spec) {
    using Load = typename decltype(spec)::ExtraLoad;
    if constexpr (decltype(spec)::emulated) {
      return ExtraLoad{Load::extra_num, Load::extra_den, instruction_text(Load::shape), Load::tile_iterations};
    } else {
      return ExtraLoad{0, 1, "", 0};
    }
  });
}

namespace {
using MmaProbeKernel = void (*)(int, float*, std::uint64_t*);
MmaProbeKernel kernel_of(MmaProbe probe) {
  return with_spec(probe, [](auto spec) -> MmaProbeKernel { return mma_probe_kernel<decltype(spec)>; });
}

// A probe's dynamic shared memory, its limit raised to it (ceilings_kernels.h,
// mma_probe_blocks_per_sm).
cudaError_t probe_smem_bytes(MmaProbe probe, int* bytes) {
  *bytes = 0;
  if (!mma_probe_emulated(probe)) return cudaSuccess;
  return one_block_per_sm_smem_bytes(reinterpret_cast<const void*>(kernel_of(probe)), bytes);
}
}  // namespace

cudaError_t mma_probe_blocks_per_sm(MmaProbe probe, int* blocks, int* smem_bytes) {
  if (cudaError_t err = probe_smem_bytes(probe, smem_bytes); err != cudaSuccess) return err;
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, kernel_of(probe), mma_probe_threads(probe), *smem_bytes);
}

cudaError_t launch_mma_probe(MmaProbe probe, int iterations, float* sink, std::uint64_t* clock_span, int blocks,
                             int smem_bytes, cudaStream_t stream) {
  kernel_of(probe)<<<blocks, mma_probe_threads(probe), smem_bytes, stream>>>(iterations, sink, clock_span);
  return cudaGetLastError();
}

cudaError_t launch_stream_read(const void* buf, std::size_t bytes, unsigned* sink, int blocks,
                               cudaStream_t stream) {
  stream_read_kernel<<<blocks, kStreamReadThreads, 0, stream>>>(static_cast<const uint4*>(buf),
                                                               static_cast<std::int64_t>(bytes / 16), sink);
  return cudaGetLastError();
}

cudaError_t launch_hold(std::uint64_t nanoseconds, cudaStream_t stream) {
  hold_kernel<<<1, 32, 0, stream>>>(nanoseconds);
  return cudaGetLastError();
}

cudaError_t launch_empty(cudaStream_t stream) {
  empty_kernel<<<1, 32, 0, stream>>>();
  return cudaGetLastError();
}

cudaError_t launch_empty_pdl(cudaStream_t stream) {
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(1);
  config.blockDim = dim3(32);
  config.stream = stream;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, empty_pdl_kernel);
}

namespace {
double bf16_value(std::uint16_t bits) {
  const std::uint32_t word = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &word, sizeof f);
  return static_cast<double>(f);
}
}  // namespace

double wgmma_probe_expected_d00(int iterations) {
  double row = 0;
  for (int k = 0; k < kWgmmaK; ++k) row += bf16_value(wgmma_probe_value(k, 0)) * bf16_value(wgmma_probe_value(k, 1));
  return row * iterations;
}

// Q and the KV stage are filled with wgmma_probe_value(halfword index, 0 / 1), warpgroup 2's
// P with (row x 64 + column, 2); warpgroup 1's P is bf16(S), rounded to nearest even. In a
// 128-byte-swizzled block of 64-value rows, value j of row r sits at halfword r x 64 +
// ((j / 8) ^ (r % 8)) x 8 + j % 8; Q and K hold 9 such blocks of 64 rows (4096 halfwords),
// channel c of V (a K row read MN-major) is value c % 64 of block c / 64.
MlaTileCheck wgmma_mla_tile_expected(int tiles) {
  constexpr int kTokens = 64, kDims = 576, kBlockHalves = 64 * 64;
  auto at = [](int row, int value) {  // halfword of a 576-value row's value in Q or the stage
    const int j = value % 64;
    return (value / 64) * kBlockHalves + row * 64 + (((j / 8) ^ (row % 8)) * 8) + j % 8;
  };
  auto bf16_round = [](double v) {  // fp32, then bf16 round-to-nearest-even
    const float f = static_cast<float>(v);
    std::uint32_t w;
    std::memcpy(&w, &f, sizeof w);
    w += 0x7FFFu + ((w >> 16) & 1u);
    return bf16_value(static_cast<std::uint16_t>(w >> 16));
  };
  MlaTileCheck e;
  double pv_low = 0, pv_fixed_high = 0;
  for (int t = 0; t < kTokens; ++t) {
    double s = 0;
    for (int d = 0; d < kDims; ++d) s += bf16_value(wgmma_probe_value(at(0, d), 0)) * bf16_value(wgmma_probe_value(at(t, d), 1));
    if (t == 0) e.s00 = s;
    pv_low += bf16_round(s) * bf16_value(wgmma_probe_value(at(t, 0), 1));
    pv_fixed_high += bf16_value(wgmma_probe_value(t, 2)) * bf16_value(wgmma_probe_value(at(t, 256), 1));
  }
  e.o00 = pv_low * tiles;
  e.o0_256 = pv_fixed_high * tiles;
  return e;
}

}  // namespace vb::ceiling_kernels

// In-run ceilings: 1152- and 576-byte row reads (contiguous, page-1 shuffled), D2D copy,
// mma.sync bf16 and fp8 rates (plain and under sm_120's emulation), wgmma bf16 rate, the MLA
// tile's wgmma mix, launch floors.
#include "harness/measure/ceilings.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include <fmt/format.h>

#include "harness/measure/ceilings_kernels.h"
#include "harness/measure/clock_rate.h"
#include "harness/measure/nvtx.h"
#include "harness/measure/timing.h"

namespace vb {
namespace {

namespace ck = ceiling_kernels;

struct Buffer {
  void* ptr = nullptr;
  ~Buffer() {
    if (ptr) cudaFree(ptr);
  }
};

struct Check {
  std::string error;
  bool operator()(cudaError_t err, const std::string& call) {
    if (err != cudaSuccess && error.empty()) {
      error = fmt::format("{} failed: {} ({})", call, cudaGetErrorString(err), cudaGetErrorName(err));
    }
    return err == cudaSuccess;
  }
};

// Median over `reps` timed passes (after one warm-up) of `pass`, in ms.
template <typename Pass>
double median_ms(Check& check, cudaStream_t stream, int reps, Pass pass) {
  cudaEvent_t start = nullptr, stop = nullptr;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  std::vector<double> times;
  if (check.error.empty()) {
    check(pass(), "warm-up pass");
    check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  }
  for (int i = 0; i < reps && check.error.empty(); ++i) {
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    check(pass(), "timed pass");
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    times.push_back(ms);
  }
  if (start) cudaEventDestroy(start);
  if (stop) cudaEventDestroy(stop);
  if (times.empty()) return 0;
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// Whether a wgmma probe's accumulator `got` holds `expected` within the probes' check
// tolerance (ceiling_kernels::kWgmmaCheckRelTolerance).
bool probe_value_holds(double got, double expected) {
  return std::abs(got - expected) <= ck::kWgmmaCheckRelTolerance * std::abs(expected);
}

// A tensor-core probe's clock from the span its block 0 wrote in the last pass
// (ceiling_kernels::kClockSpanWords): cycles per µs, 0 when the span is not ordered.
double probe_clock_mhz(Check& check, const Buffer& span) {
  std::uint64_t w[ck::kClockSpanWords] = {};
  check(cudaMemcpy(w, span.ptr, sizeof w, cudaMemcpyDeviceToHost), "download probe clock span");
  return check.error.empty() ? clock_mhz(w[0], w[2], w[1], w[3]) : 0.0;
}

// The method text's clock clause: the clock inside the pass and what the rate is per clock
// and SM (NVML's clock, read between passes, can differ from the one the probe ran at).
std::string probe_clock_text(double mhz, double tflops, int sm_count) {
  if (mhz <= 0 || sm_count <= 0) return "; the SM clock inside the pass was not read";
  return fmt::format("; SM clock inside the last pass {:.0f} MHz (block 0's cycle counter over the global "
                     "timer): {:.0f} FLOP per clock and SM",
                     mhz, tflops * 1e12 / (static_cast<double>(sm_count) * mhz * 1e6));
}

// The datasheet memory bandwidth from the device's memory clock and bus width (two transfers
// a clock) into c->memory_peak_gbps and its method entry: what the row ceilings are a
// fraction of.
void read_memory_peak(Check& check, const GpuInfo& gpu, Ceilings* c) {
  int clock_khz = 0, bus_bits = 0;
  check(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, gpu.device), "memory clock attribute");
  check(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, gpu.device), "memory bus attribute");
  c->memory_peak_gbps = 2.0 * clock_khz * 1e3 * (bus_bits / 8.0) / 1e9;
  c->method.emplace_back("memory_peak", fmt::format("the device's memory clock ({:.0f} MHz, cudaDevAttrMemoryClockRate) "
                                                    "x 2 transfers a clock x its bus width ({} bits) / 8: not measured",
                                                    clock_khz / 1e3, bus_bits));
}

// One mma.sync probe: where its rate goes, its method entry's name, and whether this device
// runs it.
struct MmaProbeRun {
  ck::MmaProbe probe;
  const char* name;
  double* tflops;
  bool runs;
};

// One mma.sync probe's rate (the compute warps' FLOP per second) into *probe.tflops and its
// method entry; returns the SM clock inside its last pass (0 when not read).
double measure_mma_probe(Check& check, const GpuInfo& gpu, const CeilingOptions& options, cudaStream_t stream,
                         const MmaProbeRun& probe, Ceilings* c) {
  int blocks_per_sm = 0, smem_bytes = 0;
  check(ck::mma_probe_blocks_per_sm(probe.probe, &blocks_per_sm, &smem_bytes), "mma probe occupancy");
  // The emulated probes run as the production kernel does: one block per SM (their shared
  // memory request leaves room for no second one).
  const bool emulated = ck::mma_probe_emulated(probe.probe);
  if (emulated && blocks_per_sm != 1) {
    check(cudaErrorInvalidConfiguration, fmt::format("{} probe: {} blocks per SM, not 1", probe.name, blocks_per_sm));
  }
  const int per_sm = std::max(1, blocks_per_sm);
  const int blocks = std::max(1, gpu.sm_count * per_sm);
  const int threads = ck::mma_probe_threads(probe.probe);
  Buffer sink, clock_span;
  check(cudaMalloc(&sink.ptr, threads * sizeof(float)), "cudaMalloc mma sink");
  check(cudaMalloc(&clock_span.ptr, ck::kClockSpanWords * sizeof(std::uint64_t)), "cudaMalloc mma clock span");
  if (!check.error.empty()) return 0;
  const double ms = median_ms(check, stream, options.repetitions, [&] {
    return ck::launch_mma_probe(probe.probe, options.mma_iterations, static_cast<float*>(sink.ptr),
                                static_cast<std::uint64_t*>(clock_span.ptr), blocks, smem_bytes, stream);
  });
  const double flop_per_mma = ck::mma_probe_flops_per_mma(probe.probe);
  const double flops =
      static_cast<double>(blocks) * ck::kMmaComputeWarps * options.mma_iterations * ck::kMmaChains * flop_per_mma;
  *probe.tflops = ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0;
  const double clock = check.error.empty() ? probe_clock_mhz(check, clock_span) : 0;
  const bool fp8 = probe.probe == ck::MmaProbe::kFp8 || probe.probe == ck::MmaProbe::kFp8Sm120Emulated;
  std::string how = fmt::format(
      "mma.sync.aligned.{} -> fp32, {} compute warps a block each issuing {} iterations x {} independent "
      "accumulator chains, {} blocks x {} threads ({} per SM); {:.0f} FLOP per mma, the compute warps' counted; "
      "median of {} passes",
      fp8 ? "m16n8k32 e4m3 x e4m3" : "m16n8k16 bf16 x bf16", ck::kMmaComputeWarps, options.mma_iterations,
      ck::kMmaChains, blocks, threads, per_sm, flop_per_mma, options.repetitions);
  if (emulated) {
    const ck::ExtraLoad extra = ck::mma_probe_extra_load(probe.probe);
    how += fmt::format(
        "; under sm_120's emulation: {} more warps a block (one per SM sub-partition) issue {}/{} extra "
        "mma.sync {} per compute-warp instruction of their sub-partition, on chains of their own, a probe tile "
        "of {} iterations at a time (verifybench/sm120_emulation.cuh){}; sm_120's rate is {} FLOP per clock and SM",
        ck::kMmaLoadWarps, extra.num, extra.den, extra.instruction, extra.tile_iterations,
        fp8 ? " (fp8: the compute warps issue the kernel's e4m3 instruction as sm_90 runs it, two f16 "
              "m16n8k16 on widened operands)"
            : "",
        fp8 ? 2048 : 1024);
  }
  c->method.emplace_back(probe.name, how + probe_clock_text(clock, *probe.tflops, gpu.sm_count));
  return clock;
}

// The wgmma ceiling into c->wgmma_bf16_tflops and its method entry. A probe whose
// accumulator check fails leaves the ceiling at 0 and says so in the method: the other
// ceilings of the run stay valid.
void measure_wgmma(Check& check, const GpuInfo& gpu, const CeilingOptions& options, cudaStream_t stream,
                   Ceilings* c) {
  const int iterations = std::min(options.wgmma_iterations, ck::kWgmmaMaxIterations);
  int blocks_per_sm = 0;
  check(ck::wgmma_blocks_per_sm(&blocks_per_sm), "wgmma occupancy");
  const int blocks = gpu.sm_count * std::max(1, blocks_per_sm);
  Buffer sink, clock_span;
  check(cudaMalloc(&sink.ptr, ck::kWgmmaSinkFloats * sizeof(float)), "cudaMalloc wgmma sink");
  check(cudaMalloc(&clock_span.ptr, ck::kClockSpanWords * sizeof(std::uint64_t)), "cudaMalloc wgmma clock span");
  double ms = 0;
  if (check.error.empty()) {
    ms = median_ms(check, stream, options.repetitions, [&] {
      return ck::launch_wgmma_bf16(iterations, static_cast<float*>(sink.ptr),
                                   static_cast<std::uint64_t*>(clock_span.ptr), blocks, stream);
    });
  }
  const double clock_mhz = check.error.empty() ? probe_clock_mhz(check, clock_span) : 0;
  float d00 = 0;
  check(cudaMemcpy(&d00, sink.ptr, sizeof d00, cudaMemcpyDeviceToHost), "download wgmma check value");
  if (!check.error.empty()) return;
  const double expected = ck::wgmma_probe_expected_d00(iterations);
  const double warpgroups = static_cast<double>(blocks) * (ck::kWgmmaThreads / 128);
  const double flops = warpgroups * iterations * ck::kWgmmaPerGroup * ck::kFlopsPerWgmma;
  const std::string how = fmt::format(
      "wgmma.mma_async.sync.aligned.m64n256k16 bf16 x bf16 -> fp32, A (64 x {}) and B (256 x {}) "
      "from shared memory (128-byte swizzle, K-major), one 64 x 256 accumulator per warpgroup, "
      "{} instructions per commit group with one group in flight, {} iterations, {} blocks x {} "
      "threads ({} per SM, {} warpgroups each); {:.0f} FLOP per wgmma; median of {} passes after a "
      "warm-up; operands random full-mantissa bf16 in [0.5, 1); block 0's D[0][0] checked against "
      "iterations x the row dot product (relative tolerance {})",
      ck::kWgmmaK, ck::kWgmmaK, ck::kWgmmaPerGroup, iterations, blocks, ck::kWgmmaThreads,
      std::max(1, blocks_per_sm), ck::kWgmmaThreads / 128, ck::kFlopsPerWgmma, options.repetitions,
      ck::kWgmmaCheckRelTolerance);
  if (!probe_value_holds(d00, expected)) {
    c->method.emplace_back("wgmma_bf16", fmt::format("not measured: the probe's D[0][0] is {} where {} "
                                                     "was expected ({})", d00, expected, how));
    return;
  }
  c->wgmma_bf16_tflops = ms > 0 ? flops / (ms * 1e-3) / 1e12 : 0;
  c->method.emplace_back("wgmma_bf16", how + probe_clock_text(clock_mhz, c->wgmma_bf16_tflops, gpu.sm_count));
}

// One MLA tile pass set (copies or none): median ms, the clock inside the last pass, and why
// block 0's accumulators do not hold their exact values, if they do not.
struct MlaTilePasses {
  double ms = 0;
  double clock_mhz = 0;
  std::string failed;  // "" or why the check failed
};

MlaTilePasses time_mla_tile(Check& check, const GpuInfo& gpu, const CeilingOptions& options, cudaStream_t stream,
                            const void* copy_src) {
  Buffer sink, clock_span;
  check(cudaMalloc(&sink.ptr, (ck::kWgmmaMlaTileSinkSlots + 128) * sizeof(float)), "cudaMalloc MLA tile sink");
  check(cudaMalloc(&clock_span.ptr, ck::kClockSpanWords * sizeof(std::uint64_t)), "cudaMalloc MLA tile clock span");
  MlaTilePasses r;
  if (!check.error.empty()) return r;
  r.ms = median_ms(check, stream, options.repetitions, [&] {
    return ck::launch_wgmma_mla_tile(options.mla_tiles, copy_src, CeilingOptions::kMlaTileCopyTiles,
                                     static_cast<float*>(sink.ptr), static_cast<std::uint64_t*>(clock_span.ptr),
                                     gpu.sm_count, stream);
  });
  if (check.error.empty()) r.clock_mhz = probe_clock_mhz(check, clock_span);
  float got[ck::kWgmmaMlaTileSinkSlots] = {};
  check(cudaMemcpy(got, sink.ptr, sizeof got, cudaMemcpyDeviceToHost), "download MLA tile check values");
  if (!check.error.empty()) return r;
  const ck::MlaTileCheck want = ck::wgmma_mla_tile_expected(options.mla_tiles);
  if (!probe_value_holds(got[0], want.o00) || !probe_value_holds(got[1], want.s00) ||
      !probe_value_holds(got[2], want.o0_256)) {
    r.failed = fmt::format("block 0's O[0][0], S[0][0] and O[0][256] are {}, {} and {} where {}, {} and {} were "
                           "expected", got[0], got[1], got[2], want.o00, want.s00, want.o0_256);
  }
  return r;
}

// The MLA tile ceilings into c->wgmma_mla_tile_tflops (no copies) and
// c->wgmma_mla_tile_copies_tflops, one method entry each.
void measure_wgmma_mla_tile(Check& check, const GpuInfo& gpu, const CeilingOptions& options, cudaStream_t stream,
                            Ceilings* c) {
  Buffer copy_src;
  const std::size_t copy_bytes = static_cast<std::size_t>(CeilingOptions::kMlaTileCopyTiles) * ck::kWgmmaMlaTileTileBytes;
  check(cudaMalloc(&copy_src.ptr, copy_bytes), "cudaMalloc MLA tile copy source");
  check(cudaMemset(copy_src.ptr, 0x3c, copy_bytes), "cudaMemset MLA tile copy source");
  const std::string how = fmt::format(
      "the production wgmma kernel's 64 x 64 tile with only its tensor work: its three warpgroups "
      "(88 / 240 / 176 registers), shared-memory layouts and descriptors; per tile warpgroup 1 issues "
      "S = Q K^T (36 m64n64k16, Q and K from shared memory), waits, packs P = bf16(S) (no softmax) and "
      "issues P V for channels 0-255 (4 m64n256k16, P from registers), which completes before its next S "
      "(the kernel's register budget); warpgroup 2 issues P V for channels 256-511 with a fixed P, one "
      "tile in flight; the three warpgroups meet at a named barrier once a tile; {} tiles x {} blocks "
      "(one per SM); {:.0f} FLOP per tile; median of {} passes after a warm-up; block 0's O[0][0], "
      "O[0][256] and S[0][0] checked against their exact values",
      options.mla_tiles, gpu.sm_count, ck::kFlopsPerMlaTile, options.repetitions);
  struct Variant {
    const char* name;
    const void* src;
    double* tflops;
    std::string what;
  };
  const Variant variants[] = {
      {"wgmma_mla_tile", nullptr, &c->wgmma_mla_tile_tflops, "; no copies"},
      {"wgmma_mla_tile_copies", copy_src.ptr, &c->wgmma_mla_tile_copies_tflops,
       fmt::format("; the producer warpgroup also lands {} KB a tile ({} 16-byte cp.async a thread, at most two "
                   "tiles in flight) from a {:.1f} MB L2-resident source into a buffer nobody reads, as the gather "
                   "lands a stage",
                   ck::kWgmmaMlaTileTileBytes / 1024, ck::kWgmmaMlaTileTileBytes / 16 / 128, copy_bytes / 1e6)},
  };
  for (const Variant& v : variants) {
    if (!check.error.empty()) return;
    const MlaTilePasses r = time_mla_tile(check, gpu, options, stream, v.src);
    if (!check.error.empty()) return;
    if (!r.failed.empty()) {
      c->method.emplace_back(v.name, fmt::format("not measured: {} ({}{})", r.failed, how, v.what));
      continue;
    }
    const double flops = static_cast<double>(gpu.sm_count) * options.mla_tiles * ck::kFlopsPerMlaTile;
    *v.tflops = r.ms > 0 ? flops / (r.ms * 1e-3) / 1e12 : 0;
    std::string cycles;
    if (r.clock_mhz > 0) {
      cycles = fmt::format("; {:.0f} SM cycles a tile", r.ms * 1e3 * r.clock_mhz / options.mla_tiles);
    }
    c->method.emplace_back(v.name, how + v.what + probe_clock_text(r.clock_mhz, *v.tflops, gpu.sm_count) + cycles);
  }
}

// One row size's ceilings: where they go and the method entries' prefix ("row_read":
// row_read_contiguous, row_read_shuffled).
struct RowReadCeiling {
  int row_bytes;
  const char* method_prefix;
  double* contiguous_gbps;
  double* shuffled_gbps;
};

// Reads every whole row of `row.row_bytes` in `pool` through an int64 index array, in order and
// then a random permutation (page size 1 shuffled), into *row.contiguous_gbps and
// *row.shuffled_gbps, with their method entries.
void measure_row_reads(Check& check, const GpuInfo& gpu, const CeilingOptions& options, cudaStream_t stream,
                       const void* pool, double pool_bytes, const RowReadCeiling& row, Ceilings* c) {
  if (!check.error.empty()) return;
  const std::int64_t rows = static_cast<std::int64_t>(pool_bytes / row.row_bytes);
  const double row_bytes = static_cast<double>(rows) * row.row_bytes;
  int blocks_per_sm = 0;
  check(ck::row_read_blocks_per_sm(row.row_bytes, &blocks_per_sm),
        fmt::format("{}-byte row-read occupancy", row.row_bytes));
  const int blocks = std::max(1, gpu.sm_count * std::max(1, blocks_per_sm));
  Buffer index, sink;
  check(cudaMalloc(&index.ptr, rows * sizeof(std::int64_t)), "cudaMalloc row index");
  check(cudaMalloc(&sink.ptr, ck::kRowReadThreads * sizeof(unsigned)), "cudaMalloc sink");
  std::vector<std::int64_t> host(rows);
  std::iota(host.begin(), host.end(), std::int64_t{0});
  auto pass = [&] {
    return ck::launch_row_read(row.row_bytes, pool, static_cast<const std::int64_t*>(index.ptr), rows,
                               static_cast<unsigned*>(sink.ptr), blocks, stream);
  };
  for (bool shuffled : {false, true}) {
    if (!check.error.empty()) return;
    if (shuffled) std::shuffle(host.begin(), host.end(), std::mt19937_64(0x5eed));
    check(cudaMemcpy(index.ptr, host.data(), rows * sizeof(std::int64_t), cudaMemcpyHostToDevice),
          "upload row index");
    const double ms = median_ms(check, stream, options.repetitions, pass);
    *(shuffled ? row.shuffled_gbps : row.contiguous_gbps) = ms > 0 ? row_bytes / (ms * 1e-3) / 1e9 : 0;
  }
  auto method = [&](const char* order) {
    return fmt::format("{:.2f} GB of {}-byte rows ({} rows) named by an int64 index array ({}), each warp "
                       "reading whole rows with 16-byte loads, {} rows in flight per warp, XOR-folded; grid "
                       "{} blocks x {} threads; median of {} passes after a warm-up; row bytes only",
                       row_bytes / 1e9, row.row_bytes, rows, order, ck::kRowsPerWarpIteration, blocks,
                       ck::kRowReadThreads, options.repetitions);
  };
  c->method.emplace_back(fmt::format("{}_contiguous", row.method_prefix), method("in order"));
  c->method.emplace_back(fmt::format("{}_shuffled", row.method_prefix),
                         method("a random permutation: page size 1 shuffled"));
}

}  // namespace

CeilingsRun measure_ceilings(const GpuInfo& gpu, const CeilingOptions& options) {
  CeilingsRun run;
  if (!gpu.available) {
    run.error = "not run: " + gpu.reason;
    return run;
  }
  NvtxRange range("ceilings");
  Check check;
  Ceilings c;
  cudaStream_t stream = nullptr;
  check(cudaSetDevice(gpu.device), "cudaSetDevice");
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");

  // ---- KV rows through an index array (1152-byte bf16, then 576-byte fp8 rows), each
  // contiguous then page-size-1 shuffled, over one pool.
  std::size_t free_bytes = 0, total_bytes = 0;
  check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
  // Leave room for the index array and the copy buffers later (freed before those).
  const double pool_bytes = std::min(options.row_read_bytes, 0.6 * static_cast<double>(free_bytes));
  {
    Buffer pool;
    if (check.error.empty()) {
      check(cudaMalloc(&pool.ptr, static_cast<std::size_t>(pool_bytes)), "cudaMalloc row pool");
      check(cudaMemsetAsync(pool.ptr, 0x3C, static_cast<std::size_t>(pool_bytes), stream), "memset row pool");
    }
    const RowReadCeiling row_ceilings[] = {
        {ck::kBf16RowBytes, "row_read", &c.row_read_contiguous_gbps, &c.row_read_shuffled_gbps},
        {ck::kFp8RowBytes, "row576_read", &c.row576_read_contiguous_gbps, &c.row576_read_shuffled_gbps},
    };
    for (const RowReadCeiling& ceiling : row_ceilings) {
      measure_row_reads(check, gpu, options, stream, pool.ptr, pool_bytes, ceiling, &c);
    }
  }

  // ---- device-to-device copy
  const std::size_t copy_bytes = static_cast<std::size_t>(
      std::min(options.copy_bytes, 0.3 * static_cast<double>(free_bytes)));
  {
    Buffer src, dst;
    if (check.error.empty()) {
      check(cudaMalloc(&src.ptr, copy_bytes), "cudaMalloc copy source");
      check(cudaMalloc(&dst.ptr, copy_bytes), "cudaMalloc copy destination");
      check(cudaMemsetAsync(src.ptr, 1, copy_bytes, stream), "memset copy source");
    }
    if (check.error.empty()) {
      const double ms = median_ms(check, stream, options.repetitions, [&] {
        return cudaMemcpyAsync(dst.ptr, src.ptr, copy_bytes, cudaMemcpyDeviceToDevice, stream);
      });
      c.d2d_copy_gbps = ms > 0 ? 2.0 * static_cast<double>(copy_bytes) / (ms * 1e-3) / 1e9 : 0;
    }
  }
  c.method.emplace_back(
      "d2d_copy", fmt::format("cudaMemcpyAsync device to device of {:.2f} GB, counting read + "
                              "write bytes (2x); median of {} passes after a warm-up",
                              static_cast<double>(copy_bytes) / 1e9, options.repetitions));

  // ---- mma.sync issue rates: bf16 and fp8, plain and under sm_120's emulation
  c.sm_count = gpu.sm_count;
  read_memory_peak(check, gpu, &c);
  // The e4m3 mma.sync is a tensor instruction on compute capability 8.9, 10.x and 12.x; on 9.x
  // ptxas lowers it to f16 HMMA, and the probe's identical chains then let it drop most of them
  // (4 HMMA in the probe's sm_90 machine code, lab SASS check): no ceiling there.
  const bool fp8_mma = (gpu.cc_major == 8 && gpu.cc_minor >= 9) || gpu.cc_major >= 10;
  if (!fp8_mma) {
    c.method.emplace_back("mma_fp8", "not measured: this device has no e4m3 tensor instruction for mma.sync "
                                     "(compute capability 8.9, 10.x and 12.x have one; on 9.x ptxas lowers it to f16 "
                                     "HMMA)");
  }
  const MmaProbeRun mma_probes[] = {
      {ck::MmaProbe::kBf16, "mma_bf16", &c.mma_bf16_tflops, true},
      {ck::MmaProbe::kFp8, "mma_fp8", &c.mma_fp8_tflops, fp8_mma},
      {ck::MmaProbe::kBf16Sm120Emulated, "sm120_emulated_bf16", &c.sm120_emulated_bf16_tflops, gpu.cc_major == 9},
      {ck::MmaProbe::kFp8Sm120Emulated, "sm120_emulated_fp8", &c.sm120_emulated_fp8_tflops, gpu.cc_major == 9},
  };
  for (const MmaProbeRun& probe : mma_probes) {
    if (probe.runs && check.error.empty()) {
      const double clock = measure_mma_probe(check, gpu, options, stream, probe, &c);
      if (probe.probe == ck::MmaProbe::kBf16) c.mma_clock_mhz = clock;
    }
  }

  // ---- wgmma bf16 rate (sm_90a machine code: compute capability 9.0 only)
  if (gpu.cc_major == 9 && gpu.cc_minor == 0 && check.error.empty()) {
    measure_wgmma(check, gpu, options, stream, &c);
    measure_wgmma_mla_tile(check, gpu, options, stream, &c);
  }
  if (stream) cudaStreamDestroy(stream);
  if (!check.error.empty()) {
    run.error = "ceilings: " + check.error;
    return run;
  }
  run.ceilings = c;
  return run;
}

std::string measure_launch_floor(GpuTimer& timer, Ceilings* c) {
  NvtxRange range("launch floor");
  TimingOptions options;
  options.rule.min_samples = 50;
  options.rule.max_samples = 200;
  options.rule.budget_s = 0.2;
  const TimingRecord rec = timer.measure(
      TimingMode::kColdL2, [](cudaStream_t s, bool) { return ceiling_kernels::launch_empty(s); }, options);
  if (rec.stop_reason.rfind("error", 0) == 0 || rec.samples_ms.empty()) return "launch floor: " + rec.stop_reason;
  c->launch_floor_us = rec.median_ms * 1e3;
  c->method.emplace_back(
      "launch_floor", fmt::format("one empty kernel (1 block of 32 threads) timed as a cold-L2 case sample: "
                                  "L2 read flush, then CUDA events around the launch; median of {} samples",
                                  rec.samples_ms.size()));
  int device = 0, cc_major = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&cc_major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess) {
    return "PDL floor: the device's compute capability could not be read";
  }
  if (cc_major < 9) return "";  // no programmatic dependent launch before sm_90
  const TimingRecord pdl = timer.measure(
      TimingMode::kChainPdl, [](cudaStream_t s, bool) { return ceiling_kernels::launch_empty_pdl(s); }, options);
  if (pdl.stop_reason.rfind("error", 0) == 0 || pdl.samples_ms.empty()) return "PDL floor: " + pdl.stop_reason;
  c->pdl_floor_us = pdl.median_ms * 1e3;
  c->method.emplace_back(
      "pdl_floor", fmt::format("one empty kernel (1 block of 32 threads: griddepcontrol.launch_dependents, then "
                               "griddepcontrol.wait, as the production kernels enter) launched with programmatic "
                               "dependent launch over the previous one, timed as a chain-pdl case sample: {} "
                               "launches after a hold, CUDA events around them, divided by {}; median of {} samples",
                               kChainLaunches, kChainLaunches, pdl.samples_ms.size()));
  return "";
}

}  // namespace vb

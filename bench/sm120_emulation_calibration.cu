// vb_sm120_emulation_calibration: the extra-load fractions of sm_120's tensor-rate emulation
// (verifybench/sm120_emulation.cuh) measured in one device call, so that the constants can be
// chosen from one table (kernels/NOTES-sm120.md, "The emulation's calibration").
//
// Runs the run's emulated mma.sync probes (harness/measure/mma_probe.cuh: 8 compute warps issuing
// the kernel's instruction and 4 load warps owing a probe tile's extra load at a time, one
// block per SM) at each candidate fraction, for bf16 math and for fp8 math (its e4m3
// instruction as sm_90 runs it: two f16 mma on widened operands), plus 0/1 (the load
// warps issue nothing: the kernel's instruction alone), and prints per candidate the real FLOP
// per clock and SM (the clock from
// block 0's cycle counter over the global timer) and how far it lies from sm_120's rate
// (1,024 bf16, 2,048 e4m3 FLOP a clock and SM). The 0/1 rows give the pipe's own share
// (theory): (rate alone / sm_120's rate - 1) x the real instruction's FLOP / the extra one's.
//
// Usage: vb_sm120_emulation_calibration (no arguments; device 0, a Hopper).
// Exit codes: 0 the table printed; 2 an argument given, or device 0 is not a Hopper
// (compute capability 9.x); 3 a CUDA call failed.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "harness/measure/clock_rate.h"
#include "harness/measure/mma_probe.cuh"

namespace {

namespace ck = vb::ceiling_kernels;
namespace emu = vb::sm120_emulation;

constexpr int kIterations = 8192;  // per compute warp, as the run's ceilings (CeilingOptions)
constexpr int kPasses = 9;         // timed back to back; the median counts

void check(cudaError_t err, const char* what) {
  if (err == cudaSuccess) return;
  std::fprintf(stderr, "vb_sm120_emulation_calibration: %s failed: %s\n", what, cudaGetErrorString(err));
  std::exit(3);
}

// One emulated probe at one fraction: its kernel and what its rows print.
struct Candidate {
  const char* math;
  int num, den;
  const char* load_instruction;
  double flops_per_mma;   // a compute-warp instruction's
  double extra_flops;     // an extra instruction's
  double sm120_rate;      // FLOP a clock and SM
  void (*kernel)(int, float*, std::uint64_t*);
};

template <class Spec>
Candidate candidate(const char* math, const char* load_instruction, double sm120_rate) {
  using Load = typename Spec::ExtraLoad;
  return {math, Load::extra_num, Load::extra_den, load_instruction, emu::kFlopsPerMma<Spec::shape>,
          emu::kFlopsPerMma<Load::shape>, sm120_rate, ck::mma_probe_kernel<Spec>};
}

// The candidates: bf16 math's load per real bf16 instruction; fp8 math's (f16 m16n8k16) per real
// e4m3 one.
std::vector<Candidate> candidates() {
  constexpr const char* kBf16 = "bf16 m16n8k16";
  constexpr const char* kF16 = "f16 m16n8k16";
  return {
      candidate<ck::EmulatedBf16Probe<0, 1>>("bf16", kBf16, 1024),
      candidate<ck::EmulatedBf16Probe<3, 2>>("bf16", kBf16, 1024),
      candidate<ck::EmulatedBf16Probe<14, 9>>("bf16", kBf16, 1024),
      candidate<ck::EmulatedBf16Probe<8, 5>>("bf16", kBf16, 1024),
      candidate<ck::EmulatedFp8MathProbe<0, 1>>("fp8", kF16, 2048),
      candidate<ck::EmulatedFp8MathProbe<1, 2>>("fp8", kF16, 2048),
      candidate<ck::EmulatedFp8MathProbe<3, 5>>("fp8", kF16, 2048),
      candidate<ck::EmulatedFp8MathProbe<2, 3>>("fp8", kF16, 2048),
      candidate<ck::EmulatedFp8MathProbe<3, 4>>("fp8", kF16, 2048),
  };
}

// The candidate's median pass time (ms) and the SM clock inside the last pass (MHz).
struct Timing {
  double ms, clock_mhz;
};

Timing time_candidate(const Candidate& c, int sm_count, float* sink, std::uint64_t* span) {
  int smem_bytes = 0, blocks_per_sm = 0;
  check(ck::one_block_per_sm_smem_bytes(reinterpret_cast<const void*>(c.kernel), &smem_bytes), "shared-memory limit");
  check(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, c.kernel, ck::kMmaThreads + ck::kMmaLoadWarps * 32,
                                                      smem_bytes),
        "occupancy query");
  if (blocks_per_sm != 1) check(cudaErrorInvalidConfiguration, "one block per SM");
  std::vector<cudaEvent_t> marks(kPasses + 1);
  for (cudaEvent_t& mark : marks) check(cudaEventCreate(&mark), "cudaEventCreate");
  auto pass = [&] {
    c.kernel<<<sm_count, ck::kMmaThreads + ck::kMmaLoadWarps * 32, smem_bytes>>>(kIterations, sink, span);
    check(cudaGetLastError(), "probe launch");
  };
  pass();  // warm-up
  check(cudaEventRecord(marks[0]), "cudaEventRecord");
  for (int i = 1; i <= kPasses; ++i) {
    pass();
    check(cudaEventRecord(marks[i]), "cudaEventRecord");
  }
  check(cudaEventSynchronize(marks[kPasses]), "cudaEventSynchronize");
  std::vector<double> ms;
  for (int i = 1; i <= kPasses; ++i) {
    float t = 0;
    check(cudaEventElapsedTime(&t, marks[i - 1], marks[i]), "cudaEventElapsedTime");
    ms.push_back(t);
  }
  for (cudaEvent_t mark : marks) cudaEventDestroy(mark);
  std::nth_element(ms.begin(), ms.begin() + kPasses / 2, ms.end());
  std::uint64_t w[ck::kClockSpanWords] = {};
  check(cudaMemcpy(w, span, sizeof w, cudaMemcpyDeviceToHost), "clock span download");
  return {ms[kPasses / 2], vb::clock_mhz(w[0], w[2], w[1], w[3])};
}

}  // namespace

int main(int argc, char**) {
  if (argc > 1) {
    std::fprintf(stderr, "usage: vb_sm120_emulation_calibration (no arguments: measures device 0, a Hopper)\n");
    return 2;
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  if (prop.major != 9) {
    std::fprintf(stderr, "vb_sm120_emulation_calibration: device 0 (%s) is compute capability %d.%d; the emulation "
                 "runs on a Hopper (9.x) only\n", prop.name, prop.major, prop.minor);
    return 2;
  }
  float* sink = nullptr;
  std::uint64_t* span = nullptr;
  check(cudaMalloc(&sink, (ck::kMmaThreads + ck::kMmaLoadWarps * 32) * sizeof(float)), "cudaMalloc sink");
  check(cudaMalloc(&span, ck::kClockSpanWords * sizeof(std::uint64_t)), "cudaMalloc clock span");
  std::printf("%s, %d SMs; %d iterations x %d chains a compute warp, median of %d passes\n", prop.name,
              prop.multiProcessorCount, kIterations, ck::kMmaChains, kPasses);
  std::printf("%-5s %-14s %6s %9s %10s %12s %8s %9s\n", "math", "extra load", "extra", "TFLOP/s", "clock MHz",
              "FLOP/clk/SM", "sm_120", "off");
  for (const Candidate& c : candidates()) {
    const Timing t = time_candidate(c, prop.multiProcessorCount, sink, span);
    const double flops = static_cast<double>(prop.multiProcessorCount) * ck::kMmaComputeWarps * kIterations *
                         ck::kMmaChains * c.flops_per_mma;
    const double per_clock = t.clock_mhz > 0 ? flops / (t.ms * 1e-3) / (prop.multiProcessorCount * t.clock_mhz * 1e6) : 0;
    std::printf("%-5s %-14s %3d/%-2d %9.1f %10.0f %12.0f %8.0f %+8.1f%%", c.math, c.load_instruction, c.num, c.den,
                flops / (t.ms * 1e-3) / 1e12, t.clock_mhz, per_clock, c.sm120_rate,
                (per_clock / c.sm120_rate - 1) * 100);
    if (c.num == 0 && per_clock > 0) {
      std::printf("  theory: %.2f extra per real instruction", (per_clock / c.sm120_rate - 1) * c.flops_per_mma / c.extra_flops);
    }
    std::printf("\n");
  }
  cudaFree(sink);
  cudaFree(span);
  return 0;
}

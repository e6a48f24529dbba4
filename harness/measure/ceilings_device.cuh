// Device helpers the ceiling micro-kernels share (ceilings_kernels.cu, ceilings_wgmma_sm90a.cu).
#pragma once
#include <cstdint>

namespace vb::ceiling_kernels {

__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

// A tensor-core probe's clock span (kClockSpanWords, ceilings_kernels.h): thread 0 of block 0
// reads its SM's cycle counter and the global timer when constructed, before the probe's
// loop, and writes both readings and a second pair in finish(), after it.
class ProbeClockSpan {
 public:
  __device__ __forceinline__ explicit ProbeClockSpan(std::uint64_t* span)
      : span_(span), on_(span != nullptr && blockIdx.x == 0 && threadIdx.x == 0) {
    if (on_) {
      cycles_ = clock64();
      ns_ = global_timer_ns();
    }
  }
  __device__ __forceinline__ void finish() const {
    if (!on_) return;
    span_[0] = cycles_;
    span_[1] = ns_;
    span_[2] = clock64();
    span_[3] = global_timer_ns();
  }

 private:
  std::uint64_t* span_;
  bool on_;
  std::uint64_t cycles_ = 0, ns_ = 0;
};

}  // namespace vb::ceiling_kernels

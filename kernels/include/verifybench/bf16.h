// bf16 <-> fp32 conversion usable from host and device code without cuda_bf16.h, so the
// CPU reference and the harness do not depend on the CUDA toolkit headers.
#pragma once
#include <cstdint>
#include <cstring>

#include "verifybench/hd.h"

namespace vb {

// bf16 values travel as their raw 16-bit pattern (the top half of an IEEE fp32).
using bf16_bits = std::uint16_t;

VB_HD float bf16_to_float(bf16_bits b) {
  const std::uint32_t u = static_cast<std::uint32_t>(b) << 16;
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}

// Round to nearest even, NaN stays NaN (quiet), like __float2bfloat16_rn.
VB_HD bf16_bits float_to_bf16(float f) {
#if defined(__CUDA_ARCH__)
  const std::uint32_t u = __float_as_uint(f);
#else
  std::uint32_t u;
  std::memcpy(&u, &f, sizeof u);
#endif
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0) {
    return static_cast<bf16_bits>((u >> 16) | 0x0040u);
  }
  const std::uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);
  return static_cast<bf16_bits>((u + rounding) >> 16);
}

inline constexpr bf16_bits kBf16QuietNaN = 0x7fc0;

}  // namespace vb

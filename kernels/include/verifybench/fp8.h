// fp8 e4m3 (the "fn" variant CUDA's __NV_E4M3 and torch.float8_e4m3fn use: 4 exponent bits,
// bias 7, 3 mantissa bits, no infinities, NaN = S.1111.111) <-> float on the host and the
// device, without cuda_fp8.h, so the CPU reference and the harness need no CUDA headers.
// The fp8 KV cache stores each value divided by one scale per layer (scenarios/README.md,
// `kv_cache`); every e4m3 value is exact in bf16, fp32 and double.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "verifybench/hd.h"

namespace vb {

using fp8_e4m3_bits = std::uint8_t;

inline constexpr double kFp8E4m3Max = 448.0;       // S.1111.110
inline constexpr fp8_e4m3_bits kFp8E4m3NaN = 0x7f;  // what a NaN quantizes to
inline constexpr int kFp8E4m3Bias = 7;

// The value of an e4m3 code (NaN for 0x7f and 0xff), exact.
VB_HD float fp8_e4m3_to_float(fp8_e4m3_bits code) {
  const int exponent = (code >> 3) & 0xf;
  const int mantissa = code & 0x7;
  const float sign = (code & 0x80) != 0 ? -1.f : 1.f;
  if (exponent == 0xf && mantissa == 0x7) return NAN;
  // Subnormals (exponent field 0): mantissa * 2^-9; normals: (8 + mantissa) * 2^(e - 10).
  const int significand = exponent == 0 ? mantissa : 8 + mantissa;
  const int shift = (exponent == 0 ? 1 : exponent) - kFp8E4m3Bias - 3;
  return sign * ldexpf(static_cast<float>(significand), shift);
}

// x as e4m3, round to nearest even, saturating: every finite |x| above 448 and every
// infinity becomes +-448 (CUDA's __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3)); NaN
// becomes 0x7f. Takes a double so that x / scale is rounded once, here.
inline fp8_e4m3_bits fp8_e4m3_from_double(double x) {
  if (std::isnan(x)) return kFp8E4m3NaN;
  const fp8_e4m3_bits sign = std::signbit(x) ? 0x80 : 0x00;
  const double a = std::fabs(x);
  if (a >= kFp8E4m3Max) return sign | 0x7e;
  // The quantum of a's binade: 2^(e - 3) for a in [2^e, 2^(e+1)), e >= -6; the subnormals
  // share the smallest normal binade's 2^-9. a / quantum is exact, nearbyint rounds it to
  // nearest even (the default rounding mode), and a carry into the next binade (16 in a
  // binade of 8..15) lands on the right code because the codes count up through the binades.
  int e = 0;
  std::frexp(a, &e);  // a = f * 2^e, f in [0.5, 1): a in [2^(e-1), 2^e)
  const int binade = a == 0 ? 1 - kFp8E4m3Bias : std::max(e - 1, 1 - kFp8E4m3Bias);
  const double steps = std::nearbyint(std::ldexp(a, 3 - binade));  // in [0, 16]
  const int code = (binade + kFp8E4m3Bias - 1) * 8 + static_cast<int>(steps);
  return sign | static_cast<fp8_e4m3_bits>(code > 0x7e ? 0x7e : code);
}

// Whether `scale` can dequantize an fp8 pool: finite and above 0 (1 when the checkpoint ships
// none). Every entry point that takes a pool's scale refuses others with this one rule.
inline bool usable_fp8_kv_scale(float scale) { return scale > 0.f && std::isfinite(scale); }

}  // namespace vb

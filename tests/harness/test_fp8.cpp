// The fp8 e4m3 KV cache on the host: the codec the pool is made with (verifybench/fp8.h),
// against the e4m3 definition and CUDA's own conversion (cuda_fp8.h's host path,
// __NV_SATFINITE); the `kv_cache` scenario setting; the quantized pool; the reference on it;
// the traffic model's 576-byte rows.
#include <catch2/catch.hpp>
#include <cuda_fp8.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "harness/measure/traffic_model.h"
#include "harness/problem/problem.h"
#include "harness/run/runner.h"
#include "harness/scenario/scenario.h"
#include "verifybench/bf16.h"
#include "verifybench/fp8.h"
#include "verifybench/reference.h"

namespace vb {
namespace {

fp8_e4m3_bits cuda_e4m3(float x) {
  return static_cast<fp8_e4m3_bits>(__nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3));
}

float cuda_e4m3_value(fp8_e4m3_bits code) {
  const __half_raw h = __nv_cvt_fp8_to_halfraw(static_cast<__nv_fp8_storage_t>(code), __NV_E4M3);
  return static_cast<float>(__half(h));
}

float float_from_bits(std::uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

}  // namespace

TEST_CASE("fp8 e4m3: every code decodes to its defined value", "[fp8]") {
  std::set<float> positives;
  for (int code = 0; code < 256; ++code) {
    const auto c = static_cast<fp8_e4m3_bits>(code);
    const float v = fp8_e4m3_to_float(c);
    if ((code & 0x7f) == 0x7f) {
      CHECK(std::isnan(v));
      CHECK(std::isnan(cuda_e4m3_value(c)));
      continue;
    }
    const int e = (code >> 3) & 0xf, m = code & 7;
    const double magnitude = e == 0 ? std::ldexp(m, -9) : std::ldexp(1.0 + m / 8.0, e - 7);
    CHECK(static_cast<double>(v) == ((code & 0x80) ? -magnitude : magnitude));
    CHECK(v == cuda_e4m3_value(c));
    // Exact in bf16: the kernels widen e4m3 to bf16 for their math.
    CHECK(bf16_to_float(float_to_bf16(v)) == v);
    // A finite code quantizes back to itself (-0 to 0x80).
    CHECK(fp8_e4m3_from_double(v) == c);
    if (code < 0x80) positives.insert(v);
  }
  CHECK(positives.size() == 127);  // 0 and 126 distinct positive values
  CHECK(*positives.rbegin() == 448.f);
  CHECK(*std::next(positives.begin()) == 0x1.0p-9f);
}

TEST_CASE("fp8 e4m3: ties round to even, beyond 448 saturates, NaN is 0x7f", "[fp8]") {
  // Midpoints between neighbouring codes go to the even code; just off a midpoint, to the
  // nearer one.
  for (int code = 0; code < 0x7e; ++code) {
    const double lo = fp8_e4m3_to_float(static_cast<fp8_e4m3_bits>(code));
    const double hi = fp8_e4m3_to_float(static_cast<fp8_e4m3_bits>(code + 1));
    const double mid = (lo + hi) / 2;
    const int even = code % 2 == 0 ? code : code + 1;
    CHECK(fp8_e4m3_from_double(mid) == even);
    CHECK(fp8_e4m3_from_double(-mid) == (0x80 | even));
    CHECK(fp8_e4m3_from_double(std::nextafter(mid, 0.0)) == code);
    CHECK(fp8_e4m3_from_double(std::nextafter(mid, 1e9)) == code + 1);
  }
  CHECK(fp8_e4m3_from_double(448.0) == 0x7e);
  CHECK(fp8_e4m3_from_double(464.0) == 0x7e);  // the midpoint to the NaN code's place
  CHECK(fp8_e4m3_from_double(1e30) == 0x7e);
  CHECK(fp8_e4m3_from_double(-1e30) == 0xfe);
  CHECK(fp8_e4m3_from_double(std::numeric_limits<double>::infinity()) == 0x7e);
  CHECK(fp8_e4m3_from_double(-std::numeric_limits<double>::infinity()) == 0xfe);
  CHECK(fp8_e4m3_from_double(std::numeric_limits<double>::quiet_NaN()) == kFp8E4m3NaN);
  CHECK(fp8_e4m3_from_double(0x1.0p-11) == 0x00);   // a quarter of the smallest subnormal
  CHECK(fp8_e4m3_from_double(0x1.0p-10) == 0x00);   // half of it: tie to even (0)
  CHECK(fp8_e4m3_from_double(0x1.8p-10) == 0x01);   // three quarters
  CHECK(fp8_e4m3_from_double(-0.0) == 0x80);
}

TEST_CASE("fp8 e4m3: the host quantizer agrees with CUDA's __NV_SATFINITE conversion", "[fp8]") {
  // Every bf16 value (what the generated pools hold), and a sweep of fp32 values across the
  // e4m3 range with the low mantissa bits set so that near-ties are hit as well.
  int checked = 0;
  for (std::uint32_t b = 0; b < 0x10000; ++b) {
    const float x = bf16_to_float(static_cast<bf16_bits>(b));
    const fp8_e4m3_bits mine = fp8_e4m3_from_double(x), cuda = cuda_e4m3(x);
    if (std::isnan(x)) {
      CHECK((cuda & 0x7f) == 0x7f);
      CHECK(mine == kFp8E4m3NaN);
      continue;
    }
    if (mine != cuda) FAIL_CHECK("bf16 0x" << std::hex << b << ": host " << int(mine) << ", CUDA " << int(cuda));
    ++checked;
  }
  for (std::uint32_t exponent = 100; exponent < 140; ++exponent) {
    for (std::uint32_t mantissa = 0; mantissa < (1u << 23); mantissa += 4093) {
      for (const std::uint32_t sign : {0u, 0x80000000u}) {
        const float x = float_from_bits(sign | (exponent << 23) | mantissa);
        if (fp8_e4m3_from_double(x) != cuda_e4m3(x)) FAIL_CHECK("fp32 " << x);
        ++checked;
      }
    }
  }
  CHECK(checked > 100000);
}

}  // namespace vb

// ---------------------------------------------------------------- the fp8 KV cache of a case
namespace vb {
namespace {

const char* kEntry =
    "scenarios:\n"                          // 1
    "  - name: a\n"                         // 2
    "    heads: 4\n"                        // 3
    "    sm_scale: kimi-k2\n"               // 4
    "    batch: {prefix_lens: [40, 17]}\n"  // 5
    "    tree: {kind: kary, branching: 2, depth: 2}\n"  // 6
    "    pages: {size: 16, placement: shuffled, seed: 3}\n";  // 7

CaseSpec fp8_case(const std::string& extra) {
  const ScenarioFile f = parse_scenario_text(std::string(kEntry) + extra, "t.yaml");
  REQUIRE(f.cases.size() == 1);
  return f.cases[0];
}

std::string kv_error(const std::string& extra) {
  try {
    parse_scenario_text(std::string(kEntry) + extra, "t.yaml");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  FAIL("expected a ScenarioError for: " << extra);
  return "";
}

}  // namespace

TEST_CASE("kv_cache: bf16 by default, fp8_e4m3 with a number, amax, or 1", "[fp8][scenario]") {
  CHECK(fp8_case("").kv_cache.dtype == KvDtype::kBf16);
  const CaseSpec half = fp8_case("    kv_cache: {dtype: fp8_e4m3, scale: 0.5}\n");
  CHECK(half.kv_cache.dtype == KvDtype::kFp8E4m3);
  CHECK(half.kv_cache.scale == 0.5);
  CHECK_FALSE(half.kv_cache.scale_from_amax);
  CHECK(kv_cache_label(half.kv_cache) == "fp8_e4m3 scale 0.5");
  const CaseSpec amax = fp8_case("    kv_cache: {dtype: fp8_e4m3, scale: amax}\n");
  CHECK(amax.kv_cache.scale_from_amax);
  CHECK(kv_cache_label(amax.kv_cache) == "fp8_e4m3 scale amax");
  CHECK(fp8_case("    kv_cache: {dtype: fp8_e4m3}\n").kv_cache.scale == 1.0);
  CHECK(kv_cache_label(fp8_case("    kv_cache: {dtype: bf16}\n").kv_cache) == "bf16");
  // Sweepable, like every other scalar field.
  const ScenarioFile swept = parse_scenario_text(
      std::string(kEntry) + "    sweep: {kv_cache.dtype: [bf16, fp8_e4m3]}\n", "t.yaml");
  REQUIRE(swept.cases.size() == 2);
  CHECK(swept.cases[0].kv_cache.dtype == KvDtype::kBf16);
  CHECK(swept.cases[1].kv_cache.dtype == KvDtype::kFp8E4m3);
  CHECK(swept.cases[1].name == "a/kv_cache.dtype=fp8_e4m3");
}

TEST_CASE("kv_cache: bad settings are refused at file:line:column", "[fp8][scenario]") {
  using Catch::Contains;
  CHECK_THAT(kv_error("    kv_cache: {dtype: fp8}\n"),
             Contains("t.yaml:8:23: scenarios[0].kv_cache.dtype: got fp8; allowed: one of bf16, fp8_e4m3"));
  CHECK_THAT(kv_error("    kv_cache: {scale: 2}\n"), Contains("scenarios[0].kv_cache.dtype"));
  CHECK_THAT(kv_error("    kv_cache: {dtype: bf16, scale: 2}\n"),
             Contains("t.yaml:8:36: scenarios[0].kv_cache.scale: a scale applies to dtype fp8_e4m3 only"));
  for (const char* bad : {"0", "-1", "1e9", "max", "\"0.5\"", "[1]"}) {
    const std::string msg = kv_error(fmt::format("    kv_cache: {{dtype: fp8_e4m3, scale: {}}}\n", bad));
    INFO(msg);
    CHECK_THAT(msg, Contains("t.yaml:8:40: scenarios[0].kv_cache.scale: got"));
    CHECK_THAT(msg, Contains("or amax"));
  }
  CHECK_THAT(kv_error("    kv_cache: {dtype: fp8_e4m3, scales: 2}\n"), Contains("scales"));
  CHECK_THAT(kv_error("    data: {dist: uniform, poison: {value: inf, in: kv}}\n"
                      "    kv_cache: {dtype: fp8_e4m3}\n"),
             Contains("t.yaml:9:23: scenarios[0].kv_cache.dtype: fp8_e4m3 has no infinity"));
  // NaN in the pool, and inf in q, are fine.
  CHECK(fp8_case("    data: {dist: uniform, poison: {value: nan, in: kv}}\n    kv_cache: {dtype: fp8_e4m3}\n")
            .kv_cache.dtype == KvDtype::kFp8E4m3);
  CHECK(fp8_case("    data: {dist: uniform, poison: {value: inf, in: q}}\n    kv_cache: {dtype: fp8_e4m3}\n")
            .kv_cache.dtype == KvDtype::kFp8E4m3);
}

TEST_CASE("math: bf16 by default, fp8 over an fp8 pool only, sweepable, named in reproducers", "[fp8][scenario]") {
  using Catch::Contains;
  CHECK(fp8_case("    kv_cache: {dtype: fp8_e4m3}\n").math == MathMode::kBf16);
  const CaseSpec fp8 = fp8_case("    kv_cache: {dtype: fp8_e4m3, scale: amax}\n    math: fp8\n");
  CHECK(fp8.math == MathMode::kFp8);
  CHECK(kv_cache_and_math_label(fp8) == "fp8_e4m3 scale amax, fp8 math");
  CHECK(kv_cache_and_math_label(fp8_case("    kv_cache: {dtype: fp8_e4m3}\n    math: bf16\n")) ==
        "fp8_e4m3 scale 1");
  CHECK(reproducer_for("s.yaml", fp8) == "verifybench run s.yaml --case 'a' --math fp8");
  CHECK(reproducer_for("s.yaml", fp8_case("")) == "verifybench run s.yaml --case 'a'");  // bf16 pool: no math
  CHECK_THAT(kv_error("    math: fp8\n"),
             Contains("t.yaml:8:11: scenarios[0].math: fp8 math multiplies the pool's e4m3 values and needs "
                      "kv_cache.dtype fp8_e4m3"));
  CHECK_THAT(kv_error("    kv_cache: {dtype: fp8_e4m3}\n    math: e4m3\n"),
             Contains("t.yaml:9:11: scenarios[0].math: got e4m3; allowed: one of bf16, fp8"));
  const ScenarioFile swept = parse_scenario_text(
      std::string(kEntry) + "    kv_cache: {dtype: fp8_e4m3}\n    sweep: {math: [bf16, fp8]}\n", "t.yaml");
  REQUIRE(swept.cases.size() == 2);
  CHECK(swept.cases[0].math == MathMode::kBf16);
  CHECK(swept.cases[1].math == MathMode::kFp8);
  CHECK(swept.cases[1].name == "a/math=fp8");
  // The sweep's fp8 point over a bf16 pool is refused at the sweep value.
  CHECK_THAT(kv_error("    sweep: {math: [bf16, fp8]}\n"), Contains("scenarios[0].math: fp8 math multiplies"));
}

TEST_CASE("an fp8 pool is the generated pool divided by the scale, rounded to e4m3", "[fp8][problem]") {
  for (const char* scale : {"1", "0.37", "amax"}) {
    INFO("scale " << scale);
    const Problem bf16 = materialize(fp8_case(""));
    const Problem pr = materialize(fp8_case(fmt::format("    kv_cache: {{dtype: fp8_e4m3, scale: {}}}\n", scale)));
    CHECK(pr.kv_pool == bf16.kv_pool);  // the same generated data
    REQUIRE(pr.kv_pool_fp8.size() == pr.kv_pool.size());
    const double expected_scale =
        std::string(scale) == "amax" ? kv_pool_amax(pr.kv_pool) / kFp8E4m3Max : std::stod(scale);
    CHECK(pr.kv_scale == static_cast<float>(expected_scale));
    int nan_rows = 0, mismatches = 0;
    for (std::size_t i = 0; i < pr.kv_pool.size(); ++i) {
      const double x = bf16_to_float(pr.kv_pool[i]);
      if (std::isnan(x)) {
        nan_rows += pr.kv_pool_fp8[i] == kFp8E4m3NaN;
        continue;
      }
      mismatches += pr.kv_pool_fp8[i] != fp8_e4m3_from_double(x / static_cast<double>(pr.kv_scale));
    }
    CHECK(mismatches == 0);
    CHECK(nan_rows > 0);  // the unmapped rows stay NaN, so a stray read shows
    CHECK(pr.executed_kv_pool() == pr.kv_pool_fp8.data());
    CHECK(bf16.executed_kv_pool() == bf16.kv_pool.data());
    CHECK(bf16.kv_pool_fp8.empty());
    if (std::string(scale) == "amax") {  // the largest value lands on (or next to) 448
      const auto top = *std::max_element(pr.kv_pool_fp8.begin(), pr.kv_pool_fp8.end(), [](auto a, auto b) {
        return (a & 0x7f) == 0x7f ? true : (b & 0x7f) == 0x7f ? false : std::fabs(fp8_e4m3_to_float(a)) < std::fabs(fp8_e4m3_to_float(b));
      });
      CHECK(std::fabs(fp8_e4m3_to_float(top)) >= 416.f);
    }
  }
}

TEST_CASE("fp8 pools: saturation clips outliers at 448 x scale, NaN poison stays NaN", "[fp8][problem]") {
  const Problem outliers = materialize(fp8_case(
      "    data: {dist: outlier_channels, channels: [7], factor: 1000}\n    kv_cache: {dtype: fp8_e4m3, scale: 1}\n"));
  int saturated = 0;
  for (std::size_t i = 0; i < outliers.kv_pool.size(); ++i) {
    const double x = bf16_to_float(outliers.kv_pool[i]);
    if (std::isfinite(x) && std::fabs(x) > 448) {
      CHECK((outliers.kv_pool_fp8[i] & 0x7f) == 0x7e);
      ++saturated;
    }
  }
  CHECK(saturated > 0);
  const Problem poisoned = materialize(
      fp8_case("    data: {dist: uniform, poison: {value: nan, in: kv}}\n    kv_cache: {dtype: fp8_e4m3}\n"));
  const VerifyParams p = host_params(poisoned, PageTableKind::kTokenIndices, nullptr, nullptr);
  REQUIRE(p.kv_is_fp8());
  int bad = 0;
  for (int b = 0; b < p.batch; ++b) {
    for (int t = 0; t < p.kv_len(b); ++t) {
      for (int c = 0; c < mla::kHeadDimQK; ++c) bad += p.kv_row_fp8(b, t)[c] == kFp8E4m3NaN;
    }
  }
  CHECK(bad == 2);  // one per request with a prefix of 16 or more
}

TEST_CASE("the reference on an fp8 pool is the bf16 math with the scale folded into sm_scale and O",
          "[fp8][reference]") {
  // What the kernels do: scores on the e4m3 values with sm_scale * kv_scale, O of the e4m3
  // values times kv_scale. Same answer as the reference's dequantized values, to fp32 rounding
  // of the folded sm_scale.
  for (const char* scale : {"0.37", "2.5", "amax"}) {
    INFO("scale " << scale);
    const Problem pr = materialize(fp8_case(
        fmt::format("    data: {{dist: sink}}\n    kv_cache: {{dtype: fp8_e4m3, scale: {}}}\n", scale)));
    const ReferenceOutput dequantized = reference_verify(host_params(pr, PageTableKind::kBlockTable, nullptr, nullptr));
    Problem folded = pr;  // a bf16 pool holding the e4m3 values themselves (exact in bf16)
    for (std::size_t i = 0; i < pr.kv_pool.size(); ++i) folded.kv_pool[i] = float_to_bf16(fp8_e4m3_to_float(pr.kv_pool_fp8[i]));
    VerifyParams p = host_params(folded, PageTableKind::kTokenIndices, nullptr, nullptr, HostPool::kUnquantized);
    p.sm_scale = static_cast<float>(static_cast<double>(pr.sm_scale) * pr.kv_scale);
    const ReferenceOutput e4m3 = reference_verify(p);
    REQUIRE(e4m3.o.size() == dequantized.o.size());
    for (std::size_t i = 0; i < e4m3.o.size(); ++i) {
      CHECK(e4m3.o[i] * pr.kv_scale == Approx(dequantized.o[i]).epsilon(1e-6).margin(1e-9));
    }
    for (std::size_t i = 0; i < e4m3.lse.size(); ++i) CHECK(e4m3.lse[i] == Approx(dequantized.lse[i]).epsilon(1e-6));
    // And the quantization moved the answer: the fp8 case is not its bf16 twin.
    const ReferenceOutput unquantized =
        reference_verify(host_params(pr, PageTableKind::kTokenIndices, nullptr, nullptr, HostPool::kUnquantized));
    double moved = 0;
    for (std::size_t i = 0; i < unquantized.o.size(); ++i) moved = std::max(moved, std::fabs(unquantized.o[i] - dequantized.o[i]));
    CHECK(moved > 1e-4);
  }
}

TEST_CASE("traffic model: an fp8 case counts 576-byte KV rows", "[fp8][traffic]") {
  const Problem bf16 = materialize(fp8_case(""));
  const Problem fp8 = materialize(fp8_case("    kv_cache: {dtype: fp8_e4m3, scale: amax}\n"));
  const TrafficModel a = traffic_model(traffic_input(bf16)), b = traffic_model(traffic_input(fp8));
  CHECK(b.kv_unique_bytes * 2 == a.kv_unique_bytes);
  CHECK(b.page_bytes * 2 == a.page_bytes);
  CHECK(a.algorithmic_bytes - b.algorithmic_bytes == b.kv_unique_bytes);
  CHECK(a.flops == b.flops);
  CHECK(b.kv_unique_bytes % kKvRowBytesFp8 == 0);
  // The row size the memory roof is chosen by (memory_ceiling_gbps).
  CHECK(a.kv_row_bytes == kKvRowBytes);
  CHECK(b.kv_row_bytes == kKvRowBytesFp8);
}

}  // namespace vb

// fp8 math's error model (harness/problem/fp8_math_error.h; scenarios/README.md derives it):
// the Q quantization it models is the kernel's, each term of the formula on hand-computed
// inputs, and what a case's data gives it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "harness/problem/fp8_math_error.h"
#include "harness/problem/problem.h"
#include "verifybench/bf16.h"
#include "verifybench/reference.h"

namespace vb {
namespace {

std::vector<bf16_bits> q_row(float fill) { return std::vector<bf16_bits>(mla::kHeadDimQK, float_to_bf16(fill)); }

TEST_CASE("fp8 math model: Q's per-row scale and quantization are the kernel's", "[fp8][fp8-math]") {
  std::vector<bf16_bits> zeros = q_row(0.f);
  CHECK(fp8_math_q_scale(zeros.data()) == 1.f);  // an all-zero row: scale 1, every value exact
  CHECK(fp8_math_q_dequantized(zeros.data(), 5) == 0.0);
  std::vector<bf16_bits> q = q_row(0.5f);
  q[7] = float_to_bf16(-2.f);     // the row's max |q|: 448 after scaling, exact
  q[8] = float_to_bf16(0.3125f);  // 70 after scaling: e4m3 holds 64 and 72 there, rounds to 72
  q[9] = float_to_bf16(1e-4f);    // 0.0224 after scaling: e4m3's smallest binade, spacing 2^-9
  CHECK(fp8_math_q_scale(q.data()) == 2.f / 448.f);
  CHECK(fp8_math_q_dequantized(q.data(), 7) == Approx(-2.0).epsilon(1e-6));
  CHECK(fp8_math_q_dequantized(q.data(), 0) == Approx(0.5).epsilon(1e-6));  // 112: exact
  CHECK(fp8_math_q_dequantized(q.data(), 8) == Approx(72.0 * 2 / 448).epsilon(1e-6));
  CHECK(std::fabs(fp8_math_q_dequantized(q.data(), 9) - bf16_to_float(q[9])) <= 0x1.0p-10 * 2.0 / 448 * (1 + 1e-6));
}

TEST_CASE("fp8 math model: the sigmas are the README's formulas", "[fp8][fp8-math]") {
  Fp8MathErrorModel m;
  m.score_variance = 1e-4;
  m.weight_variance = 0x1.0p-8 / 3;
  m.tiny_weight_variance = 1000 * 0x1.0p-36 / 3;
  m.v_mean_square = 1.0 / 3;
  m.v_max = 1;
  m.weight_square_sum = 0.01;
  const double o = std::sqrt(1.0 / 3 * 0.01 * (1e-4 + 0x1.0p-8 / 3) + 1000 * 0x1.0p-36 / 3 * 4);
  const double lse = std::sqrt(1e-4 + 0.01 * 0x1.0p-8 / 3 + 1000 * 0x1.0p-36 / 3);
  CHECK(fp8_math_o_sigma(m) == Approx(o).epsilon(1e-12));
  CHECK(fp8_math_lse_sigma(m) == Approx(lse).epsilon(1e-12));
  ToleranceSpec base;
  const ToleranceSpec t = fp8_math_tolerance(base, m);
  CHECK(t.o_atol == Approx(base.o_atol + kFp8MathSigmas * o).epsilon(1e-12));
  CHECK(t.lse_atol == Approx(base.lse_atol + kFp8MathSigmas * lse).epsilon(1e-12));
  CHECK(t.o_rtol == base.o_rtol);
  CHECK(t.lse_rtol == base.lse_rtol);
  // One visible token (W2 = 1) is the least averaged: its O sigma is the largest.
  Fp8MathErrorModel concentrated = m;
  concentrated.weight_square_sum = 1;
  CHECK(fp8_math_o_sigma(concentrated) > 5 * fp8_math_o_sigma(m));
}

TEST_CASE("fp8 math model: a case's data and reference give its terms", "[fp8][fp8-math]") {
  CaseSpec spec;
  spec.name = "fp8-math-model";
  spec.heads = 8;
  spec.sm_scale = 0.135234;
  spec.seed = 9;
  spec.batch.dist = PrefixDist::kList;
  spec.batch.prefix_lens = {300, 40};
  spec.tree.kind = TreeKind::kChain;
  spec.tree.nodes = 2;
  spec.kv_cache.dtype = KvDtype::kFp8E4m3;
  spec.kv_cache.scale = 0.01;
  const Problem problem = materialize(spec);
  const ReferenceOutput ref = reference_verify(host_params(problem, PageTableKind::kTokenIndices, nullptr, nullptr));
  REQUIRE(ref.weight_square_sum.size() == static_cast<std::size_t>(problem.query_rows()));
  for (const double w2 : ref.weight_square_sum) {  // between 1 / tokens and 1
    CHECK(w2 <= 1.0);
    CHECK(w2 >= 1.0 / 343);
  }
  const Fp8MathErrorModel m = fp8_math_error_model(problem, ref.weight_square_sum);
  // Uniform data in [-1, 1) on the pool's e4m3 grid (relative half spacing 2^-4): V's mean
  // square near 1/3, its max near 1, at most 1 + 2^-4.
  constexpr double kPoolMax = 1.0 + 0x1.0p-4;
  CHECK(m.v_mean_square == Approx(1.0 / 3).margin(0.05));
  CHECK(m.v_max <= kPoolMax);
  CHECK(m.v_max > 0.9);
  CHECK(m.weight_variance == Approx(0x1.0p-8 / 3));
  CHECK(m.tiny_weight_variance == Approx(302 * 0x1.0p-36 / 3));
  // Q's rounding: at most e4m3's relative half spacing, 2^-4, on every element (plus the
  // subnormals' 2^-10 x scale): sm^2 sum q^2 2^-8 k_max^2 bounds the score variance.
  double bound = 0;
  for (std::int64_t r = 0; r < problem.query_rows(); ++r) {
    double row = 0;
    const float scale = fp8_math_q_scale(problem.q.data() + r * mla::kHeadDimQK);
    for (int i = 0; i < mla::kHeadDimQK; ++i) {
      const double q = bf16_to_float(problem.q[static_cast<std::size_t>(r * mla::kHeadDimQK + i)]);
      const double a = 0x1.0p-4 * std::fabs(q) + 0x1.0p-10 * scale;
      row += a * a * kPoolMax * kPoolMax;
    }
    bound = std::max(bound, spec.sm_scale * spec.sm_scale * row);
  }
  CHECK(m.score_variance > 0);
  CHECK(m.score_variance <= bound);
  CHECK(m.weight_square_sum == Approx(*std::max_element(ref.weight_square_sum.begin(), ref.weight_square_sum.end())));
}

}  // namespace
}  // namespace vb

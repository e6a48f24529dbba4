// fp8 math's error model (fp8_math_error.h; scenarios/README.md derives it).
#include "harness/problem/fp8_math_error.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "verifybench/bf16.h"
#include "verifybench/fp8.h"

namespace vb {
namespace {

constexpr int kQK = mla::kHeadDimQK;
constexpr int kV = mla::kHeadDimV;
constexpr float kE4m3Max = 448.f;
constexpr double kWeightHalfSpacing = 0x1.0p-4;  // relative, e4m3 normals
constexpr double kTinyWeightError = 0x1.0p-18;   // absolute, P units: 2^-10 / 2^8

// The dequantized pool row the executors read: each of its kQK values into `out`. An fp8 pool
// reads its bytes through `fp8_values` (the 256 codes times the scale), as the model visits
// every row in use (hundreds of millions of values in the large perf cases).
void pool_row(const Problem& pr, std::int64_t row, const std::vector<double>& fp8_values, double* out) {
  const std::size_t at = static_cast<std::size_t>(row) * kQK;
  if (pr.kv_dtype() == KvDtype::kFp8E4m3) {
    for (int c = 0; c < kQK; ++c) out[c] = fp8_values[pr.kv_pool_fp8[at + c]];
  } else {
    for (int c = 0; c < kQK; ++c) out[c] = bf16_to_float(pr.kv_pool[at + c]);
  }
}

float row_amax(const bf16_bits* q_row) {
  float amax = 0;
  for (int i = 0; i < kQK; ++i) amax = std::max(amax, std::fabs(bf16_to_float(q_row[i])));
  return amax;
}

// The V channels whose o_atol the case scales itself (outlier_channels), per channel.
std::vector<bool> wide_channels(const Problem& pr) {
  std::vector<bool> wide(kV, false);
  if (pr.spec.data.dist != DataDist::kOutlierChannels) return wide;
  for (const int c : pr.spec.data.outlier_channels) {
    if (c >= 0 && c < kV) wide[static_cast<std::size_t>(c)] = true;
  }
  return wide;
}

// q times inv_scale rounded to e4m3 (nearest even, saturating), times scale: what the kernel
// multiplies for q.
double q_dequantized(float q, float inv_scale, float scale) {
  return static_cast<double>(fp8_e4m3_to_float(fp8_e4m3_from_double(q * inv_scale))) * scale;
}

}  // namespace

float fp8_math_q_scale(const bf16_bits* q_row) {
  const float amax = row_amax(q_row);
  return amax > 0 ? amax / kE4m3Max : 1.f;
}

namespace {
float q_inv_scale(const bf16_bits* q_row) {
  const float amax = row_amax(q_row);
  return amax > 0 ? kE4m3Max / amax : 1.f;
}
}  // namespace

double fp8_math_q_dequantized(const bf16_bits* q_row, int i) {
  return q_dequantized(bf16_to_float(q_row[i]), q_inv_scale(q_row), fp8_math_q_scale(q_row));
}

Fp8MathErrorModel fp8_math_error_model(const Problem& pr, const std::vector<double>& weight_square_sum) {
  Fp8MathErrorModel m;
  // K's largest square per channel, V's mean square and max per channel, over the rows in use.
  std::vector<double> k_max_square(kQK, 0.0), v_square_sum(kV, 0.0);
  const std::vector<bool> wide = wide_channels(pr);
  std::vector<double> fp8_values(256, 0.0);
  for (int code = 0; code < 256; ++code) {
    fp8_values[static_cast<std::size_t>(code)] =
        fp8_e4m3_to_float(static_cast<fp8_e4m3_bits>(code)) * static_cast<double>(pr.kv_scale);
  }
  std::vector<double> x(kQK);
  std::int64_t rows_in_use = 0;
  for (int b = 0; b < pr.batch; ++b) {
    for (std::int32_t t = pr.pages.kv_indptr[b]; t < pr.pages.kv_indptr[b + 1]; ++t) {
      pool_row(pr, pr.pages.kv_indices[static_cast<std::size_t>(t)], fp8_values, x.data());
      ++rows_in_use;
      for (int c = 0; c < kQK; ++c) {
        if (!std::isfinite(x[c])) continue;  // poison: the reference's answer is NaN there too
        k_max_square[c] = std::max(k_max_square[c], x[c] * x[c]);
        if (c < kV && !wide[static_cast<std::size_t>(c)]) {
          v_square_sum[c] += x[c] * x[c];
          m.v_max = std::max(m.v_max, std::fabs(x[c]));
        }
      }
    }
  }
  for (int c = 0; c < kV; ++c) {
    m.v_mean_square = std::max(m.v_mean_square, rows_in_use > 0 ? v_square_sum[c] / rows_in_use : 0.0);
  }
  const double sm2 = static_cast<double>(pr.sm_scale) * pr.sm_scale;
  for (std::int64_t r = 0; r < pr.query_rows(); ++r) {
    const bf16_bits* q = pr.q.data() + r * kQK;
    const float inv = q_inv_scale(q), scale = fp8_math_q_scale(q);  // once a row: the row's amax
    double variance = 0;
    for (int i = 0; i < kQK; ++i) {
      const float qi = bf16_to_float(q[i]);
      const double dq = q_dequantized(qi, inv, scale) - qi;
      variance += dq * dq * k_max_square[i];
    }
    m.score_variance = std::max(m.score_variance, sm2 * variance);
  }
  m.weight_variance = kWeightHalfSpacing * kWeightHalfSpacing / 3.0;
  int longest = 0;
  for (int b = 0; b < pr.batch; ++b) longest = std::max(longest, pr.pages.kv_indptr[b + 1] - pr.pages.kv_indptr[b]);
  m.tiny_weight_variance = longest * kTinyWeightError * kTinyWeightError / 3.0;
  for (const double w2 : weight_square_sum) {
    if (std::isfinite(w2)) m.weight_square_sum = std::max(m.weight_square_sum, w2);
  }
  if (pr.spec.data.dist == DataDist::kTies) {
    m.weight_square_sum = std::max(m.weight_square_sum, 1.0 / std::max(1, pr.spec.data.distinct_rows));
  }
  return m;
}

double fp8_math_o_sigma(const Fp8MathErrorModel& m) {
  return std::sqrt(m.v_mean_square * m.weight_square_sum * (m.score_variance + m.weight_variance) +
                   m.tiny_weight_variance * 4.0 * m.v_max * m.v_max);
}

double fp8_math_lse_sigma(const Fp8MathErrorModel& m) {
  return std::sqrt(m.score_variance + m.weight_square_sum * m.weight_variance + m.tiny_weight_variance);
}

ToleranceSpec fp8_math_tolerance(const ToleranceSpec& base, const Fp8MathErrorModel& model) {
  ToleranceSpec t = base;
  t.o_atol += kFp8MathSigmas * fp8_math_o_sigma(model);
  t.lse_atol += kFp8MathSigmas * fp8_math_lse_sigma(model);
  return t;
}

Fp8MathTolerance fp8_math_tolerance_of(const Problem& problem, const std::vector<double>& weight_square_sum,
                                       const ToleranceSpec& base) {
  const Fp8MathErrorModel model = fp8_math_error_model(problem, weight_square_sum);
  return {fp8_math_tolerance(base, model), fp8_math_o_sigma(model), fp8_math_lse_sigma(model)};
}

}  // namespace vb

// The error model of fp8 tensor math (LaunchPlan::math = fp8; scenarios/README.md, "fp8 math:
// the rounding model and the tolerance"): what quantizing Q per row and P to e4m3 may cost O
// and the LSE against the exact reference, from the case's own data. Derived, never fitted:
// nothing here reads a kernel's output.
#pragma once
#include <cstdint>
#include <vector>

#include "harness/problem/problem.h"
#include "harness/scenario/scenario.h"

namespace vb {

// The kernel's per-row Q scale: max |q| / 448, or 1 for an all-zero row (fp32, as the kernel).
float fp8_math_q_scale(const bf16_bits* q_row);
// Q row element i as the kernel quantizes it (q * (448 / max |q|) in fp32, round to nearest
// even, saturating) and dequantizes it (times the scale): the error is known exactly.
double fp8_math_q_dequantized(const bf16_bits* q_row, int i);

// The variance terms of the model, each a worst case over the case's query rows.
struct Fp8MathErrorModel {
  // sm_scale^2 * sum_i dq_i^2 * max_t k_ti^2: the variance of a score's error from Q's rounding
  // (dq_i, exact) for any token whose K signs are independent of it.
  double score_variance = 0;
  // Var of a stored weight's relative error: (2^-4)^2 / 3 (P x 2^8 >= 2^-6, e4m3's normals).
  double weight_variance = 0;
  // Tiny weights (P x 2^8 < 2^-6): absolute error <= 2^-18 each, variance 2^-36 / 3 per token,
  // times the longest request's tokens.
  double tiny_weight_variance = 0;
  // The largest mean square of V over the pool's rows in use, per channel (wide channels of
  // the outlier distribution aside: ToleranceSpec scales their o_atol itself).
  double v_mean_square = 0;
  // The largest max |v| of those channels (the tiny weights' O term).
  double v_max = 0;
  // The largest sum over tokens of the reference's softmax weights squared, over the case's
  // rows (ReferenceOutput::weight_square_sum); for `ties` at least 1 / distinct rows, since
  // tied tokens round alike.
  double weight_square_sum = 0;
};

// The model for a materialized fp8 case and its reference's weight_square_sum (NaN rows skipped).
Fp8MathErrorModel fp8_math_error_model(const Problem& problem, const std::vector<double>& weight_square_sum);

// Standard deviations of the first-order errors (scenarios/README.md derives both):
//   O:   m2v * W2 * (score_variance + weight_variance) + tiny_weight_variance * 4 v_max^2
//   LSE: score_variance + W2 * weight_variance + tiny_weight_variance
double fp8_math_o_sigma(const Fp8MathErrorModel& model);
double fp8_math_lse_sigma(const Fp8MathErrorModel& model);

// Standard deviations the tolerance allows beyond the base (bf16-math) tolerance.
inline constexpr double kFp8MathSigmas = 6.0;

// The base tolerance widened by kFp8MathSigmas of each: o_atol and lse_atol grow, rtols stay.
ToleranceSpec fp8_math_tolerance(const ToleranceSpec& base, const Fp8MathErrorModel& model);

// What checking a case's fp8-math output takes, from its data and its reference's
// weight_square_sum: the widened tolerance and the model's two standard deviations (the run's
// records and the export's case.json both report them).
struct Fp8MathTolerance {
  ToleranceSpec tolerance;
  double o_sigma = 0, lse_sigma = 0;
};
Fp8MathTolerance fp8_math_tolerance_of(const Problem& problem, const std::vector<double>& weight_square_sum,
                                       const ToleranceSpec& base);

}  // namespace vb

// SGLang-form inputs of one problem: what SGLang's Triton extend-attention kernel reads in
// a tree verify (docs/background.md §2). Shared by the GPU upload (sglang-adapter executor) and the
// safetensors export, so both hand SGLang's names exactly the same bytes.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstddef>
#include <cstring>

#include "harness/problem/problem.h"

namespace vb {

namespace {

// x rounded to bf16 once, to nearest even: through a float rounded to odd (toward zero, the
// last bit set when inexact), which keeps what the second rounding to fewer bits needs.
bf16_bits double_to_bf16(double x) {
  if (std::fabs(x) > FLT_MAX) return float_to_bf16(static_cast<float>(std::copysign(INFINITY, x)));
  float f = static_cast<float>(x);
  if (std::isfinite(x) && static_cast<double>(f) != x) {
    if (std::fabs(static_cast<double>(f)) > std::fabs(x)) f = std::nextafter(f, 0.f);
    std::uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    bits |= 1u;
    std::memcpy(&f, &bits, sizeof f);
  }
  return float_to_bf16(f);
}

// Pool row `row` as the bf16 values a serving engine holds beside its cache: a bf16 pool's
// own bytes; an fp8 pool's values (e4m3 x kv_scale) rounded to bf16, so that a kernel reading
// the tree rows from k_extend sees the values the reference reads from the pool, to within
// bf16 rounding.
void tree_row_bf16(const Problem& problem, std::int64_t row, bf16_bits* out) {
  if (problem.kv_dtype() != KvDtype::kFp8E4m3) {
    const bf16_bits* src = problem.kv_pool.data() + row * mla::kHeadDimQK;
    std::copy(src, src + mla::kHeadDimQK, out);
    return;
  }
  const fp8_e4m3_bits* src = problem.kv_pool_fp8.data() + row * mla::kHeadDimQK;
  for (int d = 0; d < mla::kHeadDimQK; ++d) {
    out[d] = double_to_bf16(static_cast<double>(fp8_e4m3_to_float(src[d])) * problem.kv_scale);
  }
}

}  // namespace

SglangInputsHost sglang_inputs_host(const Problem& problem) {
  const int B = problem.batch, T = problem.tree_size;
  SglangInputsHost in;
  in.k_extend.resize(static_cast<std::size_t>(B) * T * mla::kHeadDimQK);
  in.v_extend.resize(static_cast<std::size_t>(B) * T * mla::kHeadDimV);
  const bool fp8 = problem.kv_dtype() == KvDtype::kFp8E4m3;
  if (fp8) in.k_extend_fp8.resize(in.k_extend.size());
  in.qo_indptr.assign(B + 1, 0);
  in.kv_indptr.assign(B + 1, 0);
  for (int b = 0; b < B; ++b) {
    const int prefix = problem.prefix_len[b];
    const std::int64_t first = problem.pages.kv_indptr[b];
    for (int t = 0; t < prefix; ++t) in.kv_indices.push_back(problem.pages.kv_indices[first + t]);
    // The serving engine wrote the tree rows into the cache as logical tokens P_b..P_b+T-1;
    // SGLang reads them from the dense extend tensors instead.
    for (int i = 0; i < T; ++i) {
      const std::int64_t row = problem.pages.kv_indices[first + prefix + i];
      const std::size_t node_row = static_cast<std::size_t>(b) * T + i;
      bf16_bits* k_row = in.k_extend.data() + node_row * mla::kHeadDimQK;
      tree_row_bf16(problem, row, k_row);
      std::copy(k_row, k_row + mla::kHeadDimV, in.v_extend.begin() + node_row * mla::kHeadDimV);
      if (fp8) {
        const fp8_e4m3_bits* src8 = problem.kv_pool_fp8.data() + row * mla::kHeadDimQK;
        std::copy(src8, src8 + mla::kHeadDimQK, in.k_extend_fp8.begin() + node_row * mla::kHeadDimQK);
      }
    }
    in.qo_indptr[b + 1] = (b + 1) * T;
    in.kv_indptr[b + 1] = in.kv_indptr[b] + prefix;
  }
  return in;
}

}  // namespace vb

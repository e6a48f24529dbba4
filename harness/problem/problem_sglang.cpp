// SGLang-form inputs of one problem: what SGLang's Triton extend-attention kernel reads in
// a tree verify (docs/background.md §2). Shared by the GPU upload (sglang-adapter executor) and the
// safetensors export, so both hand SGLang's names exactly the same bytes.
#include <algorithm>
#include <cstddef>

#include "harness/problem/problem.h"

namespace vb {

SglangInputsHost sglang_inputs_host(const Problem& problem) {
  const int B = problem.batch, T = problem.tree_size;
  SglangInputsHost in;
  in.k_extend.resize(static_cast<std::size_t>(B) * T * mla::kHeadDimQK);
  in.v_extend.resize(static_cast<std::size_t>(B) * T * mla::kHeadDimV);
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
      const bf16_bits* src = problem.kv_pool.data() + row * mla::kHeadDimQK;
      const std::size_t node_row = static_cast<std::size_t>(b) * T + i;
      std::copy(src, src + mla::kHeadDimQK, in.k_extend.begin() + node_row * mla::kHeadDimQK);
      std::copy(src, src + mla::kHeadDimV, in.v_extend.begin() + node_row * mla::kHeadDimV);
    }
    in.qo_indptr[b + 1] = (b + 1) * T;
    in.kv_indptr[b + 1] = in.kv_indptr[b] + prefix;
  }
  return in;
}

}  // namespace vb

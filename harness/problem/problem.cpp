// Problem materialization (harness/problem/problem.h): CaseSpec -> the host bytes every executor
// reads. All random data comes from a counter-based hash of (seed, stream, index), so the
// bytes depend only on the spec, never on thread count or generation order.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/problem/problem.h"
#include "harness/problem/seeded_hash.h"

namespace vb {
namespace {

constexpr std::uint64_t kStreamPrefixUniform = 0x7066'0000'0000'0003ull;
constexpr std::uint64_t kStreamPrefixNormal = 0x7066'0000'0000'0004ull;

std::string case_label(const CaseSpec& spec) {
  std::string s = "case '" + spec.name + "'";
  if (!spec.source.empty()) s += " (" + spec.source + ")";
  return s;
}

std::vector<std::int32_t> prefix_lengths(const BatchSpec& batch, const std::string& where) {
  auto bad = [&](const std::string& what) { return ScenarioError(where + ": batch: " + what); };
  std::vector<std::int32_t> lens;
  auto check_size = [&](int n) {
    if (n < 1) throw bad("size must be >= 1, got " + std::to_string(n));
  };
  switch (batch.dist) {
    case PrefixDist::kList:
      if (batch.prefix_lens.empty()) throw bad("prefix_lens list is empty");
      if (batch.size != 0 && batch.size != static_cast<int>(batch.prefix_lens.size())) {
        throw bad("size " + std::to_string(batch.size) + " disagrees with the " +
                  std::to_string(batch.prefix_lens.size()) + " listed prefix lengths");
      }
      lens.assign(batch.prefix_lens.begin(), batch.prefix_lens.end());
      break;
    case PrefixDist::kFixed:
      check_size(batch.size);
      lens.assign(batch.size, batch.value);
      break;
    case PrefixDist::kUniform: {
      check_size(batch.size);
      if (batch.min < 0 || batch.max < batch.min) {
        throw bad("uniform needs 0 <= min <= max, got min " + std::to_string(batch.min) +
                  ", max " + std::to_string(batch.max));
      }
      const std::uint64_t span = static_cast<std::uint64_t>(batch.max - batch.min) + 1;
      for (int b = 0; b < batch.size; ++b) {
        lens.push_back(batch.min + static_cast<std::int32_t>(
                                       hash3(batch.seed, kStreamPrefixUniform, b) % span));
      }
      break;
    }
    case PrefixDist::kLogNormal: {
      check_size(batch.size);
      if (!(batch.median > 0) || !(batch.sigma >= 0)) {
        throw bad("lognormal needs median > 0 and sigma >= 0");
      }
      if (batch.min < 0 || batch.max < batch.min || batch.max == 0) {
        throw bad("lognormal clamp needs 0 <= min <= max and max > 0, got min " + std::to_string(batch.min) +
                  ", max " + std::to_string(batch.max));
      }
      for (int b = 0; b < batch.size; ++b) {
        // Box-Muller on two counter-based uniforms; u1 in (0, 1].
        const double u1 = 1.0 - unit_interval(hash3(batch.seed, kStreamPrefixNormal, 2ull * b));
        const double u2 = unit_interval(hash3(batch.seed, kStreamPrefixNormal, 2ull * b + 1));
        const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2);
        const double v = std::round(batch.median * std::exp(batch.sigma * z));
        lens.push_back(static_cast<std::int32_t>(
            std::clamp(v, static_cast<double>(batch.min), static_cast<double>(batch.max))));
      }
      break;
    }
  }
  for (std::size_t b = 0; b < lens.size(); ++b) {
    if (lens[b] < 0) {
      throw bad("request " + std::to_string(b) + " has negative prefix length " +
                std::to_string(lens[b]));
    }
  }
  return lens;
}

}  // namespace

std::vector<std::int32_t> case_prefix_lengths(const CaseSpec& spec) {
  return prefix_lengths(spec.batch, case_label(spec));
}

void build_sglang_mask(const std::vector<std::int32_t>& prefix_len, const std::vector<Tree>& trees,
                       std::vector<std::uint8_t>* custom_mask,
                       std::vector<std::int64_t>* mask_indptr) {
  const int batch = static_cast<int>(prefix_len.size());
  if (static_cast<int>(trees.size()) != batch) {
    throw std::invalid_argument("build_sglang_mask: one tree per request required");
  }
  const int t_size = batch > 0 ? trees[0].size() : 0;
  mask_indptr->assign(batch + 1, 0);
  for (int b = 0; b < batch; ++b) {
    if (trees[b].size() != t_size) {
      throw std::invalid_argument("build_sglang_mask: every request needs the same tree size");
    }
    (*mask_indptr)[b + 1] =
        (*mask_indptr)[b] + static_cast<std::int64_t>(t_size) * (prefix_len[b] + t_size);
  }
  custom_mask->assign(static_cast<std::size_t>((*mask_indptr)[batch]), 0);
  for (int b = 0; b < batch; ++b) {
    const std::vector<std::uint64_t> masks = ancestor_masks(trees[b]);
    const int words = mask_words_for(t_size);
    const std::int64_t stride = prefix_len[b] + t_size;
    for (int i = 0; i < t_size; ++i) {
      std::uint8_t* row = custom_mask->data() + (*mask_indptr)[b] + i * stride;
      std::fill(row, row + prefix_len[b], std::uint8_t{1});
      const std::uint64_t* node = masks.data() + static_cast<std::size_t>(i) * words;
      for (int j = 0; j < t_size; ++j) row[prefix_len[b] + j] = tree_node_visible(node, j) ? 1 : 0;
    }
  }
}

PageLayout case_page_layout(const CaseSpec& spec, const std::vector<std::int32_t>& prefix_len, int tree_size) {
  const std::string where = case_label(spec);
  const SharedPrefixSpec& sp = spec.pages.shared_prefix;
  if (sp.groups > 0 && sp.length > 0) {
    for (std::size_t b = 0; b < prefix_len.size(); ++b) {
      if (prefix_len[b] < sp.length) {
        throw ScenarioError(where + ": request " + std::to_string(b) + " has prefix length " +
                            std::to_string(prefix_len[b]) + ", shorter than shared_prefix.length " +
                            std::to_string(sp.length) + " of its group " + std::to_string(b % sp.groups));
      }
    }
  }
  try {
    return build_page_layout(spec.pages, std::vector<int>(prefix_len.begin(), prefix_len.end()), tree_size);
  } catch (const ScenarioError& e) {
    throw ScenarioError(where + ": pages: " + e.what());
  }
}

Problem materialize(const CaseSpec& spec) {
  const std::string where = case_label(spec);
  Problem pr;
  pr.spec = spec;
  if (spec.dtype != "bf16") throw ScenarioError(where + ": dtype '" + spec.dtype + "' is not supported (bf16 only)");
  if (spec.heads < 1) throw ScenarioError(where + ": heads must be >= 1, got " + std::to_string(spec.heads));
  if (!(spec.sm_scale > 0) || !std::isfinite(spec.sm_scale)) {
    throw ScenarioError(where + ": sm_scale must be a positive finite number");
  }
  const DataSpec& data = spec.data;
  const bool channels_ok = std::all_of(data.outlier_channels.begin(), data.outlier_channels.end(),
                                       [](int c) { return c >= 0 && c < mla::kHeadDimQK; });
  if (data.distinct_rows < 1 || data.sink_count < 1 || !channels_ok || !(data.scale > 0) ||
      !(data.outlier_factor > 0)) {
    throw ScenarioError(where + ": data: parameters out of range for '" + to_string(data.dist) + "'");
  }
  pr.num_heads = spec.heads;
  pr.sm_scale = static_cast<float>(spec.sm_scale);

  pr.prefix_len = prefix_lengths(spec.batch, where);
  pr.batch = static_cast<int>(pr.prefix_len.size());
  const int B = pr.batch;

  try {
    pr.tree_size = tree_size(spec.tree);
    pr.trees.reserve(B);
    for (int b = 0; b < B; ++b) pr.trees.push_back(build_tree(spec.tree, b));
  } catch (const ScenarioError& e) {
    throw ScenarioError(where + ": " + e.what());
  }
  const int T = pr.tree_size;
  pr.mask_words = mask_words_for(T);
  pr.tree_mask.resize(static_cast<std::size_t>(B) * T * pr.mask_words);
  for (int b = 0; b < B; ++b) {
    const std::vector<std::uint64_t> m = ancestor_masks(pr.trees[b]);
    std::copy(m.begin(), m.end(), pr.tree_mask.begin() + static_cast<std::size_t>(b) * T * pr.mask_words);
  }

  pr.pages = case_page_layout(spec, pr.prefix_len, T);

  fill_problem_data(&pr);

  build_sglang_mask(pr.prefix_len, pr.trees, &pr.sglang_custom_mask, &pr.sglang_mask_indptr);
  return pr;
}

VerifyParams verify_params(const Problem& problem, PageTableKind kind, const ProblemBuffers& buffers) {
  VerifyParams p;
  p.batch = problem.batch;
  p.tree_size = problem.tree_size;
  p.num_heads = problem.num_heads;
  p.sm_scale = problem.sm_scale;
  p.q = buffers.q;
  p.kv_pool = buffers.kv_pool;
  p.kv_dtype = problem.kv_dtype();
  p.kv_scale = problem.kv_scale;
  p.pool_rows = problem.pages.pool_rows();
  p.prefix_len = buffers.prefix_len;
  p.tree_kv = nullptr;
  p.page_kind = kind;
  p.kv_indptr = buffers.kv_indptr;
  p.kv_indices = buffers.kv_indices;
  p.block_table = buffers.block_table;
  p.page_size = problem.pages.page_size;
  p.max_pages = problem.pages.max_pages;
  p.tree_mask = buffers.tree_mask;
  p.mask_words = problem.mask_words;
  p.o = buffers.o;
  p.lse = buffers.lse;
  return p;
}

const void* Problem::executed_kv_pool() const {
  return kv_dtype() == KvDtype::kFp8E4m3 ? static_cast<const void*>(kv_pool_fp8.data()) : kv_pool.data();
}

std::size_t Problem::executed_kv_pool_bytes() const {
  return kv_dtype() == KvDtype::kFp8E4m3 ? kv_pool_fp8.size() : kv_pool.size() * sizeof(bf16_bits);
}

VerifyParams host_params(const Problem& problem, PageTableKind kind, bf16_bits* o, float* lse, HostPool pool) {
  const bool unquantized = pool == HostPool::kUnquantized;
  VerifyParams p = verify_params(problem, kind,
                       ProblemBuffers{.q = problem.q.data(),
                                      .kv_pool = unquantized ? problem.kv_pool.data() : problem.executed_kv_pool(),
                                      .prefix_len = problem.prefix_len.data(),
                                      .kv_indptr = problem.pages.kv_indptr.data(),
                                      .kv_indices = problem.pages.kv_indices.data(),
                                      .block_table = problem.pages.block_table.data(),
                                      .tree_mask = problem.tree_mask.data(),
                                      .o = o,
                                      .lse = lse});
  if (unquantized) {
    p.kv_dtype = KvDtype::kBf16;
    p.kv_scale = 1.f;
  }
  return p;
}

}  // namespace vb

// Hand-built host problems for the reference tests: random bf16 q / KV (never zero), the
// logical KV rows kept apart from their paged placement so the tests' own scalar code can
// read them without any page table. Trees come from vb::build_tree, masks from
// vb::ancestor_masks (harness/problem/tree.cpp); only the page placement is built here, because
// the tests need to control it (both table forms, the SGLang tree_kv form, and the same
// logical mapping under different physical permutations).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

#include "harness/problem/problem.h"
#include "verifybench/reference.h"
#include "verifybench/verify_params.h"

namespace vb::test {

enum class Placement {
  kTokenIndices,  // kv_indptr / kv_indices, page size 1
  kBlockTable,    // block_table with `page_size`
  kTreeKv,        // SGLang: token table over the prefix only, tree rows in dense tree_kv
};

struct CaseConfig {
  std::vector<int> prefix_lens{5};
  std::vector<Tree> trees;  // one per request, same size
  int heads = 2;
  float sm_scale = 0.1352f;
  Placement placement = Placement::kTokenIndices;
  int page_size = 1;
  std::uint64_t data_seed = 1;       // q and logical KV values
  std::uint64_t placement_seed = 2;  // physical rows / pages
  int slack_pages = 7;               // NaN pages nobody may read
};

inline Tree chain_tree(int n) {
  TreeSpec spec;
  spec.kind = TreeKind::kChain;
  spec.nodes = n;
  return build_tree(spec, 0);
}

inline Tree random_tree(int n, std::uint64_t seed, int request = 0) {
  TreeSpec spec;
  spec.kind = TreeKind::kRandom;
  spec.nodes = n;
  spec.seed = seed;
  return build_tree(spec, request);
}

inline Tree explicit_tree(std::vector<int> parents) {
  TreeSpec spec;
  spec.kind = TreeKind::kExplicit;
  spec.parents = std::move(parents);
  return build_tree(spec, 0);
}

inline Tree star_tree(int n) {
  std::vector<int> parents(n, 0);
  parents[0] = -1;
  return explicit_tree(parents);
}

// Random bf16 with magnitude in [1/16, 1] and a random sign: never zero.
inline bf16_bits random_nonzero_bf16(std::mt19937_64& rng) {
  const double u = static_cast<double>(rng() >> 11) * 0x1.0p-53;
  const float mag = static_cast<float>(0.0625 + 0.9375 * u);
  return float_to_bf16((rng() & 1) ? mag : -mag);
}

struct HostCase {
  CaseConfig config;
  int batch = 0, tree_size = 0, heads = 0;
  std::vector<std::int32_t> prefix_len;
  std::vector<std::vector<bf16_bits>> logical_kv;  // [b][(P_b + T) * 576]
  std::vector<bf16_bits> q;                        // [B*T, H, 576]
  int mask_words = 0;
  std::vector<std::uint64_t> tree_mask;            // [B, T, mask_words]

  // Physical storage.
  std::vector<bf16_bits> kv_pool;  // NaN where nothing is mapped
  std::vector<bf16_bits> tree_kv;  // kTreeKv only: [B*T, 576]
  std::vector<std::int32_t> kv_indptr;
  std::vector<std::int64_t> kv_indices;
  std::vector<std::int32_t> block_table;
  int max_pages = 0;
  std::int64_t pool_rows = 0;

  // Where logical token t of request b physically lives (for the mutation tests).
  bf16_bits* physical_row(int b, int t) {
    if (config.placement == Placement::kTreeKv && t >= prefix_len[b]) {
      return tree_kv.data() + (static_cast<std::size_t>(b) * tree_size + (t - prefix_len[b])) * 576;
    }
    return kv_pool.data() + params().pool_row(b, t) * 576;
  }
  // Writes a new logical row (both the logical copy and its physical home).
  void set_row(int b, int t, const std::vector<bf16_bits>& row) {
    std::copy(row.begin(), row.end(), logical_kv[b].begin() + static_cast<std::size_t>(t) * 576);
    std::copy(row.begin(), row.end(), physical_row(b, t));
  }

  VerifyParams params() const {
    VerifyParams p;
    p.batch = batch;
    p.tree_size = tree_size;
    p.num_heads = heads;
    p.sm_scale = config.sm_scale;
    p.q = q.data();
    p.kv_pool = kv_pool.data();
    p.pool_rows = pool_rows;
    p.prefix_len = prefix_len.data();
    p.tree_kv = config.placement == Placement::kTreeKv ? tree_kv.data() : nullptr;
    if (config.placement == Placement::kBlockTable) {
      p.page_kind = PageTableKind::kBlockTable;
      p.block_table = block_table.data();
      p.page_size = config.page_size;
      p.max_pages = max_pages;
    } else {
      p.page_kind = PageTableKind::kTokenIndices;
      p.kv_indptr = kv_indptr.data();
      p.kv_indices = kv_indices.data();
    }
    p.tree_mask = tree_mask.data();
    p.mask_words = mask_words;
    return p;
  }
};

inline HostCase make_case(const CaseConfig& cfg) {
  HostCase c;
  c.config = cfg;
  c.batch = static_cast<int>(cfg.prefix_lens.size());
  c.tree_size = cfg.trees.at(0).size();
  c.heads = cfg.heads;
  c.prefix_len.assign(cfg.prefix_lens.begin(), cfg.prefix_lens.end());
  const int B = c.batch, T = c.tree_size;

  std::mt19937_64 data(cfg.data_seed);
  c.logical_kv.resize(B);
  for (int b = 0; b < B; ++b) {
    c.logical_kv[b].resize(static_cast<std::size_t>(c.prefix_len[b] + T) * 576);
    for (auto& v : c.logical_kv[b]) v = random_nonzero_bf16(data);
  }
  c.q.resize(static_cast<std::size_t>(B) * T * c.heads * 576);
  for (auto& v : c.q) v = random_nonzero_bf16(data);

  c.mask_words = mask_words_for(T);
  for (int b = 0; b < B; ++b) {
    const std::vector<std::uint64_t> m = ancestor_masks(cfg.trees.at(b));
    c.tree_mask.insert(c.tree_mask.end(), m.begin(), m.end());
  }

  std::mt19937_64 place(cfg.placement_seed);
  // Tokens that live in the pool per request.
  std::vector<int> pooled(B);
  for (int b = 0; b < B; ++b) {
    pooled[b] = c.prefix_len[b] + (cfg.placement == Placement::kTreeKv ? 0 : T);
  }
  const int page = cfg.placement == Placement::kBlockTable ? cfg.page_size : 1;
  std::vector<int> pages_of(B);
  std::int64_t used_pages = 0;
  for (int b = 0; b < B; ++b) {
    pages_of[b] = (pooled[b] + page - 1) / page;
    used_pages += pages_of[b];
    c.max_pages = std::max(c.max_pages, pages_of[b]);
  }
  c.max_pages = std::max(c.max_pages, 1);
  const std::int64_t num_pages = used_pages + cfg.slack_pages;
  c.pool_rows = num_pages * page;
  std::vector<std::int64_t> perm(static_cast<std::size_t>(num_pages));
  std::iota(perm.begin(), perm.end(), 0);
  std::shuffle(perm.begin(), perm.end(), place);

  c.kv_pool.assign(static_cast<std::size_t>(c.pool_rows) * 576, kBf16QuietNaN);
  std::int64_t next_page = 0;
  c.kv_indptr.assign(B + 1, 0);
  // Unused table entries point far outside the pool.
  c.block_table.assign(static_cast<std::size_t>(B) * c.max_pages,
                       static_cast<std::int32_t>(num_pages + 1000));
  for (int b = 0; b < B; ++b) {
    for (int pg = 0; pg < pages_of[b]; ++pg) {
      const std::int64_t phys_page = perm[static_cast<std::size_t>(next_page++)];
      c.block_table[static_cast<std::size_t>(b) * c.max_pages + pg] = static_cast<std::int32_t>(phys_page);
      for (int r = 0; r < page; ++r) {
        const int t = pg * page + r;
        if (t >= pooled[b]) break;
        const std::int64_t row = phys_page * page + r;
        c.kv_indices.push_back(row);
        std::copy_n(c.logical_kv[b].begin() + static_cast<std::size_t>(t) * 576, 576,
                    c.kv_pool.begin() + row * 576);
      }
    }
    c.kv_indptr[b + 1] = static_cast<std::int32_t>(c.kv_indices.size());
  }
  if (cfg.placement == Placement::kTreeKv) {
    c.tree_kv.resize(static_cast<std::size_t>(B) * T * 576);
    for (int b = 0; b < B; ++b) {
      std::copy_n(c.logical_kv[b].begin() + static_cast<std::size_t>(c.prefix_len[b]) * 576,
                  static_cast<std::size_t>(T) * 576,
                  c.tree_kv.begin() + static_cast<std::size_t>(b) * T * 576);
    }
  }
  return c;
}

inline std::int64_t row_index(const HostCase& c, int b, int node, int head) {
  return (static_cast<std::int64_t>(b) * c.tree_size + node) * c.heads + head;
}

}  // namespace vb::test

// Problem materialization (harness/problem/problem.cpp): prefix-length distributions, shapes,
// NaN exactly in the pool rows nobody references, determinism, seeds, validation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "harness/problem/problem.h"

namespace {

vb::CaseSpec base_case() {
  vb::CaseSpec s;
  s.name = "unit/problem";
  s.scenario = "unit";
  s.source = "test_problem.cpp:1";
  s.heads = 4;
  s.sm_scale = 0.1352;
  s.seed = 77;
  s.batch.dist = vb::PrefixDist::kList;
  s.batch.prefix_lens = {0, 17, 130, 64};
  s.tree.kind = vb::TreeKind::kKAry;
  s.tree.branching = 2;
  s.tree.depth = 2;
  s.pages.size = 16;
  s.pages.placement = vb::PagePlacement::kShuffled;
  s.pages.seed = 3;
  return s;
}

bool is_nan(vb::bf16_bits v) { return std::isnan(vb::bf16_to_float(v)); }

// Exactly the rows no request references are NaN; referenced rows are finite, in [-1, 1].
void require_nan_exactly_unreferenced(const vb::Problem& pr) {
  const std::int64_t rows = pr.pages.pool_rows();
  REQUIRE(pr.kv_pool.size() == static_cast<std::size_t>(rows) * vb::mla::kHeadDimQK);
  std::vector<bool> referenced(rows, false);
  const vb::VerifyParams p = vb::host_params(pr, vb::PageTableKind::kBlockTable, nullptr, nullptr);
  for (int b = 0; b < p.batch; ++b) {
    for (int t = 0; t < p.kv_len(b); ++t) referenced[p.pool_row(b, t)] = true;
  }
  std::int64_t unreferenced = 0;
  for (std::int64_t r = 0; r < rows; ++r) {
    const vb::bf16_bits* row = pr.kv_pool.data() + r * vb::mla::kHeadDimQK;
    INFO("pool row " << r << (referenced[r] ? " (referenced)" : " (unreferenced)"));
    if (referenced[r]) {
      bool nonzero = false;
      for (int c = 0; c < vb::mla::kHeadDimQK; ++c) {
        const float f = vb::bf16_to_float(row[c]);
        REQUIRE(std::isfinite(f));
        REQUIRE(std::fabs(f) <= 1.0f);
        nonzero |= f != 0.0f;
      }
      REQUIRE(nonzero);
    } else {
      ++unreferenced;
      REQUIRE(std::all_of(row, row + vb::mla::kHeadDimQK, is_nan));
    }
  }
  REQUIRE(unreferenced > 0);  // slack pages always exist
}

}  // namespace

TEST_CASE("materialize fills every buffer with the advertised shapes", "[problem]") {
  const vb::CaseSpec spec = base_case();
  const vb::Problem pr = vb::materialize(spec);
  REQUIRE(pr.batch == 4);
  REQUIRE(pr.tree_size == 7);
  REQUIRE(pr.num_heads == 4);
  REQUIRE(pr.sm_scale == Approx(0.1352f));
  REQUIRE(pr.prefix_len == std::vector<std::int32_t>{0, 17, 130, 64});
  REQUIRE(pr.trees.size() == 4);
  REQUIRE(pr.mask_words == 1);
  REQUIRE(pr.tree_mask.size() == 4u * 7u);
  REQUIRE(pr.q.size() == 4u * 7u * 4u * 576u);
  REQUIRE(pr.query_rows() == 4 * 7 * 4);
  REQUIRE(pr.sglang_mask_indptr.back() == 7 * (0 + 7) + 7 * (17 + 7) + 7 * (130 + 7) + 7 * (64 + 7));

  // q: finite, within [-1, 1], many distinct values, no zero pattern.
  std::set<vb::bf16_bits> distinct;
  std::size_t zeros = 0;
  for (const vb::bf16_bits v : pr.q) {
    const float f = vb::bf16_to_float(v);
    REQUIRE(std::isfinite(f));
    REQUIRE(std::fabs(f) <= 1.0f);
    zeros += f == 0.0f;
    distinct.insert(v);
  }
  REQUIRE(distinct.size() > 1000);
  REQUIRE(zeros < pr.q.size() / 100);

  // host_params points at the problem's own buffers.
  std::vector<vb::bf16_bits> o(pr.q.size() / 576 * 512);
  std::vector<float> lse(pr.q.size() / 576);
  const vb::VerifyParams p = vb::host_params(pr, vb::PageTableKind::kTokenIndices, o.data(), lse.data());
  REQUIRE(p.batch == 4);
  REQUIRE(p.tree_size == 7);
  REQUIRE(p.num_heads == 4);
  REQUIRE(p.q == pr.q.data());
  REQUIRE(p.kv_pool == pr.kv_pool.data());
  REQUIRE(p.pool_rows == pr.pages.pool_rows());
  REQUIRE(p.tree_kv == nullptr);
  REQUIRE(p.page_kind == vb::PageTableKind::kTokenIndices);
  REQUIRE(p.kv_indices == pr.pages.kv_indices.data());
  REQUIRE(p.block_table == pr.pages.block_table.data());
  REQUIRE(p.page_size == 16);
  REQUIRE(p.max_pages == pr.pages.max_pages);
  REQUIRE(p.tree_mask == pr.tree_mask.data());
  REQUIRE(p.mask_words == 1);
  REQUIRE(p.o == o.data());
  REQUIRE(p.lse == lse.data());
  for (int b = 0; b < 4; ++b) {
    const vb::VerifyParams pb = vb::host_params(pr, vb::PageTableKind::kBlockTable, nullptr, nullptr);
    for (int t = 0; t < p.kv_len(b); ++t) REQUIRE(p.kv_row_ptr(b, t) == pb.kv_row_ptr(b, t));
  }
}

TEST_CASE("exactly the unreferenced pool rows are NaN", "[problem]") {
  for (const auto placement : {vb::PagePlacement::kContiguous, vb::PagePlacement::kShuffled,
                               vb::PagePlacement::kInterleaved, vb::PagePlacement::kFragmented,
                               vb::PagePlacement::kReversed}) {
    for (const int page : {1, 16, 64}) {
      for (const int groups : {0, 2}) {
        vb::CaseSpec spec = base_case();
        spec.batch.prefix_lens = {64, 65, 200, 127, 64};
        spec.pages.size = page;
        spec.pages.placement = placement;
        spec.pages.shared_prefix.groups = groups;
        spec.pages.shared_prefix.length = groups > 0 ? 64 : 0;
        INFO("placement " << static_cast<int>(placement) << " page " << page << " groups " << groups);
        require_nan_exactly_unreferenced(vb::materialize(spec));
      }
    }
  }
}

TEST_CASE("materialize is deterministic and every seed matters", "[problem]") {
  vb::CaseSpec spec = base_case();
  spec.batch.dist = vb::PrefixDist::kUniform;
  spec.batch.size = 6;
  spec.batch.min = 0;
  spec.batch.max = 500;
  spec.batch.seed = 4;
  spec.tree = vb::TreeSpec{};
  spec.tree.kind = vb::TreeKind::kRandom;
  spec.tree.nodes = 20;
  spec.tree.seed = 8;

  const vb::Problem a = vb::materialize(spec);
  const vb::Problem b = vb::materialize(spec);
  REQUIRE(a.prefix_len == b.prefix_len);
  REQUIRE(a.tree_mask == b.tree_mask);
  REQUIRE(a.q == b.q);
  REQUIRE(a.kv_pool.size() == b.kv_pool.size());
  REQUIRE(std::memcmp(a.kv_pool.data(), b.kv_pool.data(), a.kv_pool.size() * 2) == 0);  // NaNs too
  REQUIRE(a.pages.block_table == b.pages.block_table);
  REQUIRE(a.pages.kv_indices == b.pages.kv_indices);
  REQUIRE(a.sglang_custom_mask == b.sglang_custom_mask);

  vb::CaseSpec s = spec;
  s.seed = 78;  // data
  const vb::Problem c = vb::materialize(s);
  REQUIRE(c.q != a.q);
  REQUIRE(c.kv_pool != a.kv_pool);
  REQUIRE(c.pages.block_table == a.pages.block_table);

  s = spec;
  s.batch.seed = 5;  // prefix lengths
  REQUIRE(vb::materialize(s).prefix_len != a.prefix_len);

  s = spec;
  s.pages.seed = 99;  // page placement
  REQUIRE(vb::materialize(s).pages.block_table != a.pages.block_table);

  s = spec;
  s.tree.seed = 9;  // tree shapes
  REQUIRE(vb::materialize(s).tree_mask != a.tree_mask);
}

TEST_CASE("generation does not depend on threading: a pool row's bytes are a function of the row", "[problem]") {
  // The small problem is generated on one thread, the large one (> 4M values) in parallel
  // where the machine has several cores; rows referenced by both must hold the same bytes.
  vb::CaseSpec small = base_case();
  small.batch.prefix_lens = {100};
  small.pages.placement = vb::PagePlacement::kContiguous;
  vb::CaseSpec large = small;
  large.batch.prefix_lens = {9000, 4000};
  const vb::Problem ps = vb::materialize(small);
  const vb::Problem pl = vb::materialize(large);
  REQUIRE(pl.kv_pool.size() > (std::size_t{1} << 22));
  const std::int64_t shared_rows = ps.prefix_len[0] + ps.tree_size;  // rows 0.. in both
  REQUIRE(std::equal(ps.kv_pool.begin(), ps.kv_pool.begin() + shared_rows * 576, pl.kv_pool.begin()));
  require_nan_exactly_unreferenced(pl);
}

TEST_CASE("prefix length distributions", "[problem]") {
  vb::CaseSpec spec = base_case();
  spec.pages.size = 1;

  spec.batch = vb::BatchSpec{};
  spec.batch.dist = vb::PrefixDist::kFixed;
  spec.batch.size = 5;
  spec.batch.value = 33;
  REQUIRE(vb::materialize(spec).prefix_len == std::vector<std::int32_t>(5, 33));

  spec.batch = vb::BatchSpec{};
  spec.batch.dist = vb::PrefixDist::kUniform;
  spec.batch.size = 64;
  spec.batch.min = 10;
  spec.batch.max = 20;
  spec.batch.seed = 1;
  const auto u = vb::materialize(spec).prefix_len;
  REQUIRE(u.size() == 64);
  REQUIRE(*std::min_element(u.begin(), u.end()) >= 10);
  REQUIRE(*std::max_element(u.begin(), u.end()) <= 20);
  REQUIRE(std::set<std::int32_t>(u.begin(), u.end()).size() > 5);

  spec.batch = vb::BatchSpec{};
  spec.batch.dist = vb::PrefixDist::kLogNormal;
  spec.batch.size = 64;
  spec.batch.median = 300;
  spec.batch.sigma = 1.5;
  spec.batch.min = 50;
  spec.batch.max = 1000;
  spec.batch.seed = 2;
  const auto ln = vb::materialize(spec).prefix_len;
  REQUIRE(ln.size() == 64);
  REQUIRE(*std::min_element(ln.begin(), ln.end()) == 50);    // sigma 1.5: some clamp low
  REQUIRE(*std::max_element(ln.begin(), ln.end()) == 1000);  // and some clamp high
  REQUIRE(vb::materialize(spec).prefix_len == ln);
  spec.batch.min = 0;
  spec.batch.max = 0;  // an unset clamp would pin every prefix to 0: rejected
  REQUIRE_THROWS_AS(vb::materialize(spec), vb::ScenarioError);

  spec.batch = vb::BatchSpec{};
  spec.batch.dist = vb::PrefixDist::kList;
  spec.batch.prefix_lens = {};
  REQUIRE_THROWS_AS(vb::materialize(spec), vb::ScenarioError);
  spec.batch.prefix_lens = {4, -1};
  REQUIRE_THROWS_AS(vb::materialize(spec), vb::ScenarioError);
  spec.batch.dist = vb::PrefixDist::kUniform;
  spec.batch.size = 3;
  spec.batch.min = 9;
  spec.batch.max = 2;
  REQUIRE_THROWS_AS(vb::materialize(spec), vb::ScenarioError);
}

TEST_CASE("impossible specs throw ScenarioError naming the case and request", "[problem]") {
  vb::CaseSpec spec = base_case();
  spec.pages.shared_prefix.groups = 2;
  spec.pages.shared_prefix.length = 32;  // request 0 has prefix 0, request 1 has 17
  try {
    vb::materialize(spec);
    FAIL("expected ScenarioError");
  } catch (const vb::ScenarioError& e) {
    const std::string msg = e.what();
    INFO(msg);
    REQUIRE(msg.find("unit/problem") != std::string::npos);
    REQUIRE(msg.find("test_problem.cpp:1") != std::string::npos);
    REQUIRE(msg.find("request 0") != std::string::npos);
    REQUIRE(msg.find("shared_prefix.length") != std::string::npos);
  }

  spec = base_case();
  spec.tree.depth = 20;  // too many nodes
  try {
    vb::materialize(spec);
    FAIL("expected ScenarioError");
  } catch (const vb::ScenarioError& e) {
    REQUIRE(std::string(e.what()).find("unit/problem") != std::string::npos);
  }

  spec = base_case();
  spec.heads = 0;
  REQUIRE_THROWS_AS(vb::materialize(spec), vb::ScenarioError);
  spec = base_case();
  spec.dtype = "fp8";
  REQUIRE_THROWS_AS(vb::materialize(spec), vb::ScenarioError);
}

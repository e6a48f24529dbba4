// Tree visibility on hand-drawn trees: vb::token_visible / vb::tree_node_visible over host
// VerifyParams of a materialized problem must give exactly the visible sets written out
// below, and SGLang's flat custom mask must agree with the compact mask everywhere.
#include <catch2/catch.hpp>

#include <cstdint>
#include <set>
#include <vector>

#include "harness/problem/problem.h"

namespace {

vb::CaseSpec explicit_case(std::vector<int> parents, std::vector<int> prefixes) {
  vb::CaseSpec s;
  s.name = "visibility";
  s.heads = 1;
  s.sm_scale = 0.1;
  s.seed = 1;
  s.batch.dist = vb::PrefixDist::kList;
  s.batch.prefix_lens = std::move(prefixes);
  s.tree.kind = vb::TreeKind::kExplicit;
  s.tree.parents = std::move(parents);
  s.pages.size = 16;
  return s;
}

// Checks every (request, node, token) against `expected[node]` (visible tree nodes).
void require_visible_sets(const vb::Problem& pr, const std::vector<std::set<int>>& expected) {
  const vb::VerifyParams p = vb::host_params(pr, vb::PageTableKind::kBlockTable, nullptr, nullptr);
  REQUIRE(p.tree_size == static_cast<int>(expected.size()));
  for (int b = 0; b < p.batch; ++b) {
    const int prefix = p.prefix_len[b];
    for (int i = 0; i < p.tree_size; ++i) {
      for (int t = 0; t < p.kv_len(b); ++t) {
        const bool want = t < prefix || expected[i].count(t - prefix) > 0;
        INFO("request " << b << " node " << i << " token " << t << " (prefix " << prefix << ")");
        REQUIRE(vb::token_visible(p, b, i, t) == want);
        if (t >= prefix) REQUIRE(vb::tree_node_visible(p.node_mask(b, i), t - prefix) == want);
      }
    }
  }
}

// The flat SGLang mask agrees with the compact one at every (b, i, j), and its layout
// follows docs/background.md §2: request b at sum_{c<b} T*(P_c+T), rows of P_b+T bytes.
void require_sglang_matches(const vb::Problem& pr) {
  const vb::VerifyParams p = vb::host_params(pr, vb::PageTableKind::kTokenIndices, nullptr, nullptr);
  const int T = p.tree_size;
  REQUIRE(pr.sglang_mask_indptr.size() == static_cast<std::size_t>(p.batch + 1));
  std::int64_t start = 0;
  for (int b = 0; b < p.batch; ++b) {
    REQUIRE(pr.sglang_mask_indptr[b] == start);
    const int P = p.prefix_len[b];
    for (int i = 0; i < T; ++i) {
      for (int j = 0; j < P + T; ++j) {
        INFO("request " << b << " node " << i << " column " << j);
        const std::uint8_t v = pr.sglang_custom_mask[start + static_cast<std::int64_t>(i) * (P + T) + j];
        REQUIRE((v == 0 || v == 1));
        REQUIRE((v == 1) == vb::token_visible(p, b, i, j));
      }
    }
    start += static_cast<std::int64_t>(T) * (P + T);
  }
  REQUIRE(pr.sglang_mask_indptr[p.batch] == start);
  REQUIRE(pr.sglang_custom_mask.size() == static_cast<std::size_t>(start));
}

}  // namespace

TEST_CASE("hand-drawn 7-node tree: visible sets per node", "[visibility]") {
  //          0
  //        /   \    (drawn top-down; edges point to children)
  //       1     2
  //      / \     \   node 2 has one child
  //     3   4     5
  //     |
  //     6
  const std::vector<int> parents = {-1, 0, 0, 1, 1, 2, 3};
  const std::vector<std::set<int>> visible = {
      {0}, {0, 1}, {0, 2}, {0, 1, 3}, {0, 1, 4}, {0, 2, 5}, {0, 1, 3, 6}};
  // Prefixes 0 (plain tree), 5 (odd) and 17 (one past a 16 page): prefix columns all visible.
  const vb::Problem pr = vb::materialize(explicit_case(parents, {0, 5, 17}));
  require_visible_sets(pr, visible);
  require_sglang_matches(pr);

  // The same tree as raw masks: node 6 = {0,1,3,6}.
  REQUIRE(vb::ancestor_masks(vb::Tree{parents})[6] == 0b1001011u);
}

TEST_CASE("hand-drawn 70-node tree exercises the second mask word", "[visibility]") {
  // A spine 0-1-2-...-65; node 66 hangs off 10, 67 off 66, 68 off 64, 69 off the root.
  std::vector<int> parents(70);
  for (int i = 0; i <= 65; ++i) parents[i] = i - 1;
  parents[66] = 10;
  parents[67] = 66;
  parents[68] = 64;
  parents[69] = 0;
  std::vector<std::set<int>> visible(70);
  for (int i = 0; i <= 65; ++i) {
    for (int j = 0; j <= i; ++j) visible[i].insert(j);
  }
  for (int j = 0; j <= 10; ++j) visible[66].insert(j);
  visible[66].insert(66);
  visible[67] = visible[66];
  visible[67].insert(67);
  for (int j = 0; j <= 64; ++j) visible[68].insert(j);
  visible[68].insert(68);
  visible[69] = {0, 69};

  const vb::Problem pr = vb::materialize(explicit_case(parents, {3, 0}));
  REQUIRE(pr.mask_words == 2);
  require_visible_sets(pr, visible);
  require_sglang_matches(pr);
}

TEST_CASE("SGLang flat mask equals the compact mask for many shapes", "[visibility]") {
  struct Shape {
    vb::TreeKind kind;
    int a, b, c;
    std::vector<int> prefixes;
  };
  const std::vector<Shape> shapes = {
      {vb::TreeKind::kChain, 1, 0, 0, {0}},
      {vb::TreeKind::kChain, 16, 0, 0, {0, 1, 4095, 7}},
      {vb::TreeKind::kKAry, 2, 3, 0, {33, 0, 200}},
      {vb::TreeKind::kEagle, 5, 4, 8, {10, 1000, 0, 1}},
      {vb::TreeKind::kDDTree, 100, 4, 12, {64, 65, 63}},
      {vb::TreeKind::kRandom, 90, 0, 0, {0, 0, 5, 300}},
  };
  for (const Shape& s : shapes) {
    vb::CaseSpec spec = explicit_case({-1}, s.prefixes);
    spec.tree = vb::TreeSpec{};
    spec.tree.kind = s.kind;
    spec.tree.seed = 11;
    switch (s.kind) {
      case vb::TreeKind::kChain: spec.tree.nodes = s.a; break;
      case vb::TreeKind::kKAry: spec.tree.branching = s.a; spec.tree.depth = s.b; break;
      case vb::TreeKind::kEagle: spec.tree.steps = s.a; spec.tree.topk = s.b; spec.tree.tokens = s.c; break;
      case vb::TreeKind::kDDTree: spec.tree.budget = s.a; spec.tree.topk = s.b; spec.tree.max_depth = s.c; break;
      case vb::TreeKind::kRandom: spec.tree.nodes = s.a; break;
      case vb::TreeKind::kExplicit: break;
    }
    INFO("tree kind " << static_cast<int>(s.kind));
    const vb::Problem pr = vb::materialize(spec);
    require_sglang_matches(pr);

    // Also straight from build_sglang_mask, independent of materialize.
    std::vector<std::uint8_t> mask;
    std::vector<std::int64_t> indptr;
    vb::build_sglang_mask(pr.prefix_len, pr.trees, &mask, &indptr);
    REQUIRE(mask == pr.sglang_custom_mask);
    REQUIRE(indptr == pr.sglang_mask_indptr);
  }
}

TEST_CASE("SGLang flat mask layout on a tiny hand-written example", "[visibility]") {
  // T = 3: 0 -> {1, 2}. Request 0 has P = 2, request 1 has P = 0.
  const std::vector<vb::Tree> trees = {vb::Tree{{-1, 0, 0}}, vb::Tree{{-1, 0, 0}}};
  std::vector<std::uint8_t> mask;
  std::vector<std::int64_t> indptr;
  vb::build_sglang_mask({2, 0}, trees, &mask, &indptr);
  REQUIRE(indptr == std::vector<std::int64_t>{0, 15, 24});
  const std::vector<std::uint8_t> want = {
      1, 1, 1, 0, 0,  // request 0, node 0
      1, 1, 1, 1, 0,  // node 1
      1, 1, 1, 0, 1,  // node 2
      1, 0, 0,        // request 1, node 0
      1, 1, 0,        // node 1
      1, 0, 1,        // node 2
  };
  REQUIRE(mask == want);
}

// Tree builders (harness/problem/tree.cpp): node counts per kind, topological order, depths,
// exact budgets, determinism, and the ancestor masks derived from parent arrays.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "harness/problem/problem.h"

namespace {

using vb::Tree;
using vb::TreeKind;
using vb::TreeSpec;

void require_topological(const Tree& t) {
  REQUIRE(t.size() >= 1);
  REQUIRE(t.parents[0] == -1);
  for (int i = 1; i < t.size(); ++i) {
    INFO("node " << i);
    REQUIRE(t.parents[i] >= 0);
    REQUIRE(t.parents[i] < i);
  }
}

int max_depth(const Tree& t) {
  const auto d = vb::tree_depths(t);
  return *std::max_element(d.begin(), d.end());
}

TreeSpec chain(int n) {
  TreeSpec s;
  s.kind = TreeKind::kChain;
  s.nodes = n;
  return s;
}

TreeSpec kary(int k, int depth) {
  TreeSpec s;
  s.kind = TreeKind::kKAry;
  s.branching = k;
  s.depth = depth;
  return s;
}

TreeSpec eagle(int steps, int topk, int tokens, std::uint64_t seed = 0) {
  TreeSpec s;
  s.kind = TreeKind::kEagle;
  s.steps = steps;
  s.topk = topk;
  s.tokens = tokens;
  s.seed = seed;
  return s;
}

TreeSpec ddtree(int budget, int topk, int max_depth, std::uint64_t seed) {
  TreeSpec s;
  s.kind = TreeKind::kDDTree;
  s.budget = budget;
  s.topk = topk;
  s.max_depth = max_depth;
  s.seed = seed;
  return s;
}

TreeSpec random_tree(int n, std::uint64_t seed) {
  TreeSpec s;
  s.kind = TreeKind::kRandom;
  s.nodes = n;
  s.seed = seed;
  return s;
}

}  // namespace

TEST_CASE("chain trees are parent i-1 with depth i", "[tree]") {
  for (int n : {1, 2, 4, 16, 65}) {
    const Tree t = vb::build_tree(chain(n), 0);
    REQUIRE(t.size() == n);
    REQUIRE(vb::tree_size(chain(n)) == n);
    require_topological(t);
    const auto d = vb::tree_depths(t);
    for (int i = 0; i < n; ++i) {
      REQUIRE(t.parents[i] == i - 1);
      REQUIRE(d[i] == i);
    }
  }
}

TEST_CASE("k-ary trees are full, BFS ordered, with the given depth", "[tree]") {
  struct Case { int k, depth, nodes; };
  for (const Case c : {Case{2, 0, 1}, Case{2, 3, 15}, Case{3, 2, 13}, Case{4, 3, 85}, Case{1, 5, 6},
                       Case{2, 9, 1023}}) {
    INFO("k=" << c.k << " depth=" << c.depth);
    const Tree t = vb::build_tree(kary(c.k, c.depth), 0);
    REQUIRE(t.size() == c.nodes);
    REQUIRE(vb::tree_size(kary(c.k, c.depth)) == c.nodes);
    require_topological(t);
    REQUIRE(max_depth(t) == c.depth);
    // Every internal node has exactly k children; depths never decrease (BFS order).
    std::vector<int> children(t.size(), 0);
    for (int i = 1; i < t.size(); ++i) ++children[t.parents[i]];
    const auto d = vb::tree_depths(t);
    for (int i = 0; i < t.size(); ++i) {
      REQUIRE((children[i] == 0 || children[i] == c.k));
      REQUIRE((children[i] == 0) == (d[i] == c.depth));
      if (i > 0) REQUIRE(d[i] >= d[i - 1]);
    }
  }
  REQUIRE_THROWS_AS(vb::build_tree(kary(2, 10), 0), vb::ScenarioError);  // 2047 > 1024 nodes
  REQUIRE_THROWS_AS(vb::build_tree(kary(0, 2), 0), vb::ScenarioError);
}

TEST_CASE("EAGLE trees keep exactly `tokens` nodes within `steps` levels", "[tree]") {
  // SGLang defaults: steps 3 / topk 1 / 4 tokens is a chain; steps 5 / topk 4 / 8 tokens.
  const Tree mtp = vb::build_tree(eagle(3, 1, 4), 0);
  REQUIRE(mtp.parents == std::vector<int>{-1, 0, 1, 2});

  struct Case { int steps, topk, tokens; };
  for (const Case c : {Case{5, 4, 8}, Case{5, 4, 64}, Case{3, 2, 7}, Case{6, 8, 200}, Case{1, 4, 5},
                       Case{4, 3, 1}}) {
    for (std::uint64_t seed : {0ull, 7ull}) {
      INFO("steps=" << c.steps << " topk=" << c.topk << " tokens=" << c.tokens << " seed=" << seed);
      const TreeSpec s = eagle(c.steps, c.topk, c.tokens, seed);
      const Tree t = vb::build_tree(s, 0);
      REQUIRE(t.size() == c.tokens);
      REQUIRE(vb::tree_size(s) == c.tokens);
      require_topological(t);
      REQUIRE(max_depth(t) <= c.steps);
      // At most topk children per node.
      std::vector<int> children(t.size(), 0);
      for (int i = 1; i < t.size(); ++i) ++children[t.parents[i]];
      REQUIRE(*std::max_element(children.begin(), children.end()) <= c.topk);
      REQUIRE(vb::build_tree(s, 3).parents == t.parents);  // not per-request
    }
  }
  // A full candidate set: steps 2, topk 2 -> 1 + 2 + 4 candidates.
  REQUIRE(vb::build_tree(eagle(2, 2, 7), 0).size() == 7);
  REQUIRE_THROWS_AS(vb::build_tree(eagle(2, 2, 8), 0), vb::ScenarioError);
  REQUIRE_THROWS_AS(vb::build_tree(eagle(0, 2, 2), 0), vb::ScenarioError);
}

TEST_CASE("DDTree best-first trees hit the budget exactly and respect max_depth", "[tree]") {
  struct Case { int budget, topk, max_depth; };
  for (const Case c : {Case{16, 4, 6}, Case{64, 8, 10}, Case{1024, 8, 16}, Case{1, 4, 3}, Case{7, 2, 2},
                       Case{300, 3, 0}, Case{10, 1, 0}}) {
    for (std::uint64_t seed : {1ull, 42ull}) {
      INFO("budget=" << c.budget << " topk=" << c.topk << " max_depth=" << c.max_depth);
      const TreeSpec s = ddtree(c.budget, c.topk, c.max_depth, seed);
      const Tree t = vb::build_tree(s, 0);
      REQUIRE(t.size() == c.budget);
      REQUIRE(vb::tree_size(s) == c.budget);
      require_topological(t);
      if (c.max_depth > 0) REQUIRE(max_depth(t) <= c.max_depth);
      std::vector<int> children(t.size(), 0);
      for (int i = 1; i < t.size(); ++i) ++children[t.parents[i]];
      REQUIRE(*std::max_element(children.begin(), children.end()) <= c.topk);
      REQUIRE(vb::build_tree(s, 0).parents == t.parents);  // deterministic
    }
  }
  // topk 1 is a chain; 7 = full binary tree of depth 2.
  REQUIRE(vb::build_tree(ddtree(5, 1, 0, 3), 0).parents == std::vector<int>{-1, 0, 1, 2, 3});
  REQUIRE(max_depth(vb::build_tree(ddtree(7, 2, 2, 3), 0)) == 2);
  REQUIRE_THROWS_AS(vb::build_tree(ddtree(8, 2, 2, 3), 0), vb::ScenarioError);  // only 7 fit
  REQUIRE_THROWS_AS(vb::build_tree(ddtree(2000, 4, 0, 3), 0), vb::ScenarioError);
  // Seeds change the shape of non-trivial trees.
  REQUIRE(vb::build_tree(ddtree(64, 8, 10, 1), 0).parents !=
          vb::build_tree(ddtree(64, 8, 10, 2), 0).parents);
}

TEST_CASE("random trees are deterministic per seed and differ per request", "[tree]") {
  const TreeSpec s = random_tree(40, 123);
  const Tree a0 = vb::build_tree(s, 0);
  const Tree a1 = vb::build_tree(s, 1);
  REQUIRE(a0.size() == 40);
  require_topological(a0);
  require_topological(a1);
  REQUIRE(vb::build_tree(s, 0).parents == a0.parents);
  REQUIRE(vb::build_tree(s, 1).parents == a1.parents);
  REQUIRE(a0.parents != a1.parents);
  REQUIRE(vb::build_tree(random_tree(40, 124), 0).parents != a0.parents);
  // Many requests: all distinct.
  std::set<std::vector<int>> seen;
  for (int b = 0; b < 16; ++b) seen.insert(vb::build_tree(s, b).parents);
  REQUIRE(seen.size() == 16);
  REQUIRE(vb::build_tree(random_tree(1, 5), 3).parents == std::vector<int>{-1});
}

TEST_CASE("explicit trees are taken as given and validated", "[tree]") {
  TreeSpec s;
  s.kind = TreeKind::kExplicit;
  s.parents = {-1, 0, 0, 1, 1, 2, 2};
  REQUIRE(vb::build_tree(s, 0).parents == s.parents);
  REQUIRE(vb::tree_size(s) == 7);
  s.parents = {-1, 0, 3, 1};  // child before parent
  REQUIRE_THROWS_AS(vb::build_tree(s, 0), vb::ScenarioError);
  s.parents = {0, 0};  // root must be -1
  REQUIRE_THROWS_AS(vb::build_tree(s, 0), vb::ScenarioError);
  s.parents = {};
  REQUIRE_THROWS_AS(vb::tree_size(s), vb::ScenarioError);
  REQUIRE_THROWS_AS(vb::build_tree(chain(0), 0), vb::ScenarioError);
  REQUIRE_THROWS_AS(vb::build_tree(chain(1025), 0), vb::ScenarioError);
}

TEST_CASE("ancestor masks: self plus ancestors, several words for T > 64", "[tree]") {
  REQUIRE(vb::mask_words_for(1) == 1);
  REQUIRE(vb::mask_words_for(64) == 1);
  REQUIRE(vb::mask_words_for(65) == 2);
  REQUIRE(vb::mask_words_for(1024) == 16);

  // 0 -> {1, 2}, 1 -> {3}, 3 -> {4}
  const Tree t{{-1, 0, 0, 1, 3}};
  const auto m = vb::ancestor_masks(t);
  REQUIRE(m == std::vector<std::uint64_t>{0b1, 0b11, 0b101, 0b1011, 0b11011});

  // A 100-node chain: node i sees 0..i, spread over two words.
  const auto c = vb::ancestor_masks(vb::build_tree(chain(100), 0));
  REQUIRE(c.size() == 200);
  REQUIRE(c[2 * 63 + 0] == ~std::uint64_t{0});
  REQUIRE(c[2 * 63 + 1] == 0);
  REQUIRE(c[2 * 64 + 0] == ~std::uint64_t{0});
  REQUIRE(c[2 * 64 + 1] == 1);
  REQUIRE(c[2 * 99 + 1] == (std::uint64_t{1} << 36) - 1);
}

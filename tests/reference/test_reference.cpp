// The CPU oracle against code written here with no shared machinery: a long-double scalar
// implementation that walks the parent array (not the mask helpers) and reads the logical
// KV rows (not the page table), plus metamorphic properties of attention over a tree.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "reference_fixture.h"

namespace vb::test {
namespace {

constexpr int kQK = mla::kHeadDimQK;
constexpr int kV = mla::kHeadDimV;

struct ScalarRow {
  std::vector<long double> o = std::vector<long double>(kV, 0.0L);
  long double lse = 0;
};

// Attention of one query over an explicit list of K rows, long double throughout.
ScalarRow dense_attention(const bf16_bits* q, const std::vector<const bf16_bits*>& keys,
                          float sm_scale) {
  std::vector<long double> s(keys.size());
  long double mx = -INFINITY;
  for (std::size_t j = 0; j < keys.size(); ++j) {
    long double dot = 0;
    for (int c = 0; c < kQK; ++c) {
      dot += static_cast<long double>(bf16_to_float(q[c])) * bf16_to_float(keys[j][c]);
    }
    s[j] = static_cast<long double>(sm_scale) * dot;
    mx = std::max(mx, s[j]);
  }
  long double sum = 0;
  for (auto& v : s) sum += (v = std::exp(v - mx));
  ScalarRow r;
  r.lse = mx + std::log(sum);
  for (std::size_t j = 0; j < keys.size(); ++j) {
    for (int c = 0; c < kV; ++c) r.o[c] += s[j] / sum * bf16_to_float(keys[j][c]);
  }
  return r;
}

const bf16_bits* logical_row(const HostCase& c, int b, int t) {
  return c.logical_kv[b].data() + static_cast<std::size_t>(t) * kQK;
}

const bf16_bits* q_row(const HostCase& c, int b, int node, int head) {
  return c.q.data() + row_index(c, b, node, head) * kQK;
}

// docs/background.md §1 by hand: prefix, then the node and its ancestors found by walking parents.
ScalarRow scalar_verify_row(const HostCase& c, int b, int node, int head) {
  std::vector<const bf16_bits*> keys;
  const int P = c.prefix_len[b];
  for (int t = 0; t < P; ++t) keys.push_back(logical_row(c, b, t));
  for (int j = node; j != -1; j = c.config.trees[b].parents[j]) keys.push_back(logical_row(c, b, P + j));
  return dense_attention(q_row(c, b, node, head), keys, c.config.sm_scale);
}

// Worst |diff| between a reference row and a scalar row (o and lse together).
double row_error(const ReferenceOutput& out, std::size_t i, const ScalarRow& s) {
  double worst = std::fabs(out.lse[i] - static_cast<double>(s.lse));
  for (int c = 0; c < kV; ++c) {
    worst = std::max(worst, std::fabs(out.o[i * kV + c] - static_cast<double>(s.o[c])));
  }
  return worst;
}

bool all_finite(const ReferenceOutput& out) {
  for (double v : out.o) if (!std::isfinite(v)) return false;
  for (double v : out.lse) if (!std::isfinite(v)) return false;
  return true;
}

bool rows_bit_identical(const ReferenceOutput& a, std::size_t ia, const ReferenceOutput& b,
                        std::size_t ib) {
  return std::memcmp(&a.o[ia * kV], &b.o[ib * kV], kV * sizeof(double)) == 0 &&
         std::memcmp(&a.lse[ia], &b.lse[ib], sizeof(double)) == 0;
}

bool outputs_bit_identical(const ReferenceOutput& a, const ReferenceOutput& b) {
  return a.o.size() == b.o.size() && a.lse.size() == b.lse.size() &&
         std::memcmp(a.o.data(), b.o.data(), a.o.size() * sizeof(double)) == 0 &&
         std::memcmp(a.lse.data(), b.lse.data(), a.lse.size() * sizeof(double)) == 0;
}

double max_abs_diff(const ReferenceOutput& a, const ReferenceOutput& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.o.size(); ++i) worst = std::max(worst, std::fabs(a.o[i] - b.o[i]));
  for (std::size_t i = 0; i < a.lse.size(); ++i) worst = std::max(worst, std::fabs(a.lse[i] - b.lse[i]));
  return worst;
}

std::vector<bf16_bits> random_row(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<bf16_bits> row(kQK);
  for (auto& v : row) v = random_nonzero_bf16(rng);
  return row;
}

// Double vs long double over at most a few hundred terms of magnitude <= 1.
constexpr double kScalarTol = 1e-11;

struct NamedConfig {
  std::string name;
  CaseConfig config;
};

std::vector<NamedConfig> tiny_cases() {
  std::vector<NamedConfig> cases;
  auto add = [&](std::string name, std::vector<int> prefixes, std::vector<Tree> trees, int heads) {
    for (Placement pl : {Placement::kTokenIndices, Placement::kBlockTable, Placement::kTreeKv}) {
      for (int page : {1, 16}) {
        if (pl != Placement::kBlockTable && page != 1) continue;
        CaseConfig cfg;
        cfg.prefix_lens = prefixes;
        cfg.trees = trees;
        cfg.heads = heads;
        cfg.placement = pl;
        cfg.page_size = page;
        cfg.data_seed = 100 + cases.size();
        cfg.placement_seed = 200 + cases.size();
        const char* pname = pl == Placement::kTokenIndices ? "token" : pl == Placement::kBlockTable ? "block" : "tree_kv";
        cases.push_back({name + " / " + pname + " page " + std::to_string(page), cfg});
      }
    }
  };
  add("chain 5, P=0", {0}, {chain_tree(5)}, 2);
  add("chain 4, P=1", {1}, {chain_tree(4)}, 3);
  add("star 7, P=33", {33}, {star_tree(7)}, 2);
  add("random 13, P=17", {17}, {random_tree(13, 5)}, 2);
  add("single node, P=9", {9}, {chain_tree(1)}, 4);
  add("random 70 (two mask words), P=3", {3}, {random_tree(70, 11)}, 1);
  add("chain 66 (two mask words), P=0", {0}, {chain_tree(66)}, 1);
  add("B=3 unequal prefixes, per-request random trees", {0, 47, 131},
      {random_tree(9, 3, 0), random_tree(9, 3, 1), random_tree(9, 3, 2)}, 2);
  add("B=2 mixed tree shapes", {16, 1}, {star_tree(6), chain_tree(6)}, 3);
  return cases;
}

}  // namespace

TEST_CASE("reference matches a long-double scalar implementation on tiny cases", "[reference]") {
  for (const NamedConfig& nc : tiny_cases()) {
    SECTION(nc.name) {
      const HostCase c = make_case(nc.config);
      const ReferenceOutput out = reference_verify(c.params());
      REQUIRE(out.rows.size() == static_cast<std::size_t>(c.batch) * c.tree_size * c.heads);
      REQUIRE_FALSE(out.sampled);
      REQUIRE(all_finite(out));
      double worst = 0;
      for (std::size_t i = 0; i < out.rows.size(); ++i) {
        const QueryRow& r = out.rows[i];
        REQUIRE(static_cast<std::int64_t>(i) == row_index(c, r.request, r.node, r.head));
        worst = std::max(worst, row_error(out, i, scalar_verify_row(c, r.request, r.node, r.head)));
      }
      INFO("worst |ref - scalar| = " << worst);
      CHECK(worst < kScalarTol);
    }
  }
}

TEST_CASE("a chain tree is causal attention over prefix + nodes", "[reference]") {
  CaseConfig cfg;
  cfg.prefix_lens = {5, 0};
  cfg.trees = {chain_tree(8), chain_tree(8)};
  cfg.heads = 2;
  cfg.placement = GENERATE(Placement::kTokenIndices, Placement::kBlockTable);
  cfg.page_size = 16;
  const HostCase c = make_case(cfg);
  const ReferenceOutput out = reference_verify(c.params());
  for (std::size_t i = 0; i < out.rows.size(); ++i) {
    const QueryRow& r = out.rows[i];
    // Causal: token at sequence position P + node sees positions 0..P + node.
    std::vector<const bf16_bits*> keys;
    for (int t = 0; t <= c.prefix_len[r.request] + r.node; ++t) keys.push_back(logical_row(c, r.request, t));
    const ScalarRow causal = dense_attention(q_row(c, r.request, r.node, r.head), keys, cfg.sm_scale);
    INFO("request " << r.request << " node " << r.node << " head " << r.head);
    CHECK(row_error(out, i, causal) < kScalarTol);
  }
}

TEST_CASE("T = 1 is plain decode over P + 1 tokens", "[reference]") {
  const int P = GENERATE(0, 1, 37);
  CaseConfig cfg;
  cfg.prefix_lens = {P};
  cfg.trees = {chain_tree(1)};
  cfg.heads = 5;
  const HostCase c = make_case(cfg);
  const ReferenceOutput out = reference_verify(c.params());
  for (int h = 0; h < c.heads; ++h) {
    std::vector<const bf16_bits*> keys;
    for (int t = 0; t < P + 1; ++t) keys.push_back(logical_row(c, 0, t));
    const ScalarRow decode = dense_attention(q_row(c, 0, 0, h), keys, cfg.sm_scale);
    CHECK(row_error(out, static_cast<std::size_t>(h), decode) < kScalarTol);
  }
  if (P == 0) {
    // One visible token: softmax is exactly 1, o is that row's V.
    for (int h = 0; h < c.heads; ++h) {
      for (int ch = 0; ch < kV; ++ch) {
        REQUIRE(out.o[h * kV + ch] == static_cast<double>(bf16_to_float(logical_row(c, 0, 0)[ch])));
      }
    }
  }
}

TEST_CASE("only ancestors' KV rows reach a node's output", "[reference]") {
  // parents {-1, 0, 0, 1, 1, 2, 3}:
  //   0 -> 1, 2;  1 -> 3, 4;  2 -> 5;  3 -> 6
  // Node 3: ancestors {1, 0}; sibling 4, cousin 5, child 6, uncle 2 are invisible.
  CaseConfig cfg;
  cfg.prefix_lens = {11};
  cfg.trees = {explicit_tree({-1, 0, 0, 1, 1, 2, 3})};
  cfg.heads = 3;
  cfg.placement = GENERATE(Placement::kTokenIndices, Placement::kBlockTable, Placement::kTreeKv);
  cfg.page_size = 16;
  HostCase c = make_case(cfg);
  const int P = cfg.prefix_lens[0];
  const int node = 3;
  const ReferenceOutput before = reference_verify(c.params());

  SECTION("invisible rows change: node 3 stays bit-identical, the changed node does not") {
    const int invisible = GENERATE(2, 4, 5, 6);
    c.set_row(0, P + invisible, random_row(900 + invisible));
    const ReferenceOutput after = reference_verify(c.params());
    for (int h = 0; h < c.heads; ++h) {
      INFO("changed node " << invisible << ", head " << h);
      CHECK(rows_bit_identical(before, row_index(c, 0, node, h), after, row_index(c, 0, node, h)));
      CHECK_FALSE(rows_bit_identical(before, row_index(c, 0, invisible, h), after,
                                     row_index(c, 0, invisible, h)));
    }
  }
  SECTION("a visible row changes (ancestor, self, prefix): node 3 changes") {
    // P = 11: tree nodes 0, 1, 3 (the root, the parent, itself), prefix tokens 0 and 10.
    const int token = GENERATE(11 + 0, 11 + 1, 11 + 3, 0, 10);
    REQUIRE(P == 11);
    c.set_row(0, token, random_row(700 + token));
    const ReferenceOutput after = reference_verify(c.params());
    for (int h = 0; h < c.heads; ++h) {
      INFO("changed token " << token << ", head " << h);
      const auto i = static_cast<std::size_t>(row_index(c, 0, node, h));
      CHECK(before.lse[i] != after.lse[i]);
      CHECK_FALSE(rows_bit_identical(before, i, after, i));
      // and the change is the right one
      CHECK(row_error(after, i, scalar_verify_row(c, 0, node, h)) < kScalarTol);
    }
  }
}

TEST_CASE("physical placement does not change the result", "[reference]") {
  CaseConfig cfg;
  cfg.prefix_lens = {40, 3, 77};
  cfg.trees = {random_tree(12, 8, 0), random_tree(12, 8, 1), random_tree(12, 8, 2)};
  cfg.heads = 2;
  cfg.data_seed = 31;
  cfg.placement_seed = 1;
  const HostCase base = make_case(cfg);
  const ReferenceOutput expected = reference_verify(base.params());

  SECTION("same token mapping, pool rows permuted") {
    cfg.placement_seed = 2;
    const HostCase other = make_case(cfg);
    REQUIRE(other.kv_indices != base.kv_indices);
    REQUIRE(other.kv_pool != base.kv_pool);
    CHECK(outputs_bit_identical(expected, reference_verify(other.params())));
  }
  SECTION("block table, pages permuted") {
    cfg.placement = Placement::kBlockTable;
    cfg.page_size = GENERATE(1, 16, 64);
    cfg.placement_seed = GENERATE(3, 4);
    const HostCase other = make_case(cfg);
    CHECK(outputs_bit_identical(expected, reference_verify(other.params())));
  }
  SECTION("SGLang form: tree rows in tree_kv, table over the prefix only") {
    cfg.placement = Placement::kTreeKv;
    const HostCase other = make_case(cfg);
    CHECK(outputs_bit_identical(expected, reference_verify(other.params())));
  }
}

TEST_CASE("reference_verify_rows equals the same rows of reference_verify", "[reference]") {
  CaseConfig cfg;
  cfg.prefix_lens = {21, 90};
  cfg.trees = {random_tree(20, 4, 0), random_tree(20, 4, 1)};
  cfg.heads = 4;
  cfg.placement = Placement::kBlockTable;
  cfg.page_size = 16;
  const HostCase c = make_case(cfg);
  const VerifyParams p = c.params();
  const ReferenceOutput full = reference_verify(p);

  SECTION("seeded sample") {
    const std::vector<QueryRow> rows = sample_query_rows(p, 37, 99);
    const ReferenceOutput part = reference_verify_rows(p, rows);
    REQUIRE(part.sampled);
    REQUIRE(part.rows.size() == rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const auto f = static_cast<std::size_t>(row_index(c, rows[i].request, rows[i].node, rows[i].head));
      REQUIRE(part.rows[i].request == rows[i].request);
      double worst = std::fabs(part.lse[i] - full.lse[f]);
      for (int ch = 0; ch < kV; ++ch) worst = std::max(worst, std::fabs(part.o[i * kV + ch] - full.o[f * kV + ch]));
      CHECK(worst < 1e-13);
    }
  }
  SECTION("unsorted rows with a repeat come back in the order given") {
    const std::vector<QueryRow> rows = {{1, 19, 3}, {0, 0, 0}, {1, 2, 1}, {0, 7, 2}, {1, 19, 3}};
    const ReferenceOutput part = reference_verify_rows(p, rows, {.threads = 3});
    REQUIRE(part.sampled);
    REQUIRE(part.rows.size() == rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      CHECK(part.rows[i].request == rows[i].request);
      CHECK(part.rows[i].node == rows[i].node);
      CHECK(part.rows[i].head == rows[i].head);
      CHECK(row_error(part, i, scalar_verify_row(c, rows[i].request, rows[i].node, rows[i].head)) < kScalarTol);
    }
  }
  SECTION("every row given: not sampled") {
    const ReferenceOutput all = reference_verify_rows(p, sample_query_rows(p, 1 << 20, 5));
    CHECK_FALSE(all.sampled);
    CHECK(max_abs_diff(all, full) < 1e-13);
  }
  SECTION("a row outside the problem is an error, not a crash") {
    CHECK_THROWS_AS(reference_verify_rows(p, {{2, 0, 0}}), std::out_of_range);
    CHECK_THROWS_AS(reference_verify_rows(p, {{0, 20, 0}}), std::out_of_range);
    CHECK_THROWS_AS(reference_verify_rows(p, {{0, 0, -1}}), std::out_of_range);
  }
}

TEST_CASE("thread count does not change the result beyond rounding", "[reference]") {
  CaseConfig cfg;
  cfg.prefix_lens = {300, 5, 64};
  cfg.trees = {random_tree(24, 9, 0), random_tree(24, 9, 1), random_tree(24, 9, 2)};
  cfg.heads = 4;
  const HostCase c = make_case(cfg);
  const ReferenceOutput one = reference_verify(c.params(), {.threads = 1});
  REQUIRE(all_finite(one));
  for (int threads : {2, 3, 8}) {
    INFO("threads " << threads);
    CHECK(max_abs_diff(one, reference_verify(c.params(), {.threads = threads})) < 1e-13);
  }
}

TEST_CASE("sample_query_rows is seeded, distinct, sorted and in range", "[reference]") {
  CaseConfig cfg;
  cfg.prefix_lens = {3, 4, 5};
  cfg.trees = {chain_tree(10), chain_tree(10), chain_tree(10)};
  cfg.heads = 7;
  const HostCase c = make_case(cfg);
  const VerifyParams p = c.params();
  const int total = 3 * 10 * 7;
  auto index = [&](const QueryRow& r) { return row_index(c, r.request, r.node, r.head); };

  for (int count : {1, 17, 100, total - 1}) {
    INFO("count " << count);
    const auto a = sample_query_rows(p, count, 42);
    const auto b = sample_query_rows(p, count, 42);
    REQUIRE(static_cast<int>(a.size()) == count);
    std::set<std::int64_t> seen;
    for (std::size_t i = 0; i < a.size(); ++i) {
      REQUIRE(a[i].request == b[i].request);
      REQUIRE(a[i].node == b[i].node);
      REQUIRE(a[i].head == b[i].head);
      REQUIRE((a[i].request >= 0 && a[i].request < 3 && a[i].node >= 0 && a[i].node < 10 &&
               a[i].head >= 0 && a[i].head < 7));
      if (i > 0) REQUIRE(index(a[i - 1]) < index(a[i]));
      seen.insert(index(a[i]));
    }
    REQUIRE(static_cast<int>(seen.size()) == count);
  }
  // Another seed gives another sample.
  const auto s1 = sample_query_rows(p, 17, 1), s2 = sample_query_rows(p, 17, 2);
  bool differ = false;
  for (std::size_t i = 0; i < s1.size(); ++i) differ = differ || index(s1[i]) != index(s2[i]);
  CHECK(differ);
  // A sample spreads over requests rather than clustering at the front.
  std::set<int> requests;
  for (const auto& r : sample_query_rows(p, 30, 7)) requests.insert(r.request);
  CHECK(requests.size() == 3);
  // count >= total: every row, in order.
  for (int count : {total, total + 5}) {
    const auto all = sample_query_rows(p, count, 3);
    REQUIRE(static_cast<int>(all.size()) == total);
    for (int i = 0; i < total; ++i) REQUIRE(index(all[i]) == i);
  }
  CHECK(sample_query_rows(p, 0, 3).empty());
}

TEST_CASE("a row that sees nothing gives o = 0 and lse = -inf, not NaN", "[reference]") {
  // Cannot happen in verify (a node sees itself); the guard must still not divide by zero.
  CaseConfig cfg;
  cfg.prefix_lens = {0};
  cfg.trees = {chain_tree(2)};
  cfg.heads = 1;
  HostCase c = make_case(cfg);
  c.tree_mask[1] = 0;  // node 1 sees no tree node
  const ReferenceOutput out = reference_verify(c.params());
  CHECK(std::isfinite(out.lse[0]));
  CHECK(out.lse[1] == -INFINITY);
  for (int ch = 0; ch < kV; ++ch) REQUIRE(out.o[kV + ch] == 0.0);
}

// scenarios/README.md, "Non-finite inputs": the reference's rule every executor is held to.
TEST_CASE("a NaN or inf a query can see makes its O and LSE NaN, one it cannot see never leaks", "[reference]") {
  CaseConfig cfg;
  cfg.prefix_lens = {40};
  cfg.trees = {explicit_tree({-1, 0, 0})};  // nodes 1 and 2 are siblings
  cfg.heads = 2;
  const bf16_bits inf = 0x7f80;
  for (const bf16_bits bad : {kBf16QuietNaN, inf}) {
    HostCase c = make_case(cfg);
    std::vector<bf16_bits> row(c.logical_kv[0].begin() + 41 * 576, c.logical_kv[0].begin() + 42 * 576);
    row[520] = bad;  // node 1's tree row (token 41), a rope channel: in K, not in V
    c.set_row(0, 41, row);
    for (int h = 0; h < 2; ++h) c.q[(1 * 2 + h) * 576 + 520] = 0x3f80;  // q = 1: score NaN / +inf
    c.q[(2 * 2 + 1) * 576 + 3] = bad;  // node 2, head 1: q itself
    const ReferenceOutput out = reference_verify(c.params());
    auto row_of = [](int node, int head) { return static_cast<std::size_t>(node * 2 + head); };
    INFO("bad value " << bf16_to_float(bad));
    // Node 1 sees its own row: both heads undefined. Node 2 head 1 has a bad q.
    for (const std::size_t r : {row_of(1, 0), row_of(1, 1), row_of(2, 1)}) {
      CHECK(std::isnan(out.lse[r]));
      for (int ch = 0; ch < kV; ++ch) REQUIRE(std::isnan(out.o[r * kV + ch]));
    }
    // The root and node 2 head 0 cannot see token 41: finite, untouched.
    for (const std::size_t r : {row_of(0, 0), row_of(0, 1), row_of(2, 0)}) {
      CHECK(std::isfinite(out.lse[r]));
      for (int ch = 0; ch < kV; ++ch) REQUIRE(std::isfinite(out.o[r * kV + ch]));
    }
  }
}

TEST_CASE("materialized problems: both page-table forms agree bit for bit", "[reference]") {
  CaseSpec spec;
  spec.name = "reference-test";
  spec.heads = 3;
  spec.sm_scale = 0.130861;
  spec.seed = 17;
  spec.batch.dist = PrefixDist::kList;
  spec.batch.prefix_lens = {0, 33, 129};
  spec.tree.kind = TreeKind::kRandom;
  spec.tree.nodes = 70;
  spec.tree.seed = 5;
  spec.pages.size = 16;
  spec.pages.placement = PagePlacement::kShuffled;
  spec.pages.seed = 3;
  const Problem problem = materialize(spec);
  const ReferenceOutput token = reference_verify(host_params(problem, PageTableKind::kTokenIndices, nullptr, nullptr));
  const ReferenceOutput block = reference_verify(host_params(problem, PageTableKind::kBlockTable, nullptr, nullptr));
  REQUIRE(all_finite(token));  // the NaN slack rows were never read
  CHECK(outputs_bit_identical(token, block));
}

}  // namespace vb::test

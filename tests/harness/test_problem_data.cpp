// Data distributions (harness/problem/problem_data.cpp): each generator has the property it is
// named for, measured on the materialized bytes with double-precision scores (the same
// sm_scale * q.K the reference computes), not on the generator's intent.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "harness/problem/problem.h"
#include "harness/problem/seeded_hash.h"

namespace vb {
namespace {

constexpr int kQK = mla::kHeadDimQK;
constexpr int kV = mla::kHeadDimV;
constexpr double kLn2 = 0.69314718055994530942;

CaseSpec data_case(DataDist dist, std::vector<int> prefixes, int page_size = 16) {
  CaseSpec s;
  s.name = "unit/data";
  s.scenario = "unit";
  s.source = "test_problem_data.cpp:1";
  s.heads = 4;
  s.sm_scale = 0.130861;
  s.seed = 5;
  s.batch.dist = PrefixDist::kList;
  s.batch.prefix_lens = std::move(prefixes);
  s.tree.kind = TreeKind::kKAry;
  s.tree.branching = 2;
  s.tree.depth = 1;  // T = 3: a root and two children
  s.pages.size = page_size;
  s.pages.placement = PagePlacement::kShuffled;
  s.pages.seed = 2;
  s.data.dist = dist;
  return s;
}

// Scaled scores of query row (b, node, head) over the request's logical tokens, -inf where
// the node cannot see the token.
std::vector<double> scores(const Problem& pr, int b, int node, int head) {
  const VerifyParams p = host_params(pr, PageTableKind::kTokenIndices, nullptr, nullptr);
  const bf16_bits* q = pr.q.data() + p.query_row(b, node, head) * kQK;
  std::vector<double> s(static_cast<std::size_t>(p.kv_len(b)));
  for (int t = 0; t < p.kv_len(b); ++t) {
    if (!token_visible(p, b, node, t)) {
      s[t] = -std::numeric_limits<double>::infinity();
      continue;
    }
    const bf16_bits* k = p.kv_row_ptr(b, t);
    double dot = 0;
    for (int c = 0; c < kQK; ++c) dot += static_cast<double>(bf16_to_float(q[c])) * bf16_to_float(k[c]);
    s[t] = static_cast<double>(pr.sm_scale) * dot;
  }
  return s;
}

// Max score of each tile of `tile` logical tokens that holds a visible token.
std::vector<double> tile_maxima(const std::vector<double>& s, int tile) {
  std::vector<double> out;
  for (std::size_t begin = 0; begin < s.size(); begin += tile) {
    double m = -std::numeric_limits<double>::infinity();
    for (std::size_t t = begin; t < std::min(s.size(), begin + tile); ++t) m = std::max(m, s[t]);
    if (m != -std::numeric_limits<double>::infinity()) out.push_back(m);
  }
  return out;
}

template <typename Fn>
void for_each_row(const Problem& pr, const Fn& fn) {
  for (int b = 0; b < pr.batch; ++b)
    for (int n = 0; n < pr.tree_size; ++n)
      for (int h = 0; h < pr.num_heads; ++h) fn(b, n, h, scores(pr, b, n, h));
}

}  // namespace

TEST_CASE("uniform data keeps the bytes every earlier result was measured on", "[problem][data]") {
  // q[i] = bf16(uniform [-1, 1) from hash3(seed, q stream, i)): the generator before `data:`.
  const Problem pr = materialize(data_case(DataDist::kUniform, {40, 3}));
  for (const std::uint64_t i : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{577}, pr.q.size() - 1}) {
    const std::uint64_t h = hash3(5, 0x7100'0000'0000'0001ull, i);
    const float f = static_cast<float>(static_cast<std::int64_t>(h >> 40) - (std::int64_t{1} << 23)) * 0x1.0p-23f;
    CHECK(pr.q[i] == float_to_bf16(f));
  }
}

TEST_CASE("rising: every tile's max beats the last one, by more than the lazy-rescale step", "[problem][data]") {
  CaseSpec spec = data_case(DataDist::kRising, {1000, 70, 0}, 1);
  const Problem pr = materialize(spec);
  // The wgmma path moves its running max only past 8 log2 units; the mma.sync path on any
  // increase. At 1 nat a token a 64-token tile rises ~64 nats, a 32-token one ~32.
  for_each_row(pr, [&](int b, int n, int h, const std::vector<double>& s) {
    INFO("row " << b << "/" << n << "/" << h);
    for (const int tile : {32, 64}) {
      const std::vector<double> m = tile_maxima(s, tile);
      for (std::size_t i = 1; i + 1 < m.size(); ++i) {  // the last tile may be short
        REQUIRE(m[i] > m[i - 1]);
        if (tile == 64) REQUIRE(m[i] - m[i - 1] > 8 * kLn2);
      }
    }
    // A running max frozen after the first tile overflows fp32 exp2 (2^128) beyond 88.7
    // nats: the request of 1000 tokens rises far past that.
    if (b == 0) REQUIRE(tile_maxima(s, 64).back() - tile_maxima(s, 64).front() > 128 * kLn2);
  });
  SECTION("a small step rises on every 32-token tile but stays under the lazy threshold per 64") {
    spec.data.rise_nats = 0.05;
    const Problem slow = materialize(spec);
    const std::vector<double> m32 = tile_maxima(scores(slow, 0, 0, 0), 32);
    const std::vector<double> m64 = tile_maxima(scores(slow, 0, 0, 0), 64);
    for (std::size_t i = 1; i + 1 < m32.size(); ++i) REQUIRE(m32[i] > m32[i - 1]);
    for (std::size_t i = 1; i + 1 < m64.size(); ++i) REQUIRE(m64[i] - m64[i - 1] < 8 * kLn2);
  }
}

TEST_CASE("large: scaled logits span about +-nats and stay inside it", "[problem][data]") {
  for (const double nats : {50.0, 120.0}) {
    CaseSpec spec = data_case(DataDist::kLarge, {500, 64});
    spec.data.large_nats = nats;
    const Problem pr = materialize(spec);
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for_each_row(pr, [&](int, int, int, const std::vector<double>& s) {
      for (const double x : s) {
        if (std::isinf(x)) continue;
        lo = std::min(lo, x);
        hi = std::max(hi, x);
      }
    });
    INFO("nats " << nats << ": scores in [" << lo << ", " << hi << "]");
    CHECK(hi > nats - 5);
    CHECK(lo < -(nats - 5));
    CHECK(hi < nats + 5);  // the value channels add noise of ~1 nat
    CHECK(lo > -(nats + 5));
  }
}

TEST_CASE("sink: the sink rows take almost all of every query's weight", "[problem][data]") {
  struct Place {
    SinkAt at;
    int index;
  };
  for (const Place place : {Place{SinkAt::kFirst, 0}, Place{SinkAt::kLast, 0}, Place{SinkAt::kRoot, 0},
                            Place{SinkAt::kTree, 0}, Place{SinkAt::kIndex, 37}}) {
    CaseSpec spec = data_case(DataDist::kSink, {300, 129, 40}, 64);
    spec.data.sink_at = place.at;
    spec.data.sink_index = place.index;
    spec.data.sink_count = 2;
    const Problem pr = materialize(spec);
    for_each_row(pr, [&](int b, int n, int h, const std::vector<double>& s) {
      const double mx = *std::max_element(s.begin(), s.end());
      double all = 0, sink = 0;
      bool any_sink = false;
      for (std::size_t t = 0; t < s.size(); ++t) {
        const double w = std::exp(s[t] - mx);
        all += w;
        if (std::isfinite(s[t]) && is_sink_position(spec.data, pr.prefix_len[b], pr.tree_size, static_cast<int>(t))) {
          sink += w;
          any_sink = true;
        }
      }
      INFO("at " << to_string(place.at) << ", row " << b << "/" << n << "/" << h);
      if (any_sink) REQUIRE(sink / all > 0.99);
    });
  }
}

TEST_CASE("ties: KV rows repeat every `distinct` positions, and all heads share q", "[problem][data]") {
  CaseSpec spec = data_case(DataDist::kTies, {100, 9});
  spec.data.distinct_rows = 3;
  const Problem pr = materialize(spec);
  const VerifyParams p = host_params(pr, PageTableKind::kTokenIndices, nullptr, nullptr);
  for (int b = 0; b < p.batch; ++b) {
    for (int t = 3; t < p.kv_len(b); ++t) {
      REQUIRE(std::equal(p.kv_row_ptr(b, t), p.kv_row_ptr(b, t) + kQK, p.kv_row_ptr(b, t - 3)));
    }
  }
  CHECK_FALSE(std::equal(p.kv_row_ptr(0, 0), p.kv_row_ptr(0, 0) + kQK, p.kv_row_ptr(0, 1)));
  const bf16_bits* q0 = pr.q.data() + p.query_row(1, 2, 0) * kQK;
  for (int h = 1; h < p.num_heads; ++h) {
    CHECK(std::equal(q0, q0 + kQK, pr.q.data() + p.query_row(1, 2, h) * kQK));
  }
  const std::vector<double> s = scores(pr, 0, 0, 0);
  CHECK(s[0] == s[3]);  // equal scores, exactly
}

TEST_CASE("outlier_channels: the named channels are `factor` times larger than the rest", "[problem][data]") {
  CaseSpec spec = data_case(DataDist::kOutlierChannels, {200});
  spec.data.outlier_channels = {5, 511, 570};
  spec.data.outlier_factor = 300;
  const Problem pr = materialize(spec);
  const VerifyParams p = host_params(pr, PageTableKind::kTokenIndices, nullptr, nullptr);
  std::vector<double> peak(kQK, 0);
  for (int t = 0; t < p.kv_len(0); ++t) {
    for (int c = 0; c < kQK; ++c) peak[c] = std::max(peak[c], std::fabs(static_cast<double>(bf16_to_float(p.kv_row_ptr(0, t)[c]))));
  }
  for (int c = 0; c < kQK; ++c) {
    INFO("channel " << c);
    if (c == 5 || c == 511 || c == 570) {
      CHECK(peak[c] > 250);
      CHECK(peak[c] <= 300);
    } else {
      CHECK(peak[c] <= 1.0);
    }
  }
  // Their O tolerance scales with them; the other channels keep the plain one.
  const ToleranceSpec tol = default_tolerance(spec.data);
  CHECK(tol.o_wide_channels == std::vector<int>{5, 511});
  CHECK(tol.o_wide_channel_scale == 300);
  CHECK(tol.o_atol == ToleranceSpec{}.o_atol);
}

TEST_CASE("normal: q and KV values have the stated standard deviation", "[problem][data]") {
  CaseSpec spec = data_case(DataDist::kNormal, {2000});
  spec.data.scale = 2.5;
  const Problem pr = materialize(spec);
  double sum = 0, sq = 0;
  for (const bf16_bits v : pr.q) {
    const double x = bf16_to_float(v);
    sum += x;
    sq += x * x;
  }
  const double n = static_cast<double>(pr.q.size());
  CHECK(std::fabs(sum / n) < 0.05);
  CHECK(std::sqrt(sq / n) == Approx(2.5).epsilon(0.03));
  CHECK(default_tolerance(spec.data).o_atol == Approx(ToleranceSpec{}.o_atol * 10));
}

TEST_CASE("poison puts exactly one non-finite value where the schema says", "[problem][data]") {
  for (const PoisonIn in : {PoisonIn::kKv, PoisonIn::kQ}) {
    CaseSpec spec = data_case(DataDist::kUniform, {100, 15, 40});
    spec.data.poison = PoisonValue::kNaN;
    spec.data.poison_in = in;
    const Problem pr = materialize(spec);
    const VerifyParams p = host_params(pr, PageTableKind::kTokenIndices, nullptr, nullptr);
    int q_bad = 0, kv_bad = 0;
    for (const bf16_bits v : pr.q) q_bad += std::isnan(bf16_to_float(v));
    for (int b = 0; b < p.batch; ++b) {
      for (int t = 0; t < p.kv_len(b); ++t) {
        for (int c = 0; c < kQK; ++c) {
          if (!std::isnan(bf16_to_float(p.kv_row_ptr(b, t)[c]))) continue;
          ++kv_bad;
          CHECK(t == pr.prefix_len[b] / 2);
          CHECK(c == 520);
        }
      }
    }
    // Requests 0 and 2 (prefix >= 16) get one each; request 1 (15 tokens) none.
    CHECK(q_bad == (in == PoisonIn::kQ ? 2 : 0));
    CHECK(kv_bad == (in == PoisonIn::kKv ? 2 : 0));
    if (in == PoisonIn::kQ) {
      CHECK(std::isnan(bf16_to_float(pr.q[p.query_row(2, 0, 0) * kQK + 3])));
    }
  }
}

TEST_CASE("data parameters a spec cannot mean are refused by materialize", "[problem][data]") {
  CaseSpec spec = data_case(DataDist::kTies, {10});
  spec.data.distinct_rows = 0;
  CHECK_THROWS_AS(materialize(spec), ScenarioError);
  spec = data_case(DataDist::kOutlierChannels, {10});
  spec.data.outlier_channels = {576};
  CHECK_THROWS_AS(materialize(spec), ScenarioError);
}

}  // namespace vb

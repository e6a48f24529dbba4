// Page layouts (harness/problem/page_layout.cpp): for every placement and page size, every logical
// token maps to a unique in-range pool row, except shared-prefix tokens, which share rows
// within their group and only there; block-table and token forms agree token by token.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "harness/problem/problem.h"

namespace {

using vb::PagePlacement;

const PagePlacement kPlacements[] = {PagePlacement::kContiguous, PagePlacement::kShuffled,
                                     PagePlacement::kInterleaved, PagePlacement::kFragmented,
                                     PagePlacement::kReversed};

// Params over a layout alone (no q / KV): enough for pool_row().
vb::VerifyParams layout_params(const vb::PageLayout& l, const std::vector<std::int32_t>& prefix,
                               int tree_size, vb::PageTableKind kind) {
  vb::VerifyParams p;
  p.batch = static_cast<int>(prefix.size());
  p.tree_size = tree_size;
  p.prefix_len = prefix.data();
  p.page_kind = kind;
  p.kv_indptr = l.kv_indptr.data();
  p.kv_indices = l.kv_indices.data();
  p.block_table = l.block_table.data();
  p.page_size = l.page_size;
  p.max_pages = l.max_pages;
  p.pool_rows = l.pool_rows();
  return p;
}

// All invariants of one layout. Returns the number of distinct rows referenced.
std::size_t check_layout(const vb::PageSpec& spec, const std::vector<int>& prefix_lens, int T) {
  const vb::PageLayout l = vb::build_page_layout(spec, prefix_lens, T);
  const int B = static_cast<int>(prefix_lens.size());
  const std::vector<std::int32_t> prefix(prefix_lens.begin(), prefix_lens.end());
  const auto tok = layout_params(l, prefix, T, vb::PageTableKind::kTokenIndices);
  const auto blk = layout_params(l, prefix, T, vb::PageTableKind::kBlockTable);
  const int groups = spec.shared_prefix.groups;
  const int shared = groups > 0 ? spec.shared_prefix.length : 0;

  REQUIRE(l.page_size == spec.size);
  REQUIRE(l.kv_indptr.size() == static_cast<std::size_t>(B + 1));
  REQUIRE(l.block_table.size() == static_cast<std::size_t>(B) * l.max_pages);
  int max_pages = 0;
  for (int b = 0; b < B; ++b) max_pages = std::max(max_pages, (prefix_lens[b] + T + spec.size - 1) / spec.size);
  REQUIRE(l.max_pages == max_pages);

  // row -> the (request, token) pairs that map to it.
  std::map<std::int64_t, std::vector<std::pair<int, int>>> owners;
  for (int b = 0; b < B; ++b) {
    REQUIRE(l.kv_indptr[b + 1] - l.kv_indptr[b] == prefix_lens[b] + T);
    REQUIRE(tok.kv_len(b) == prefix_lens[b] + T);
    for (int t = 0; t < tok.kv_len(b); ++t) {
      const std::int64_t row = tok.pool_row(b, t);
      INFO("request " << b << " token " << t);
      REQUIRE(row == blk.pool_row(b, t));
      REQUIRE(row >= 0);
      REQUIRE(row < l.pool_rows());
      owners[row].push_back({b, t});
    }
    // Entries past the request's pages are never valid page ids.
    const int pages = (prefix_lens[b] + T + spec.size - 1) / spec.size;
    for (int k = 0; k < l.max_pages; ++k) {
      const std::int32_t id = l.block_table[static_cast<std::size_t>(b) * l.max_pages + k];
      if (k < pages) {
        REQUIRE(id >= 0);
        REQUIRE(id < l.num_pages);
      } else {
        REQUIRE(id >= l.num_pages);
      }
    }
  }
  for (const auto& [row, who] : owners) {
    if (who.size() == 1) continue;
    // Shared rows: the same logical token inside the shared prefix, one group only.
    INFO("row " << row << " shared by " << who.size() << " tokens");
    for (const auto& [b, t] : who) {
      REQUIRE(groups > 0);
      REQUIRE(t < shared);
      REQUIRE(t == who[0].second);
      REQUIRE(b % groups == who[0].first % groups);
    }
  }
  // Within a group, every shared token really is shared.
  if (groups > 0 && shared > 0) {
    for (int b = 0; b < B; ++b) {
      const int first = b % groups;  // the group's first request
      for (int t = 0; t < shared; ++t) REQUIRE(tok.pool_row(b, t) == tok.pool_row(first, t));
    }
  }
  // Slack: some pages are never referenced.
  std::set<std::int64_t> pages_used;
  for (const auto& [row, who] : owners) pages_used.insert(row / spec.size);
  REQUIRE(static_cast<std::int64_t>(pages_used.size()) < l.num_pages);
  return owners.size();
}

}  // namespace

TEST_CASE("every placement and page size maps tokens to unique in-range rows", "[pages]") {
  const std::vector<std::vector<int>> batches = {
      {0}, {1}, {4096}, {15, 16, 17, 63, 64, 65, 0, 1000}, {0, 0, 0}, {3, 700, 5, 129, 2}};
  for (const PagePlacement placement : kPlacements) {
    for (const int page : {1, 16, 64}) {
      for (const auto& prefixes : batches) {
        for (const int T : {1, 4, 70}) {
          vb::PageSpec spec;
          spec.size = page;
          spec.placement = placement;
          spec.seed = 5;
          INFO("placement " << static_cast<int>(placement) << " page " << page << " B "
                            << prefixes.size() << " T " << T);
          std::size_t total = 0;
          for (int p : prefixes) total += p + T;
          REQUIRE(check_layout(spec, prefixes, T) == total);
        }
      }
    }
  }
}

TEST_CASE("shared-prefix groups share pages within a group and only there", "[pages]") {
  for (const PagePlacement placement : kPlacements) {
    for (const int page : {1, 16, 64}) {
      for (const int groups : {1, 2, 3, 10}) {
        vb::PageSpec spec;
        spec.size = page;
        spec.placement = placement;
        spec.seed = 9;
        spec.shared_prefix.groups = groups;
        spec.shared_prefix.length = 128;  // a multiple of every page size, <= every prefix
        const std::vector<int> prefixes = {128, 300, 129, 128, 1000, 200, 513};
        const int T = 5;
        INFO("placement " << static_cast<int>(placement) << " page " << page << " groups " << groups);
        std::size_t expect = 0;
        for (int p : prefixes) expect += p + T - spec.shared_prefix.length;
        expect += static_cast<std::size_t>(std::min<int>(groups, static_cast<int>(prefixes.size()))) *
                  spec.shared_prefix.length;
        REQUIRE(check_layout(spec, prefixes, T) == expect);
      }
    }
  }
}

TEST_CASE("placements put pages where they say", "[pages]") {
  const std::vector<int> prefixes = {100, 40, 250};  // page 16: 7, 3, 16 pages with T = 4
  const int T = 4;
  vb::PageSpec spec;
  spec.size = 16;
  auto table = [&](PagePlacement p, std::uint64_t seed) {
    spec.placement = p;
    spec.seed = seed;
    return vb::build_page_layout(spec, prefixes, T);
  };
  const auto at = [](const vb::PageLayout& l, int b, int k) {
    return l.block_table[static_cast<std::size_t>(b) * l.max_pages + k];
  };

  const vb::PageLayout contiguous = table(PagePlacement::kContiguous, 0);
  REQUIRE(contiguous.max_pages == 16);
  REQUIRE(contiguous.num_pages == 26 + 26 / 8 + 2);
  int next = 0;
  for (int b = 0; b < 3; ++b) {
    const int pages = (prefixes[b] + T + 15) / 16;
    for (int k = 0; k < pages; ++k) REQUIRE(at(contiguous, b, k) == next++);
  }

  const vb::PageLayout reversed = table(PagePlacement::kReversed, 0);
  REQUIRE(at(reversed, 0, 0) == reversed.num_pages - 1);
  REQUIRE(at(reversed, 0, 1) == reversed.num_pages - 2);

  // Round-robin: page 0 of requests 0,1,2 then page 1 of each, ...; request 1 stops at 3.
  const vb::PageLayout inter = table(PagePlacement::kInterleaved, 0);
  REQUIRE(at(inter, 0, 0) == 0);
  REQUIRE(at(inter, 1, 0) == 1);
  REQUIRE(at(inter, 2, 0) == 2);
  REQUIRE(at(inter, 0, 1) == 3);
  REQUIRE(at(inter, 0, 3) == 9);
  REQUIRE(at(inter, 2, 3) == 10);  // request 1 has no page 3
  REQUIRE(at(inter, 0, 4) == 11);

  // Seeded placements: deterministic per seed, different across seeds, not contiguous.
  for (const PagePlacement p : {PagePlacement::kShuffled, PagePlacement::kFragmented}) {
    INFO("placement " << static_cast<int>(p));
    const auto a = table(p, 1);
    REQUIRE(a.block_table == table(p, 1).block_table);
    REQUIRE(a.kv_indices == table(p, 1).kv_indices);
    REQUIRE(a.block_table != table(p, 2).block_table);
    REQUIRE(a.block_table != contiguous.block_table);
  }
}

TEST_CASE("fragmented layouts scatter a request over short runs", "[pages]") {
  vb::PageSpec spec;
  spec.size = 1;
  spec.placement = PagePlacement::kFragmented;
  spec.seed = 3;
  const vb::PageLayout l = vb::build_page_layout(spec, {5000, 3000}, 16);
  int breaks = 0, longest = 0, run = 1;
  for (int k = 1; k < 5016; ++k) {
    if (l.block_table[k] == l.block_table[k - 1] + 1) {
      longest = std::max(longest, ++run);
    } else {
      ++breaks;
      run = 1;
    }
  }
  REQUIRE(breaks > 500);   // runs of 1..8 pages average 4.5: ~1100 breaks expected
  REQUIRE(longest < 64);   // adjacent runs may line up by chance, but not for long
}

TEST_CASE("page layout rejects impossible shared prefixes", "[pages]") {
  vb::PageSpec spec;
  spec.size = 16;
  spec.shared_prefix.groups = 2;
  spec.shared_prefix.length = 20;  // not a multiple of 16
  REQUIRE_THROWS_AS(vb::build_page_layout(spec, {64, 64}, 4), vb::ScenarioError);
  spec.shared_prefix.length = 32;
  REQUIRE_THROWS_AS(vb::build_page_layout(spec, {64, 16}, 4), vb::ScenarioError);  // 16 < 32
  REQUIRE_NOTHROW(vb::build_page_layout(spec, {64, 32}, 4));
}

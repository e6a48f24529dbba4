// Page layouts (harness/problem/problem.h, "page layout"): which physical pool page holds each
// logical page of each request. Logical token t of request b (prefix then tree nodes) lives
// in logical page t / page_size; the placement decides the physical page id, shared-prefix
// groups make requests of one group point at the same pages for their first `length` tokens.
//
// Construction, in two independent halves:
//   1. an allocation order: the sequence in which logical pages ask for a physical page
//      (request by request, or round-robin for `interleaved`); a group's shared pages are
//      allocated once, when the group's first request reaches them;
//   2. a free list: the sequence of physical page ids handed out (0.. for contiguous,
//      descending for reversed, a seeded permutation for shuffled, scattered short runs for
//      fragmented). The pool holds slack pages beyond those in use, so some rows are never
//      referenced (the problem fills them with NaN).
#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "harness/problem/problem.h"
#include "harness/problem/seeded_hash.h"

namespace vb {
namespace {


// Small seeded generator for shuffles (sequential use only; determinism is per seed).
struct SplitMix {
  std::uint64_t state;
  std::uint64_t next() { return mix64(state++); }
  // Uniform in [0, n), n > 0 (modulo bias is irrelevant for layout generation).
  std::uint64_t below(std::uint64_t n) { return next() % n; }
};

template <typename T>
void shuffle(std::vector<T>& v, SplitMix& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}

constexpr std::uint64_t kStreamShuffle = 0x7368'7566'0000'0001ull;
constexpr std::uint64_t kStreamFragment = 0x6672'6167'0000'0002ull;
// Longest run of adjacent free pages the fragmented free list keeps.
constexpr int kFragmentMaxRun = 8;

// An id no valid page has, even after adding small offsets: > num_pages by a prime margin.
constexpr std::int64_t kUnusedPageOffset = 1000003;

// Physical page ids in the order the allocator hands them out, all num_pages of them.
std::vector<std::int32_t> free_list(PagePlacement placement, std::int64_t num_pages,
                                    std::uint64_t seed) {
  std::vector<std::int32_t> ids(static_cast<std::size_t>(num_pages));
  std::iota(ids.begin(), ids.end(), 0);
  switch (placement) {
    case PagePlacement::kContiguous:
    case PagePlacement::kInterleaved:
      break;
    case PagePlacement::kReversed:
      std::reverse(ids.begin(), ids.end());
      break;
    case PagePlacement::kShuffled: {
      SplitMix rng{mix64(seed) ^ kStreamShuffle};
      shuffle(ids, rng);
      break;
    }
    case PagePlacement::kFragmented: {
      // A free list after churn: the pool cut into runs of 1..kFragmentMaxRun adjacent
      // pages (what survives when requests of random lengths come and go), the runs in
      // seeded order. Consecutive allocations get short ascending runs, scattered.
      SplitMix rng{mix64(seed) ^ kStreamFragment};
      std::vector<std::pair<std::int32_t, std::int32_t>> runs;  // [begin, end)
      for (std::int64_t p = 0; p < num_pages;) {
        const std::int64_t len = 1 + static_cast<std::int64_t>(rng.below(kFragmentMaxRun));
        const std::int64_t end = std::min(num_pages, p + len);
        runs.push_back({static_cast<std::int32_t>(p), static_cast<std::int32_t>(end)});
        p = end;
      }
      shuffle(runs, rng);
      std::size_t k = 0;
      for (const auto& [b, e] : runs) {
        for (std::int32_t p = b; p < e; ++p) ids[k++] = p;
      }
      break;
    }
  }
  return ids;
}

}  // namespace

std::int64_t pool_pages_for(std::int64_t pages_used) { return pages_used + pages_used / 8 + 2; }

PageLayout build_page_layout(const PageSpec& spec, const std::vector<int>& prefix_lens,
                             int tree_size) {
  const int page = spec.size;
  if (page < 1) throw ScenarioError("pages.size must be >= 1, got " + std::to_string(page));
  if (tree_size < 0) throw ScenarioError("tree size must be >= 0");
  const int batch = static_cast<int>(prefix_lens.size());
  const int groups = spec.shared_prefix.groups;
  const int shared_len = spec.shared_prefix.length;
  if (groups < 0) throw ScenarioError("shared_prefix.groups must be >= 0, got " + std::to_string(groups));
  if (shared_len < 0 || shared_len % page != 0) {
    throw ScenarioError("shared_prefix.length " + std::to_string(shared_len) +
                        " must be a non-negative multiple of the page size " + std::to_string(page));
  }
  const bool sharing = groups > 0 && shared_len > 0;
  const int shared_pages = sharing ? shared_len / page : 0;

  PageLayout layout;
  layout.page_size = page;
  std::vector<std::int64_t> pages_of(batch);
  std::int64_t max_pages = 0;
  for (int b = 0; b < batch; ++b) {
    if (prefix_lens[b] < 0) {
      throw ScenarioError("request " + std::to_string(b) + " has negative prefix length " +
                          std::to_string(prefix_lens[b]));
    }
    if (sharing && prefix_lens[b] < shared_len) {
      throw ScenarioError("request " + std::to_string(b) + " has prefix length " +
                          std::to_string(prefix_lens[b]) + ", shorter than shared_prefix.length " +
                          std::to_string(shared_len));
    }
    const std::int64_t kv_len = static_cast<std::int64_t>(prefix_lens[b]) + tree_size;
    pages_of[b] = (kv_len + page - 1) / page;
    max_pages = std::max(max_pages, pages_of[b]);
  }

  // Logical page slots: slot (b, k) for k < shared_pages belongs to the group of b.
  auto group_of = [&](int b) { return b % groups; };
  std::vector<bool> group_seen(sharing ? groups : 0, false);
  std::int64_t used = 0;
  for (int b = 0; b < batch; ++b) {
    std::int64_t priv = pages_of[b];
    if (sharing) {
      priv -= shared_pages;
      if (!group_seen[group_of(b)]) {
        group_seen[group_of(b)] = true;
        used += shared_pages;
      }
    }
    used += priv;
  }
  // Slack: unreferenced pages between and after the used ones (NaN rows in the pool).
  const std::int64_t num_pages = pool_pages_for(used);
  if (num_pages + kUnusedPageOffset > std::numeric_limits<std::int32_t>::max() ||
      max_pages > std::numeric_limits<std::int32_t>::max()) {
    throw ScenarioError("page layout needs " + std::to_string(num_pages) +
                        " pages, more than int32 page ids can address");
  }
  layout.num_pages = num_pages;
  layout.max_pages = static_cast<int>(max_pages);

  const std::vector<std::int32_t> ids = free_list(spec.placement, num_pages, spec.seed);
  std::size_t next_id = 0;
  const std::int32_t unused = static_cast<std::int32_t>(num_pages + kUnusedPageOffset);
  layout.block_table.assign(static_cast<std::size_t>(batch) * max_pages, unused);
  std::vector<std::vector<std::int32_t>> group_page(sharing ? groups : 0,
                                                    std::vector<std::int32_t>(shared_pages, -1));
  auto assign = [&](int b, std::int64_t k) {
    std::int32_t& slot = layout.block_table[static_cast<std::size_t>(b) * max_pages + k];
    if (k < shared_pages) {
      std::int32_t& g = group_page[group_of(b)][k];
      if (g < 0) g = ids[next_id++];
      slot = g;
    } else {
      slot = ids[next_id++];
    }
  };
  if (spec.placement == PagePlacement::kInterleaved) {
    for (std::int64_t k = 0; k < max_pages; ++k) {
      for (int b = 0; b < batch; ++b) {
        if (k < pages_of[b]) assign(b, k);
      }
    }
  } else {
    for (int b = 0; b < batch; ++b) {
      for (std::int64_t k = 0; k < pages_of[b]; ++k) assign(b, k);
    }
  }
  if (static_cast<std::int64_t>(next_id) != used) {
    throw std::logic_error("build_page_layout: allocated page count disagrees with the plan");
  }

  // Token form: the same mapping, one physical row per logical token.
  layout.kv_indptr.assign(batch + 1, 0);
  std::int64_t total_tokens = 0;
  for (int b = 0; b < batch; ++b) {
    total_tokens += static_cast<std::int64_t>(prefix_lens[b]) + tree_size;
    if (total_tokens > std::numeric_limits<std::int32_t>::max()) {
      throw ScenarioError("batch holds " + std::to_string(total_tokens) +
                          "+ tokens, more than int32 kv_indptr can index");
    }
    layout.kv_indptr[b + 1] = static_cast<std::int32_t>(total_tokens);
  }
  layout.kv_indices.resize(static_cast<std::size_t>(total_tokens));
  for (int b = 0; b < batch; ++b) {
    const std::int64_t kv_len = static_cast<std::int64_t>(prefix_lens[b]) + tree_size;
    const std::int32_t* row = layout.block_table.data() + static_cast<std::size_t>(b) * max_pages;
    std::int64_t* out = layout.kv_indices.data() + layout.kv_indptr[b];
    for (std::int64_t t = 0; t < kv_len; ++t) {
      out[t] = static_cast<std::int64_t>(row[t / page]) * page + t % page;
    }
  }
  return layout;
}

}  // namespace vb

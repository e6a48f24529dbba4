// Draft-tree builders (harness/problem/problem.h, "trees"): chain, full k-ary, EAGLE top-k,
// DDTree best-first, seeded random and explicit parent lists. Every builder returns nodes
// in topological order (parents[i] < i, node 0 the root) and is deterministic in its spec.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <queue>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "harness/problem/problem.h"
#include "harness/problem/seeded_hash.h"

namespace vb {
namespace {

// Streams keep the synthetic quantities of one seed independent of each other.
constexpr std::uint64_t kStreamRandomParent = 0x7261'6e64'0000'0001ull;
constexpr std::uint64_t kStreamEagleLogit = 0x6561'676c'0000'0002ull;
constexpr std::uint64_t kStreamEagleMass = 0x6561'676c'0000'0003ull;
constexpr std::uint64_t kStreamDDTreeDecay = 0x6464'7472'0000'0004ull;
constexpr std::uint64_t kStreamDDTreeJitter = 0x6464'7472'0000'0005ull;
constexpr std::uint64_t kStreamDDTreeMass = 0x6464'7472'0000'0006ull;

[[noreturn]] void fail(const char* kind, const std::string& what) {
  throw ScenarioError(std::string("tree kind '") + kind + "': " + what);
}

void check_node_count(const char* kind, std::int64_t nodes, const char* field) {
  if (nodes < 1 || nodes > mla::kMaxTreeNodes) {
    fail(kind, std::string(field) + " gives " + std::to_string(nodes) +
                   " nodes; allowed 1.." + std::to_string(mla::kMaxTreeNodes));
  }
}


int validated_size(const TreeSpec& spec) {
  switch (spec.kind) {
    case TreeKind::kChain:
      check_node_count("chain", spec.nodes, "nodes");
      return spec.nodes;
    case TreeKind::kKAry: {
      if (spec.branching < 1) fail("kary", "branching must be >= 1, got " + std::to_string(spec.branching));
      if (spec.depth < 0) fail("kary", "depth must be >= 0, got " + std::to_string(spec.depth));
      const std::int64_t n = full_tree_nodes(spec.branching, spec.depth, mla::kMaxTreeNodes);
      if (n < 0) {
        fail("kary", "branching " + std::to_string(spec.branching) + ", depth " +
                         std::to_string(spec.depth) + " exceeds " +
                         std::to_string(mla::kMaxTreeNodes) + " nodes");
      }
      return static_cast<int>(n);
    }
    case TreeKind::kEagle: {
      if (spec.steps < 1) fail("eagle", "steps must be >= 1, got " + std::to_string(spec.steps));
      if (spec.topk < 1) fail("eagle", "topk must be >= 1, got " + std::to_string(spec.topk));
      check_node_count("eagle", spec.tokens, "tokens");
      // Candidates: root + topk (step 1) + topk*topk per later step.
      const std::int64_t k = spec.topk;
      const std::int64_t candidates = 1 + k + static_cast<std::int64_t>(spec.steps - 1) * k * k;
      if (spec.tokens > candidates) {
        fail("eagle", "tokens " + std::to_string(spec.tokens) + " exceeds the " +
                          std::to_string(candidates) + " candidates of steps " +
                          std::to_string(spec.steps) + ", topk " + std::to_string(spec.topk));
      }
      return spec.tokens;
    }
    case TreeKind::kDDTree: {
      if (spec.topk < 1) fail("ddtree", "topk must be >= 1, got " + std::to_string(spec.topk));
      if (spec.max_depth < 0) fail("ddtree", "max_depth must be >= 0 (0: uncapped), got " + std::to_string(spec.max_depth));
      check_node_count("ddtree", spec.budget, "budget");
      if (spec.max_depth > 0) {
        const std::int64_t capacity = full_tree_nodes(spec.topk, spec.max_depth, mla::kMaxTreeNodes);
        if (capacity >= 0 && capacity < spec.budget) {
          fail("ddtree", "budget " + std::to_string(spec.budget) + " exceeds the " +
                             std::to_string(capacity) + " nodes a topk " + std::to_string(spec.topk) +
                             ", max_depth " + std::to_string(spec.max_depth) + " tree can hold");
        }
      }
      return spec.budget;
    }
    case TreeKind::kRandom:
      check_node_count("random", spec.nodes, "nodes");
      return spec.nodes;
    case TreeKind::kExplicit: {
      const auto& p = spec.parents;
      check_node_count("explicit", static_cast<std::int64_t>(p.size()), "parents");
      if (p[0] != -1) fail("explicit", "parents[0] must be -1 (the root), got " + std::to_string(p[0]));
      for (std::size_t i = 1; i < p.size(); ++i) {
        if (p[i] < 0 || p[i] >= static_cast<int>(i)) {
          fail("explicit", "parents[" + std::to_string(i) + "] = " + std::to_string(p[i]) +
                               "; must be in [0, " + std::to_string(i) + ") (parents before children)");
        }
      }
      return static_cast<int>(p.size());
    }
  }
  throw ScenarioError("unknown tree kind " + std::to_string(static_cast<int>(spec.kind)));
}

Tree chain_tree(int n) {
  Tree t;
  t.parents.resize(n);
  for (int i = 0; i < n; ++i) t.parents[i] = i - 1;
  return t;
}

// BFS numbering: node i > 0 has parent (i - 1) / k.
Tree kary_tree(int k, int n) {
  Tree t;
  t.parents.resize(n);
  t.parents[0] = -1;
  for (int i = 1; i < n; ++i) t.parents[i] = (i - 1) / k;
  return t;
}

Tree random_tree(int n, std::uint64_t seed, int request) {
  Tree t;
  t.parents.resize(n);
  t.parents[0] = -1;
  const std::uint64_t s = mix64(seed) ^ mix64(0x5eed0000ull + static_cast<std::uint64_t>(request));
  for (int i = 1; i < n; ++i) {
    t.parents[i] = static_cast<int>(hash3(s, kStreamRandomParent, i) % static_cast<std::uint64_t>(i));
  }
  return t;
}

struct Candidate {
  int parent;    // index into the candidate list, -1 for the root
  int depth;
  double score;  // cumulative path probability, strictly decreasing along a path
};

// Keeps the root and the `keep - 1` best other candidates (score desc, creation order on
// ties) and renumbers them parents-first by (depth, score desc, creation order). Because a
// child is created after its parent and scores strictly less, the kept set is
// ancestor-closed; that is checked, not assumed.
Tree keep_best(const std::vector<Candidate>& c, int keep, const char* kind) {
  std::vector<int> order(c.size() - 1);
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i) + 1;
  auto better = [&](int a, int b) {
    if (c[a].score != c[b].score) return c[a].score > c[b].score;
    return a < b;
  };
  std::sort(order.begin(), order.end(), better);
  std::vector<int> kept = {0};
  kept.insert(kept.end(), order.begin(), order.begin() + (keep - 1));
  std::sort(kept.begin(), kept.end(), [&](int a, int b) {
    if (c[a].depth != c[b].depth) return c[a].depth < c[b].depth;
    return better(a, b);
  });
  std::vector<int> new_id(c.size(), -1);
  for (std::size_t i = 0; i < kept.size(); ++i) new_id[kept[i]] = static_cast<int>(i);
  Tree t;
  t.parents.resize(kept.size());
  for (std::size_t i = 0; i < kept.size(); ++i) {
    const int p = c[kept[i]].parent;
    const int np = p < 0 ? -1 : new_id[p];
    if (i > 0 && (np < 0 || np >= static_cast<int>(i))) {
      throw std::logic_error(std::string(kind) + " tree: kept node set is not ancestor-closed");
    }
    t.parents[i] = np;
  }
  return t;
}

// EAGLE-style drafting: every step expands the topk best nodes of the previous step's
// children (the root at step 1) into topk children each. A child's probability is a
// softmax over topk seeded logits scaled by a seeded mass in [0.5, 0.95) (the rest of
// the vocabulary), so every probability is < 1 and cumulative scores decrease with depth.
Tree eagle_tree(const TreeSpec& spec) {
  const int k = spec.topk;
  std::vector<Candidate> c = {{-1, 0, 1.0}};
  std::vector<int> frontier = {0};
  for (int step = 0; step < spec.steps; ++step) {
    std::sort(frontier.begin(), frontier.end(), [&](int a, int b) {
      if (c[a].score != c[b].score) return c[a].score > c[b].score;
      return a < b;
    });
    if (static_cast<int>(frontier.size()) > k) frontier.resize(k);
    std::vector<int> next;
    for (int node : frontier) {
      const std::uint64_t key = static_cast<std::uint64_t>(node);
      std::vector<double> logits(k);
      double denom = 0;
      for (int r = 0; r < k; ++r) {
        logits[r] = 4.0 * unit_interval(hash3(spec.seed, kStreamEagleLogit, key * 4096 + r));
        denom += std::exp(logits[r]);
      }
      const double mass = 0.5 + 0.45 * unit_interval(hash3(spec.seed, kStreamEagleMass, key));
      for (int r = 0; r < k; ++r) {
        const double p = mass * std::exp(logits[r]) / denom;
        next.push_back(static_cast<int>(c.size()));
        c.push_back({node, c[node].depth + 1, c[node].score * p});
      }
    }
    frontier = std::move(next);
  }
  return keep_best(c, spec.tokens, "eagle");
}

// DDTree best-first growth: per depth d a synthetic top-k distribution (geometric decay
// over ranks with a seeded rate, per-rank jitter, total mass in [0.6, 0.95)); a max-heap on
// cumulative path probability pops the best node, adds it, pushes its topk children.
Tree ddtree_tree(const TreeSpec& spec) {
  const int k = spec.topk;
  const int max_depth = spec.max_depth > 0 ? spec.max_depth : spec.budget - 1;
  std::vector<std::vector<double>> probs(max_depth + 1);
  for (int d = 1; d <= max_depth; ++d) {
    const double decay = 0.4 + 1.2 * unit_interval(hash3(spec.seed, kStreamDDTreeDecay, d));
    std::vector<double> w(k);
    double sum = 0;
    for (int r = 0; r < k; ++r) {
      const double jitter = 0.3 * (unit_interval(hash3(spec.seed, kStreamDDTreeJitter, d * 4096ull + r)) - 0.5);
      w[r] = std::exp(-decay * r + jitter);
      sum += w[r];
    }
    const double mass = 0.6 + 0.35 * unit_interval(hash3(spec.seed, kStreamDDTreeMass, d));
    for (int r = 0; r < k; ++r) w[r] = mass * w[r] / sum;
    std::sort(w.begin(), w.end(), std::greater<double>());  // jitter may reorder ranks
    probs[d] = std::move(w);
  }

  struct Entry {
    double score;
    std::uint64_t seq;  // push order: earlier wins ties, so the result is deterministic
    int parent;         // node id in the output tree
    int depth;
  };
  auto worse = [](const Entry& a, const Entry& b) {
    if (a.score != b.score) return a.score < b.score;
    return a.seq > b.seq;
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(worse)> heap(worse);
  std::uint64_t seq = 0;
  heap.push({1.0, seq++, -1, 0});
  Tree t;
  while (t.size() < spec.budget) {
    if (heap.empty()) {
      fail("ddtree", "ran out of candidates before reaching budget " + std::to_string(spec.budget));
    }
    const Entry e = heap.top();
    heap.pop();
    const int id = t.size();
    t.parents.push_back(e.parent);
    if (e.depth + 1 <= max_depth) {
      for (int r = 0; r < k; ++r) heap.push({e.score * probs[e.depth + 1][r], seq++, id, e.depth + 1});
    }
  }
  return t;
}

}  // namespace

int tree_size(const TreeSpec& spec) { return validated_size(spec); }

Tree build_tree(const TreeSpec& spec, int request) {
  const int n = validated_size(spec);
  switch (spec.kind) {
    case TreeKind::kChain: return chain_tree(n);
    case TreeKind::kKAry: return kary_tree(spec.branching, n);
    case TreeKind::kEagle: return eagle_tree(spec);
    case TreeKind::kDDTree: return ddtree_tree(spec);
    case TreeKind::kRandom: return random_tree(n, spec.seed, request);
    case TreeKind::kExplicit: return Tree{spec.parents};
  }
  throw ScenarioError("unknown tree kind " + std::to_string(static_cast<int>(spec.kind)));
}

std::vector<int> tree_depths(const Tree& tree) {
  std::vector<int> depth(tree.parents.size(), 0);
  for (std::size_t i = 1; i < tree.parents.size(); ++i) depth[i] = depth[tree.parents[i]] + 1;
  return depth;
}

int mask_words_for(int tree_size) {
  return (tree_size + mla::kMaskWordBits - 1) / mla::kMaskWordBits;
}

std::vector<std::uint64_t> ancestor_masks(const Tree& tree) {
  const int n = tree.size();
  const int words = mask_words_for(n);
  std::vector<std::uint64_t> mask(static_cast<std::size_t>(n) * words, 0);
  for (int i = 0; i < n; ++i) {
    std::uint64_t* row = mask.data() + static_cast<std::size_t>(i) * words;
    const int p = tree.parents[i];
    if (p >= 0) {
      if (p >= i) throw std::logic_error("ancestor_masks: parents[i] must be < i");
      const std::uint64_t* prow = mask.data() + static_cast<std::size_t>(p) * words;
      std::copy(prow, prow + words, row);
    }
    row[i / mla::kMaskWordBits] |= std::uint64_t{1} << (i % mla::kMaskWordBits);
  }
  return mask;
}

}  // namespace vb

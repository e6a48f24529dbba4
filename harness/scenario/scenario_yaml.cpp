// Scenario YAML -> CaseSpec: parsing, validation and sweep expansion (harness/scenario/scenario.h).
// The schema is documented in scenarios/README.md; keep the two in step.
//
// Every bad input ends as ONE ScenarioError whose message reads
//     <file>:<line>:<column>: <dotted field path>: got <value>; allowed: <what is allowed>
// (line and column 1-based, the position of the offending YAML node).
//
// Sweeps are applied without copying YAML: a sweep point is a set of overrides
// (dotted path -> the sweep list's element node) consulted by MapView whenever a map is
// read, so a swept value goes through exactly the same parser and validator as a written
// one and its error still points at the sweep value's own line (YAML::Clone would drop
// the marks).
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <fmt/format.h>

#include <algorithm>
#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/scenario/scenario.h"
#include "verifybench/decimal_text.h"
#include "verifybench/verify_params.h"

namespace vb {
namespace {

// ---- limits (documented in scenarios/README.md) ----
constexpr int kMaxHeads = 128;
constexpr int kMaxBatch = 1024;
constexpr int kMaxPrefix = 1 << 20;  // 1048576 tokens: beyond that a value is a typo
constexpr int kMaxSampledRows = 1 << 20;
constexpr int kMaxTreeNodes = mla::kMaxTreeNodes;
constexpr std::int64_t kMaxPoolBytes = std::int64_t{8} << 30;  // host memory for one case
constexpr std::int64_t kMaxSweepPoints = 4096;
constexpr std::size_t kMaxShownChars = 80;
// sm_scale: wide enough for any model's 1/sqrt(d) * mscale^2, narrow enough that the float
// the kernels get is a normal number and scaled scores stay far from fp32's range.
constexpr double kMinSmScale = 1e-6;
constexpr double kMaxSmScale = 100.0;
// kv_cache.scale: wide enough for any calibration of bf16-range data (amax / 448).
constexpr double kMinKvScale = 0x1.0p-20;
constexpr double kMaxKvScale = 0x1.0p20;
constexpr double kMaxLogNormalSigma = 10.0;
// Reference cost per (query row, candidate token): a 576-wide dot product and a 512-wide
// weighted sum, 2 FLOP each; its gathered K holds one double per channel per token.
constexpr double kReferenceFlopPerRowToken = 2.0 * (mla::kHeadDimQK + mla::kHeadDimV);
constexpr std::int64_t kReferenceBytesPerToken = mla::kHeadDimQK * 8;

// ---- sm_scale presets: 192^-0.5 * (0.1 * ln(yarn_factor) + 1)^2 (docs/background.md §1) ----
struct Preset {
  const char* name;
  double yarn_factor;
};
constexpr Preset kScalePresets[] = {{"kimi-k2", 32.0}, {"kimi-k2-f64", 64.0}, {"deepseek-v3", 40.0}};
constexpr int kQkHeadDimForScale = 192;  // qk_nope 128 + rope 64, not 576

double preset_scale(double factor) {
  const double mscale = 0.1 * std::log(factor) + 1.0;
  return mscale * mscale / std::sqrt(static_cast<double>(kQkHeadDimForScale));
}

// ---- keys ----
const std::vector<std::string> kTopKeys = {"scenarios"};
const std::vector<std::string> kEntryKeys = {"name",  "tags",  "heads", "sm_scale",
                                             "dtype", "seed",  "tolerance", "check",
                                             "batch", "tree",  "pages", "sweep",
                                             "gate",  "data", "planner", "kv_cache",
                                             "math"};
const std::vector<std::string> kToleranceKeys = {"o_atol", "o_rtol", "lse_atol", "lse_rtol"};
const std::vector<std::string> kPageKeys = {"size", "placement", "seed", "shared_prefix"};
const std::vector<std::string> kSharedPrefixKeys = {"groups", "length"};

// Fields a sweep may set: every scalar (or list-valued) field of an entry except the
// entry's identity (name, tags) and the sweep itself.
const std::vector<std::string> kSweepable = {
    "heads", "sm_scale", "dtype", "seed",
    "tolerance.o_atol", "tolerance.o_rtol", "tolerance.lse_atol", "tolerance.lse_rtol",
    "check.mode", "check.rows", "check.seed",
    "batch.prefix_lens", "batch.size", "batch.seed", "batch.prefix.dist", "batch.prefix.value",
    "batch.prefix.min", "batch.prefix.max", "batch.prefix.median", "batch.prefix.sigma",
    "tree.kind", "tree.nodes", "tree.branching", "tree.depth", "tree.steps", "tree.topk",
    "tree.tokens", "tree.budget", "tree.max_depth", "tree.seed", "tree.parents",
    "pages.size", "pages.placement", "pages.seed", "pages.shared_prefix.groups",
    "pages.shared_prefix.length", "gate.tolerance",
    "data.dist", "data.scale", "data.at", "data.count", "data.nats", "data.step",
    "data.distinct", "data.channels", "data.factor", "data.poison.value", "data.poison.in",
    "kv_cache.dtype", "kv_cache.scale", "math"};

std::string join(const std::vector<std::string>& v, const char* sep = ", ") {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) out += sep;
    out += v[i];
  }
  return out;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}
bool contains_int(const std::vector<int>& v, int x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// ---- context and errors ----
struct Override {
  YAML::Node value;
  YAML::Mark key_mark;  // of the sweep key, for "unknown key" errors on swept fields
};

struct Ctx {
  std::string file;
  YAML::Mark fallback;  // for nodes that carry no mark (maps a sweep had to create)
  std::string note;     // appended to messages: " (sweep point heads=8)"
  std::map<std::string, Override> overrides;  // entry-relative dotted path -> sweep value
  ScenarioLimits limits;
};

bool has_mark(const YAML::Mark& m) { return m.line >= 0 && m.column >= 0; }

std::string where(const Ctx& c, const YAML::Mark& m) {
  const YAML::Mark& use = has_mark(m) ? m : c.fallback;
  if (!has_mark(use)) return c.file;
  return fmt::format("{}:{}:{}", c.file, use.line + 1, use.column + 1);
}

YAML::Mark mark_of(const YAML::Node& n) {
  return n.IsDefined() ? n.Mark() : YAML::Mark::null_mark();
}

// A plain scalar: neither quoted (tag "!") nor explicitly tagged (walk_tags refuses tags).
bool is_plain(const YAML::Node& n) { return n.IsScalar() && n.Tag() == "?"; }

// one_line_text(), at most kMaxShownChars characters: for values quoted in a message.
std::string printable(const std::string& raw) {
  const std::string s = one_line_text(raw);
  return s.size() > kMaxShownChars ? s.substr(0, kMaxShownChars) + "..." : s;
}

// A value's one canonical text, whatever YAML style it was written in: a plain scalar
// as written, a quoted one in double quotes, a list as [a, b], a map as {k: v}, null as ~.
// Sweep values are told apart by it, in full, and case names are made from it, so a
// block-style list and the same list in flow style name the same case.
std::string canonical_value(const YAML::Node& n) {
  std::string out;
  switch (n.Type()) {
    case YAML::NodeType::Scalar: return is_plain(n) ? n.Scalar() : "\"" + n.Scalar() + "\"";
    case YAML::NodeType::Sequence:
      out = "[";
      for (std::size_t i = 0; i < n.size(); ++i) out += (i ? ", " : "") + canonical_value(n[i]);
      return out + "]";
    case YAML::NodeType::Map:
      out = "{";
      for (const auto& kv : n) {
        out += (out.size() > 1 ? ", " : "") + canonical_value(kv.first) + ": " + canonical_value(kv.second);
      }
      return out + "}";
    default: return "~";
  }
}

// The node for messages: its canonical text (quoted strings stay quoted), long text cut.
std::string show(const YAML::Node& n) {
  if (!n.IsDefined()) return "nothing";
  if (n.IsNull()) return "null (empty value)";
  return printable(canonical_value(n));
}

[[noreturn]] void fail_at(const Ctx& c, const YAML::Mark& m, const std::string& path,
                          const std::string& msg) {
  // Keys and values may hold any bytes (quoted YAML): the message stays one line.
  throw ScenarioError(one_line_text(fmt::format("{}: {}: {}{}", where(c, m), path, msg, c.note)));
}

[[noreturn]] void fail_value(const Ctx& c, const YAML::Node& n, const std::string& path,
                             const std::string& allowed, const std::string& why = "") {
  fail_at(c, mark_of(n), path,
          fmt::format("got {}{}; allowed: {}", show(n), why.empty() ? "" : " (" + why + ")", allowed));
}

// ---- scalars ----
// Integers are plain decimal scalars (no quotes, no exponent, no hex) in [lo, hi]
// (verifybench/decimal_text.h).
std::int64_t as_int(const Ctx& c, const YAML::Node& n, const std::string& path, std::int64_t lo,
                    std::int64_t hi, const std::string& allowed = "") {
  const std::string what = allowed.empty() ? fmt::format("an integer in {}..{}", lo, hi) : allowed;
  const std::optional<std::int64_t> v = is_plain(n) ? parse_decimal_integer(n.Scalar(), true) : std::nullopt;
  if (!v || *v < lo || *v > hi) fail_value(c, n, path, what);
  return *v;
}

std::uint64_t as_seed(const Ctx& c, const YAML::Node& n, const std::string& path) {
  const std::string what = "an integer in 0..18446744073709551615";
  if (!is_plain(n) || !decimal_integer_syntax(n.Scalar(), false)) fail_value(c, n, path, what);
  const std::string& s = n.Scalar();
  std::uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ptr != s.data() + s.size() || ec != std::errc()) fail_value(c, n, path, what);
  return v;
}

// Finite decimal number (integer, fraction or exponent form), plain scalar.
bool parse_number(const YAML::Node& n, double* out) {
  const std::optional<double> v = is_plain(n) ? parse_decimal_number(n.Scalar()) : std::nullopt;
  if (v) *out = *v;
  return v.has_value();
}

double as_number(const Ctx& c, const YAML::Node& n, const std::string& path, bool zero_ok) {
  const std::string what = zero_ok ? "a finite number >= 0" : "a finite number > 0";
  double v = 0;
  if (!parse_number(n, &v) || v < 0 || (!zero_ok && v == 0)) fail_value(c, n, path, what);
  return v;
}

std::string as_choice(const Ctx& c, const YAML::Node& n, const std::string& path,
                      const std::vector<std::string>& options) {
  const std::string what = "one of " + join(options);
  if (!is_plain(n) || !contains(options, n.Scalar())) fail_value(c, n, path, what);
  return n.Scalar();
}

bool valid_name(const std::string& s) {
  if (s.empty()) return false;
  return std::all_of(s.begin(), s.end(), [](char ch) {
    return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
           ch == '_' || ch == '.' || ch == '-';
  });
}

std::string as_name(const Ctx& c, const YAML::Node& n, const std::string& path) {
  if (!n.IsScalar() || !valid_name(n.Scalar())) {
    fail_value(c, n, path, "a non-empty string of [A-Za-z0-9_.-]");
  }
  return n.Scalar();
}

// A tag is a name, optionally "<key>:<name>" (e.g. mask-tax-baseline:<case name>).
std::string as_tag(const Ctx& c, const YAML::Node& n, const std::string& path) {
  const std::string text = n.IsScalar() ? n.Scalar() : std::string();
  const std::size_t colon = text.find(':');
  const bool ok = colon == std::string::npos
                      ? valid_name(text)
                      : valid_name(text.substr(0, colon)) && valid_name(text.substr(colon + 1));
  if (!n.IsScalar() || !ok) fail_value(c, n, path, "[A-Za-z0-9_.-]+, optionally <key>:<value> of that form");
  return text;
}

// ---- maps, with the sweep point's overrides applied ----
class MapView {
 public:
  // `node` may be absent (present == false): then the map is empty except for overrides.
  // `path` is the dotted path shown in messages ("scenarios[2].tree"), `rel` the path
  // relative to the scenario entry that overrides are keyed by ("tree"; "" for the entry).
  MapView(const Ctx& c, const YAML::Node& node, bool present, std::string path, std::string rel)
      : c_(c), path_(std::move(path)), rel_(std::move(rel)) {
    mark_ = present ? node.Mark() : YAML::Mark::null_mark();
    if (present) {
      if (!node.IsMap()) fail_value(c_, node, path_.empty() ? "the top level" : path_, "a map (key: value, ...)");
      for (const auto& kv : node) {
        const YAML::Node& k = kv.first;
        if (!k.IsScalar()) fail_value(c_, k, path_, "string keys only");
        const std::string key = k.Scalar();
        if (const Field* prev = find(key)) {
          fail_at(c_, k.Mark(), child_path(key),
                  fmt::format("duplicate key '{}' (first at line {}){}", key,
                              prev->key_mark.line + 1,
                              key == "sweep" ? "; at most one sweep per entry" : ""));
        }
        add(key, kv.second, k.Mark());
      }
    }
    const std::string prefix = rel_.empty() ? "" : rel_ + ".";
    for (const auto& [opath, ov] : c_.overrides) {
      if (opath.compare(0, prefix.size(), prefix) != 0) continue;
      const std::string rest = opath.substr(prefix.size());
      const std::size_t dot = rest.find('.');
      const std::string head = rest.substr(0, dot);
      Field* f = find(head);
      if (dot == std::string::npos) {
        if (f) {
          f->value = ov.value;
        } else {
          add(head, ov.value, ov.key_mark);
        }
      } else if (!f) {
        // A swept field inside a section the entry does not write: an empty map the
        // nested MapView fills from the overrides.
        add(head, YAML::Node(YAML::NodeType::Map), ov.key_mark);
      }
    }
  }

  const std::string& path() const { return path_; }
  YAML::Mark mark() const { return mark_; }
  std::string child_path(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }
  std::string child_rel(const std::string& key) const {
    return rel_.empty() ? key : rel_ + "." + key;
  }

  bool has(const std::string& key) const { return find(key) != nullptr; }
  YAML::Node get(const std::string& key) const { return find(key)->value; }
  YAML::Node require(const std::string& key, const std::string& allowed) const {
    const Field* f = find(key);
    if (!f) {
      fail_at(c_, mark_, child_path(key),
              fmt::format("missing required key '{}' in {}; allowed: {}", key,
                          path_.empty() ? "the file" : path_, allowed));
    }
    return f->value;
  }
  MapView sub(const std::string& key) const {
    const Field* f = find(key);
    return MapView(c_, f ? f->value : YAML::Node(), f != nullptr, child_path(key), child_rel(key));
  }

  // Refuses any key outside `allowed`; `what` describes the map ("a kary tree").
  void allow_only(const std::vector<std::string>& allowed, const std::string& what) const {
    for (const Field& f : fields_) {
      if (!contains(allowed, f.key)) {
        fail_at(c_, f.key_mark, child_path(f.key),
                fmt::format("unknown key '{}' in {}; allowed keys: {}", f.key, what, join(allowed)));
      }
    }
  }

 private:
  struct Field {
    std::string key;
    YAML::Node value;
    YAML::Mark key_mark;
  };
  // Keys are indexed as they are added, so a map of n keys costs O(n log n), duplicates
  // included.
  const Field* find(const std::string& key) const {
    const auto it = index_.find(key);
    return it == index_.end() ? nullptr : &fields_[it->second];
  }
  Field* find(const std::string& key) {
    const auto it = index_.find(key);
    return it == index_.end() ? nullptr : &fields_[it->second];
  }
  void add(const std::string& key, const YAML::Node& value, const YAML::Mark& key_mark) {
    index_.emplace(key, fields_.size());
    fields_.push_back({key, value, key_mark});
  }

  const Ctx& c_;
  std::string path_, rel_;
  YAML::Mark mark_;
  std::vector<Field> fields_;
  std::map<std::string, std::size_t> index_;
};

// ---- sections ----
int req_int(const Ctx& c, const MapView& m, const std::string& key, std::int64_t lo, std::int64_t hi) {
  const std::string allowed = fmt::format("an integer in {}..{}", lo, hi);
  return static_cast<int>(as_int(c, m.require(key, allowed), m.child_path(key), lo, hi));
}
int opt_int(const Ctx& c, const MapView& m, const std::string& key, std::int64_t lo, std::int64_t hi,
            int def) {
  return m.has(key) ? static_cast<int>(as_int(c, m.get(key), m.child_path(key), lo, hi)) : def;
}
std::uint64_t opt_seed(const Ctx& c, const MapView& m, const std::string& key) {
  return m.has(key) ? as_seed(c, m.get(key), m.child_path(key)) : 0;
}


const std::vector<std::string> kTreeKinds = {"chain", "kary", "eagle", "ddtree", "random", "explicit"};

// Fills the tree spec and returns its node count T (1..kMaxTreeNodes). The rules match
// harness/problem/tree.cpp's tree_size(); here they fail with a position.
int parse_tree(const Ctx& c, const MapView& t, TreeSpec* out) {
  const std::string kind =
      as_choice(c, t.require("kind", "one of " + join(kTreeKinds)), t.child_path("kind"), kTreeKinds);
  const std::string what = "a " + kind + " tree";
  const std::string nodes_allowed = fmt::format("an integer in 1..{}", kMaxTreeNodes);
  if (kind == "chain" || kind == "random") {
    t.allow_only(kind == "chain" ? std::vector<std::string>{"kind", "nodes"}
                                 : std::vector<std::string>{"kind", "nodes", "seed"},
                 what);
    out->kind = kind == "chain" ? TreeKind::kChain : TreeKind::kRandom;
    out->nodes = req_int(c, t, "nodes", 1, kMaxTreeNodes);
    out->seed = opt_seed(c, t, "seed");
    return out->nodes;
  }
  if (kind == "kary") {
    t.allow_only({"kind", "branching", "depth"}, what);
    out->kind = TreeKind::kKAry;
    out->branching = req_int(c, t, "branching", 1, kMaxTreeNodes - 1);
    out->depth = req_int(c, t, "depth", 0, kMaxTreeNodes - 1);
    const std::int64_t n = full_tree_nodes(out->branching, out->depth, kMaxTreeNodes);
    if (n < 0) {
      fail_value(c, t.get("depth"), t.child_path("depth"),
                 fmt::format("a depth whose full tree (k^(d+1)-1)/(k-1) has at most {} nodes",
                             kMaxTreeNodes),
                 fmt::format("branching {} and depth {} give more than {} nodes", out->branching,
                             out->depth, kMaxTreeNodes));
    }
    return static_cast<int>(n);
  }
  if (kind == "eagle") {
    t.allow_only({"kind", "steps", "topk", "tokens", "seed"}, what);
    out->kind = TreeKind::kEagle;
    out->steps = req_int(c, t, "steps", 1, kMaxTreeNodes);
    out->topk = req_int(c, t, "topk", 1, kMaxTreeNodes);
    out->tokens = req_int(c, t, "tokens", 1, kMaxTreeNodes);
    out->seed = opt_seed(c, t, "seed");
    // SGLang's candidate pool: the root, topk children at step 1, topk*topk per later step.
    const std::int64_t k = out->topk;
    const std::int64_t candidates = 1 + k + static_cast<std::int64_t>(out->steps - 1) * k * k;
    if (out->tokens > candidates) {
      fail_value(c, t.get("tokens"), t.child_path("tokens"),
                 fmt::format("at most 1 + topk + (steps-1)*topk^2 = {} (the candidates of steps "
                             "{}, topk {})",
                             candidates, out->steps, out->topk));
    }
    return out->tokens;
  }
  if (kind == "ddtree") {
    t.allow_only({"kind", "budget", "topk", "max_depth", "seed"}, what);
    out->kind = TreeKind::kDDTree;
    out->budget = req_int(c, t, "budget", 1, kMaxTreeNodes);
    out->topk = req_int(c, t, "topk", 1, kMaxTreeNodes);
    out->max_depth = opt_int(c, t, "max_depth", 0, kMaxTreeNodes - 1, 0);
    out->seed = opt_seed(c, t, "seed");
    if (out->max_depth > 0) {
      const std::int64_t capacity = full_tree_nodes(out->topk, out->max_depth, kMaxTreeNodes);
      if (capacity >= 0 && capacity < out->budget) {
        fail_value(c, t.get("budget"), t.child_path("budget"),
                   fmt::format("at most {} (the nodes a tree of topk {} and max_depth {} holds)",
                               capacity, out->topk, out->max_depth));
      }
    }
    return out->budget;
  }
  // explicit
  t.allow_only({"kind", "parents"}, what);
  out->kind = TreeKind::kExplicit;
  const std::string list_allowed =
      fmt::format("a list of 1..{} parent indices, parents[0] = -1", kMaxTreeNodes);
  const YAML::Node p = t.require("parents", list_allowed);
  const std::string ppath = t.child_path("parents");
  if (!p.IsSequence() || p.size() < 1 || p.size() > static_cast<std::size_t>(kMaxTreeNodes)) {
    fail_value(c, p, ppath, list_allowed);
  }
  out->parents.clear();
  for (std::size_t i = 0; i < p.size(); ++i) {
    const std::string ep = fmt::format("{}[{}]", ppath, i);
    if (i == 0) {
      as_int(c, p[i], ep, -1, -1, "-1 (node 0 is the root)");
      out->parents.push_back(-1);
      continue;
    }
    const std::int64_t v =
        as_int(c, p[i], ep, std::numeric_limits<int>::min(), std::numeric_limits<int>::max(),
               fmt::format("an integer in 0..{}", i - 1));
    if (v < 0 || v >= static_cast<std::int64_t>(i)) {
      fail_value(c, p[i], ep, fmt::format("a parent index in 0..{}", i - 1),
                 v < 0 ? std::string("only node 0 is a root")
                       : fmt::format("node {} would have a parent that is not before it: a "
                                     "cycle or a parent >= child",
                                     i));
    }
    out->parents.push_back(static_cast<int>(v));
  }
  return static_cast<int>(out->parents.size());
}

const std::vector<std::string> kDists = {"fixed", "uniform", "lognormal"};

// Fills the batch spec; returns the smallest and largest prefix a request can get.
std::pair<int, int> parse_batch(const Ctx& c, const MapView& b, BatchSpec* out) {
  const std::string forms = "either {prefix_lens: [...]} or {size: N, prefix: {dist: ...}, seed: S}";
  if (b.has("prefix_lens")) {
    for (const char* other : {"size", "prefix", "seed"}) {
      if (b.has(other)) {
        fail_at(c, mark_of(b.get(other)), b.child_path(other),
                fmt::format("'{}' cannot be combined with prefix_lens; allowed: {}", other, forms));
      }
    }
    b.allow_only({"prefix_lens"}, "a batch");
    const YAML::Node l = b.get("prefix_lens");
    const std::string lpath = b.child_path("prefix_lens");
    const std::string allowed = fmt::format("a list of 1..{} prefix lengths", kMaxBatch);
    if (!l.IsSequence() || l.size() < 1 || l.size() > static_cast<std::size_t>(kMaxBatch)) {
      fail_value(c, l, lpath, allowed);
    }
    out->dist = PrefixDist::kList;
    out->prefix_lens.clear();
    for (std::size_t i = 0; i < l.size(); ++i) {
      out->prefix_lens.push_back(
          static_cast<int>(as_int(c, l[i], fmt::format("{}[{}]", lpath, i), 0, kMaxPrefix)));
    }
    out->size = static_cast<int>(out->prefix_lens.size());
    const auto [lo, hi] = std::minmax_element(out->prefix_lens.begin(), out->prefix_lens.end());
    return {*lo, *hi};
  }
  if (!b.has("size") && !b.has("prefix")) {
    fail_at(c, b.mark(), b.path(), "missing prefix_lens or size + prefix; allowed: " + forms);
  }
  b.allow_only({"size", "prefix", "seed"}, "a batch with a prefix distribution");
  out->size = req_int(c, b, "size", 1, kMaxBatch);
  out->seed = opt_seed(c, b, "seed");
  b.require("prefix", "a map {dist: fixed|uniform|lognormal, ...}");
  const MapView p = b.sub("prefix");
  const std::string dist =
      as_choice(c, p.require("dist", "one of " + join(kDists)), p.child_path("dist"), kDists);
  const std::string what = "a " + dist + " prefix distribution";
  if (dist == "fixed") {
    p.allow_only({"dist", "value"}, what);
    out->dist = PrefixDist::kFixed;
    out->value = req_int(c, p, "value", 0, kMaxPrefix);
    return {out->value, out->value};
  }
  if (dist == "uniform") {
    p.allow_only({"dist", "min", "max"}, what);
    out->dist = PrefixDist::kUniform;
    out->min = req_int(c, p, "min", 0, kMaxPrefix);
    out->max = req_int(c, p, "max", 0, kMaxPrefix);
  } else {
    p.allow_only({"dist", "median", "sigma", "min", "max"}, what);
    out->dist = PrefixDist::kLogNormal;
    out->median = as_number(c, p.require("median", "a finite number > 0"), p.child_path("median"), false);
    out->sigma = as_number(c, p.require("sigma", "a finite number >= 0"), p.child_path("sigma"), true);
    out->min = opt_int(c, p, "min", 0, kMaxPrefix, 0);
    out->max = req_int(c, p, "max", 1, kMaxPrefix);  // the clamp the samples need
    // A median outside [min, max] would clamp most requests to a bound: the file would not
    // describe what runs.
    if (out->median < out->min || out->median > out->max) {
      fail_value(c, p.get("median"), p.child_path("median"),
                 fmt::format("a number in [min, max] = [{}, {}]", out->min, out->max),
                 "outside the clamp, most requests would get a bound instead of a draw");
    }
    if (out->sigma > kMaxLogNormalSigma) {
      fail_value(c, p.get("sigma"), p.child_path("sigma"),
                 fmt::format("a number in 0..{}", kMaxLogNormalSigma));
    }
  }
  if (out->max < out->min) {
    fail_value(c, p.get("max"), p.child_path("max"),
               fmt::format("an integer in {}..{} (max >= min)", out->min, kMaxPrefix));
  }
  return {out->min, out->max};
}

const std::vector<std::string> kPlacements = {"contiguous", "shuffled", "interleaved",
                                              "fragmented", "reversed"};

void parse_pages(const Ctx& c, const MapView& p, int batch_size, int min_prefix, PageSpec* out) {
  p.allow_only(kPageKeys, "pages");
  if (p.has("size")) {
    const int s = static_cast<int>(as_int(c, p.get("size"), p.child_path("size"), 1, 64, "1, 16 or 64"));
    if (s != 1 && s != 16 && s != 64) fail_value(c, p.get("size"), p.child_path("size"), "1, 16 or 64");
    out->size = s;
  }
  if (p.has("placement")) {
    const std::string pl = as_choice(c, p.get("placement"), p.child_path("placement"), kPlacements);
    out->placement = static_cast<PagePlacement>(
        std::find(kPlacements.begin(), kPlacements.end(), pl) - kPlacements.begin());
  }
  out->seed = opt_seed(c, p, "seed");
  if (!p.has("shared_prefix")) return;
  const MapView s = p.sub("shared_prefix");
  s.allow_only(kSharedPrefixKeys, "pages.shared_prefix");
  out->shared_prefix.groups = req_int(c, s, "groups", 1, batch_size);
  out->shared_prefix.length = req_int(c, s, "length", 0, kMaxPrefix);
  const int len = out->shared_prefix.length;
  if (len % out->size != 0) {
    fail_value(c, s.get("length"), s.child_path("length"),
               fmt::format("a multiple of the page size {}", out->size));
  }
  if (len > min_prefix) {
    fail_value(c, s.get("length"), s.child_path("length"),
               fmt::format("at most {}, the shortest prefix a request of this batch can have "
                           "(every request's prefix must hold the shared part)",
                           min_prefix));
  }
}

void parse_check(const Ctx& c, const MapView& m, CheckSpec* out) {
  const std::vector<std::string> modes = {"full", "sampled"};
  const std::string mode = as_choice(c, m.require("mode", "full or sampled"), m.child_path("mode"), modes);
  out->mode = mode == "full" ? CheckMode::kFull : CheckMode::kSampled;
  if (out->mode == CheckMode::kFull) {
    m.allow_only({"mode"}, "check with mode full");
  } else {
    m.allow_only({"mode", "rows", "seed"}, "check with mode sampled");
    out->sampled_rows = opt_int(c, m, "rows", 1, kMaxSampledRows, out->sampled_rows);
    out->seed = opt_seed(c, m, "seed");
  }
}

// Tolerances that can still fail. |x - ref| <= atol + rtol * |ref| lets an all-zero output
// pass wherever |ref| * (1 - rtol) <= atol: with |ref| up to M (data_value_magnitude) that
// is everywhere once rtol >= 1 or atol >= M * (1 - rtol). An LSE off by a whole nat scales
// every softmax weight by e.
void parse_tolerance(const Ctx& c, const MapView& t, const DataSpec& data, ToleranceSpec* out) {
  t.allow_only(kToleranceKeys, "tolerance");
  double* fields[] = {&out->o_atol, &out->o_rtol, &out->lse_atol, &out->lse_rtol};
  for (std::size_t i = 0; i < kToleranceKeys.size(); ++i) {
    if (!t.has(kToleranceKeys[i])) continue;
    const YAML::Node n = t.get(kToleranceKeys[i]);
    const std::string path = t.child_path(kToleranceKeys[i]);
    *fields[i] = as_number(c, n, path, true);
    if (i == 1 || i == 3) {
      if (*fields[i] >= 1) fail_value(c, n, path, "a number in [0, 1)", "with rtol >= 1 an all-zero output passes");
    } else if (i == 2 && *fields[i] >= 1) {
      fail_value(c, n, path, "a number in [0, 1) nats", "an LSE off by a nat scales every weight by e");
    }
  }
  const double magnitude = data_value_magnitude(data);
  if (out->o_atol >= magnitude * (1 - out->o_rtol)) {
    const std::string key = t.has("o_atol") ? "o_atol" : "o_rtol";
    fail_value(c, t.has(key) ? t.get(key) : YAML::Node(), t.child_path(key),
               fmt::format("o_atol < M * (1 - o_rtol) = {:g}, M = {:g} the largest |V| of data "
                           "'{}'",
                           magnitude * (1 - out->o_rtol), magnitude, to_string(data.dist)),
               "a check that cannot fail: an all-zero output would pass");
  }
}

const std::vector<std::string> kDataDists = {"uniform", "normal", "sink", "rising",
                                             "large", "ties", "outlier_channels"};
const std::vector<std::string> kSinkPlaces = {"first", "last", "root", "tree"};

double data_number(const Ctx& c, const MapView& d, const std::string& key, double lo, double hi,
                   double def) {
  if (!d.has(key)) return def;
  const YAML::Node n = d.get(key);
  double v = 0;
  if (!parse_number(n, &v) || !(v > lo) || v > hi) {
    fail_value(c, n, d.child_path(key), fmt::format("a number in ({:g}, {:g}]", lo, hi));
  }
  return v;
}

void parse_poison(const Ctx& c, const MapView& p, DataSpec* out) {
  p.allow_only({"value", "in"}, "data.poison");
  const std::string value = as_choice(c, p.require("value", "nan or inf"), p.child_path("value"), {"nan", "inf"});
  out->poison = value == "nan" ? PoisonValue::kNaN : PoisonValue::kInf;
  if (p.has("in")) {
    out->poison_in = as_choice(c, p.get("in"), p.child_path("in"), {"q", "kv"}) == "q" ? PoisonIn::kQ : PoisonIn::kKv;
  }
}

void parse_data(const Ctx& c, const MapView& d, DataSpec* out) {
  const std::string dist = as_choice(c, d.require("dist", "one of " + join(kDataDists)),
                                     d.child_path("dist"), kDataDists);
  out->dist = static_cast<DataDist>(
      std::find(kDataDists.begin(), kDataDists.end(), dist) - kDataDists.begin());
  const std::string what = "data with dist " + dist;
  if (d.has("poison")) parse_poison(c, d.sub("poison"), out);
  // Every distribution also takes `poison`.
  auto allow_only = [&](std::vector<std::string> keys, const std::string& desc) {
    keys.push_back("poison");
    d.allow_only(keys, desc);
  };
  switch (out->dist) {
    case DataDist::kUniform:
      allow_only({"dist"}, what);
      return;
    case DataDist::kNormal:
      allow_only({"dist", "scale"}, what);
      out->scale = data_number(c, d, "scale", 0, 4, out->scale);
      if (out->scale < kMinNormalScale) {
        fail_value(c, d.get("scale"), d.child_path("scale"), fmt::format("a number in [{:.3g}, 4]", kMinNormalScale),
                   "below 2^-60 the data, the scores q.K and o_atol round toward zero in bf16 and fp32: an "
                   "all-zero output would pass");
      }
      return;
    case DataDist::kSink: {
      allow_only({"dist", "at", "count", "nats"}, what);
      out->sink_nats = data_number(c, d, "nats", 0, 60, out->sink_nats);
      if (d.has("at")) {
        const YAML::Node at = d.get("at");
        const std::string path = d.child_path("at");
        if (is_plain(at) && contains(kSinkPlaces, at.Scalar())) {
          out->sink_at = static_cast<SinkAt>(
              std::find(kSinkPlaces.begin(), kSinkPlaces.end(), at.Scalar()) - kSinkPlaces.begin());
        } else {
          out->sink_at = SinkAt::kIndex;
          out->sink_index = static_cast<int>(as_int(c, at, path, 0, kMaxPrefix - 1,
                                                    "first, last, root, tree or a prefix position 0..1048575"));
        }
      }
      if (d.has("count")) {
        if (out->sink_at == SinkAt::kRoot || out->sink_at == SinkAt::kTree) {
          fail_at(c, mark_of(d.get("count")), d.child_path("count"),
                  fmt::format("'count' cannot be combined with at: {}; allowed: count with at: first, last or a position",
                              to_string(out->sink_at)));
        }
        out->sink_count = static_cast<int>(as_int(c, d.get("count"), d.child_path("count"), 1, 64));
      }
      return;
    }
    case DataDist::kRising:
      allow_only({"dist", "step"}, what);
      out->rise_nats = data_number(c, d, "step", 0, 1, out->rise_nats);
      return;
    case DataDist::kLarge:
      allow_only({"dist", "nats"}, what);
      out->large_nats = data_number(c, d, "nats", 0, 120, out->large_nats);
      return;
    case DataDist::kTies:
      allow_only({"dist", "distinct"}, what);
      out->distinct_rows = static_cast<int>(
          d.has("distinct") ? as_int(c, d.get("distinct"), d.child_path("distinct"), 1, kMaxPrefix)
                            : out->distinct_rows);
      return;
    case DataDist::kOutlierChannels: {
      allow_only({"dist", "channels", "factor"}, what);
      out->outlier_factor = data_number(c, d, "factor", 1, 1000, out->outlier_factor);
      if (!d.has("channels")) return;
      const YAML::Node l = d.get("channels");
      const std::string path = d.child_path("channels");
      const std::string allowed = "a list of 1..16 distinct channels in 0..575";
      if (!l.IsSequence() || l.size() < 1 || l.size() > 16) fail_value(c, l, path, allowed);
      out->outlier_channels.clear();
      for (std::size_t i = 0; i < l.size(); ++i) {
        const int ch = static_cast<int>(as_int(c, l[i], fmt::format("{}[{}]", path, i), 0, mla::kHeadDimQK - 1));
        if (contains_int(out->outlier_channels, ch)) {
          fail_value(c, l[i], fmt::format("{}[{}]", path, i), allowed, "repeated");
        }
        out->outlier_channels.push_back(ch);
      }
      return;
    }
  }
}

// `kv_cache: {dtype: bf16 | fp8_e4m3, scale: <number> | amax}`; scale only with fp8_e4m3.
void parse_kv_cache(const Ctx& c, const MapView& k, KvCacheSpec* out) {
  k.allow_only({"dtype", "scale"}, "kv_cache");
  const std::vector<std::string> dtypes = {to_string(KvDtype::kBf16), to_string(KvDtype::kFp8E4m3)};
  const std::string dtype = as_choice(c, k.require("dtype", "one of " + join(dtypes)), k.child_path("dtype"), dtypes);
  out->dtype = dtype == dtypes[0] ? KvDtype::kBf16 : KvDtype::kFp8E4m3;
  if (!k.has("scale")) return;
  const YAML::Node n = k.get("scale");
  const std::string path = k.child_path("scale");
  if (out->dtype != KvDtype::kFp8E4m3) {
    fail_at(c, mark_of(n), path, "a scale applies to dtype fp8_e4m3 only; a bf16 pool holds its values as they are");
  }
  if (is_plain(n) && n.Scalar() == "amax") {
    out->scale_from_amax = true;
    return;
  }
  double v = 0;
  if (!parse_number(n, &v) || v < kMinKvScale || v > kMaxKvScale) {
    fail_value(c, n, path,
               fmt::format("a number in [{:g}, {:g}] or amax (max |KV value| / 448)", kMinKvScale, kMaxKvScale));
  }
  out->scale = v;
}

// `math: bf16 | fp8`: fp8 tensor math multiplies the pool's e4m3 values, so it needs an fp8 pool.
void parse_math(const Ctx& c, const MapView& m, const KvCacheSpec& kv, MathMode* out) {
  const std::vector<std::string> maths = {to_string(MathMode::kBf16), to_string(MathMode::kFp8)};
  const YAML::Node n = m.get("math");
  const std::string math = as_choice(c, n, m.child_path("math"), maths);
  *out = math == maths[1] ? MathMode::kFp8 : MathMode::kBf16;
  if (*out == MathMode::kFp8 && kv.dtype != KvDtype::kFp8E4m3) {
    fail_at(c, mark_of(n), m.child_path("math"),
            "fp8 math multiplies the pool's e4m3 values and needs kv_cache.dtype fp8_e4m3; allowed: bf16, or fp8 "
            "with an fp8 pool");
  }
}

double parse_sm_scale(const Ctx& c, const YAML::Node& n, const std::string& path) {
  std::vector<std::string> names;
  for (const Preset& p : kScalePresets) names.push_back(p.name);
  const std::string allowed = "a finite number > 0 or a preset: " + join(names);
  double v = 0;
  if (parse_number(n, &v)) {
    if (v < kMinSmScale || v > kMaxSmScale) {
      fail_value(c, n, path,
                 fmt::format("a number in [{:g}, {:g}] or a preset: {}", kMinSmScale, kMaxSmScale,
                             join(names)));
    }
    return v;
  }
  if (is_plain(n)) {
    for (const Preset& p : kScalePresets) {
      if (n.Scalar() == p.name) return preset_scale(p.yarn_factor);
    }
  }
  fail_value(c, n, path, allowed);
}

std::string gib(double bytes) { return fmt::format("{:.2f} GiB", bytes / static_cast<double>(1 << 30)); }

// What materializing and checking the case costs, bounded before anything is allocated:
// the host bytes of every buffer the run holds, the reference's FLOP and the K it gathers
// per request (as doubles). Distributions count at their largest prefix. Returns the host bytes.
std::int64_t check_case_budget(const Ctx& c, const MapView& m, const MapView& bm, const CaseSpec& cs,
                       int tree_nodes, int max_prefix, std::int64_t pool_rows) {
  const ScenarioLimits& lim = c.limits;
  const BatchSpec& b = cs.batch;
  const double T = tree_nodes, H = cs.heads;
  const double batch = b.dist == PrefixDist::kList ? static_cast<double>(b.prefix_lens.size()) : b.size;
  const double sum_kv = static_cast<double>(pool_rows);  // sum over requests of P_b + T
  const double q_rows = batch * T * H;
  const bool full = cs.check.mode == CheckMode::kFull;
  const double ref_rows = full ? q_rows : std::min<double>(q_rows, cs.check.sampled_rows);
  // q (bf16 576) + two bf16 O copies (an executor's output, the naive oracle's) + LSEs +
  // the reference's double O; the pool and its token table; tree masks; SGLang's flat mask.
  // An fp8 case also holds its e4m3 pool beside the generated (bf16) one, and computes the
  // reference twice (on the dequantized pool, and on the generated data for the report's
  // quantization note).
  const bool fp8 = cs.kv_cache.dtype == KvDtype::kFp8E4m3;
  const double fp8_pool_row = fp8 ? mla::kHeadDimQK : 0;
  const double references = fp8 ? 2 : 1;
  const double host = q_rows * (1152.0 + 2 * 1024 + 8) + references * ref_rows * (512 * 8 + 8) +
                      sum_kv * (kKvRowBytes + fp8_pool_row + 8 + 4) + batch * T * ((T + 63) / 64) * 8 +
                      T * sum_kv;
  if (host > static_cast<double>(lim.max_host_bytes)) {
    fail_at(c, m.mark(), m.path(),
            fmt::format("the case would hold {} of host memory (q, outputs, KV pool, page tables, "
                        "masks; B = {:g}, T = {:g}, H = {:g}, {:g} KV rows); allowed: at most {} "
                        "(raise with --max-host-bytes)",
                        gib(host), batch, T, H, sum_kv, gib(static_cast<double>(lim.max_host_bytes))));
  }
  const double longest = static_cast<double>(max_prefix) + T;
  const double gather = longest * kReferenceBytesPerToken;
  if (gather > static_cast<double>(lim.max_reference_bytes)) {
    fail_at(c, bm.mark(), bm.path(),
            fmt::format("the CPU reference would gather {} of K for one request ({:g} tokens x {} "
                        "bytes, per reference thread); allowed: at most {} (raise with "
                        "--max-reference-bytes)",
                        gib(gather), longest, kReferenceBytesPerToken,
                        gib(static_cast<double>(lim.max_reference_bytes))));
  }
  const double flop = references * (full ? H * T * sum_kv * kReferenceFlopPerRowToken
                                        : ref_rows * longest * kReferenceFlopPerRowToken);
  if (flop > lim.max_reference_flop) {
    fail_at(c, m.mark(), m.path(),
            fmt::format("the CPU reference would need {:.3g} FLOP for this case ({} check); "
                        "allowed: at most {:.3g} (check: {{mode: sampled, rows: 256}} checks a "
                        "sample; or raise with --max-reference-flop)",
                        flop, full ? "full" : "sampled", lim.max_reference_flop));
  }
  return static_cast<std::int64_t>(host);
}

// Data settings that would test nothing (scenarios/README.md, "Data that tests nothing"),
// judged on the prefixes a request of the batch can have (a list's or a fixed value exactly,
// a distribution's min and max): poison that reaches no request, a sink whose rows lie
// outside some request's prefix.
void check_data_reaches_requests(const Ctx& c, const MapView& m, const DataSpec& d, int min_prefix,
                                 int max_prefix) {
  const MapView dm = m.sub("data");
  if (d.poison != PoisonValue::kNone && max_prefix < kPoisonMinPrefix) {
    const MapView p = dm.sub("poison");
    fail_at(c, p.mark(), p.path(),
            fmt::format("poisons no request: only requests with at least {} prefix tokens get the poison and the "
                        "longest prefix a request of this batch can have is {}; allowed: poison with a batch that "
                        "has a prefix of {} tokens or more",
                        kPoisonMinPrefix, max_prefix, kPoisonMinPrefix));
  }
  if (d.dist != DataDist::kSink || d.sink_at == SinkAt::kRoot || d.sink_at == SinkAt::kTree) return;
  const int first = d.sink_at == SinkAt::kIndex ? d.sink_index : 0;
  const int end = first + d.sink_count;  // first, index: rows [first, end); last: the last count rows
  if (end > min_prefix) {
    const char* key = dm.has("at") ? "at" : dm.has("count") ? "count" : "dist";
    fail_value(c, dm.get(key), dm.child_path(key),
               fmt::format("a sink of {} row(s) at {} inside every request's prefix (the shortest a request of "
                           "this batch can have is {} tokens); or at: root / tree",
                           d.sink_count, d.sink_at == SinkAt::kIndex ? std::to_string(d.sink_index) : to_string(d.sink_at),
                           min_prefix),
               "the sink would lie beyond that request's prefix: it would get no sink, or one in its tree rows");
  }
}

// `planner: {key: value, ...}`: PlannerConfig settings (verifybench/planner.h lists the keys).
void parse_planner(const Ctx& c, const YAML::Node& node, const std::string& path, PlannerConfig* config) {
  if (!node.IsMap()) fail_value(c, node, path, "a map of planner settings (key: number, ...)");
  std::set<std::string> seen;
  for (const auto& kv : node) {
    const YAML::Node& k = kv.first;
    if (!k.IsScalar()) fail_value(c, k, path, "string keys only");
    if (!seen.insert(k.Scalar()).second) fail_at(c, k.Mark(), path + "." + k.Scalar(), "duplicate key");
    const std::string key_path = path + "." + k.Scalar();
    if (!is_plain(kv.second)) fail_value(c, kv.second, key_path, "a plain number");
    std::string error;
    if (!set_planner_option(config, k.Scalar(), kv.second.Scalar(), &error)) fail_at(c, kv.second.Mark(), key_path, error);
  }
}

// One problem from one entry (with the current sweep point's overrides in `c`).
CaseSpec parse_case(const Ctx& c, const YAML::Node& entry, const std::string& path) {
  const MapView m(c, entry, true, path, "");
  m.allow_only(kEntryKeys, "a scenario entry");
  CaseSpec cs;

  if (m.has("tags")) {
    const YAML::Node t = m.get("tags");
    if (!t.IsSequence()) fail_value(c, t, m.child_path("tags"), "a list of tags [A-Za-z0-9_.-]");
    for (std::size_t i = 0; i < t.size(); ++i) {
      cs.tags.push_back(as_tag(c, t[i], fmt::format("{}[{}]", m.child_path("tags"), i)));
    }
  }
  cs.heads = req_int(c, m, "heads", 1, kMaxHeads);
  cs.sm_scale = parse_sm_scale(c, m.require("sm_scale", "a finite number > 0 or a preset"),
                               m.child_path("sm_scale"));
  if (m.has("dtype")) cs.dtype = as_choice(c, m.get("dtype"), m.child_path("dtype"), {"bf16"});
  cs.seed = opt_seed(c, m, "seed");

  if (m.has("data")) parse_data(c, m.sub("data"), &cs.data);
  if (m.has("kv_cache")) {
    const MapView k = m.sub("kv_cache");
    parse_kv_cache(c, k, &cs.kv_cache);
    if (cs.kv_cache.dtype == KvDtype::kFp8E4m3 && cs.data.poison == PoisonValue::kInf &&
        cs.data.poison_in == PoisonIn::kKv) {
      fail_at(c, mark_of(k.get("dtype")), k.child_path("dtype"),
              "fp8_e4m3 has no infinity, so data.poison inf in kv cannot be stored; allowed: poison nan in kv, "
              "or inf in q");
    }
  }
  if (m.has("math")) parse_math(c, m, cs.kv_cache, &cs.math);
  cs.tolerance = default_tolerance(cs.data);
  if (m.has("tolerance")) parse_tolerance(c, m.sub("tolerance"), cs.data, &cs.tolerance);
  if (m.has("check")) parse_check(c, m.sub("check"), &cs.check);
  if (m.has("gate")) {
    const MapView g = m.sub("gate");
    g.allow_only({"tolerance"}, "gate");
    if (g.has("tolerance")) {
      const YAML::Node n = g.get("tolerance");
      double v = 0;
      if (!parse_number(n, &v) || v <= 0 || v >= 1) {
        fail_value(c, n, g.child_path("tolerance"),
                   "a number in (0, 1): the relative change of the median time compare allows");
      }
      cs.gate.tolerance = v;
    }
  }

  if (m.has("planner")) parse_planner(c, m.get("planner"), m.child_path("planner"), &cs.planner);

  m.require("tree", "a map {kind: chain|kary|eagle|ddtree|random|explicit, ...}");
  const int tree_nodes = parse_tree(c, m.sub("tree"), &cs.tree);

  m.require("batch", "a map {prefix_lens: [...]} or {size: N, prefix: {...}}");
  const MapView bm = m.sub("batch");
  const auto [min_prefix, max_prefix] = parse_batch(c, bm, &cs.batch);

  parse_pages(c, m.sub("pages"), cs.batch.size, min_prefix, &cs.pages);
  check_data_reaches_requests(c, m, cs.data, min_prefix, max_prefix);

  // Host KV pool: every request's P_b + T rows (distributions at their largest prefix).
  std::int64_t rows = 0;
  if (cs.batch.dist == PrefixDist::kList) {
    for (int p : cs.batch.prefix_lens) rows += p + tree_nodes;
  } else {
    rows = static_cast<std::int64_t>(cs.batch.size) * (max_prefix + tree_nodes);
  }
  const std::int64_t bytes = rows * kKvRowBytes;
  if (bytes > kMaxPoolBytes) {
    fail_at(c, bm.mark(), bm.path(),
            fmt::format("the KV pool would take {:.2f} GiB of host memory (sum over requests of "
                        "(P_b + T) * {} bytes, T = {}{}); allowed: at most {} GiB",
                        static_cast<double>(bytes) / (1 << 30), kKvRowBytes, tree_nodes,
                        cs.batch.dist == PrefixDist::kList ? "" : ", P_b at the distribution's max",
                        kMaxPoolBytes >> 30));
  }
  cs.host_bytes = check_case_budget(c, m, bm, cs, tree_nodes, max_prefix, rows);
  return cs;
}

// ---- sweeps ----
struct SweepAxis {
  std::string key;
  YAML::Mark key_mark;
  std::vector<YAML::Node> values;
  std::vector<std::string> labels;  // the values' case-name text (case_name_label)
};

// The value's part of a case name: its canonical text on one line (one_line_text); past
// kMaxShownChars the first ones, "~" and 8 hex digits of a hash of the whole text, so two
// long values that differ only at the end still name two cases.
std::string case_name_label(const std::string& canonical) {
  const std::string text = one_line_text(canonical);
  if (text.size() <= kMaxShownChars) return text;
  return fmt::format("{}~{:08x}", text.substr(0, kMaxShownChars), static_cast<std::uint32_t>(fnv1a64(canonical)));
}

std::vector<SweepAxis> parse_sweep(const Ctx& c, const YAML::Node& node, const std::string& path) {
  const std::string allowed = "a map {field.path: [value, ...], ...}";
  if (!node.IsMap() || node.size() == 0) fail_value(c, node, path, allowed);
  if (node.size() > kSweepable.size()) {
    fail_value(c, node, path, fmt::format("at most {} sweep keys (one per sweepable field)", kSweepable.size()));
  }
  std::vector<SweepAxis> axes;
  std::int64_t points = 1;
  for (const auto& kv : node) {
    if (!kv.first.IsScalar()) fail_value(c, kv.first, path, "string keys only");
    const std::string key = kv.first.Scalar();
    const std::string kpath = path + "." + printable(key);
    for (const SweepAxis& a : axes) {
      if (a.key == key) {
        fail_at(c, kv.first.Mark(), kpath,
                fmt::format("duplicate sweep key '{}' (first at line {})", key, a.key_mark.line + 1));
      }
    }
    if (!contains(kSweepable, key)) {
      fail_at(c, kv.first.Mark(), kpath,
              fmt::format("unknown sweep field {}; allowed: {}", show(kv.first), join(kSweepable)));
    }
    const YAML::Node& vals = kv.second;
    if (!vals.IsSequence() || vals.size() == 0) {
      fail_value(c, vals, kpath, "a non-empty list of values", "a sweep needs at least one value");
    }
    SweepAxis axis{key, kv.first.Mark(), {}, {}};
    std::set<std::string> seen;  // canonical values
    std::set<std::string> names;  // their case-name labels
    for (std::size_t i = 0; i < vals.size(); ++i) {
      // The cap is checked value by value, so a huge list stops at the first value too many.
      if (points * static_cast<std::int64_t>(i + 1) > kMaxSweepPoints) {
        fail_at(c, vals[i].Mark(), fmt::format("{}[{}]", kpath, i),
                fmt::format("the sweep expands to more than {} cases; allowed: at most {}",
                            kMaxSweepPoints, kMaxSweepPoints));
      }
      const std::string canonical = canonical_value(vals[i]);
      const std::string label = case_name_label(canonical);
      if (!seen.insert(canonical).second) {
        fail_value(c, vals[i], fmt::format("{}[{}]", kpath, i), "distinct values",
                   "repeated in this sweep list");
      }
      if (!names.insert(label).second) {  // a hash collision of two long values
        fail_value(c, vals[i], fmt::format("{}[{}]", kpath, i), "values whose case names differ",
                   "another value of this list has the case name " + label);
      }
      axis.values.push_back(vals[i]);
      axis.labels.push_back(label);
    }
    points *= static_cast<std::int64_t>(axis.values.size());
    axes.push_back(std::move(axis));
  }
  return axes;
}

void check_case_count(const Ctx& c, const YAML::Node& at, std::int64_t cases) {
  if (cases > c.limits.max_cases) {
    fail_at(c, mark_of(at), "scenarios",
            fmt::format("the file would expand to {} or more cases; allowed: at most {} per file "
                        "(raise with --max-cases)",
                        cases, c.limits.max_cases));
  }
}

void parse_entry(const std::string& file, const ScenarioLimits& limits, const YAML::Node& entry, std::size_t index,
                 std::set<std::string>* names, std::map<std::string, int>* name_lines,
                 std::vector<CaseSpec>* out) {
  Ctx c;
  c.file = file;
  c.limits = limits;
  c.fallback = entry.Mark();
  const std::string path = fmt::format("scenarios[{}]", index);
  const MapView m(c, entry, true, path, "");
  const std::string name = as_name(c, m.require("name", "a non-empty string of [A-Za-z0-9_.-]"),
                                   m.child_path("name"));
  if (names->count(name)) {
    fail_value(c, m.get("name"), m.child_path("name"), "a name unique in the file",
               fmt::format("already used by the entry at line {}", (*name_lines)[name]));
  }
  names->insert(name);
  (*name_lines)[name] = entry.Mark().line + 1;
  const std::string source = fmt::format("{}:{}", file, entry.Mark().line + 1);

  auto finish = [&](CaseSpec cs, const std::string& case_name) {
    cs.name = case_name;
    cs.scenario = name;
    cs.source = source;
    out->push_back(std::move(cs));
  };
  if (!m.has("sweep")) {
    check_case_count(c, entry, static_cast<std::int64_t>(out->size()) + 1);
    finish(parse_case(c, entry, path), name);
    return;
  }
  const std::vector<SweepAxis> axes = parse_sweep(c, m.get("sweep"), m.child_path("sweep"));
  std::int64_t points = 1;
  for (const SweepAxis& a : axes) points *= static_cast<std::int64_t>(a.values.size());
  check_case_count(c, m.get("sweep"), static_cast<std::int64_t>(out->size()) + points);
  // Cartesian product, the last key varying fastest (nested loops in file order).
  std::vector<std::size_t> idx(axes.size(), 0);
  while (true) {
    Ctx pc = c;
    std::string label;
    for (std::size_t a = 0; a < axes.size(); ++a) {
      pc.overrides[axes[a].key] = {axes[a].values[idx[a]], axes[a].key_mark};
      label += fmt::format("{}{}={}", a ? "," : "", axes[a].key, axes[a].labels[idx[a]]);
    }
    pc.fallback = axes.back().key_mark;
    pc.note = " (sweep point " + label + ")";
    finish(parse_case(pc, entry, path), name + "/" + label);
    std::size_t a = axes.size();
    while (a > 0) {
      --a;
      if (++idx[a] < axes[a].values.size()) break;
      idx[a] = 0;
      if (a == 0) return;
    }
  }
}

// Records where documents start; builds nothing.
class DocumentStarts : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> starts;
  void OnDocumentStart(const YAML::Mark& mark) override { starts.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// Where a second document starts, if the text has one. Parses at most two documents:
// yaml-cpp 0.7's LoadAll loops forever on some malformed streams (its parser keeps
// reporting a document without consuming input), so documents are counted here instead.
std::optional<YAML::Mark> second_document_start(const std::string& text) {
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts starts;
  if (!parser.HandleNextDocument(starts)) return std::nullopt;
  if (!parser.HandleNextDocument(starts)) return std::nullopt;
  return starts.starts.empty() ? YAML::Mark() : starts.starts.back();
}

// Refuses anything but blank and comment lines after a document end marker ("..." at the
// start of a line, which ends the document wherever it stands): yaml-cpp ignores a directive
// there (%YAML, %TAG, or any other), so the file would say more than what is read.
void refuse_content_after_document_end(const Ctx& c, const std::string& text) {
  bool ended = false;
  int line = 0;
  for (std::size_t at = 0; at < text.size(); ++line) {
    const std::size_t eol = std::min(text.find('\n', at), text.size());
    const std::string_view row(text.data() + at, eol - at);
    at = eol + 1;
    const std::size_t first = row.find_first_not_of(" \t\r");
    if (ended && first != std::string_view::npos && row[first] != '#') {
      YAML::Mark mark;
      mark.line = line;
      mark.column = static_cast<int>(first);
      fail_at(c, mark, "(document)",
              fmt::format("'{}' after the document end marker '...'; allowed: only comments after '...'",
                          printable(std::string(row.substr(first)))));
    }
    const bool end_marker = row.substr(0, 3) == "..." && (row.size() == 3 || row[3] == ' ' || row[3] == '\t' ||
                                                          row[3] == '\r' || row[3] == '#');
    ended = ended || end_marker;
  }
}

// Refuses explicit tags (!!str 8, !!int, !custom) anywhere in the document: the schema
// reads plain scalars, and a tag would make one value mean different things to different
// readers. Aliases are read as what they point at; the case cap bounds what they expand to.
//
// `budget` counts the nodes still allowed: a document cannot hold more nodes than its
// bytes unless aliases repeat parts of it, and past that an alias bomb (anchors of anchors)
// would make this walk, and everything after it, exponential in the file size.
void refuse_tags(const Ctx& c, const YAML::Node& n, std::int64_t* budget) {
  if (--*budget < 0) {
    fail_at(c, n.Mark(), "(document)",
            "YAML aliases expand the document to more nodes than the file has bytes; allowed: "
            "a document without alias expansion (write the repeated parts out or use a sweep)");
  }
  const std::string& tag = n.Tag();
  if (!tag.empty() && tag != "?" && tag != "!") {
    fail_at(c, n.Mark(), "(document)",
            fmt::format("explicit tag '{}' on {}; allowed: untagged values only", printable(tag), show(n)));
  }
  if (n.IsSequence()) {
    for (const YAML::Node& child : n) refuse_tags(c, child, budget);
  } else if (n.IsMap()) {
    for (const auto& kv : n) {
      refuse_tags(c, kv.first, budget);
      refuse_tags(c, kv.second, budget);
    }
  }
}

}  // namespace

std::string one_line_text(const std::string& raw) {
  std::string s;
  for (const char ch : raw) {
    const auto u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u >= 0x7f) {
      s += fmt::format("\\x{:02x}", u);
    } else {
      s += ch;
    }
  }
  return s;
}

ScenarioFile parse_scenario_text(const std::string& text, const std::string& path,
                                 const ScenarioLimits& limits) {
  Ctx c;
  c.file = path;
  c.limits = limits;
  c.fallback = YAML::Mark();  // line 1, column 1
  if (static_cast<std::int64_t>(text.size()) > limits.max_file_bytes) {
    throw ScenarioError(fmt::format("{}:1:1: (file): {} bytes; allowed: at most {} bytes (raise with --max-file-bytes)",
                                    path, text.size(), limits.max_file_bytes));
  }
  YAML::Node root;
  std::optional<YAML::Mark> second_document;
  try {
    root = YAML::Load(text);
    second_document = second_document_start(text);
  } catch (const YAML::Exception& e) {
    throw ScenarioError(fmt::format("{}: YAML syntax error: {}", where(c, e.mark), printable(e.msg)));
  }
  ScenarioFile file;
  file.path = path;
  try {
    if (second_document) {
      fail_at(c, *second_document, "(document)", "a second YAML document; allowed: one document per file");
    }
    refuse_content_after_document_end(c, text);
    if (!root.IsDefined() || root.IsNull()) {
      fail_at(c, YAML::Mark(), "scenarios",
              "the file is empty; allowed: a map with the key 'scenarios' holding a list of "
              "scenario entries");
    }
    std::int64_t node_budget = static_cast<std::int64_t>(text.size()) + 1;
    refuse_tags(c, root, &node_budget);
    const MapView top(c, root, true, "", "");
    top.allow_only(kTopKeys, "the top level of a scenario file");
    const std::string allowed = "a non-empty list of scenario entries (maps with name, heads, ...)";
    const YAML::Node list = top.require("scenarios", allowed);
    if (!list.IsSequence() || list.size() == 0) fail_value(c, list, "scenarios", allowed);
    std::set<std::string> names;
    std::map<std::string, int> name_lines;
    for (std::size_t i = 0; i < list.size(); ++i) {
      parse_entry(path, limits, list[i], i, &names, &name_lines, &file.cases);
    }
  } catch (const YAML::Exception& e) {  // a yaml-cpp surprise still names the position
    throw ScenarioError(fmt::format("{}: {}", where(c, e.mark), printable(e.msg)));
  }
  return file;
}

ScenarioFile load_scenario_file(const std::string& path, const ScenarioLimits& limits) {
  const std::string shown = printable(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    throw ScenarioError(fmt::format("{}: cannot open scenario file: {}", shown, std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    throw ScenarioError(fmt::format("{}: not a regular file ({}); allowed: a scenario file", shown,
                                    S_ISDIR(st.st_mode) ? "a directory" : "a device, FIFO or socket"));
  }
  if (st.st_size > limits.max_file_bytes) {
    throw ScenarioError(fmt::format("{}:1:1: (file): {} bytes; allowed: at most {} bytes (raise with --max-file-bytes)",
                                    shown, static_cast<std::int64_t>(st.st_size), limits.max_file_bytes));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw ScenarioError(fmt::format("{}: cannot open scenario file: {}", shown, std::strerror(errno)));
  }
  // Read in chunks, never more than one chunk past the limit: the file may have grown
  // since stat().
  std::string text;
  char chunk[1 << 16];
  while (in.read(chunk, sizeof chunk) || in.gcount() > 0) {
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
    if (static_cast<std::int64_t>(text.size()) > limits.max_file_bytes) break;
  }
  if (in.bad()) throw ScenarioError(fmt::format("{}: read error", shown));
  return parse_scenario_text(text, shown, limits);
}

const char* to_string(TreeKind k) {
  switch (k) {
    case TreeKind::kChain: return "chain";
    case TreeKind::kKAry: return "kary";
    case TreeKind::kEagle: return "eagle";
    case TreeKind::kDDTree: return "ddtree";
    case TreeKind::kRandom: return "random";
    case TreeKind::kExplicit: return "explicit";
  }
  return "unknown-tree-kind";
}

const char* to_string(PagePlacement p) {
  switch (p) {
    case PagePlacement::kContiguous: return "contiguous";
    case PagePlacement::kShuffled: return "shuffled";
    case PagePlacement::kInterleaved: return "interleaved";
    case PagePlacement::kFragmented: return "fragmented";
    case PagePlacement::kReversed: return "reversed";
  }
  return "unknown-placement";
}

const char* to_string(PrefixDist d) {
  switch (d) {
    case PrefixDist::kList: return "list";
    case PrefixDist::kFixed: return "fixed";
    case PrefixDist::kUniform: return "uniform";
    case PrefixDist::kLogNormal: return "lognormal";
  }
  return "unknown-dist";
}

const char* to_string(CheckMode m) {
  switch (m) {
    case CheckMode::kFull: return "full";
    case CheckMode::kSampled: return "sampled";
  }
  return "unknown-check-mode";
}

}  // namespace vb

// Scenario value types: what a YAML entry says, after validation and sweep expansion.
// One CaseSpec is one problem to materialize and run. Parsing lives in scenario_yaml.cpp;
// the schema is documented in scenarios/README.md.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "verifybench/planner.h"

namespace vb {

enum class TreeKind { kChain, kKAry, kEagle, kDDTree, kRandom, kExplicit };
enum class PrefixDist { kList, kFixed, kUniform, kLogNormal };
enum class PagePlacement { kContiguous, kShuffled, kInterleaved, kFragmented, kReversed };
enum class CheckMode { kFull, kSampled };
// How q, the KV pool's prefix rows and the tree rows are filled (scenarios/README.md, `data`).
enum class DataDist { kUniform, kNormal, kSink, kRising, kLarge, kTies, kOutlierChannels };
// Where a `sink` distribution puts its dominant rows, per request.
enum class SinkAt { kFirst, kLast, kRoot, kTree, kIndex };
// A non-finite value written into an otherwise ordinary problem (`data.poison`).
enum class PoisonValue { kNone, kNaN, kInf };
enum class PoisonIn { kQ, kKv };

struct TreeSpec {
  TreeKind kind = TreeKind::kChain;
  int nodes = 1;          // chain: length; random: node count
  int branching = 0;      // k-ary: children per node
  int depth = 0;          // k-ary: levels below the root
  int steps = 0;          // eagle: draft steps (depth)
  int topk = 0;           // eagle: candidates expanded per step; ddtree: top-k per depth
  int tokens = 0;         // eagle: draft tokens kept (T = tokens)
  int budget = 0;         // ddtree: node budget (T = budget)
  int max_depth = 0;      // ddtree: depth cap of the synthetic distribution
  std::uint64_t seed = 0; // random / ddtree / eagle scores
  std::vector<int> parents;  // explicit: parents[0] = -1, parents[i] < i
};

struct BatchSpec {
  PrefixDist dist = PrefixDist::kList;
  std::vector<int> prefix_lens;  // kList: one per request
  int size = 0;                  // requests, for the distributions
  int value = 0;                 // kFixed
  int min = 0, max = 0;          // kUniform (inclusive); also clamps kLogNormal
  double median = 0, sigma = 0;  // kLogNormal
  std::uint64_t seed = 0;
};

struct SharedPrefixSpec {
  int groups = 0;  // 0: no sharing. Requests b are in group b % groups
  int length = 0;  // tokens of prefix shared by every request of a group
};

struct PageSpec {
  int size = 1;  // 1, 16 or 64
  PagePlacement placement = PagePlacement::kContiguous;
  SharedPrefixSpec shared_prefix;
  std::uint64_t seed = 0;
};

struct ToleranceSpec {
  double o_atol = 1e-2;    // |o - ref| <= o_atol + o_rtol * |ref|
  double o_rtol = 2e-2;
  double lse_atol = 2e-3;  // |lse - ref| <= lse_atol + lse_rtol * |ref|
  double lse_rtol = 1e-4;
  // O channels whose values a data distribution makes larger (outlier_channels): their
  // o_atol is multiplied by o_wide_channel_scale, the factor they were scaled by.
  std::vector<int> o_wide_channels;
  double o_wide_channel_scale = 1.0;
};

// Named, seeded data distributions (issue 29). Every distribution is a pure function of
// (case seed, logical position), so all executors and the CPU reference read the same bytes.
struct DataSpec {
  DataDist dist = DataDist::kUniform;
  double scale = 1.0;            // normal: standard deviation of q and KV values
  SinkAt sink_at = SinkAt::kFirst;
  int sink_index = 0;            // sink at an explicit prefix position
  int sink_count = 1;            // sink rows per request (first, last, index)
  double sink_nats = 20.0;       // sink: score lift of a sink row over the others
  double rise_nats = 1.0;        // rising: score increase per KV token
  double large_nats = 100.0;     // large: scores drawn from [-large_nats, +large_nats]
  int distinct_rows = 4;         // ties: distinct KV rows, repeated along the sequence
  std::vector<int> outlier_channels = {3, 200, 511, 560};
  double outlier_factor = 100.0; // outlier_channels: magnitude of those K channels
  PoisonValue poison = PoisonValue::kNone;  // any dist: one NaN / +inf per request
  PoisonIn poison_in = PoisonIn::kKv;
};

// The KV pool's element type and scale (scenarios/README.md, `kv_cache`). An fp8 pool is
// the bf16 case's generated data, each value divided by the scale and rounded to e4m3.
struct KvCacheSpec {
  KvDtype dtype = KvDtype::kBf16;
  double scale = 1.0;            // fp8: the dequantization scale (unless scale_from_amax)
  bool scale_from_amax = false;  // fp8: scale = max |generated KV value| / 448
};

// Performance gate of `verifybench compare` (issue 6). Unset: compare's --tolerance.
struct GateSpec {
  std::optional<double> tolerance;  // allowed relative change of the median time, 0 < t < 1
};

struct CheckSpec {
  CheckMode mode = CheckMode::kFull;
  int sampled_rows = 256;  // kSampled: (request, node, head) rows the CPU checks
  std::uint64_t seed = 0;
};

// One fully resolved problem: a scenario entry with one point of its sweep applied.
struct CaseSpec {
  std::string name;           // "<scenario>" or "<scenario>/<key>=<v>,<key>=<v>"
  std::string scenario;       // the entry's name
  std::string source;         // "<file>:<line>" of the entry, for messages and reproducers
  std::vector<std::string> tags;
  int heads = 0;
  double sm_scale = 0;
  std::string dtype = "bf16";
  std::uint64_t seed = 0;  // q / KV data
  BatchSpec batch;
  TreeSpec tree;
  PageSpec pages;
  ToleranceSpec tolerance;
  CheckSpec check;
  GateSpec gate;
  DataSpec data;
  KvCacheSpec kv_cache;
  // The tensor math of the mma.sync launches over an fp8 pool (scenarios/README.md, `math`):
  // bf16 (the tile widened, exact) or fp8 (e4m3 tensor math, its tolerance derived from the
  // rounding model). fp8 only with kv_cache.dtype fp8_e4m3.
  MathMode math = MathMode::kBf16;
  // The production planner's settings for this case: the scenario's `planner:` map, then any
  // `--planner key=value` of the command line.
  PlannerConfig planner;
  // The host memory the case's buffers take, as the loader bounds it (--max-host-bytes):
  // named when building them runs out of memory.
  std::int64_t host_bytes = 0;
};

struct ScenarioFile {
  std::string path;
  std::vector<CaseSpec> cases;  // sweeps already expanded, in file order
};

// Bad input: the message names file:line:column, the field, the bad value and what is
// allowed. Thrown by the loader, caught by the CLI (exit code kExitBadInput).
class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Resource limits a scenario file is checked against before anything is allocated or
// computed (scenarios/README.md, "Limits"; each has a verifybench option that raises it).
struct ScenarioLimits {
  std::int64_t max_file_bytes = std::int64_t{1} << 20;   // --max-file-bytes
  std::int64_t max_cases = 10000;                        // --max-cases (per file, after sweeps)
  std::int64_t max_host_bytes = std::int64_t{16} << 30;  // --max-host-bytes (one case)
  double max_reference_flop = 1e12;                      // --max-reference-flop (one case)
  std::int64_t max_reference_bytes = std::int64_t{2} << 30;  // --max-reference-bytes (one request)
};

// Loads, validates and expands one scenario file. Throws ScenarioError. Refuses anything
// but a regular file, and files above limits.max_file_bytes, without reading them.
ScenarioFile load_scenario_file(const std::string& path, const ScenarioLimits& limits = {});
// Same, from text (tests); `path` is used in messages only.
ScenarioFile parse_scenario_text(const std::string& text, const std::string& path,
                                 const ScenarioLimits& limits = {});

// What one row of each tensor moves and what one (query row, visible token) pair costs: the
// scenario limits (scenario_yaml.cpp), the traffic model (harness/measure/traffic_model.h)
// and the plan's floors (harness/plan/device_models.cpp) count with these.
inline constexpr std::int64_t kKvRowBytes = 576 * 2;  // one latent+rope row, bf16
inline constexpr std::int64_t kKvRowBytesFp8 = 576;   // the same row, fp8 e4m3
inline constexpr std::int64_t kv_row_bytes(KvDtype dtype) {
  return dtype == KvDtype::kFp8E4m3 ? kKvRowBytesFp8 : kKvRowBytes;
}
inline constexpr std::int64_t kQRowBytes = 576 * 2;   // per (node, head)
inline constexpr std::int64_t kORowBytes = 512 * 2;
inline constexpr std::int64_t kLseBytes = 4;
inline constexpr double kFlopsPerVisiblePair = 2.0 * (576 + 512);  // QK^T + PV per (row, token)

// ---- what a spec implies before anything is built (harness/scenario/spec_rules.cpp): the
// YAML validation and the problem builder read the same rules.
// Nodes of a full k-ary tree of `depth` levels below the root, (k^(d+1)-1)/(k-1), or -1
// once it exceeds `cap` (no overflow for any int input).
std::int64_t full_tree_nodes(int k, int depth, std::int64_t cap);
// Bound on |V| entries the distribution writes (1 for the [-1, 1) distributions): the
// scale O errors and O tolerances are measured against.
double data_value_magnitude(const DataSpec& data);
// The O / LSE tolerances a case gets when its file does not state them.
ToleranceSpec default_tolerance(const DataSpec& data);
// `data.poison` poisons the requests with at least this many prefix tokens, so the poisoned
// query also sees finite rows and its outcome is the reference's rule, not "nothing visible".
inline constexpr int kPoisonMinPrefix = 16;
// The smallest `normal` scale (2^-60): bf16 shares fp32's smallest normal, 2^-126, and at this
// scale the data (~scale), the q.K products (~scale^2 >= 2^-120) and the tolerance (4e-2 x
// scale) are normal numbers; below it they round toward zero, and at 4.9e-324 q = K = O = 0
// with o_atol = 0, which an all-zero kernel passes.
inline constexpr double kMinNormalScale = 0x1p-60;
// FNV-1a, 64-bit: a hash of text that is the same on every machine and build (std::hash is
// not), for case names made from long sweep values.
std::uint64_t fnv1a64(std::string_view text);

// Text safe for a one-line message: control characters, DEL and bytes >= 0x80 as \xNN.
std::string one_line_text(const std::string& raw);

const char* to_string(TreeKind);
const char* to_string(PagePlacement);
const char* to_string(PrefixDist);
const char* to_string(CheckMode);
const char* to_string(DataDist);
const char* to_string(SinkAt);
const char* to_string(KvDtype);  // "bf16", "fp8_e4m3": the names `kv_cache.dtype` takes
// "bf16", "fp8_e4m3 scale 0.5", "fp8_e4m3 scale amax": the KV pool in list and plan tables.
std::string kv_cache_label(const KvCacheSpec& kv);
// The same with ", fp8 math" where the case runs fp8 tensor math: the KV column of list and plan.
std::string kv_cache_and_math_label(const CaseSpec& spec);

}  // namespace vb

// The shipped scenario files (scenarios/*.yaml) parse, expand, and stay inside the budgets
// their headers promise: smoke runs in seconds on the CPU reference, correctness covers
// the listed corners within ~2 minutes of CPU reference, perf keeps every KV pool small
// enough and tags its regime consistently.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <map>
#include <cstdint>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "harness/problem/problem.h"
#include "harness/plan/device_models.h"
#include "harness/scenario/scenario.h"
#include "verifybench/kernels.h"

namespace vb {
namespace {

constexpr double kFlopsPerRowToken = 2.0 * (576 + 512);  // docs/background.md §4
constexpr double kKvRowBytes = 1152;
constexpr double kRidgeHT = 79;  // H200 ridge in H*T (docs/background.md §4)

ScenarioFile load(const char* name) {
  return load_scenario_file(std::string(VB_SOURCE_DIR) + "/scenarios/" + name);
}

int largest_prefix(const BatchSpec& b) {
  switch (b.dist) {
    case PrefixDist::kList: return *std::max_element(b.prefix_lens.begin(), b.prefix_lens.end());
    case PrefixDist::kFixed: return b.value;
    default: return b.max;
  }
}
int smallest_prefix(const BatchSpec& b) {
  switch (b.dist) {
    case PrefixDist::kList: return *std::min_element(b.prefix_lens.begin(), b.prefix_lens.end());
    case PrefixDist::kFixed: return b.value;
    default: return b.min;
  }
}
int batch_size(const BatchSpec& b) {
  return b.dist == PrefixDist::kList ? static_cast<int>(b.prefix_lens.size()) : b.size;
}

// Upper bound of sum_b (P_b + T) (distributions at their max).
double kv_tokens(const CaseSpec& c) {
  const int t = tree_size(c.tree);
  if (c.batch.dist == PrefixDist::kList) {
    double s = 0;
    for (int p : c.batch.prefix_lens) s += p + t;
    return s;
  }
  return static_cast<double>(c.batch.size) * (largest_prefix(c.batch) + t);
}

// Full-check reference FLOPs (upper bound): 2*H*T*sum_b(P_b+T)*1088.
double full_flops(const CaseSpec& c) {
  return kFlopsPerRowToken * c.heads * tree_size(c.tree) * kv_tokens(c);
}

void check_common(const ScenarioFile& f) {
  REQUIRE(!f.cases.empty());
  std::set<std::string> names;
  for (const CaseSpec& c : f.cases) {
    INFO(c.name << " (" << c.source << ")");
    CHECK(names.insert(c.name).second);
    CHECK(c.dtype == "bf16");
    CHECK(c.sm_scale > 0);
    const int t = tree_size(c.tree);
    CHECK(t >= 1);
    CHECK(t <= 1024);
    CHECK(build_tree(c.tree, 0).size() == t);
  }
}

TEST_CASE("smoke.yaml parses and is tiny", "[scenario]") {
  const ScenarioFile f = load("smoke.yaml");
  check_common(f);
  double flops = 0;
  std::set<TreeKind> kinds;
  std::set<int> page_sizes;
  for (const CaseSpec& c : f.cases) {
    INFO(c.name);
    CHECK(batch_size(c.batch) <= 3);
    CHECK(largest_prefix(c.batch) <= 300);
    CHECK(c.heads >= 8);
    CHECK(c.heads <= 16);
    CHECK(tree_size(c.tree) <= 16);
    CHECK(c.check.mode == CheckMode::kFull);
    kinds.insert(c.tree.kind);
    page_sizes.insert(c.pages.size);
    flops += full_flops(c);
  }
  CHECK(kinds.count(TreeKind::kChain));
  CHECK(kinds.count(TreeKind::kKAry));
  CHECK(kinds.count(TreeKind::kEagle));
  CHECK(page_sizes.count(1));
  CHECK(page_sizes.count(16));
  CHECK(flops < 1e9);  // well under a second of reference time
}

TEST_CASE("correctness.yaml parses, covers the corners and fits the CPU budget", "[scenario]") {
  const ScenarioFile f = load("correctness.yaml");
  check_common(f);
  double flops = 0;
  std::set<TreeKind> kinds;
  std::set<int> page_sizes, heads, prefixes, tree_sizes;
  std::set<PagePlacement> placements;
  std::set<PrefixDist> dists;
  bool shared = false, star = false;
  for (const CaseSpec& c : f.cases) {
    INFO(c.name);
    CHECK(c.check.mode == CheckMode::kFull);
    flops += full_flops(c);
    kinds.insert(c.tree.kind);
    page_sizes.insert(c.pages.size);
    heads.insert(c.heads);
    placements.insert(c.pages.placement);
    dists.insert(c.batch.dist);
    tree_sizes.insert(tree_size(c.tree));
    for (int p : c.batch.prefix_lens) prefixes.insert(p);
    shared = shared || c.pages.shared_prefix.groups > 0;
    if (c.tree.kind == TreeKind::kExplicit) {
      star = star || std::all_of(c.tree.parents.begin() + 1, c.tree.parents.end(),
                                 [](int p) { return p == 0; });
    }
  }
  CHECK(flops < 1.0e12);  // ~100 s at 10 GFLOP/s, counting distributions at their max
  CHECK(kinds.size() == 6);
  CHECK(page_sizes == std::set<int>{1, 16, 64});
  CHECK(placements.size() == 5);
  CHECK(dists.size() == 4);
  for (int h : {8, 16, 128}) CHECK(heads.count(h));
  for (int p : {0, 1, 15, 16, 17, 63, 64, 65, 4097}) CHECK(prefixes.count(p));
  for (int t : {1, 4, 8, 16, 64, 65, 256, 1024}) CHECK(tree_sizes.count(t));
  CHECK(shared);
  CHECK(star);
}

// correctness.yaml's tma_runs_mixed_tile is there for the wgmma path's TMA run-box instance
// (the planner's rule: fixed splits, at least wgmma_run_boxes_min_row_tiles = 4 row tiles, the
// token table): it needs a 64-token tile in which some producer warps' 16 rows are
// consecutive pool rows (TMA boxes) and others are not (the cp.async gather). This keeps the
// case doing that if the page layouts or the planner change.
// A correctness.yaml case by name, its lengths and its H200 plan (132 SMs, wgmma allowed), for
// the tests that keep a case exercising the kernel path it is there for.
struct PlannedCase {
  CaseSpec spec;
  std::vector<std::int32_t> prefix;
  std::vector<int> kv_lens;
  vb::SplitSchedule plan;
  vb::LaunchPlan block_table_launch;  // the planner's launch of it over the block table
  vb::LaunchPlan token_table_launch;  // ... and over the token table (production)
};
PlannedCase planned_case(const CaseSpec& spec) {
  PlannedCase pc{spec, case_prefix_lengths(spec), {}, {}, {}, {}};
  const int t = tree_size(pc.spec.tree);
  for (std::int32_t p : pc.prefix) pc.kv_lens.push_back(p + t);
  const int max_kv = *std::max_element(pc.kv_lens.begin(), pc.kv_lens.end());
  vb::PlanShape shape;
  shape.batch = static_cast<int>(pc.prefix.size());
  shape.tree_size = t;
  shape.num_heads = pc.spec.heads;
  shape.max_kv_len = max_kv;
  shape.kv_lens = pc.kv_lens.data();
  shape.page_kind = vb::PageTableKind::kBlockTable;
  shape.page_size = pc.spec.pages.size;
  shape.pool_rows = 1 << 20;
  shape.kv_dtype = pc.spec.kv_cache.dtype;
  pc.block_table_launch = vb::make_launch_plan(shape, vb::device_target(*vb::find_device_model("h200")), pc.spec.planner);
  pc.plan = pc.block_table_launch.schedule;
  shape.page_kind = vb::PageTableKind::kTokenIndices;
  pc.token_table_launch = vb::make_launch_plan(shape, vb::device_target(*vb::find_device_model("h200")), pc.spec.planner);
  return pc;
}
PlannedCase planned_correctness_case(const std::string& name) {
  const ScenarioFile f = load("correctness.yaml");
  const auto it = std::find_if(f.cases.begin(), f.cases.end(), [&](const CaseSpec& c) { return c.name == name; });
  REQUIRE(it != f.cases.end());
  return planned_case(*it);
}

TEST_CASE("correctness.yaml's tma_runs_mixed_tile mixes TMA boxes and the gather in one tile", "[scenario]") {
  const PlannedCase pc = planned_correctness_case("tma_runs_mixed_tile");
  const CaseSpec& c = pc.spec;
  const std::vector<std::int32_t>& prefix = pc.prefix;
  const std::vector<int>& kv_lens = pc.kv_lens;
  const vb::SplitSchedule& plan = pc.plan;
  const vb::PageLayout l =
      vb::build_page_layout(c.pages, std::vector<int>(prefix.begin(), prefix.end()), tree_size(c.tree));
  CHECK(plan.path == vb::FlashVerifyPath::kWgmma);
  CHECK_FALSE(plan.tile_balanced);
  CHECK(plan.m_tiles >= 4);
  int mixed_tiles = 0;
  for (std::size_t b = 0; b < prefix.size(); ++b) {
    const std::int64_t* rows = l.kv_indices.data() + l.kv_indptr[b];
    for (int tile = 0; (tile + 1) * 64 <= kv_lens[b]; ++tile) {
      int runs = 0;  // of the tile's four 16-row groups
      for (int g = 0; g < 4; ++g) {
        const std::int64_t* r = rows + tile * 64 + g * 16;
        bool run = true;
        for (int i = 1; i < 16; ++i) run = run && r[i] == r[0] + i;
        runs += run ? 1 : 0;
      }
      mixed_tiles += runs > 0 && runs < 4 ? 1 : 0;
    }
  }
  CHECK(mixed_tiles >= 1);
}

// correctness.yaml's page_boxes_block_table is there for the block table's page-box instance
// (kPageBoxes: fixed splits, pages of >= 16 rows, a power of two): it needs several splits per
// request, tiles inside kv_len (boxes) and a last tile that ends mid-tile (the gather). This keeps
// the case doing that if the planner changes.
TEST_CASE("correctness.yaml's page_boxes_block_table takes page boxes and the gather over several splits", "[scenario]") {
  const PlannedCase pc = planned_correctness_case("page_boxes_block_table");
  const CaseSpec& c = pc.spec;
  CHECK(pc.plan.path == vb::FlashVerifyPath::kWgmma);
  CHECK_FALSE(pc.plan.tile_balanced);
  CHECK(pc.plan.num_splits >= 4);
  CHECK(pc.block_table_launch.instance == vb::KernelInstance::kWgmmaPageBoxes);
  for (int kv : pc.kv_lens) {
    CHECK(kv / 64 >= 8);      // whole tiles: boxes
    CHECK(kv % 64 != 0);      // a last partial tile: the gather
    CHECK(kv % c.pages.size != 0);  // and a last partial page
  }
}

// Issue 29: every data distribution on every plan form the H200 planner picks: one split,
// split KV and tile-balanced, on the mma.sync and the wgmma path (and the wgmma gather on 2
// row tiles), and on both page-table
// forms (every GPU executor runs every case, so each case covers the token table, the block
// table, both forced paths and the SGLang adapter; page size > 1 makes the block table real).
TEST_CASE("correctness.yaml runs every data distribution on every plan form", "[scenario][data]") {
  const ScenarioFile f = load("correctness.yaml");
  enum Form { kSingle, kSplit, kBalanced };
  const auto form_of = [](const vb::SplitSchedule& plan) {
    return plan.tile_balanced ? kBalanced : plan.num_splits > 1 ? kSplit : kSingle;
  };
  std::set<std::tuple<DataDist, vb::FlashVerifyPath, int>> seen;
  std::set<std::pair<DataDist, bool>> paged;
  std::set<SinkAt> sink_places;
  bool slow_rise = false;
  std::set<std::pair<PoisonValue, PoisonIn>> poisons;
  std::set<std::tuple<PoisonValue, vb::FlashVerifyPath, int>> kv_poison_forms;
  // The wgmma gather on 2 or more row tiles (production's token table), by form.
  std::set<std::pair<DataDist, int>> two_row_tile_forms;
  std::set<PoisonValue> two_row_tile_poisons;
  auto gathers_two_row_tiles = [](const PlannedCase& pc) {
    return pc.token_table_launch.instance == vb::KernelInstance::kWgmmaGather && pc.plan.m_tiles >= 2;
  };
  for (const CaseSpec& c : f.cases) {
    if (c.data.poison != PoisonValue::kNone) poisons.insert({c.data.poison, c.data.poison_in});
    if (c.data.poison != PoisonValue::kNone && c.data.poison_in == PoisonIn::kKv) {
      const PlannedCase pc = planned_case(c);
      kv_poison_forms.insert({c.data.poison, pc.plan.path, form_of(pc.plan)});
      if (gathers_two_row_tiles(pc)) {
        two_row_tile_poisons.insert(c.data.poison);
      }
    }
    if (std::find(c.tags.begin(), c.tags.end(), "data") == c.tags.end()) continue;
    const PlannedCase pc = planned_case(c);
    const int form = form_of(pc.plan);
    seen.insert({c.data.dist, pc.plan.path, form});
    if (gathers_two_row_tiles(pc)) {
      two_row_tile_forms.insert({c.data.dist, form});
    }
    paged.insert({c.data.dist, c.pages.size > 1});
    if (c.data.dist == DataDist::kSink) sink_places.insert(c.data.sink_at);
    slow_rise = slow_rise || (c.data.dist == DataDist::kRising && c.data.rise_nats < 0.1);
  }
  const std::vector<DataDist> all = {DataDist::kUniform, DataDist::kNormal, DataDist::kSink, DataDist::kRising,
                                     DataDist::kLarge, DataDist::kTies, DataDist::kOutlierChannels};
  for (const DataDist d : all) {
    INFO(to_string(d));
    for (const auto path : {vb::FlashVerifyPath::kMmaSync, vb::FlashVerifyPath::kWgmma}) {
      for (const int form : {kSingle, kSplit}) CHECK(seen.count({d, path, form}));
    }
    CHECK(seen.count({d, vb::FlashVerifyPath::kMmaSync, kBalanced}));
    for (const int form : {kSingle, kSplit}) CHECK(two_row_tile_forms.count({d, form}));
    CHECK(paged.count({d, true}));
    CHECK(paged.count({d, false}));
  }
  for (const DataDist d : {DataDist::kSink, DataDist::kRising, DataDist::kLarge}) {
    CHECK(seen.count({d, vb::FlashVerifyPath::kWgmma, kBalanced}));
  }
  CHECK(sink_places.size() == 5);
  CHECK(slow_rise);
  // NaN and inf, each in q and in a visible K row; in K on every plan form of both paths
  // (the final LSE is written by the main kernel, the combine, or a block holding a request whole).
  CHECK(poisons.size() == 4);
  for (const PoisonValue v : {PoisonValue::kNaN, PoisonValue::kInf}) {
    for (const auto path : {vb::FlashVerifyPath::kMmaSync, vb::FlashVerifyPath::kWgmma}) {
      for (const int form : {kSingle, kSplit, kBalanced}) CHECK(kv_poison_forms.count({v, path, form}));
    }
    CHECK(two_row_tile_poisons.count(v));
  }
}

// A kernel whose running max stops after a split's first tile overflows exp2 once the
// scores rise 128 log2 units past that tile: every `rising` case of correctness.yaml must
// rise that far inside its splits, or it could not catch one.
TEST_CASE("correctness.yaml's rising cases rise past fp32's exp2 range inside every split", "[scenario][data]") {
  const ScenarioFile f = load("correctness.yaml");
  int cases = 0;
  for (const CaseSpec& c : f.cases) {
    if (c.data.dist != DataDist::kRising || c.data.rise_nats < 0.1) continue;
    INFO(c.name);
    const PlannedCase pc = planned_case(c);
    const int tile = pc.plan.path == vb::FlashVerifyPath::kWgmma ? 64 : 32;
    const int longest = *std::max_element(pc.kv_lens.begin(), pc.kv_lens.end());
    const int tiles = (longest + tile - 1) / tile;
    int batch_tiles = 0;
    for (const int kv : pc.kv_lens) batch_tiles += (kv + tile - 1) / tile;
    // The stretch one block walks of the longest request: a balanced block owns an equal
    // share of the batch's tiles, a split block at least an even share of the request's.
    const int split_tiles = pc.plan.tile_balanced ? batch_tiles / pc.plan.num_splits
                                                  : std::max(pc.plan.tiles_per_split, tiles / pc.plan.num_splits);
    INFO("tiles " << tiles << ", per split " << split_tiles);
    CHECK((split_tiles - 1) * tile * c.data.rise_nats > 128 * 0.6931471805599453);
    ++cases;
  }
  CHECK(cases >= 6);
}

TEST_CASE("correctness_fp8.yaml covers every mma.sync instance, distribution, poison and scale", "[scenario][fp8]") {
  const ScenarioFile f = load("correctness_fp8.yaml");
  check_common(f);
  double flops = 0;
  enum Form { kSingle, kSplit, kBalanced };
  std::set<std::pair<DataDist, int>> dist_forms;
  std::set<vb::KernelInstance> instances;
  std::set<int> poison_forms;
  std::set<int> page_sizes;  // the token and block tables run on every case: both page-table forms
  std::set<std::pair<PoisonValue, PoisonIn>> poisons;
  std::set<double> scales;
  bool amax = false;
  for (const CaseSpec& c : f.cases) {
    INFO(c.name << " (" << c.source << ")");
    REQUIRE(c.kv_cache.dtype == KvDtype::kFp8E4m3);
    CHECK(c.check.mode == CheckMode::kFull);
    flops += 2 * full_flops(c);  // the reference, and the quantization note's second one
    const PlannedCase pc = planned_case(c);
    // The H200 planner never takes the wgmma engine for an fp8 pool (it has no fp8 path yet).
    CHECK(pc.plan.path == vb::FlashVerifyPath::kMmaSync);
    instances.insert(pc.token_table_launch.instance);
    instances.insert(pc.block_table_launch.instance);
    const int form = pc.plan.tile_balanced ? kBalanced : pc.plan.num_splits > 1 ? kSplit : kSingle;
    dist_forms.insert({c.data.dist, form});
    page_sizes.insert(c.pages.size);
    if (c.data.poison != PoisonValue::kNone) {
      poisons.insert({c.data.poison, c.data.poison_in});
      if (c.data.poison_in == PoisonIn::kKv) poison_forms.insert(form);
    }
    amax = amax || c.kv_cache.scale_from_amax;
    if (!c.kv_cache.scale_from_amax) scales.insert(c.kv_cache.scale);
  }
  CHECK(flops < 1.0e12);
  for (const auto instance : {vb::KernelInstance::kMmaPlain, vb::KernelInstance::kMmaTokenSplit,
                              vb::KernelInstance::kMmaBalanced}) {
    CHECK(instances.count(instance));
  }
  // Every distribution on one split, on split KV and on the tile-balanced schedule.
  for (const DataDist d : {DataDist::kUniform, DataDist::kNormal, DataDist::kSink, DataDist::kRising, DataDist::kLarge,
                           DataDist::kTies, DataDist::kOutlierChannels}) {
    INFO(to_string(d));
    for (const int form : {kSingle, kSplit, kBalanced}) CHECK(dist_forms.count({d, form}));
  }
  CHECK(page_sizes == std::set<int>{1, 16, 64});
  CHECK(poisons.count({PoisonValue::kNaN, PoisonIn::kKv}));
  CHECK(poisons.count({PoisonValue::kNaN, PoisonIn::kQ}));
  CHECK(poisons.count({PoisonValue::kInf, PoisonIn::kQ}));
  CHECK(poison_forms == std::set<int>{kSingle, kSplit, kBalanced});
  CHECK(amax);
  CHECK(std::count_if(scales.begin(), scales.end(), [](double s) { return s != 1.0; }) >= 2);
}

TEST_CASE("perf.yaml parses, keeps KV pools small and tags regimes", "[scenario]") {
  const ScenarioFile f = load("perf.yaml");
  check_common(f);
  std::set<int> prefixes, batches;
  std::set<std::pair<int, int>> heads_and_kind;
  for (const CaseSpec& c : f.cases) {
    INFO(c.name);
    CHECK(c.check.mode == CheckMode::kSampled);
    CHECK(c.check.sampled_rows >= 64);
    CHECK(c.check.sampled_rows <= 256);
    CHECK(kv_tokens(c) * kKvRowBytes <= 2.5e9);
    const auto has = [&](const char* tag) {
      return std::find(c.tags.begin(), c.tags.end(), tag) != c.tags.end();
    };
    CHECK(has("perf"));
    CHECK(has("memory-bound") != has("compute-bound"));
    const double ht = static_cast<double>(c.heads) * tree_size(c.tree);
    CHECK(has("memory-bound") == (ht < kRidgeHT));
    if (has("single-request")) CHECK(batch_size(c.batch) == 1);
    prefixes.insert(largest_prefix(c.batch));
    prefixes.insert(smallest_prefix(c.batch));
    batches.insert(batch_size(c.batch));
  }
  CHECK(*prefixes.rbegin() == 131072);
  CHECK(prefixes.count(4096));
  // Every fp8 case has its bf16 twin: the case of the same name without "_fp8" and its math
  // sweep value, same shape; and each fp8 twin point runs with both maths.
  int fp8_cases = 0;
  std::map<std::string, std::set<MathMode>> maths_of_twin;
  for (const CaseSpec& c : f.cases) {
    if (c.kv_cache.dtype != KvDtype::kFp8E4m3) continue;
    ++fp8_cases;
    std::string twin_name = c.name;
    const std::size_t at = twin_name.find("_fp8");
    REQUIRE(at != std::string::npos);
    twin_name.erase(at, 4);
    for (const char* math : {",math=bf16", ",math=fp8", "/math=bf16", "/math=fp8"}) {
      if (const std::size_t m = twin_name.find(math); m != std::string::npos) twin_name.erase(m, std::strlen(math));
    }
    maths_of_twin[twin_name].insert(c.math);
    INFO(c.name << " -> " << twin_name);
    const auto twin = std::find_if(f.cases.begin(), f.cases.end(), [&](const CaseSpec& b) { return b.name == twin_name; });
    REQUIRE(twin != f.cases.end());
    CHECK(twin->kv_cache.dtype == KvDtype::kBf16);
    CHECK(twin->seed == c.seed);
    CHECK(twin->heads == c.heads);
    CHECK(tree_size(twin->tree) == tree_size(c.tree));
    CHECK(case_prefix_lengths(*twin) == case_prefix_lengths(c));
    CHECK(twin->pages.size == c.pages.size);
    CHECK(twin->pages.placement == c.pages.placement);
  }
  CHECK(fp8_cases >= 60);
  for (const auto& [twin, maths] : maths_of_twin) {
    INFO(twin);
    CHECK(maths == std::set<MathMode>{MathMode::kBf16, MathMode::kFp8});
  }
  CHECK(batches.count(1));
  CHECK(*batches.rbegin() == 64);
}

TEST_CASE("smoke and correctness cases materialize", "[scenario]") {
  for (const char* name : {"smoke.yaml", "correctness.yaml", "correctness_fp8.yaml"}) {
    const ScenarioFile f = load(name);
    for (const CaseSpec& c : f.cases) {
      INFO(c.name << " (" << c.source << ")");
      const Problem p = materialize(c);
      CHECK(p.batch == batch_size(c.batch));
      CHECK(p.tree_size == tree_size(c.tree));
      CHECK(p.num_heads == c.heads);
    }
  }
}

TEST_CASE("every full-file yaml example in scenarios/README.md parses", "[scenario]") {
  const std::string path = std::string(VB_SOURCE_DIR) + "/scenarios/README.md";
  std::ifstream in(path);
  REQUIRE(in);
  std::vector<std::string> blocks;
  std::string line, block;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside && line == "```yaml") {
      inside = true;
      block.clear();
    } else if (inside && line == "```") {
      inside = false;
      if (block.rfind("scenarios:", 0) == 0) blocks.push_back(block);
    } else if (inside) {
      block += line + "\n";
    }
  }
  CHECK(blocks.size() >= 6);  // layout, list batch, distributions, trees, pages, sweep
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    INFO("README example " << i << ":\n" << blocks[i]);
    ScenarioFile f;
    REQUIRE_NOTHROW(f = parse_scenario_text(blocks[i], "README.md"));
    for (const CaseSpec& c : f.cases) CHECK_NOTHROW(materialize(c));
  }
}

}  // namespace
}  // namespace vb

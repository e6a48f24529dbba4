// The planner's run-time settings (PlannerConfig) and the LaunchPlan it completes: what a
// scenario's `planner:` map and `--planner key=value` reach, and that a completed plan holds
// every decision the launcher needs.
#include <catch2/catch.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/plan/device_models.h"
#include "harness/scenario/scenario.h"
#include "verifybench/kernels.h"
#include "verifybench/planner.h"
#include "verifybench/planner_limits.h"

namespace {

vb::PlanShape chain_shape(int batch, int prefix, int tree, int heads, std::vector<int>* lens) {
  lens->assign(batch, prefix + tree);
  vb::PlanShape shape;
  shape.batch = batch;
  shape.tree_size = tree;
  shape.num_heads = heads;
  shape.max_kv_len = prefix + tree;
  shape.kv_lens = lens->data();
  shape.page_size = 64;
  shape.pool_rows = 1 << 22;
  return shape;
}

const char* kCase = R"(scenarios:
  - name: planned
    heads: 8
    sm_scale: 0.1
    batch: {size: 4, prefix: {dist: fixed, value: 4096}}
    tree: {kind: chain, nodes: 4}
    pages: {size: 64, placement: contiguous}
)";

}  // namespace

TEST_CASE("planner settings: every key sets its field, and the overrides say which differ", "[planner]") {
  vb::PlannerConfig config;
  CHECK(vb::planner_config_overrides(config).empty());
  std::string error;
  REQUIRE(vb::set_planner_option(&config, "split_divisor", "2", &error));
  REQUIRE(vb::set_planner_option(&config, "combine_tiles_per_split", "0.125", &error));
  REQUIRE(vb::set_planner_option(&config, "token_split", "0", &error));
  CHECK(config.split_divisor == 2);
  CHECK(config.combine_tiles_per_split == 0.125);
  CHECK_FALSE(config.token_split);
  CHECK(vb::planner_config_overrides(config) == "combine_tiles_per_split=0.125 split_divisor=2 token_split=0");
  // Every documented key takes its own default back.
  const vb::PlannerConfig defaults;
  for (const vb::PlannerOptionInfo& o : vb::planner_options()) {
    INFO(o.key);
    CHECK_FALSE(o.meaning.empty());
  }
  REQUIRE(vb::set_planner_option(&config, "split_divisor", "1", &error));
  REQUIRE(vb::set_planner_option(&config, "combine_tiles_per_split", "0.0625", &error));
  REQUIRE(vb::set_planner_option(&config, "token_split", "1", &error));
  CHECK(vb::planner_config_overrides(config) == vb::planner_config_overrides(defaults));
}

TEST_CASE("planner settings: unknown keys, non-numbers and out-of-range values are refused", "[planner]") {
  vb::PlannerConfig config;
  std::string error;
  CHECK_FALSE(vb::set_planner_option(&config, "split_divsor", "2", &error));
  CHECK(error.find("unknown planner setting 'split_divsor'") != std::string::npos);
  CHECK(error.find("split_divisor") != std::string::npos);  // the known keys are listed
  CHECK_FALSE(vb::set_planner_option(&config, "max_splits", "two", &error));
  CHECK(error.find("'two' is not a plain decimal integer") != std::string::npos);
  // Integer settings take integer text only, as every other integer field (issue 48, item 11).
  for (const char* text : {"2e0", "1e2", "2.", "0x2", "02", "+-2", " 2"}) {
    INFO(text);
    CHECK_FALSE(vb::set_planner_option(&config, "max_splits", text, &error));
    CHECK(error.find("is not a plain decimal integer") != std::string::npos);
  }
  CHECK_FALSE(vb::set_planner_option(&config, "split_overhead_tiles", "inf", &error));
  CHECK(error.find("is not a finite decimal number") != std::string::npos);
  CHECK(vb::set_planner_option(&config, "split_overhead_tiles", "2.5e0", &error));  // a number setting
  CHECK(config.split_overhead_tiles == 2.5);
  config = vb::PlannerConfig{};
  CHECK_FALSE(vb::set_planner_option(&config, "max_splits", "129", &error));  // past the combine's lanes
  CHECK_FALSE(vb::set_planner_option(&config, "max_splits", "2.5", &error));  // an integer setting
  CHECK_FALSE(vb::set_planner_option(&config, "token_split", "2", &error));
  CHECK_FALSE(vb::set_planner_option(&config, "split_overhead_tiles", "nan", &error));
  CHECK(config.max_splits == vb::PlannerConfig{}.max_splits);  // nothing changed on failure
}

TEST_CASE("planner settings change the plan without a rebuild", "[planner]") {
  std::vector<int> lens;
  const vb::PlanShape shape = chain_shape(1, 65536, 4, 8, &lens);
  const vb::DeviceTarget h200 = vb::device_target(*vb::find_device_model("h200"));
  const vb::LaunchPlan base = vb::make_launch_plan(shape, h200);
  vb::PlannerConfig slowed;
  slowed.split_divisor = 2;
  const vb::LaunchPlan half = vb::make_launch_plan(shape, h200, slowed);
  REQUIRE(base.valid);
  REQUIRE(half.valid);
  CHECK(half.schedule.num_splits == base.schedule.num_splits / 2);
  vb::PlannerConfig no_wgmma;
  no_wgmma.wgmma_min_rows = 1 << 20;
  no_wgmma.wgmma_few_rows_min_page_size = 1 << 20;
  const vb::LaunchPlan mma = vb::make_launch_plan(chain_shape(8, 8192, 4, 128, &lens), h200, no_wgmma);
  CHECK(mma.schedule.path == vb::FlashVerifyPath::kMmaSync);
  CHECK(vb::make_launch_plan(chain_shape(8, 8192, 4, 128, &lens), h200).schedule.path == vb::FlashVerifyPath::kWgmma);
}

TEST_CASE("a scenario's planner: map reaches the case, and bad settings name their line", "[planner]") {
  const std::string with_map = std::string(kCase) + "    planner: {split_divisor: 2, max_splits: 64}\n";
  const vb::ScenarioFile f = vb::parse_scenario_text(with_map, "p.yaml");
  REQUIRE(f.cases.size() == 1);
  CHECK(f.cases[0].planner.split_divisor == 2);
  CHECK(f.cases[0].planner.max_splits == 64);
  CHECK(vb::parse_scenario_text(kCase, "p.yaml").cases[0].planner.split_divisor == 1);
  auto message = [](const std::string& text) {
    try {
      vb::parse_scenario_text(text, "p.yaml");
    } catch (const vb::ScenarioError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(message(std::string(kCase) + "    planner: {split_divisr: 2}\n").find("p.yaml:8:") == 0);
  CHECK(message(std::string(kCase) + "    planner: {split_divisr: 2}\n").find("unknown planner setting") !=
        std::string::npos);
  CHECK(message(std::string(kCase) + "    planner: {max_splits: 0}\n").find("out of range") != std::string::npos);
  CHECK(message(std::string(kCase) + "    planner: {max_splits: 8, max_splits: 9}\n").find("duplicate key") !=
        std::string::npos);
  CHECK(message(std::string(kCase) + "    planner: [1]\n").find("a map of planner settings") != std::string::npos);
}

TEST_CASE("a completed plan holds every launch decision", "[planner]") {
  std::vector<int> lens;
  const vb::DeviceTarget h200 = vb::device_target(*vb::find_device_model("h200"));
  const vb::DeviceTarget rtx = vb::device_target(*vb::find_device_model("rtx-pro-6000"));
  const vb::LaunchPlan p = vb::make_launch_plan(chain_shape(1, 65536, 4, 8, &lens), rtx);
  REQUIRE(p.valid);
  CHECK(p.instance == vb::KernelInstance::kMmaPlain);
  CHECK(p.pipeline_stages == 2);  // 99 KB: the double buffer
  CHECK(p.smem_bytes == vb::flash_verify_smem_bytes(2));
  CHECK(p.smem_bytes <= 101376);
  CHECK(p.main_grid.x == static_cast<unsigned>(p.schedule.m_tiles));
  CHECK(p.main_grid.y == static_cast<unsigned>(p.schedule.num_splits));
  CHECK(p.main_grid.z == 1);
  REQUIRE(p.schedule.num_splits > 1);
  CHECK(p.combine_lanes == vb::flash_verify_combine_lanes(p.schedule.num_splits, 32, 188, 1536));
  CHECK(p.combine_block.x * p.combine_block.y == 256);
  CHECK(vb::describe(p).find("mma.sync stages=2 smem=") == 0);
  // A forced depth that does not fit, an engine the device lacks, and a lane count the
  // combine has no instance for leave the plan invalid, with the reason.
  vb::SplitSchedule deep = p.schedule;
  deep.pipeline_stages = 4;
  const vb::LaunchPlan too_deep = vb::complete_launch_plan(deep, chain_shape(1, 65536, 4, 8, &lens), rtx);
  CHECK_FALSE(too_deep.valid);
  CHECK(vb::describe(too_deep).find("invalid: ") == 0);
  vb::SplitSchedule wgmma = p.schedule;
  wgmma.path = vb::FlashVerifyPath::kWgmma;
  CHECK_FALSE(vb::complete_launch_plan(wgmma, chain_shape(1, 65536, 4, 8, &lens), rtx).valid);
  vb::SplitSchedule lanes = p.schedule;
  lanes.combine_split_lanes = 3;
  CHECK_FALSE(vb::complete_launch_plan(lanes, chain_shape(1, 65536, 4, 8, &lens), rtx).valid);
  // A device that asks for more shared memory per block (an sm_120 proxy on a Hopper) gets it.
  vb::DeviceTarget held = h200;
  held.mma_smem_request_bytes = 120 * 1024;
  vb::SplitSchedule two = p.schedule;
  two.pipeline_stages = 2;
  CHECK(vb::complete_launch_plan(two, chain_shape(1, 65536, 4, 8, &lens), held).smem_bytes == 120 * 1024);
  // ... also past the target's own per-block limit, as the sm_120 proxy's target asks: 99 KB
  // per block, 115,840 B requested so that an H200 SM holds one block.
  vb::DeviceTarget proxy = rtx;
  proxy.num_sms = 132;
  proxy.mma_smem_request_bytes = 115840;
  const vb::LaunchPlan proxied = vb::make_launch_plan(chain_shape(1, 65536, 4, 8, &lens), proxy);
  REQUIRE(proxied.valid);
  CHECK(proxied.pipeline_stages == 2);
  CHECK(proxied.smem_bytes == 115840);
}

TEST_CASE("each instance and depth a plan names is a kernel of its own", "[planner]") {
  // What FlashVerifyLaunchRecord is checked against in the GPU tests: a plan maps to one built
  // kernel, and no two instances share one (so a record can tell them apart).
  std::vector<int> lens;
  vb::DeviceTarget h200 = vb::device_target(*vb::find_device_model("h200"));
  std::vector<const void*> kernels;
  auto add = [&](vb::SplitSchedule s, vb::PageTableKind kind, int heads, int tree, bool over_writer = false) {
    vb::PlanShape shape = chain_shape(4, 4096, tree, heads, &lens);
    shape.page_kind = kind;
    const vb::LaunchPlan plan = vb::complete_launch_plan(s, shape, h200);
    REQUIRE(plan.valid);
    const void* k = vb::flash_verify_main_kernel_of(plan, over_writer);
    CHECK(k != nullptr);
    kernels.push_back(k);
    return plan;
  };
  using vb::FlashVerifyPath;
  using vb::PageTableKind;
  for (int stages : {2, 4}) {
    add({2, 1, stages}, PageTableKind::kTokenIndices, 8, 2);
    add({2, 1, stages}, PageTableKind::kTokenIndices, 8, 2, true);
    vb::SplitSchedule token_split{2, 1, stages};
    token_split.token_split = true;
    add(token_split, PageTableKind::kTokenIndices, 8, 1);
    vb::SplitSchedule balanced{2, 1, stages};
    balanced.tile_balanced = true;
    balanced.balanced_slots = 2;
    add(balanced, PageTableKind::kTokenIndices, 8, 2);
  }
  add({2, 1, 0, FlashVerifyPath::kWgmma}, PageTableKind::kTokenIndices, 8, 4);   // gather (1 row tile)
  add({2, 4, 0, FlashVerifyPath::kWgmma}, PageTableKind::kTokenIndices, 64, 4);  // run boxes (4 row tiles)
  add({2, 2, 0, FlashVerifyPath::kWgmma}, PageTableKind::kBlockTable, 32, 4);    // page boxes (pages of 64, 2 row tiles)
  vb::SplitSchedule wgmma_balanced{2, 1, 0, FlashVerifyPath::kWgmma};
  wgmma_balanced.tile_balanced = true;
  wgmma_balanced.balanced_slots = 2;
  const vb::LaunchPlan wb = add(wgmma_balanced, PageTableKind::kTokenIndices, 8, 4);
  CHECK(wb.instance == vb::KernelInstance::kWgmmaBalanced);
  std::vector<const void*> sorted = kernels;
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
  CHECK(kernels.size() == 12);
  // The combine: one split has none; lanes and loads pick the instance.
  vb::PlanShape shape = chain_shape(4, 4096, 4, 8, &lens);
  CHECK(vb::flash_verify_combine_kernel_of(vb::complete_launch_plan({1, 1}, shape, h200)) == nullptr);
  CHECK(vb::flash_verify_combine_kernel_of(vb::complete_launch_plan({4, 1}, shape, h200)) != nullptr);
  vb::SplitSchedule wide{64, 1};
  wide.combine_split_lanes = 4;
  vb::SplitSchedule narrow = wide;
  narrow.combine_split_lanes = 8;
  CHECK(vb::flash_verify_combine_kernel_of(vb::complete_launch_plan(wide, shape, h200)) !=
        vb::flash_verify_combine_kernel_of(vb::complete_launch_plan(narrow, shape, h200)));
}

TEST_CASE("planner: shapes whose 32-bit arithmetic would overflow are refused, not planned", "[planner]") {
  // num_heads 2^31 - 1 once gave m_tiles = -33554431 (issue 48, item 10).
  const vb::DeviceTarget h200 = vb::device_target(*vb::find_device_model("h200"));
  std::vector<int> lens;
  const vb::PlanShape huge = chain_shape(1, 0, 1, 2147483647, &lens);
  CHECK(vb::planner_shape_error(1, 1, 2147483647, 1, nullptr) ==
        "batch * tree_size * num_heads = 1 * 1 * 2147483647 query rows; allowed: at most 1073741824 (2^30)");
  const vb::LaunchPlan plan = vb::make_launch_plan(huge, h200);
  CHECK_FALSE(plan.valid);
  CHECK(plan.why_invalid.find("query rows") != std::string::npos);
  CHECK_FALSE(vb::make_launch_plan_for_path(vb::FlashVerifyPath::kMmaSync, huge, h200).valid);
  CHECK_THROWS_AS(vb::plan_split_schedule(1, 1, 2147483647, 1, 132, 1, true), std::invalid_argument);
  CHECK_THROWS_AS(vb::plan_split_schedule(65535, 1024, 128, 4096, 132, 1, true), std::invalid_argument);
  CHECK(vb::planner_shape_error(1, 4, 8, 2147483647, nullptr).rfind("max_kv_len 2147483647", 0) == 0);
  const int bad_len = -5;
  CHECK(vb::planner_shape_error(1, 4, 8, 100, &bad_len).rfind("kv_lens[0] -5", 0) == 0);
  CHECK(vb::planner_shape_error(1, 0, 8, 100, nullptr).rfind("tree_size 0", 0) == 0);
  // The largest shape within the bound still plans, with positive counts.
  const vb::PlanShape edge = chain_shape(1, 100, 1, 1 << 30, &lens);
  const vb::LaunchPlan fits = vb::make_launch_plan(edge, h200);
  REQUIRE(fits.valid);
  CHECK(fits.schedule.m_tiles > 0);
  CHECK(fits.schedule.num_splits > 0);
}

TEST_CASE("planner: a wgmma plan whose shared memory the device cannot give is refused", "[planner]") {
  // smem_optin_bytes = 1 once planned a 230,992-byte wgmma launch.
  vb::DeviceTarget tiny = vb::device_target(*vb::find_device_model("h200"));
  tiny.smem_optin_bytes = 1;
  std::vector<int> lens;
  const vb::PlanShape shape = chain_shape(8, 8188, 4, 16, &lens);  // 64 rows: the wgmma path
  const vb::LaunchPlan plan = vb::make_launch_plan(shape, tiny);
  REQUIRE(plan.schedule.path == vb::FlashVerifyPath::kWgmma);
  CHECK_FALSE(plan.valid);
  CHECK(plan.why_invalid.find("exceed the device's per-block limit (smem_optin_bytes 1)") != std::string::npos);
  CHECK_FALSE(vb::make_launch_plan_for_path(vb::FlashVerifyPath::kMmaSync, shape, tiny).valid);
  CHECK(vb::make_launch_plan(shape, vb::device_target(*vb::find_device_model("h200"))).valid);
}

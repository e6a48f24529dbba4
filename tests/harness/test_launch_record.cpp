// The launch record (harness/record/launch_record.h) holds the plan's choices as fields, and the
// one planning function (executor_launch_plan, harness/plan/executor_plans.h) gives `run` (from
// the materialized problem) and `verifybench plan` (from the spec) the same launch.
#include <catch2/catch.hpp>

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "harness/plan/device_models.h"
#include "harness/plan/executor_plans.h"
#include "harness/problem/problem.h"
#include "harness/record/launch_record.h"

namespace {

vb::CaseSpec skewed_spec() {
  vb::CaseSpec spec;
  spec.name = "skewed";
  spec.heads = 16;
  spec.sm_scale = 0.13;
  spec.seed = 3;
  spec.batch.dist = vb::PrefixDist::kList;
  spec.batch.prefix_lens = {4000, 90, 1500};
  spec.tree.kind = vb::TreeKind::kChain;
  spec.tree.nodes = 4;
  spec.pages.size = 16;
  return spec;
}

}  // namespace

TEST_CASE("launch record: the plan's fields, its line and the settings that differ from the defaults", "[plan]") {
  vb::CaseSpec spec = skewed_spec();
  std::string error;
  REQUIRE(vb::set_planner_option(&spec.planner, "split_divisor", "2", &error));
  const vb::PlanTargets h200 = vb::plan_targets(*vb::find_device_model("h200"));
  const vb::CasePlanInputs inputs = vb::case_plan_inputs(spec);
  for (const vb::PageTableKind kind : {vb::PageTableKind::kTokenIndices, vb::PageTableKind::kBlockTable}) {
    vb::ExecutorPlanRole mma_sync;  // production/mma.sync over this table
    mma_sync.force_path = true;
    mma_sync.forced_path = vb::FlashVerifyPath::kMmaSync;
    mma_sync.table = kind;
    const vb::LaunchPlan plan = vb::executor_launch_plan(mma_sync, inputs, h200);
    REQUIRE(plan.valid);
    const vb::LaunchRecord r = vb::launch_record(plan, kind, spec.planner);
    CHECK(r.engine == "mma.sync");
    CHECK(r.instance == vb::to_string(plan.instance));
    CHECK(r.page_table == vb::to_string(kind));
    CHECK(r.grid == std::array<unsigned, 3>{plan.main_grid.x, plan.main_grid.y, plan.main_grid.z});
    CHECK(r.launch_blocks() == std::int64_t{plan.main_grid.x} * plan.main_grid.y * plan.main_grid.z);
    CHECK(r.threads == plan.main_threads);
    CHECK(r.pipeline_stages == plan.pipeline_stages);
    CHECK(r.smem_bytes == plan.smem_bytes);
    CHECK(r.m_tiles == plan.schedule.m_tiles);
    CHECK(r.splits == plan.schedule.num_splits);
    CHECK(r.tile_balanced == plan.schedule.tile_balanced);
    CHECK(r.combine_lanes == (plan.schedule.num_splits > 1 ? plan.combine_lanes : 0));
    CHECK(r.summary == vb::describe(plan));
    CHECK(r.blocks_per_sm == 0);
    CHECK(r.planner_settings == std::vector<std::pair<std::string, std::string>>{{"split_divisor", "2"}});
  }
  const vb::LaunchPlan plain = vb::executor_launch_plan(vb::ExecutorPlanRole{}, inputs, h200);
  CHECK(vb::launch_record(plain, vb::PageTableKind::kTokenIndices, {}).planner_settings.empty());
}

TEST_CASE("one planning function: run's inputs (the problem) and plan's (the spec) give the same launch", "[plan]") {
  const vb::CaseSpec spec = skewed_spec();
  const vb::Problem problem = vb::materialize(spec);
  // What DeviceProblem::upload plans from.
  const vb::CasePlanInputs from_problem = vb::case_plan_inputs(problem.prefix_len, problem.tree_size, problem.num_heads,
                                                               problem.pages, spec.planner);
  for (const vb::DeviceModel& device : vb::device_models()) {
    INFO(device.slug);
    const vb::PlannedLaunch planned = vb::plan_launch(spec, device);  // `verifybench plan`
    for (const vb::PageTableKind kind : {vb::PageTableKind::kTokenIndices, vb::PageTableKind::kBlockTable}) {
      vb::ExecutorPlanRole production;
      production.table = kind;
      const vb::LaunchPlan run = vb::executor_launch_plan(production, from_problem, vb::plan_targets(device));
      const vb::LaunchPlan& plan = kind == vb::PageTableKind::kTokenIndices ? planned.launch : planned.block_table_launch;
      REQUIRE(run.valid);
      CHECK(vb::describe(run) == vb::describe(plan));
    }
  }
}

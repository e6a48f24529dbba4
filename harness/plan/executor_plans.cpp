#include "harness/plan/executor_plans.h"

#include <algorithm>

namespace vb {

PlanShape CasePlanInputs::shape(PageTableKind table) const {
  PlanShape shape = plan_shape(kv_lens, tree_size, num_heads, table, page_size, pool_rows);
  shape.kv_dtype = kv_dtype;
  return shape;
}

CasePlanInputs case_plan_inputs(const std::vector<std::int32_t>& prefix_len, int tree_size, int num_heads,
                                const PageLayout& pages, const PlannerConfig& config) {
  CasePlanInputs in;
  in.kv_lens.reserve(prefix_len.size());
  for (std::int32_t p : prefix_len) in.kv_lens.push_back(p + tree_size);  // the planner sizes splits by these
  in.tree_size = tree_size;
  in.num_heads = num_heads;
  in.page_size = pages.page_size;
  in.pool_rows = pages.pool_rows();
  in.config = config;
  return in;
}

CasePlanInputs case_plan_inputs(const CaseSpec& spec) {
  const std::vector<std::int32_t> prefix = case_prefix_lengths(spec);
  int tree = 0;
  try {
    tree = tree_size(spec.tree);
  } catch (const ScenarioError& e) {
    throw ScenarioError("case '" + spec.name + "': " + e.what());
  }
  CasePlanInputs in = case_plan_inputs(prefix, tree, spec.heads, case_page_layout(spec, prefix, tree), spec.planner);
  in.kv_dtype = spec.kv_cache.dtype;
  in.math = spec.math;
  return in;
}

namespace {

LaunchPlan planned_launch(const ExecutorPlanRole& role, const CasePlanInputs& inputs, const PlanTargets& targets) {
  const PlanShape shape = inputs.shape(role.table);
  if (role.sm120_proxy) return make_launch_plan(shape, targets.sm120_proxy, inputs.config);
  if (role.force_path) return make_launch_plan_for_path(role.forced_path, shape, targets.device, inputs.config);
  return make_launch_plan(shape, targets.device, inputs.config);
}

}  // namespace

LaunchPlan executor_launch_plan(const ExecutorPlanRole& role, const CasePlanInputs& inputs,
                                const PlanTargets& targets) {
  LaunchPlan plan = planned_launch(role, inputs, targets);
  if (inputs.kv_dtype == KvDtype::kFp8E4m3 && plan.schedule.path == FlashVerifyPath::kMmaSync) plan.math = inputs.math;
  return plan;
}

}  // namespace vb

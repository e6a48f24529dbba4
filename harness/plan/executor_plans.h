// The planner's inputs for a case and the launch each GPU executor plans from them: the one
// place both the run (DeviceProblem::upload) and `verifybench plan --coverage` get an
// executor's LaunchPlan, so the coverage table names the launches the run makes. Host-only
// arithmetic: no GPU, no KV pool.
#pragma once
#include <cstdint>
#include <vector>

#include "harness/problem/problem.h"
#include "harness/scenario/scenario.h"
#include "verifybench/kernels.h"

namespace vb {

// What the planner reads of a case: each request's prefix + tree length, the tree and head
// counts, the page size and the pool's rows (TMA boxes address at most INT32_MAX), and the
// case's planner settings.
struct CasePlanInputs {
  std::vector<int> kv_lens;
  int tree_size = 0;
  int num_heads = 0;
  int page_size = 1;
  std::int64_t pool_rows = 0;
  KvDtype kv_dtype = KvDtype::kBf16;  // an fp8 pool plans the mma.sync engine only
  MathMode math = MathMode::kBf16;    // the case's tensor math (fp8 only over an fp8 pool)
  PlannerConfig config;
  // The shape of the launch over this page-table form (kv_lens must outlive it).
  PlanShape shape(PageTableKind table) const;
};
// From a materialized problem's lengths and page layout.
CasePlanInputs case_plan_inputs(const std::vector<std::int32_t>& prefix_len, int tree_size, int num_heads,
                                const PageLayout& pages, const PlannerConfig& config);
// From a spec alone: the lengths and the page layout exactly as materialize() builds them
// (case_prefix_lengths, build_page_layout), without the KV data. Throws ScenarioError where
// materialize() would.
CasePlanInputs case_plan_inputs(const CaseSpec& spec);

// How an executor's launch is planned: for which target, on which engine, over which page
// table, and where its tree rows come from.
struct ExecutorPlanRole {
  bool sm120_proxy = false;   // planned for sm_120 on the device's SMs (sm120_proxy_target)
  bool force_path = false;    // one engine forced (production/mma.sync, production/wgmma)
  FlashVerifyPath forced_path = FlashVerifyPath::kMmaSync;
  PageTableKind table = PageTableKind::kTokenIndices;  // the page table the launch reads
  bool dense_tree_rows = false;  // tree rows dense (SGLang's k_extend), the table over the prefix
};

// The targets an executor plans for: the device, and sm_120's configuration on its SMs.
struct PlanTargets {
  DeviceTarget device;
  DeviceTarget sm120_proxy;
  bool has_sm120_proxy = false;  // false: no proxy plans (not a Hopper)
};

// The launch of an executor of this role on this case. Dense tree rows change no planner
// choice: the role's table and target decide it. The case's math goes to every mma.sync launch
// over an fp8 pool (LaunchPlan::math; the wgmma engine never takes one).
LaunchPlan executor_launch_plan(const ExecutorPlanRole& role, const CasePlanInputs& inputs,
                                const PlanTargets& targets);

}  // namespace vb

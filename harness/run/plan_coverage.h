// Plan coverage (`verifybench plan --coverage`): every plan family the planner can give a
// launch on a device target, and the cases and executors whose launches are of it. A family
// is the product of the planner's independent choices: kernel instance (which fixes the
// engine), page-table form, where the tree rows come from, split kind, pipeline depth and
// combine lanes. Each executor's launch comes from executor_launch_plan (the run's own code);
// reachability from the planner itself, run over a grid of probe shapes, with the structural
// rules below naming why the rest is unreachable by design. Host-only arithmetic: no GPU.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "harness/plan/device_models.h"
#include "harness/plan/executor_plans.h"
#include "harness/record/executor_registry.h"
#include "harness/scenario/scenario.h"

namespace vb {

enum class SplitKind { kNone, kFixed, kTileBalanced };
const char* to_string(SplitKind split);  // "none", "fixed", "tile-balanced"

struct PlanFamily {
  KernelInstance instance = KernelInstance::kMmaPlain;
  PageTableKind table = PageTableKind::kTokenIndices;
  bool dense_tree_rows = false;
  SplitKind split = SplitKind::kNone;
  int stages = 0;
  int combine_lanes = 0;  // 0: no combine (one split per request)
  auto operator<=>(const PlanFamily&) const = default;
};
// e.g. "wgmma/page-boxes block-table dense-tree split=fixed stages=2 lanes=4"
std::string family_name(const PlanFamily& family);
// The family of an executor's launch.
PlanFamily family_of(const LaunchPlan& plan, const ExecutorPlanRole& role);

// A device target of the coverage table: the lab device's own launches, or sm_120's
// configuration run on the lab device's SMs (the sm120-proxy executors).
struct CoverageTarget {
  std::string name;          // "h200", "sm_120 (proxy on h200)"
  bool sm120_proxy = false;  // its executors are the sm120-proxy ones
  PlanTargets targets;       // the run's planner targets on the lab device
  const DeviceTarget& planned() const { return sm120_proxy ? targets.sm120_proxy : targets.device; }
};
// The lab device's targets: itself, and sm_120 through the proxy where it is a Hopper.
std::vector<CoverageTarget> coverage_targets(const DeviceModel& lab);

// One executor of the registry (harness/record/executor_registry.h) whose launches plan for a
// target.
struct CoverageExecutor {
  std::string name;
  GpuExecutorKind kind = GpuExecutorKind::kProduction;
  ExecutorPlanRole role;
};
std::vector<CoverageExecutor> coverage_executors(const CoverageTarget& target);

// A case and executor whose launch is of a family.
struct FamilyUse {
  std::string case_name;
  std::string executor;
  bool rescale_data = false;  // the case's data can expose a wrong rescale (rising_rescale_data)
};
struct FamilyCoverage {
  PlanFamily family;
  std::string unreachable;  // the structural rule that excludes it ("" where none does)
  bool probed = false;      // the planner gave a launch of it on a probe shape
  std::vector<FamilyUse> uses;
  bool reachable() const { return unreachable.empty() && (probed || !uses.empty()); }
};
// Data whose running max moves inside a split (rising) or jumps at a few rows (sink): a
// kernel that rescales its partial sums wrongly shows there, where uniform data hides it.
bool rescale_data(const DataSpec& data);
struct TargetCoverage {
  CoverageTarget target;
  std::vector<CoverageExecutor> executors;
  std::vector<FamilyCoverage> families;  // the whole product, in order
  int probe_shapes = 0;
};
// Every family of the target with its cases; throws ScenarioError for a case that cannot be
// materialized.
TargetCoverage plan_coverage(const CoverageTarget& target, const std::vector<CaseSpec>& cases);
// What `plan --coverage --check` fails on, one line each naming the target and family: a
// reachable family no case reaches, or none on rescale data (rescale_data); a family a structural rule excludes that the planner gave
// anyway (the rule is stale); a family a case reaches that no probe shape does (the probe
// grid misses it, so losing that case would go unnoticed).
std::vector<std::string> coverage_failures(const TargetCoverage& coverage);

}  // namespace vb

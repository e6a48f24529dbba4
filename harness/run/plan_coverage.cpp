#include "harness/run/plan_coverage.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "harness/run/gpu_executor.h"

namespace vb {
namespace {

constexpr KernelInstance kInstances[] = {
    KernelInstance::kMmaPlain,      KernelInstance::kMmaTokenSplit,  KernelInstance::kMmaBalanced,
    KernelInstance::kWgmmaGather,   KernelInstance::kWgmmaRunBoxes,  KernelInstance::kWgmmaPageBoxes,
    KernelInstance::kWgmmaBalanced,
};
constexpr SplitKind kSplitKinds[] = {SplitKind::kNone, SplitKind::kFixed, SplitKind::kTileBalanced};
constexpr int kCombineLanes[] = {0, 1, 2, 4, 8};

bool is_wgmma(KernelInstance instance) {
  return instance == KernelInstance::kWgmmaGather || instance == KernelInstance::kWgmmaRunBoxes ||
         instance == KernelInstance::kWgmmaPageBoxes || instance == KernelInstance::kWgmmaBalanced;
}
bool is_balanced(KernelInstance instance) {
  return instance == KernelInstance::kMmaBalanced || instance == KernelInstance::kWgmmaBalanced;
}
const char* table_name(PageTableKind table) {
  return table == PageTableKind::kBlockTable ? "block-table" : "token-table";
}
const char* tree_rows_name(bool dense) { return dense ? "dense-tree" : "pool-tree"; }

// The wgmma kernel's one pipeline depth, as complete_launch_plan gives it to every wgmma launch.
int wgmma_depth() {
  SplitSchedule schedule;
  schedule.path = FlashVerifyPath::kWgmma;
  DeviceTarget target;
  target.wgmma = true;
  return complete_launch_plan(schedule, PlanShape{}, target).pipeline_stages;
}

// Every pipeline depth a family may name: the mma.sync kernel's built depths and the wgmma one.
std::vector<int> all_depths() {
  int stages[8];
  const int n = std::min(flash_verify_pipeline_variants(stages, 8), 8);
  std::vector<int> depths(stages, stages + n);
  depths.push_back(wgmma_depth());
  std::sort(depths.begin(), depths.end());
  depths.erase(std::unique(depths.begin(), depths.end()), depths.end());
  return depths;
}

// The structural rules, each what kernels/planner/planner.cpp does (complete_launch_plan,
// wgmma_instance_for, plan_split_schedule_for_path): the reason no launch of `target` is of
// `family`, or "" where none applies. coverage_failures reports a rule the planner contradicts.
std::string structural_reason(const PlanFamily& f, const CoverageTarget& target,
                              const std::vector<CoverageExecutor>& executors) {
  const DeviceTarget& device = target.planned();
  const bool wgmma = is_wgmma(f.instance);
  if (wgmma && !device.wgmma) return "no wgmma path on this target (sm_90a machine code, compute capability 9.0)";
  if (!wgmma && f.stages != flash_verify_stages_for_smem_optin(device.smem_optin_bytes)) {
    return fmt::format("mma.sync runs the deepest built depth within the target's {} B of shared memory per block: {} stages",
                       device.smem_optin_bytes, flash_verify_stages_for_smem_optin(device.smem_optin_bytes));
  }
  if (wgmma && f.stages != wgmma_depth()) {
    return fmt::format("the wgmma kernel has one pipeline depth: {} stages", wgmma_depth());
  }
  const bool passed = std::any_of(executors.begin(), executors.end(), [&](const CoverageExecutor& e) {
    return e.role.table == f.table && e.role.dense_tree_rows == f.dense_tree_rows;
  });
  if (!passed) {
    return fmt::format("no executor of this target passes a {} with {} rows", table_name(f.table),
                       tree_rows_name(f.dense_tree_rows));
  }
  if (is_balanced(f.instance) != (f.split == SplitKind::kTileBalanced)) {
    return "a tile-balanced schedule runs the balanced instance of its engine, and only it does";
  }
  if (f.instance == KernelInstance::kWgmmaRunBoxes && f.table != PageTableKind::kTokenIndices) {
    return "run boxes are the token table's TMA instance";
  }
  if (f.instance == KernelInstance::kWgmmaPageBoxes && f.table != PageTableKind::kBlockTable) {
    return "page boxes are the block table's TMA instance";
  }
  if ((f.split == SplitKind::kNone) != (f.combine_lanes == 0)) {
    return "the combine runs, with its lanes, exactly where a request has more than one split";
  }
  return "";
}

// The probe grid: shapes the planner is run on to find which families it gives. Query rows
// from 1 to 8192 (T up to 64, H up to 128), equal batches from one request to two waves of
// requests at lengths across the split model's range, skewed batches (one long request among
// short ones: the fixed-size and tile-balanced plans), and the page sizes 1, 16 and 64. The
// pool is sized as build_page_layout sizes it (pool_pages_for).
std::vector<CasePlanInputs> probe_shapes() {
  std::vector<std::vector<int>> prefix_sets;
  for (int batch : {1, 4, 16, 32, 66, 132, 264}) {
    for (int prefix : {64, 600, 4096, 4500, 32768}) prefix_sets.push_back(std::vector<int>(batch, prefix));
  }
  for (int batch : {8, 64}) {
    for (int longest : {8192, 65536}) {
      std::vector<int> skewed(batch, 64);
      skewed[0] = longest;
      prefix_sets.push_back(skewed);
    }
  }
  std::vector<CasePlanInputs> shapes;
  for (int tree : {1, 2, 4, 8, 16, 32, 64}) {
    for (int heads : {1, 8, 16, 64, 128}) {
      for (const std::vector<int>& prefixes : prefix_sets) {
        for (int page : {1, 16, 64}) {
          CasePlanInputs in;
          in.tree_size = tree;
          in.num_heads = heads;
          in.page_size = page;
          std::int64_t pages = 0;
          for (int p : prefixes) {
            in.kv_lens.push_back(p + tree);
            pages += (p + tree + page - 1) / page;
          }
          in.pool_rows = pool_pages_for(pages) * page;
          shapes.push_back(std::move(in));
        }
      }
    }
  }
  return shapes;
}

// Calls `visit(executor, plan)` for every executor of the target that runs on these inputs,
// with the launch the run gives it.
template <class Visit>
void for_each_launch(const CoverageTarget& target, const std::vector<CoverageExecutor>& executors,
                     const CasePlanInputs& inputs, Visit visit) {
  const FlashVerifyPath planned_path = executor_launch_plan(ExecutorPlanRole{}, inputs, target.targets).schedule.path;
  const std::string proxy_not_run = target.targets.has_sm120_proxy ? "" : "not run: no sm_120 proxy on this device";
  for (const CoverageExecutor& e : executors) {
    if (!executor_not_run_reason(e.kind, planned_path, target.targets.device.wgmma, proxy_not_run).empty()) continue;
    const LaunchPlan plan = executor_launch_plan(e.role, inputs, target.targets);
    if (plan.valid) visit(e, plan);
  }
}

}  // namespace

bool rescale_data(const DataSpec& data) { return data.dist == DataDist::kRising || data.dist == DataDist::kSink; }

const char* to_string(SplitKind split) {
  switch (split) {
    case SplitKind::kNone: return "none";
    case SplitKind::kFixed: return "fixed";
    case SplitKind::kTileBalanced: return "tile-balanced";
  }
  return "unknown";
}

std::string family_name(const PlanFamily& f) {
  std::string name = fmt::format("{} {} {} split={} stages={}", to_string(f.instance), table_name(f.table),
                                 tree_rows_name(f.dense_tree_rows), to_string(f.split), f.stages);
  return f.combine_lanes > 0 ? name + fmt::format(" lanes={}", f.combine_lanes) : name;
}

PlanFamily family_of(const LaunchPlan& plan, const ExecutorPlanRole& role) {
  PlanFamily f;
  f.instance = plan.instance;
  f.table = role.table;
  f.dense_tree_rows = role.dense_tree_rows;
  f.split = plan.schedule.tile_balanced      ? SplitKind::kTileBalanced
            : plan.schedule.num_splits > 1   ? SplitKind::kFixed
                                             : SplitKind::kNone;
  f.stages = plan.pipeline_stages;
  f.combine_lanes = plan.schedule.num_splits > 1 ? plan.combine_lanes : 0;
  return f;
}

std::vector<CoverageTarget> coverage_targets(const DeviceModel& lab) {
  std::vector<CoverageTarget> out;
  const PlanTargets targets = plan_targets(lab);
  out.push_back({lab.slug, false, targets});
  if (targets.has_sm120_proxy) out.push_back({"sm_120 (proxy on " + lab.slug + ")", true, targets});
  return out;
}

std::vector<CoverageExecutor> coverage_executors(const CoverageTarget& target) {
  std::vector<CoverageExecutor> out;
  for (const ExecutorInfo& info : executor_registry()) {
    const std::optional<ExecutorPlanRole> role = executor_plan_role(info.kind, info.page_kind);
    if (role && role->sm120_proxy == target.sm120_proxy) out.push_back({info.name, info.kind, *role});
  }
  return out;
}

TargetCoverage plan_coverage(const CoverageTarget& target, const std::vector<CaseSpec>& cases) {
  TargetCoverage cov;
  cov.target = target;
  cov.executors = coverage_executors(target);
  std::map<PlanFamily, FamilyCoverage> by_family;
  for (KernelInstance instance : kInstances) {
    for (PageTableKind table : {PageTableKind::kTokenIndices, PageTableKind::kBlockTable}) {
      for (bool dense : {false, true}) {
        for (SplitKind split : kSplitKinds) {
          for (int stages : all_depths()) {
            for (int lanes : kCombineLanes) {
              FamilyCoverage fc;
              fc.family = {instance, table, dense, split, stages, lanes};
              fc.unreachable = structural_reason(fc.family, target, cov.executors);
              by_family.emplace(fc.family, std::move(fc));
            }
          }
        }
      }
    }
  }
  for (const CasePlanInputs& shape : probe_shapes()) {
    ++cov.probe_shapes;
    for_each_launch(target, cov.executors, shape, [&](const CoverageExecutor& e, const LaunchPlan& plan) {
      by_family.at(family_of(plan, e.role)).probed = true;
    });
  }
  for (const CaseSpec& spec : cases) {
    for_each_launch(target, cov.executors, case_plan_inputs(spec), [&](const CoverageExecutor& e, const LaunchPlan& plan) {
      by_family.at(family_of(plan, e.role)).uses.push_back({spec.name, e.name, rescale_data(spec.data)});
    });
  }
  for (auto& [family, fc] : by_family) cov.families.push_back(std::move(fc));
  return cov;
}

std::vector<std::string> coverage_failures(const TargetCoverage& cov) {
  std::vector<std::string> out;
  for (const FamilyCoverage& fc : cov.families) {
    const std::string where = fmt::format("{}: {}", cov.target.name, family_name(fc.family));
    if (!fc.unreachable.empty() && (fc.probed || !fc.uses.empty())) {
      out.push_back(where + ": the planner gives it, but the coverage rule '" + fc.unreachable +
                    "' calls it unreachable (harness/run/plan_coverage.cpp, structural_reason)");
    } else if (fc.probed && fc.uses.empty()) {
      out.push_back(where + ": reachable, but no case's launch is of it");
    } else if (fc.probed && std::none_of(fc.uses.begin(), fc.uses.end(), [](const FamilyUse& u) { return u.rescale_data; })) {
      out.push_back(where + ": reachable, but no case runs it on rising or sink data");
    } else if (!fc.probed && !fc.uses.empty()) {
      out.push_back(where + ": reached by case '" + fc.uses.front().case_name +
                    "' but by no probe shape (harness/run/plan_coverage.cpp, probe_shapes)");
    }
  }
  return out;
}

}  // namespace vb

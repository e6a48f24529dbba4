#include "harness/record/executor_registry.h"

#include <algorithm>
#include <stdexcept>

namespace vb {

namespace {

std::vector<ExecutorInfo>& registry() {
  static std::vector<ExecutorInfo> rows = {
      {kNaiveExecutor, GpuExecutorKind::kNaive, PageTableKind::kBlockTable, "naive kernel",
       "one warp per query row walking every token in order, block table: the GPU baseline and second oracle", true, {"#d62728"}},
      {kProductionExecutor, GpuExecutorKind::kProduction, PageTableKind::kTokenIndices, "production kernel",
       "the planner's launch (the wgmma path where it picks it), token-index page table", true, {"#1f77b4", true}},
      {"production/block-table", GpuExecutorKind::kProduction, PageTableKind::kBlockTable, "production kernel",
       "the planner's launch over the block table", true, {"#17becf"}},
      {"production/mma.sync", GpuExecutorKind::kProductionMmaSync, PageTableKind::kTokenIndices, "production kernel",
       "the mma.sync path forced, where the planner picks wgmma", true, {"#9467bd"}},
      {"production/wgmma", GpuExecutorKind::kProductionWgmma, PageTableKind::kTokenIndices, "production kernel",
       "the wgmma path forced, where the planner picks mma.sync (compute capability 9.0 only)", true, {"#8c564b"}},
      {"sglang-adapter", GpuExecutorKind::kSglangAdapter, PageTableKind::kTokenIndices, "SGLang adapter",
       "the production kernel from SGLang's token-form inputs (packing kernel first)", true, {"#2ca02c"}},
      {kSm120ProxyExecutor, GpuExecutorKind::kProductionSm120Proxy, PageTableKind::kTokenIndices,
       "production kernel", "the mma.sync launch sm_120 gets, on a Hopper's SMs held to sm_120's residency", true,
       {"#ff7f0e"}},
      {kSm120EmuExecutor, GpuExecutorKind::kProductionSm120Emu, PageTableKind::kTokenIndices, "production kernel",
       "sm_120's launch with the tensor pipe held to sm_120's mma.sync rate per SM and clock, on a Hopper",
       true, {"#bcbd22"}},
      {"production/block-table/sm120-proxy", GpuExecutorKind::kProductionSm120Proxy, PageTableKind::kBlockTable,
       "production kernel", "sm_120's launch over the block table, on a Hopper's SMs held to sm_120's residency", true,
       {"#ffbb78"}},
      {"sglang-adapter/sm120-proxy", GpuExecutorKind::kSglangAdapterSm120Proxy, PageTableKind::kTokenIndices,
       "SGLang adapter", "the SGLang adapter over sm_120's launch, on a Hopper's SMs held to sm_120's residency", true,
       {"#98df8a"}},
      {"production/block-table/dense-tree", GpuExecutorKind::kProductionDenseTree, PageTableKind::kBlockTable,
       "production kernel", "the planner's launch with dense tree rows over the prefix's block table", true,
       {"#e377c2"}},
      {"production/block-table/dense-tree/sm120-proxy", GpuExecutorKind::kProductionDenseTreeSm120Proxy,
       PageTableKind::kBlockTable, "production kernel",
       "sm_120's launch with dense tree rows over the prefix's block table, on a Hopper's SMs", true, {"#f7b6d2"}},
  };
  return rows;
}

}  // namespace

const std::vector<ExecutorInfo>& executor_registry() { return registry(); }

const ExecutorInfo* find_executor_info(const std::string& name) {
  const auto& rows = registry();
  const auto it = std::find_if(rows.begin(), rows.end(), [&](const ExecutorInfo& e) { return e.name == name; });
  return it != rows.end() ? &*it : nullptr;
}

const ExecutorInfo& executor_named(const std::string& name) {
  if (const ExecutorInfo* info = find_executor_info(name)) return *info;
  throw std::invalid_argument("unknown executor (allowed: " + executor_names() + ")");
}

std::string executor_names() {
  std::string out;
  for (const ExecutorInfo& e : registry()) out += (out.empty() ? "" : ", ") + e.name;
  return out;
}

const char* executor_name(GpuExecutorKind kind) {
  for (const ExecutorInfo& e : registry()) {
    if (e.kind == kind) return e.name.c_str();
  }
  return "unknown";
}

ScopedStandInExecutor::ScopedStandInExecutor(ExecutorInfo info) { registry().push_back(std::move(info)); }
ScopedStandInExecutor::~ScopedStandInExecutor() { registry().pop_back(); }

}  // namespace vb

// The executors a run knows, in the order it runs and reports them: the one list the runner,
// the writers, the roofline plot, `profile`, `--time-executor` and the tests read, and the one
// place an executor's name is written. Adding an executor: its launch in
// harness/run/gpu_executor.cpp (a GpuExecutorKind and its case in DeviceProblem::launch) and
// one row in executor_registry() (executor_registry.cpp); nothing else names it.
#pragma once
#include <string>
#include <vector>

#include "verifybench/verify_params.h"  // PageTableKind

namespace vb {

// Record names that the harness's own logic reads, besides listing them: the CPU oracle
// (not a GPU executor, never in the registry), the naive kernel and the production kernel
// (the speedup and the mask tax), the sm_120 proxy and its emulation (the prediction for the RTX
// PRO 6000).
inline constexpr const char* kReferenceExecutor = "reference";
inline constexpr const char* kNaiveExecutor = "naive";
inline constexpr const char* kProductionExecutor = "production";
inline constexpr const char* kSm120ProxyExecutor = "production/sm120-proxy";
// The proxy's launch with the tensor pipe held to sm_120's rate per SM and clock: the
// executor the RTX PRO 6000 prediction is made from.
inline constexpr const char* kSm120EmuExecutor = "production/sm120-emu";

// The launch a GPU executor makes (harness/run/gpu_executor.h). kProduction runs the launch
// the production planner picks (on an H200, the wgmma path for H*T >= 64 with enough work);
// kProductionMmaSync and kProductionWgmma force one path each, where the planner picked the
// other, so on an H200 every case runs (and is checked on) both paths, measured side by side
// in one run. kProductionSm120Proxy runs the mma.sync path as sm_120 (RTX PRO 6000) runs it,
// on a Hopper's SMs (sm120_proxy_target): sm_120's pipeline depth and planner choices, and its
// resident blocks per SM. kProductionSm120Emu is that launch with the tensor pipe held to
// sm_120's mma.sync rate per SM and clock (verifybench/sm120_emulation.cuh): the executor
// the RTX PRO 6000 prediction is made from. kSglangAdapterSm120Proxy is the SGLang adapter over that launch (how
// sm_120 is called from SGLang). kProductionDenseTree runs the production kernel with the tree
// rows dense (SGLang's k_extend) over the page table of the prefix, the way a caller with a
// block table passes them; the table's pages that hold only tree rows point at a NaN page, so
// a launch that reads a tree row from the pool shows. kProductionDenseTreeSm120Proxy: the same
// on sm_120's launch.
enum class GpuExecutorKind {
  kNaive,
  kProduction,
  kProductionMmaSync,
  kProductionWgmma,
  kSglangAdapter,
  kProductionSm120Proxy,
  kProductionSm120Emu,
  kSglangAdapterSm120Proxy,
  kProductionDenseTree,
  kProductionDenseTreeSm120Proxy,
};

// How the roofline plot (roofline.svg) draws an executor's points.
struct PlotStyle {
  std::string colour;     // SVG fill, "#1f77b4"
  bool numbered = false;  // its points carry the numbers of the case key under the plot
};

struct ExecutorInfo {
  std::string name;         // record name in every report
  GpuExecutorKind kind;     // the launch it makes
  PageTableKind page_kind;  // the page-table form it reads
  std::string engine;       // the kernel it runs: "naive kernel", "production kernel", "SGLang adapter"
  std::string runs;         // what it runs, in one line (list, docs)
  bool timed = true;        // `run --time` measures it (else it runs once and is checked)
  PlotStyle plot;
};

// Every GPU executor, in run order.
const std::vector<ExecutorInfo>& executor_registry();
// nullptr when no executor has that name.
const ExecutorInfo* find_executor_info(const std::string& name);
// The executor of that name; throws std::invalid_argument "unknown executor (allowed: ...)".
const ExecutorInfo& executor_named(const std::string& name);
// "naive, production, ...": the allowed names, for messages and help.
std::string executor_names();
// The name of the first row that makes that launch (test messages).
const char* executor_name(GpuExecutorKind kind);

// Tests: `info` appended to the registry while the object lives (a stand-in executor shows that
// every reader follows the registry).
class ScopedStandInExecutor {
 public:
  explicit ScopedStandInExecutor(ExecutorInfo info);
  ~ScopedStandInExecutor();
  ScopedStandInExecutor(const ScopedStandInExecutor&) = delete;
  ScopedStandInExecutor& operator=(const ScopedStandInExecutor&) = delete;
};

}  // namespace vb

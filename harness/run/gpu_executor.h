// GPU executors as the harness sees them: upload a materialized problem once, run an
// executor on it (outputs poisoned first), download O and LSE. Never throws for CUDA
// failures: they come back as an error string naming the call that failed.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/plan/executor_plans.h"
#include "harness/problem/problem.h"
#include "harness/record/executor_registry.h"
#include "harness/record/gpu_info.h"
#include "harness/record/launch_record.h"
#include "verifybench/kernels.h"

namespace vb {

// Whether the executor goes through the SGLang adapter (its packing kernel, SGLang's inputs).
bool is_sglang_adapter(GpuExecutorKind kind);

// How the executor's launch is planned (harness/plan/executor_plans.h); nullopt for naive,
// which runs no planned launch. The SGLang adapter reads the token table whatever page_kind.
std::optional<ExecutorPlanRole> executor_plan_role(GpuExecutorKind kind, PageTableKind page_kind);
// Why the executor does not run on a case ("" where it runs), from the case's planned engine
// on the device, whether the device has the wgmma path, and why the sm_120 proxy does not run
// there ("" where it does): a forced path that production already runs, wgmma off compute
// capability 9.0, the proxy off a Hopper. DeviceProblem::executor_applies and
// `plan --coverage` both ask it.
std::string executor_not_run_reason(GpuExecutorKind kind, FlashVerifyPath planned_path, bool wgmma_supported,
                                    const std::string& sm120_proxy_not_run);

// The dense-tree executors' block table: the problem's, with every page that holds only tree
// rows (logical pages from ceil(P_b / page_size) on) pointing at a page no request uses, whose
// rows are NaN; so a launch that reads a tree row from the pool instead of the dense rows
// writes NaN where the reference is finite.
std::vector<std::int32_t> dense_tree_block_table(const Problem& problem);

struct GpuRunOutput {
  bool ok = false;
  std::string error;       // "<cuda call> failed: <error string>" when !ok
  std::vector<float> o;    // [B*T, H, 512], bf16 values widened to float
  std::vector<float> lse;  // [B*T, H]
  std::optional<LaunchRecord> launch;  // the launch it made; none for the naive kernel
};

// Device copy of a Problem: every input buffer plus output buffers and workspace sized
// for the problem. Freed on destruction.
class DeviceProblem {
 public:
  // Returns nullptr and sets *error on failure.
  static std::unique_ptr<DeviceProblem> upload(const Problem& problem, const GpuInfo& gpu,
                                               std::string* error);
  ~DeviceProblem();
  DeviceProblem(const DeviceProblem&) = delete;
  DeviceProblem& operator=(const DeviceProblem&) = delete;

  // Poisons the outputs (NaN), runs the executor with the given page-table form,
  // synchronises, downloads.
  GpuRunOutput run(GpuExecutorKind kind, PageTableKind page_kind);

  // Timing entry point: enqueues one executor launch on `stream` and returns the launch
  // error. No poison, no synchronisation, no allocation: capturable in a CUDA graph. The
  // outputs are overwritten on every call (inputs are never written).
  // overlap_previous: launch over the stream's previous kernel (FlashVerifyLaunchOptions) where
  // the executor can (executor_overlaps); the others launch as usual.
  cudaError_t launch(GpuExecutorKind kind, PageTableKind page_kind, cudaStream_t stream,
                     bool overlap_previous = false);
  // Whether `kind` launches over the previous kernel when asked: the production executors and
  // the SGLang adapter.
  static bool executor_overlaps(GpuExecutorKind kind);

  // False (with the reason) when the executor would repeat another one's launch exactly
  // (a forced path that production already runs) or cannot run on this device
  // (kProductionWgmma without compute capability 9.0; kProductionSm120Proxy on anything but a
  // Hopper, or where its plan could not hold the SM to sm_120's resident blocks).
  // An fp8 KV case: only the executors with an fp8 path (executor_takes_fp8_kv) apply.
  bool executor_applies(GpuExecutorKind kind, std::string* why_not) const;
  // Whether `kind` reads an fp8 e4m3 pool: naive and the mma.sync engine (production, its
  // forced path, the sm_120 proxy). The wgmma engine and the SGLang adapter do not yet; their
  // launch() returns cudaErrorNotSupported on an fp8 case rather than read its bytes as bf16.
  static bool executor_takes_fp8_kv(GpuExecutorKind kind);

  struct Impl;

 private:
  explicit DeviceProblem(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace vb

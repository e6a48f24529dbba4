// PLACEHOLDER until the GPU executor lands.
#include "harness/gpu_executor.h"
namespace vb {
const char* executor_name(GpuExecutorKind kind) {
  switch (kind) {
    case GpuExecutorKind::kNaive: return "naive";
    case GpuExecutorKind::kProduction: return "production";
    case GpuExecutorKind::kSglangAdapter: return "sglang-adapter";
  }
  return "unknown";
}
GpuInfo query_gpu() { GpuInfo g; g.reason = "GPU executors not built yet"; return g; }
}  // namespace vb

// Link stubs for the safetensors fuzz target: export_safetensors.cpp also holds the case
// export, which reaches the GPU executors and the runner. The target exercises only the
// writer, so these are never called; each aborts if one ever is.
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "harness/gpu_executor.h"
#include "harness/runner.h"

namespace vb {

struct DeviceProblem::Impl {};  // complete, so the stub destructor can destroy the (null) pointer

std::unique_ptr<DeviceProblem> DeviceProblem::upload(const Problem&, const GpuInfo&, std::string*) { std::abort(); }
DeviceProblem::~DeviceProblem() { std::abort(); }
GpuRunOutput DeviceProblem::run(GpuExecutorKind, PageTableKind) { std::abort(); }
bool DeviceProblem::executor_applies(GpuExecutorKind, std::string*) const { std::abort(); }
const std::vector<GpuExecutorRun>& gpu_executor_runs() { std::abort(); }
std::string reproducer_for(const std::string&, const std::string&) { std::abort(); }

}  // namespace vb

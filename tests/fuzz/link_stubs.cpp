// Link stubs for the fuzz targets (scripts/fuzz.sh): the sources they test also hold code
// that reaches the GPU (export_safetensors.cpp's case export, kernels/planner/planner.cpp's device
// queries), which the targets never run. Each stub aborts if it is ever called.
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "harness/run/gpu_executor.h"
#include "harness/run/runner.h"
#include "verifybench/kernels.h"

namespace vb {

struct DeviceProblem::Impl {};  // complete, so the stub destructor can destroy the (null) pointer

std::unique_ptr<DeviceProblem> DeviceProblem::upload(const Problem&, const GpuInfo&, std::string*) { std::abort(); }
DeviceProblem::~DeviceProblem() { std::abort(); }
GpuRunOutput DeviceProblem::run(GpuExecutorKind, PageTableKind) { std::abort(); }
bool DeviceProblem::executor_applies(GpuExecutorKind, std::string*) const { std::abort(); }
std::string reproducer_for(const std::string&, const std::string&) { std::abort(); }
std::string reproducer_for(const std::string&, const CaseSpec&) { std::abort(); }
bool flash_verify_wgmma_supported(cudaError_t*) { std::abort(); }
int flash_verify_blocks_per_sm(cudaError_t*) { std::abort(); }

}  // namespace vb

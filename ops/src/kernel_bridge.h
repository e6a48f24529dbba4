// The one place libverifybench_ops calls the kernels' C++ API (kernels/include/verifybench/
// planner.h and kernels.h): the planner, workspace sizes, the plan's description and the two
// launches. A change of the planner's interface is absorbed here; the C ABI above it stays.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>

#include "verifybench/kernels.h"
#include "verifybench/planner.h"
#include "verifybench_ops.h"

namespace vbops::bridge {

// What a vbops plan keeps of the planner: the device it plans for and the split schedule of
// the plan's maximum shape. The rest of a launch (the grid for the launch's batch, the kernel
// instance for its page table and pool) is completed per launch: host arithmetic only.
struct Planned {
  vb::DeviceTarget target;
  vb::SplitSchedule schedule;
  vb::PlannerConfig config;
};

// The pool dtype a plan's shape names (kv_dtype 0 reads as bf16; shape checked before).
vb::KvDtype kv_dtype_of(const vbops_shape& shape);

// The tensor math a plan's shape names (math 0 reads as bf16; shape checked before).
vb::MathMode math_of(const vbops_shape& shape);

// The current device's ordinal and what the planner needs to know of it. Not inside a
// CUDA-graph capture (occupancy and attribute queries).
cudaError_t query_device(int* device, vbops_device_facts* facts);

// kv_lens: null, or shape.max_batch entries the split model sizes the schedule by.
Planned plan_for(const vbops_shape& shape, const vbops_device_facts& facts, const int* kv_lens);

// The launch of `planned` for `batch` requests (at most the plan's) over a page table of
// `page_kind` and a pool of `pool_rows` rows, with the shape's math. !valid (why_invalid says why): nothing runs it.
vb::LaunchPlan launch_plan(const Planned& planned, const vbops_shape& shape, int batch, vb::PageTableKind page_kind,
                           std::int64_t pool_rows);

// Device bytes of the kernel's split workspace, and of the SGLang form's scratch (prefix
// lengths and packed masks), for `batch` requests of the plan's tree size and heads.
std::size_t verify_workspace_bytes(const Planned& planned, int batch, int tree_size, int num_heads);
std::size_t sglang_scratch_bytes(int batch, int tree_size, vb::KvDtype kv_dtype);

// One line that says what runs, e.g. "wgmma/page-boxes stages=2 smem=224256 m_tiles=2 splits=4 ...".
std::string describe(const vb::LaunchPlan& plan);

cudaError_t launch_native(const vb::VerifyParams& params, const vb::LaunchPlan& plan, void* workspace,
                          std::size_t workspace_bytes, cudaStream_t stream);
cudaError_t launch_sglang(const vb::SglangVerifyInputs& inputs, const vb::LaunchPlan& plan, void* scratch,
                          std::size_t scratch_bytes, void* workspace, std::size_t workspace_bytes,
                          cudaStream_t stream);

}  // namespace vbops::bridge

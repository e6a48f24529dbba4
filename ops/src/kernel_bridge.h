// The one place libverifybench_ops calls the kernels' C++ API (kernels/include/verifybench/
// kernels.h): planning, workspace sizes, the plan's description and the two launches. A
// change of the planner's interface is absorbed here; the C ABI above it stays.
#pragma once
#include <cstddef>
#include <string>

#include <cuda_runtime_api.h>

#include "verifybench/kernels.h"
#include "verifybench_ops.h"

namespace vbops::bridge {

// The current device's ordinal and what the planner needs to know of it. Not inside a
// CUDA-graph capture (occupancy and attribute queries).
cudaError_t query_device(int* device, vbops_device_facts* facts);

// kv_lens: null, or shape.max_batch entries the split model sizes the plan by.
vb::FlashVerifyPlan plan_for(const vbops_shape& shape, const vbops_device_facts& facts, const int* kv_lens);

// Device bytes of the kernel's split workspace, and of the SGLang form's scratch (prefix
// lengths and packed masks), for `batch` requests of the plan's tree size and heads.
std::size_t verify_workspace_bytes(const vb::FlashVerifyPlan& plan, int batch, int tree_size, int num_heads);
std::size_t sglang_scratch_bytes(int batch, int tree_size);

// "path=wgmma splits=8 m_tiles=1 [tiles_per_split=N] [token_split] [tma_boxes]"
std::string describe(const vb::FlashVerifyPlan& plan, int page_size);

cudaError_t launch_native(const vb::VerifyParams& params, const vb::FlashVerifyPlan& plan, void* workspace,
                          std::size_t workspace_bytes, cudaStream_t stream);
cudaError_t launch_sglang(const vb::SglangVerifyInputs& inputs, const vb::FlashVerifyPlan& plan, void* scratch,
                          std::size_t scratch_bytes, void* workspace, std::size_t workspace_bytes,
                          cudaStream_t stream);

}  // namespace vbops::bridge

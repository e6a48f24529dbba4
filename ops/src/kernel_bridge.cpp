#include "kernel_bridge.h"

#include <string>

namespace vbops::bridge {

cudaError_t query_device(int* device, vbops_device_facts* facts) {
  if (cudaError_t err = cudaGetDevice(device); err != cudaSuccess) return err;
  if (cudaError_t err = cudaDeviceGetAttribute(&facts->sm_count, cudaDevAttrMultiProcessorCount, *device);
      err != cudaSuccess) {
    return err;
  }
  cudaError_t err = cudaSuccess;
  facts->blocks_per_sm = vb::flash_verify_blocks_per_sm(&err);
  if (err != cudaSuccess) return err;
  facts->wgmma_supported = vb::flash_verify_wgmma_supported(&err) ? 1 : 0;
  return err;
}

vb::FlashVerifyPlan plan_for(const vbops_shape& shape, const vbops_device_facts& facts, const int* kv_lens) {
  // The kernel reads the real lengths on the device; a plan made without them is sized for
  // max_batch requests of max_kv_len tokens, and serves every replay of a captured graph.
  return vb::flash_verify_plan(shape.max_batch, shape.tree_size, shape.num_heads, shape.max_kv_len, facts.sm_count,
                               facts.blocks_per_sm, facts.wgmma_supported != 0, kv_lens, shape.page_size);
}

std::size_t verify_workspace_bytes(const vb::FlashVerifyPlan& plan, int batch, int tree_size, int num_heads) {
  return vb::flash_verify_workspace_bytes(plan, batch, tree_size, num_heads);
}

std::size_t sglang_scratch_bytes(int batch, int tree_size) { return vb::sglang_adapter_scratch_bytes(batch, tree_size); }

std::string describe(const vb::FlashVerifyPlan& plan, int page_size) {
  std::string text = std::string("path=") + vb::to_string(plan.path) + " splits=" + std::to_string(plan.num_splits) +
                     " m_tiles=" + std::to_string(plan.m_tiles);
  if (plan.tiles_per_split > 0) text += " tiles_per_split=" + std::to_string(plan.tiles_per_split);
  if (plan.token_split) text += " token_split";
  const vb::PageTableKind kind = page_size > 1 ? vb::PageTableKind::kBlockTable : vb::PageTableKind::kTokenIndices;
  if (vb::flash_verify_wgmma_tma_boxes(plan, kind, page_size)) text += " tma_boxes";
  return text;
}

cudaError_t launch_native(const vb::VerifyParams& params, const vb::FlashVerifyPlan& plan, void* workspace,
                          std::size_t workspace_bytes, cudaStream_t stream) {
  return vb::flash_verify_launch(params, plan, workspace, workspace_bytes, stream);
}

cudaError_t launch_sglang(const vb::SglangVerifyInputs& inputs, const vb::FlashVerifyPlan& plan, void* scratch,
                          std::size_t scratch_bytes, void* workspace, std::size_t workspace_bytes,
                          cudaStream_t stream) {
  return vb::sglang_verify_launch(inputs, plan, scratch, scratch_bytes, workspace, workspace_bytes, stream);
}

}  // namespace vbops::bridge

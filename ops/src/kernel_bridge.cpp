#include "kernel_bridge.h"

namespace vbops::bridge {

namespace {
vb::DeviceTarget target_of(const vbops_device_facts& facts) {
  vb::DeviceTarget t;
  t.num_sms = facts.sm_count;
  t.max_threads_per_sm = facts.max_threads_per_sm;
  t.smem_optin_bytes = facts.smem_optin_bytes;
  t.main_blocks_per_sm = facts.blocks_per_sm;
  t.wgmma = facts.wgmma_supported != 0;
  return t;
}
}  // namespace

vb::KvDtype kv_dtype_of(const vbops_shape& shape) {
  return shape.kv_dtype == VBOPS_DTYPE_FP8_E4M3 ? vb::KvDtype::kFp8E4m3 : vb::KvDtype::kBf16;
}

vb::MathMode math_of(const vbops_shape& shape) {
  return shape.math == VBOPS_MATH_FP8 ? vb::MathMode::kFp8 : vb::MathMode::kBf16;
}

cudaError_t query_device(int* device, vbops_device_facts* facts) {
  if (cudaError_t err = cudaGetDevice(device); err != cudaSuccess) return err;
  cudaError_t err = cudaSuccess;
  const vb::DeviceTarget t = vb::current_device_target(&err);
  facts->sm_count = t.num_sms;
  facts->blocks_per_sm = t.main_blocks_per_sm;
  facts->wgmma_supported = t.wgmma ? 1 : 0;
  facts->max_threads_per_sm = t.max_threads_per_sm;
  facts->smem_optin_bytes = t.smem_optin_bytes;
  return err;
}

Planned plan_for(const vbops_shape& shape, const vbops_device_facts& facts, const int* kv_lens) {
  // The kernel reads the real lengths on the device; a schedule made without them is sized
  // for max_batch requests of max_kv_len tokens, and serves every replay of a captured graph.
  // An fp8 pool runs on the mma.sync engine only (the wgmma engine has no fp8 path).
  Planned p;
  p.target = target_of(facts);
  const bool wgmma = p.target.wgmma && kv_dtype_of(shape) == vb::KvDtype::kBf16;
  p.schedule = vb::plan_split_schedule(shape.max_batch, shape.tree_size, shape.num_heads, shape.max_kv_len,
                                       p.target.num_sms, p.target.main_blocks_per_sm, wgmma, kv_lens,
                                       shape.page_size, p.config);
  return p;
}

vb::LaunchPlan launch_plan(const Planned& planned, const vbops_shape& shape, int batch, vb::PageTableKind page_kind,
                           std::int64_t pool_rows) {
  vb::PlanShape s;
  s.batch = batch;
  s.tree_size = shape.tree_size;
  s.num_heads = shape.num_heads;
  s.max_kv_len = shape.max_kv_len;
  s.page_kind = page_kind;
  s.page_size = shape.page_size;
  s.pool_rows = pool_rows;
  s.kv_dtype = kv_dtype_of(shape);
  vb::LaunchPlan plan = vb::complete_launch_plan(planned.schedule, s, planned.target, planned.config);
  // The caller's choice, never the planner's (vbops_plan_create allows fp8 math over an fp8 pool
  // only, which plan_for keeps on the mma.sync engine).
  plan.math = math_of(shape);
  return plan;
}

std::size_t verify_workspace_bytes(const Planned& planned, int batch, int tree_size, int num_heads) {
  return vb::flash_verify_workspace_bytes(planned.schedule, batch, tree_size, num_heads);
}

std::size_t sglang_scratch_bytes(int batch, int tree_size, vb::KvDtype kv_dtype) {
  return vb::sglang_adapter_scratch_bytes(batch, tree_size, kv_dtype);
}

std::string describe(const vb::LaunchPlan& plan) { return vb::describe(plan); }

cudaError_t launch_native(const vb::VerifyParams& params, const vb::LaunchPlan& plan, void* workspace,
                          std::size_t workspace_bytes, cudaStream_t stream) {
  return vb::flash_verify_launch(params, plan, workspace, workspace_bytes, stream);
}

cudaError_t launch_sglang(const vb::SglangVerifyInputs& inputs, const vb::LaunchPlan& plan, void* scratch,
                          std::size_t scratch_bytes, void* workspace, std::size_t workspace_bytes,
                          cudaStream_t stream) {
  return vb::sglang_verify_launch(inputs, plan, scratch, scratch_bytes, workspace, workspace_bytes, stream);
}

}  // namespace vbops::bridge

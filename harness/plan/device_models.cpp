#include "harness/plan/device_models.h"

#include <algorithm>

#include "verifybench/kernels.h"
#include "verifybench/tile_balance.h"

namespace vb {

// Resident blocks per SM: the production kernel is register-bound to one 384-thread block
// on both architectures (ptxas: 166-168 registers on sm_90 and sm_120,
// reports/build/ptxas-flash_verify.txt; 65,536 registers per SM); the H200's occupancy query
// (flash_verify_blocks_per_sm) returns 1, measured 2026-11-29. Threads per SM (what the split
// combine's lane rule counts): 2048 on sm_90, 1536 on sm_120.
const std::vector<DeviceModel>& device_models() {
  static const std::vector<DeviceModel> models = {
      {"h200", "NVIDIA H200", 90, 132, 2048, 227 * 1024, 1, 4435.0, 634.0, 0.0, true,
       "measured by verifybench on the lab H200, 2026-11-29 (reports/h200/2026-11-29-v2/perf at 93371d3: "
       "page-1 shuffled 1152-byte row reads, mma.sync bf16 issue rate)"},
      {"rtx-pro-6000", "NVIDIA RTX PRO 6000 Blackwell", 120, 188, 1536, 99 * 1024, 1, 1792.0, 503.8, 2617.0, false,
       "datasheet (GDDR7 bandwidth, dense bf16 with fp32 accumulate at the 2617 MHz boost clock: 1024 FLOP "
       "per clock and SM); not measured: no sm_120 device has run verifybench"},
  };
  return models;
}

const DeviceModel* find_device_model(const std::string& slug) {
  for (const DeviceModel& m : device_models()) {
    if (m.slug == slug) return &m;
  }
  return nullptr;
}

std::string device_model_slugs() {
  std::string out;
  for (const DeviceModel& m : device_models()) out += (out.empty() ? "" : ", ") + m.slug;
  return out;
}

DeviceTarget device_target(const DeviceModel& device) {
  DeviceTarget t;
  t.num_sms = device.num_sms;
  t.max_threads_per_sm = device.max_threads_per_sm;
  t.smem_optin_bytes = device.smem_optin_bytes;
  t.main_blocks_per_sm = device.blocks_per_sm;
  t.wgmma = device.wgmma;
  return t;
}

DeviceTarget sm120_proxy_model_target(const DeviceModel& host, const DeviceModel& sm120) {
  DeviceTarget t = device_target(sm120);
  t.num_sms = host.num_sms;
  return t;
}

PlanTargets plan_targets(const DeviceModel& device) {
  PlanTargets targets;
  targets.device = device_target(device);
  const auto sm120 = std::find_if(device_models().begin(), device_models().end(),
                                  [](const DeviceModel& m) { return m.sm_arch == 120; });
  targets.has_sm120_proxy = device.sm_arch == 90 && sm120 != device_models().end();
  if (targets.has_sm120_proxy) targets.sm120_proxy = sm120_proxy_model_target(device, *sm120);
  return targets;
}

PlannedLaunch plan_launch(const CaseSpec& spec, const DeviceModel& device) {
  PlannedLaunch plan;
  const std::vector<std::int32_t> prefix = case_prefix_lengths(spec);
  const int batch = static_cast<int>(prefix.size());
  const int tree = tree_size(spec.tree);
  // The planner's inputs as the run gets them from the materialized problem (executor_plans.h).
  const CasePlanInputs inputs = case_plan_inputs(spec);
  const std::vector<int>& kv_lens = inputs.kv_lens;
  for (int len : kv_lens) plan.kv_tokens += len;
  const PlanTargets targets = plan_targets(device);
  ExecutorPlanRole production;  // the planner's launch on the device, token table
  plan.launch = executor_launch_plan(production, inputs, targets);
  production.table = PageTableKind::kBlockTable;
  plan.block_table_launch = executor_launch_plan(production, inputs, targets);
  const SplitSchedule& s = plan.launch.schedule;
  // Blocks that hold tiles (the kernel's ranges: the others exit at once).
  const int tokens_per_tile = plan.launch.tokens_per_tile;
  if (s.tile_balanced) {
    // Blocks whose equal share of the batch's units starts before the end hold tiles.
    VerifyParams lengths;  // the schedule's arithmetic reads only the lengths
    lengths.batch = batch;
    lengths.tree_size = tree;
    lengths.prefix_len = prefix.data();
    const int boundary = s.path == FlashVerifyPath::kWgmma ? spec.planner.wgmma_balance_boundary_units
                                                           : spec.planner.mma_balance_boundary_units;
    const std::int64_t total = tile_balance::total_units(lengths, tokens_per_tile, boundary);
    const std::int64_t per_block = tile_balance::units_per_block(total, s.num_splits);
    plan.blocks = static_cast<std::int64_t>(s.m_tiles) *
                  std::min<std::int64_t>(s.num_splits, (total + per_block - 1) / per_block);
  } else {
    for (int len : kv_lens) {
      const int tiles = (len + tokens_per_tile - 1) / tokens_per_tile;
      const int per_split = std::max(s.tiles_per_split, (tiles + s.num_splits - 1) / s.num_splits);
      plan.blocks += static_cast<std::int64_t>(s.m_tiles) * ((tiles + per_split - 1) / per_split);
    }
  }
  const std::int64_t query_rows = static_cast<std::int64_t>(batch) * tree * spec.heads;
  plan.waves = static_cast<double>(plan.blocks) / (static_cast<double>(device.num_sms) * device.blocks_per_sm);
  plan.bytes = static_cast<double>(kv_row_bytes(spec.kv_cache.dtype)) * static_cast<double>(plan.kv_tokens) +
               static_cast<double>(query_rows) * static_cast<double>(kQRowBytes + kORowBytes + kLseBytes);
  plan.flops = kFlopsPerVisiblePair * static_cast<double>(plan.kv_tokens) * spec.heads * tree;
  plan.memory_floor_us = plan.bytes / (device.memory_gbps * 1e9) * 1e6;
  plan.mma_floor_us = plan.flops / (device.mma_tflops * 1e12) * 1e6;
  return plan;
}

}  // namespace vb

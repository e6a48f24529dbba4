// The GPUs the production kernel's launch choices are modelled for, and what those choices
// are for a case. One row per device, the only place these figures live: `verifybench plan`
// runs the kernel's own pipeline-depth rule (flash_verify_stages_for_smem_optin) and split
// model (plan_split_schedule) on each row, so an sm_120 plan is the H200's arithmetic with
// sm_120's inputs. No GPU is needed.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "harness/plan/executor_plans.h"
#include "harness/scenario/scenario.h"
#include "verifybench/kernels.h"

namespace vb {

struct DeviceModel {
  std::string slug;  // --device name
  std::string name;
  int sm_arch = 0;          // 90, 120
  int num_sms = 0;
  int max_threads_per_sm = 0;  // resident threads per SM (the split combine's lane rule)
  int smem_optin_bytes = 0;  // per-block opt-in shared memory
  int blocks_per_sm = 0;     // resident production blocks per SM (see device_models.cpp)
  // Memory roof for the floors, of either KV row size: the h200's is its measured page-1
  // shuffled 1152-byte row reads (no 576-byte figure recorded yet: an fp8 plan's floor uses it
  // too), the rtx-pro-6000's its GDDR7 datasheet bandwidth (no row efficiency of either size).
  double memory_gbps = 0;
  double mma_tflops = 0;     // mma.sync bf16 -> fp32 roof
  double sm_clock_mhz = 0;   // the SM clock mma_tflops is quoted at (0: not modelled)
  bool wgmma = false;        // the production planner may pick the sm_90a wgmma path here
  std::string source;        // where the figures come from: measured (which run) or datasheet
};

// sm_120's mma.sync rates per clock and SM with fp32 accumulate: bf16 m16n8k16 and fp8 e4m3
// m16n8k32 (the rtx-pro-6000 row's mma_tflops is the first at its clock and SMs).
inline constexpr double kSm120MmaBf16FlopPerClockSm = 1024;
inline constexpr double kSm120MmaFp8FlopPerClockSm = 2048;

const std::vector<DeviceModel>& device_models();
// nullptr when no row has that slug.
const DeviceModel* find_device_model(const std::string& slug);
// "h200, rtx-pro-6000" for error messages.
std::string device_model_slugs();

// The planner's inputs for this device (what current_device_target() returns on it).
DeviceTarget device_target(const DeviceModel& device);
// The sm_120 proxy's target on `host` (what sm120_proxy_target() returns there): `sm120`'s
// inputs with the host's SM count. Its shared-memory request (mma_smem_request_bytes, which
// holds the host's SMs to sm_120's blocks) stays 0: it needs the host's per-SM figures and
// changes no planner choice, only the launch's dynamic shared memory.
DeviceTarget sm120_proxy_model_target(const DeviceModel& host, const DeviceModel& sm120);
// The planner's targets of a run on this device: itself, and the sm_120 proxy where the
// device is a Hopper (sm_90; on sm_120 itself production is sm_120's launch).
PlanTargets plan_targets(const DeviceModel& device);

// The production launch a case gets on a device (the planner's own LaunchPlan, in the token
// table's form and the block table's), and the two floors it is judged against.
struct PlannedLaunch {
  LaunchPlan launch;              // production (token table): what `run` prints as its plan
  LaunchPlan block_table_launch;  // production/block-table: the same schedule, its own instance
  std::int64_t blocks = 0;     // blocks that hold tiles (B * m_tiles * splits for equal lengths)
  double waves = 0;            // blocks / (SMs * blocks per SM)
  std::int64_t kv_tokens = 0;  // sum over requests of prefix + tree
  double bytes = 0;            // KV rows once (of the case's KV dtype) + q + o + lse (docs/background.md §4; no page table or mask)
  double flops = 0;            // 2 * (P+T) * H * T * 1088 summed over requests
  double memory_floor_us = 0;  // bytes / memory roof
  double mma_floor_us = 0;     // flops / mma roof
};
// Prefix lengths are drawn exactly as materialize() draws them (same seeds), without building
// the KV pool. Throws ScenarioError on a case materialize() would also refuse.
PlannedLaunch plan_launch(const CaseSpec& spec, const DeviceModel& device);

}  // namespace vb

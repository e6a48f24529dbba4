// The launcher of both production paths: the split workspace, the check that a plan fits
// the parameters and this build, the mma.sync kernel variant a plan names (its instance file's
// host stub, its shared-memory limit raised once per device), the launch of the main kernel
// and of the split combine, and the static facts and occupancy queries of kernels.h. It
// decides nothing: the planner (planner/planner.cpp) did.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <vector>

#include "combine/combine_config.h"
#include "combine/split_combine.h"
#include "common/launch_config.h"
#include "common/split_kv.h"
#include "common/timeline.cuh"
#include "mma_sync/mma_config.h"
#include "mma_sync/mma_instances.h"
#include "verifybench/kernels.h"
#include "wgmma/wgmma_config.h"

namespace vb {
namespace {

using namespace mma_cfg;
using namespace combine_cfg;

using detail::ceil_div;
using detail::SplitWorkspace;


std::size_t align_up(std::size_t x, std::size_t a) { return (x + a - 1) / a * a; }

// Split partials (one normalised O row and one LSE each) a plan's workspace holds: one per
// query row and split, or under the tile-balanced schedule (blocks + batch - 1) per query
// row of a request, shared by the whole batch (balanced_partial_row).
std::size_t split_partials(const SplitSchedule& plan, int batch, int tree_size, int num_heads) {
  const std::size_t rows_per_request = static_cast<std::size_t>(tree_size) * num_heads;
  return plan.tile_balanced ? rows_per_request * (static_cast<std::size_t>(plan.num_splits) + batch - 1)
                            : rows_per_request * batch * plan.num_splits;
}

// The workspace: partial O, partial LSEs, and for tile-balanced plans each request's slots.
std::size_t workspace_o_bytes(std::size_t partials) { return align_up(partials * mla::kHeadDimV * 4, 256); }
std::size_t workspace_lse_bytes(std::size_t partials) { return align_up(partials * 4, 256); }
std::size_t workspace_slot_bytes(const SplitSchedule& plan, int batch) {
  return plan.tile_balanced ? align_up(static_cast<std::size_t>(batch) * sizeof(int2), 256) : 0;
}

SplitWorkspace carve_workspace(void* base, std::size_t partials, bool tile_balanced) {
  auto* bytes = static_cast<unsigned char*>(base);
  const std::size_t o_bytes = workspace_o_bytes(partials);
  const std::size_t lse_bytes = workspace_lse_bytes(partials);
  return {reinterpret_cast<float*>(bytes), reinterpret_cast<float*>(bytes + o_bytes),
          tile_balanced ? reinterpret_cast<int2*>(bytes + o_bytes + lse_bytes) : nullptr};
}

bool aligned_to(const void* ptr, std::uintptr_t bytes) { return reinterpret_cast<std::uintptr_t>(ptr) % bytes == 0; }

bool params_valid(const VerifyParams& p) {
  if (p.batch <= 0 || p.num_heads <= 0 || p.tree_size <= 0 || p.tree_size > mla::kMaxTreeNodes) return false;
  // The softmax takes row maxima of unscaled scores (wgmma path): a positive scale keeps them.
  if (!(p.sm_scale > 0.f) || !std::isfinite(p.sm_scale)) return false;
  if (p.mask_words != ceil_div(p.tree_size, mla::kMaskWordBits)) return false;
  if (!p.q || !p.kv_pool || !p.prefix_len || !p.tree_mask || !p.o || !p.lse) return false;
  // Q (cp.async) and KV rows (bulk copies) move in 16-byte units from 16-byte aligned
  // addresses; O is written as bf16 pairs, LSE as floats. A misaligned tensor would fault
  // on the device: refuse it here instead.
  if (!aligned_to(p.q, 16) || !aligned_to(p.kv_pool, 16) || !aligned_to(p.tree_kv, 16)) return false;
  if (!aligned_to(p.o, 4) || !aligned_to(p.lse, 4)) return false;
  // fp8 KV: a positive finite scale (tree_kv rows, if any, are fp8 under the same scale).
  if (p.kv_dtype != KvDtype::kBf16 &&
      (p.kv_dtype != KvDtype::kFp8E4m3 || !usable_fp8_kv_scale(p.kv_scale))) {
    return false;
  }
  if (p.page_kind == PageTableKind::kTokenIndices) return p.kv_indptr && p.kv_indices;
  return p.block_table && p.page_size > 0 && p.max_pages > 0;
}

// The production kernel's instances besides the pipeline depth: the plain one, the token
// split and the tile-balanced schedule.
enum class Instance : int { kPlain = 0, kTokenSplit = 1, kBalanced = 2 };
constexpr int kNumInstances = 3;

// Which kernel of an instance family a launch takes: the bf16 pool's, the bf16 pool's over a
// kernel still writing the mask and the lengths (IndptrLengthParams), the fp8 pool's (bf16
// math), the fp8 pool's with fp8 math (LaunchPlan::math), or either pool's (bf16 math) or the
// fp8 pool's with fp8 math under sm_120's tensor-rate emulation.
enum class KernelForm : int {
  kBf16 = 0,
  kBf16OverMaskWriter = 1,
  kFp8Kv = 2,
  kBf16Sm120Emu = 3,
  kFp8KvSm120Emu = 4,
  kFp8Math = 5,
  kFp8MathSm120Emu = 6
};
constexpr int kNumKernelForms = 7;

// The production kernel instance for a pipeline depth, and its dynamic shared memory.
// KernelForm::kBf16OverMaskWriter: `over_mask_writer` is set and `kernel` stays null;
// otherwise `kernel` is (the fp8 pool's kernel has the same parameters).
struct KernelVariant {
  void (*kernel)(VerifyParams, int, int, SplitWorkspace);
  void (*over_mask_writer)(IndptrLengthParams, int, int, SplitWorkspace);
  int stages;
  int smem_bytes;
  const void* function() const {
    return kernel != nullptr ? reinterpret_cast<const void*>(kernel) : reinterpret_cast<const void*>(over_mask_writer);
  }
};

// The instance files' kernels (mma_sync/mma_instances.h), one family per Instance.
detail::MmaKernelFamily family_of(Instance instance) {
  return instance == Instance::kTokenSplit ? detail::mma_token_split_family()
         : instance == Instance::kBalanced ? detail::mma_balanced_family()
                                           : detail::mma_plain_family();
}

KernelVariant variant_for_stages(int stages, Instance instance, KernelForm form) {
  const detail::MmaKernels k = family_of(instance).at_depth(stages);
  if (k.kernel == nullptr) return {nullptr, nullptr, stages, 0};  // not a built depth
  switch (form) {
    case KernelForm::kBf16OverMaskWriter: return {nullptr, k.over_mask_writer, stages, smem_bytes_for_stages(stages)};
    case KernelForm::kFp8Kv: return {k.fp8_kv, nullptr, stages, smem_bytes_for_stages(stages, /*fp8_kv=*/true)};
    case KernelForm::kBf16Sm120Emu: return {k.sm120_emu, nullptr, stages, smem_bytes_for_stages(stages)};
    case KernelForm::kFp8KvSm120Emu:
      return {k.fp8_kv_sm120_emu, nullptr, stages, smem_bytes_for_stages(stages, /*fp8_kv=*/true)};
    // fp8 math lands the rows on "full" as the bf16 pool's do: no per-warp "raw" barriers.
    case KernelForm::kFp8Math: return {k.fp8_math, nullptr, stages, smem_bytes_for_stages(stages)};
    case KernelForm::kFp8MathSm120Emu: return {k.fp8_math_sm120_emu, nullptr, stages, smem_bytes_for_stages(stages)};
    case KernelForm::kBf16: break;
  }
  return {k.kernel, nullptr, stages, smem_bytes_for_stages(stages)};
}

KernelForm form_of(const VerifyParams& params, bool over_mask_writer, bool sm120_emulation, MathMode math) {
  if (sm120_emulation) {
    if (!params.kv_is_fp8()) return KernelForm::kBf16Sm120Emu;
    return math == MathMode::kFp8 ? KernelForm::kFp8MathSm120Emu : KernelForm::kFp8KvSm120Emu;
  }
  if (params.kv_is_fp8()) return math == MathMode::kFp8 ? KernelForm::kFp8Math : KernelForm::kFp8Kv;
  return over_mask_writer ? KernelForm::kBf16OverMaskWriter : KernelForm::kBf16;
}

// Per device, variant and instance, the dynamic shared memory the kernel's limit has been
// raised to. cudaFuncSetAttribute is a driver call; launched outside a CUDA graph the kernel
// makes it once per device and size, not per launch. Two threads racing on the first launch
// both set the same attribute, which is harmless. (cudaDeviceReset would drop the attribute
// behind the cache's back; nothing in verifybench resets a device.)
constexpr int kMaxCachedDevices = 64;
constexpr int kNumVariants = static_cast<int>(sizeof(kPipelineVariants) / sizeof(kPipelineVariants[0]));
std::atomic<int> g_smem_limit_raised[kMaxCachedDevices][kNumVariants][kNumInstances][kNumKernelForms];

Instance instance_for(KernelInstance instance) {
  return instance == KernelInstance::kMmaTokenSplit ? Instance::kTokenSplit
         : instance == KernelInstance::kMmaBalanced ? Instance::kBalanced
                                                    : Instance::kPlain;
}

// The plan's variant, with the kernel's shared-memory limit raised to the plan's request.
cudaError_t select_variant(const LaunchPlan& plan, KernelForm form, KernelVariant* out) {
  const Instance instance = instance_for(plan.instance);
  for (int i = 0; i < kNumVariants; ++i) {
    if (kPipelineVariants[i] != plan.pipeline_stages) continue;
    const KernelVariant v = variant_for_stages(plan.pipeline_stages, instance, form);
    if (v.function() == nullptr) return cudaErrorNotSupported;  // a form not built at this depth
    if (plan.smem_bytes < v.smem_bytes) return cudaErrorInvalidConfiguration;
    *out = v;
    out->smem_bytes = plan.smem_bytes;
    int device = 0;
    if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return err;
    const bool cacheable = device >= 0 && device < kMaxCachedDevices;
    std::atomic<int>* raised =
        cacheable ? &g_smem_limit_raised[device][i][static_cast<int>(instance)][static_cast<int>(form)] : nullptr;
    if (raised && raised->load(std::memory_order_acquire) >= plan.smem_bytes) return cudaSuccess;
    const cudaError_t err =
        cudaFuncSetAttribute(out->function(), cudaFuncAttributeMaxDynamicSharedMemorySize, plan.smem_bytes);
    if (err == cudaSuccess && raised) raised->store(plan.smem_bytes, std::memory_order_release);
    return err;
  }
  return cudaErrorInvalidConfiguration;  // not a built depth
}

}  // namespace

int flash_verify_balance_boundary_units(FlashVerifyPath path) {
  const PlannerConfig defaults;
  return path == FlashVerifyPath::kWgmma ? defaults.wgmma_balance_boundary_units : defaults.mma_balance_boundary_units;
}

bool flash_verify_timeline_built() { return VB_DEBUG_TIMELINE != 0; }

cudaError_t flash_verify_timeline_clear() {
#if VB_DEBUG_TIMELINE
  for (const Instance instance : {Instance::kPlain, Instance::kTokenSplit, Instance::kBalanced}) {
    if (cudaError_t err = family_of(instance).timeline_clear(); err != cudaSuccess) return err;
  }
  if (cudaError_t err = detail::combine_timeline_clear(); err != cudaSuccess) return err;
  return detail::wgmma_timeline_clear();
#else
  return cudaErrorNotSupported;
#endif
}

cudaError_t flash_verify_timeline_read(FlashVerifyTimeline* out) {
  *out = FlashVerifyTimeline{};
#if VB_DEBUG_TIMELINE
  out->main_capacity = detail::kTimelineMainSlots;
  out->combine_capacity = detail::kTimelineCombineSlots;
  // Each instance file has its own slots; the one launch since the clear wrote one family's.
  for (const Instance instance : {Instance::kPlain, Instance::kTokenSplit, Instance::kBalanced}) {
    if (cudaError_t err = family_of(instance).timeline_read(&out->main); err != cudaSuccess) return err;
  }
  if (cudaError_t err = detail::wgmma_timeline_read(&out->main); err != cudaSuccess) return err;
  return detail::combine_timeline_read(&out->combine);
#else
  return cudaErrorNotSupported;
#endif
}

FlashVerifyConfigInfo flash_verify_config() {
  return {kRowsPerTile, kTokensPerTile, kBlockThreads, smem_bytes_for_stages(kMinStages), kTokenSplitMinTiles,
          kMaxSplits};
}

FlashVerifyConfigInfo flash_verify_path_config(FlashVerifyPath path) {
  if (path == FlashVerifyPath::kWgmma) {
    return {wgmma_cfg::kRowsPerTile, wgmma_cfg::kTokensPerTile, wgmma_cfg::kThreads, wgmma_cfg::kSmemBytes, 0,
            kMaxSplits};
  }
  return {kRowsPerTile, kTokensPerTile, kBlockThreads, smem_bytes_for_stages(kPipelineVariants[0]),
          kTokenSplitMinTiles, kMaxSplits};
}

std::size_t flash_verify_workspace_bytes(const SplitSchedule& plan, int batch, int tree_size,
                                         int num_heads) {
  if (plan.num_splits <= 1) return 0;
  const std::size_t partials = split_partials(plan, batch, tree_size, num_heads);
  return workspace_o_bytes(partials) + workspace_lse_bytes(partials) + workspace_slot_bytes(plan, batch);
}

int flash_verify_blocks_per_sm(cudaError_t* error) {
  int device = 0, optin = 0, blocks = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  LaunchPlan deepest;
  deepest.instance = KernelInstance::kMmaPlain;
  deepest.pipeline_stages = flash_verify_stages_for_smem_optin(optin);
  deepest.smem_bytes = flash_verify_smem_bytes(deepest.pipeline_stages);
  KernelVariant v{};
  if (err == cudaSuccess) err = select_variant(deepest, KernelForm::kBf16, &v);
  if (err == cudaSuccess) {
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, v.kernel, kBlockThreads, v.smem_bytes);
  }
  if (error) *error = err;
  return err == cudaSuccess ? blocks : 0;
}

int flash_verify_sm120_blocks_per_sm(cudaError_t* error) {
  const int stages = flash_verify_stages_for_smem_optin(Sm120Limits::kSmemPerBlockOptin);
  const KernelVariant v = variant_for_stages(stages, Instance::kPlain, KernelForm::kBf16);
  cudaFuncAttributes attributes{};
  const cudaError_t err = v.kernel != nullptr ? cudaFuncGetAttributes(&attributes, v.function())
                                              : cudaErrorInvalidConfiguration;  // no depth fits 99 KB
  if (error) *error = err;
  if (err != cudaSuccess) return 0;
  // Registers are allocated per warp in units of 256.
  constexpr int kRegisterUnit = 256;
  const int registers_per_warp = ceil_div(attributes.numRegs * 32, kRegisterUnit) * kRegisterUnit;
  const int by_registers = Sm120Limits::kRegistersPerSm / (registers_per_warp * (kBlockThreads / 32));
  const int by_threads = Sm120Limits::kThreadsPerSm / kBlockThreads;
  const int block_smem = v.smem_bytes + static_cast<int>(attributes.sharedSizeBytes) + Sm120Limits::kSmemReservedPerBlock;
  const int by_smem = Sm120Limits::kSmemPerSm / block_smem;
  return std::min({by_registers, by_threads, by_smem});
}

DeviceTarget sm120_proxy_target(cudaError_t* error) {
  DeviceTarget t;
  int device = 0, smem_per_sm = 0, reserved_per_block = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&t.num_sms, cudaDevAttrMultiProcessorCount, device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
  if (err == cudaSuccess) {
    err = cudaDeviceGetAttribute(&reserved_per_block, cudaDevAttrReservedSharedMemoryPerBlock, device);
  }
  if (err == cudaSuccess) t.main_blocks_per_sm = flash_verify_sm120_blocks_per_sm(&err);
  if (err == cudaSuccess && t.main_blocks_per_sm < 1) err = cudaErrorInvalidConfiguration;  // no block fits sm_120
  t.max_threads_per_sm = Sm120Limits::kThreadsPerSm;
  t.smem_optin_bytes = Sm120Limits::kSmemPerBlockOptin;
  t.wgmma = false;
  // The smallest request of which main_blocks_per_sm + 1 blocks overflow this device's SM, in
  // the 128-byte units shared memory is allocated in.
  constexpr int kSmemUnit = 128;
  const int overflowing = smem_per_sm / (t.main_blocks_per_sm + 1) - reserved_per_block + 1;
  t.mma_smem_request_bytes = ceil_div(overflowing, kSmemUnit) * kSmemUnit;
  if (error) *error = err;
  return t;
}

int flash_verify_plan_blocks_per_sm(const LaunchPlan& plan, cudaError_t* error) {
  KernelVariant v{};
  cudaError_t err = plan.schedule.path == FlashVerifyPath::kMmaSync ? select_variant(plan, KernelForm::kBf16, &v)
                                                                    : cudaErrorInvalidValue;
  int blocks = 0;
  if (err == cudaSuccess) {
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, v.kernel, plan.main_threads, plan.smem_bytes);
  }
  if (error) *error = err;
  return err == cudaSuccess ? blocks : 0;
}

bool flash_verify_wgmma_supported(cudaError_t* error) {
  bool supported = false;
  const cudaError_t err = detail::wgmma_path_supported(&supported);
  if (error) *error = err;
  return err == cudaSuccess && supported;
}

namespace {
// Whether the current device is a Hopper (compute capability 9.x): the sm_120 emulation's extra
// tensor load is calibrated against a Hopper SM's mma.sync rate (kernels/NOTES-sm120.md).
cudaError_t current_device_is_hopper(bool* hopper) {
  *hopper = false;
  int device = 0, major = 0;
  if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return err;
  if (cudaError_t err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device); err != cudaSuccess) {
    return err;
  }
  *hopper = major == 9;
  return cudaSuccess;
}

// Whether `plan` is one this build can run over `params`: the planner's own output always is;
// a plan made by hand (tests) or for another shape may not be.
bool plan_matches(const VerifyParams& params, const LaunchPlan& plan) {
  const SplitSchedule& s = plan.schedule;
  const bool wgmma = s.path == FlashVerifyPath::kWgmma;
  const bool wgmma_instance = plan.instance == KernelInstance::kWgmmaGather ||
                              plan.instance == KernelInstance::kWgmmaRunBoxes ||
                              plan.instance == KernelInstance::kWgmmaPageBoxes ||
                              plan.instance == KernelInstance::kWgmmaBalanced;
  const int rows = params.tree_size * params.num_heads;
  if (!plan.valid || wgmma != wgmma_instance || (s.path != FlashVerifyPath::kMmaSync && !wgmma)) return false;
  // The grid's y dimension holds the splits (tile-balanced: the blocks per row tile, whatever
  // balance_max_blocks the plan was made under: kMaxBalancedBlocks), its z the batch.
  if (s.num_splits < 1 || s.num_splits > kMaxBalancedBlocks || params.batch > 65535 || s.tiles_per_split < 0) {
    return false;
  }
  // Every split of a fixed-split plan has a lane of the combine; a tile-balanced plan's combine
  // merges the slots past its lanes in a loop.
  if (!s.tile_balanced && s.num_splits > kMaxSplits) return false;
  if (s.m_tiles != ceil_div(rows, plan.rows_per_tile) ||
      plan.rows_per_tile != (wgmma ? wgmma_cfg::kRowsPerTile : kRowsPerTile)) {
    return false;
  }
  if (plan.main_grid.x != static_cast<unsigned>(s.m_tiles) || plan.main_grid.y != static_cast<unsigned>(s.num_splits) ||
      plan.main_grid.z != static_cast<unsigned>(s.tile_balanced ? 1 : params.batch)) {
    return false;
  }
  if (s.token_split != (plan.instance == KernelInstance::kMmaTokenSplit) || (s.token_split && rows > kMmaM)) return false;
  if (s.tile_balanced != (plan.instance == KernelInstance::kMmaBalanced || plan.instance == KernelInstance::kWgmmaBalanced)) {
    return false;
  }
  if (s.tile_balanced && (s.tiles_per_split != 0 || s.balanced_slots < 1 || s.balanced_slots > s.num_splits ||
                          plan.split_tiles_arg >= 0)) {
    return false;
  }
  if (!s.tile_balanced && plan.split_tiles_arg != s.tiles_per_split) return false;
  if (wgmma ? plan.smem_bytes != wgmma_cfg::kSmemBytes || plan.main_threads != wgmma_cfg::kThreads
            : plan.main_threads != kBlockThreads) {
    return false;
  }
  if (plan.instance == KernelInstance::kWgmmaPageBoxes &&
      (params.page_kind != PageTableKind::kBlockTable || params.page_size < wgmma_cfg::kTmaBoxRows ||
       (params.page_size & (params.page_size - 1)) != 0)) {
    return false;
  }
  if (s.num_splits > 1) {
    const int lanes = plan.combine_lanes;
    if (plan.combine_splits != flash_verify_combine_splits(s)) return false;
    // Fixed-split plans' lanes hold every split; a tile-balanced row with more slots than its
    // lanes hold merges the rest in a loop.
    if ((lanes != 1 && lanes != 2 && lanes != 4 && lanes != 8) ||
        (!s.tile_balanced && ceil_div(plan.combine_splits, lanes) > kCombineMaxPerLane) ||
        plan.combine_loads_per_lane != combine_instance_loads(ceil_div(plan.combine_splits, lanes))) {
      return false;
    }
  }
  return true;
}
}  // namespace

cudaError_t flash_verify_launch(const VerifyParams& params, const LaunchPlan& plan,
                                void* workspace, std::size_t workspace_bytes, cudaStream_t stream) {
  return flash_verify_launch(params, plan, workspace, workspace_bytes, stream, FlashVerifyLaunchOptions{});
}

cudaError_t flash_verify_launch(const VerifyParams& params, const LaunchPlan& plan,
                                void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
                                const FlashVerifyLaunchOptions& options) {
  if (!params_valid(params)) return cudaErrorInvalidValue;
  // Query rows are numbered in 32 bits on the device (grid.x of the combine was one per row).
  if (static_cast<std::int64_t>(params.batch) * params.tree_size * params.num_heads > INT32_MAX) {
    return cudaErrorInvalidConfiguration;
  }
  // Over a kernel still writing the mask and the lengths: the lengths come from kv_indptr.
  const bool over_mask_writer = options.previous_kernel_writes_only_mask_and_lengths;
  if (over_mask_writer && (!options.overlap_previous_kernel || params.page_kind != PageTableKind::kTokenIndices)) {
    return cudaErrorInvalidValue;
  }
  if (!plan_matches(params, plan)) return cudaErrorInvalidConfiguration;
  const SplitSchedule& s = plan.schedule;
  // fp8 KV: the mma.sync engine's ordinary launches only (the planner never picks wgmma for it).
  if (params.kv_is_fp8() && (s.path != FlashVerifyPath::kMmaSync || over_mask_writer)) return cudaErrorNotSupported;
  // sm_120's emulation: an ordinary mma.sync launch at sm_120's depth, on a Hopper (the rate
  // it emulates is relative to a Hopper SM's).
  if (options.sm120_tensor_rate_emulation) {
    if (s.path != FlashVerifyPath::kMmaSync || over_mask_writer) return cudaErrorNotSupported;
    bool hopper = false;
    if (cudaError_t err = current_device_is_hopper(&hopper); err != cudaSuccess) return err;
    if (!hopper) return cudaErrorNotSupported;
  }
  // fp8 math: an fp8 pool only (a bf16 pool has no e4m3 tile to multiply); with or without
  // the emulation (its fp8-math instances owe the extra work per e4m3 instruction).
  if (plan.math == MathMode::kFp8 && !params.kv_is_fp8()) return cudaErrorNotSupported;
  const std::size_t needed = flash_verify_workspace_bytes(s, params.batch, params.tree_size, params.num_heads);
  if (workspace_bytes < needed || (needed > 0 && workspace == nullptr)) return cudaErrorInvalidValue;
  const SplitWorkspace ws =
      needed > 0 ? carve_workspace(workspace, split_partials(s, params.batch, params.tree_size, params.num_heads),
                                   s.tile_balanced)
                 : SplitWorkspace{nullptr, nullptr, nullptr};
  const void* launched_main = nullptr;
  if (s.path == FlashVerifyPath::kWgmma) {
    launched_main = detail::wgmma_main_kernel_of(plan, over_mask_writer);
    bool supported = false;
    if (cudaError_t err = detail::wgmma_path_supported(&supported); err != cudaSuccess) return err;
    if (!supported) return cudaErrorInvalidConfiguration;  // not a compute capability 9.0 device
    if (cudaError_t err =
            detail::launch_wgmma_main(params, plan, ws, options.overlap_previous_kernel, over_mask_writer, stream);
        err != cudaSuccess) {
      return err;
    }
  } else {
    KernelVariant variant{};
    if (cudaError_t err = select_variant(
            plan, form_of(params, over_mask_writer, options.sm120_tensor_rate_emulation, plan.math), &variant);
        err != cudaSuccess) {
      return err;
    }
    launched_main = variant.function();
    const dim3 grid(plan.main_grid.x, plan.main_grid.y, plan.main_grid.z);
    cudaLaunchAttribute attribute{};
    const cudaLaunchConfig_t config = detail::launch_config(grid, dim3(plan.main_threads), plan.smem_bytes, stream,
                                                            options.overlap_previous_kernel, &attribute);
    const cudaError_t err =
        over_mask_writer
            ? cudaLaunchKernelEx(&config, variant.over_mask_writer, IndptrLengthParams(params), s.num_splits,
                                 plan.split_tiles_arg, ws)
            : cudaLaunchKernelEx(&config, variant.kernel, params, s.num_splits, plan.split_tiles_arg, ws);
    if (err != cudaSuccess) return err;
  }
  if (options.record != nullptr) {
    *options.record = FlashVerifyLaunchRecord{};
    options.record->main_kernel = launched_main;
    options.record->main_grid = plan.main_grid;
    options.record->main_threads = plan.main_threads;
    options.record->main_smem_bytes = plan.smem_bytes;
  }
  if (s.num_splits == 1) return cudaSuccess;
  const cudaError_t err = detail::launch_split_combine(params, plan, ws, stream);
  if (err == cudaSuccess && options.record != nullptr) {
    options.record->combine_kernel = flash_verify_combine_kernel_of(plan);
    options.record->combine_grid = plan.combine_grid;
    options.record->combine_block = plan.combine_block;
  }
  return err;
}

const void* flash_verify_main_kernel_of(const LaunchPlan& plan, bool over_mask_writer, KvDtype kv_dtype) {
  const bool fp8 = kv_dtype == KvDtype::kFp8E4m3;
  if (plan.math == MathMode::kFp8 && !fp8) return nullptr;
  if (plan.schedule.path == FlashVerifyPath::kWgmma) {
    return fp8 ? nullptr : detail::wgmma_main_kernel_of(plan, over_mask_writer);
  }
  if (fp8 && over_mask_writer) return nullptr;
  const KernelForm form = fp8 ? (plan.math == MathMode::kFp8 ? KernelForm::kFp8Math : KernelForm::kFp8Kv)
                          : over_mask_writer ? KernelForm::kBf16OverMaskWriter
                                             : KernelForm::kBf16;
  return variant_for_stages(plan.pipeline_stages, instance_for(plan.instance), form).function();
}

const void* flash_verify_combine_kernel_of(const LaunchPlan& plan) {
  if (plan.schedule.num_splits <= 1) return nullptr;
  return reinterpret_cast<const void*>(
      detail::combine_kernel_for(plan.combine_splits, plan.combine_lanes, plan.schedule.tile_balanced));
}

namespace detail {

cudaError_t launch_split_combine(const VerifyParams& params, const LaunchPlan& plan, const SplitWorkspace& ws,
                                 cudaStream_t stream) {
  // Programmatic dependent launch (sm_90+): the combine is scheduled while the main
  // kernel's last blocks run and waits on the device for its results.
  cudaLaunchAttribute attribute{};
  const cudaLaunchConfig_t config =
      launch_config(dim3(plan.combine_grid.x, plan.combine_grid.y, plan.combine_grid.z),
                    dim3(plan.combine_block.x, plan.combine_block.y, plan.combine_block.z), 0, stream,
                    /*overlap_previous_kernel=*/true, &attribute);
  const bool balanced = plan.schedule.tile_balanced;
  return cudaLaunchKernelEx(&config, detail::combine_kernel_for(plan.combine_splits, plan.combine_lanes, balanced), params,
                            plan.schedule.num_splits, plan.split_tiles_arg, plan.tokens_per_tile, ws,
                            plan.combine_lanes);
}

}  // namespace detail

}  // namespace vb

// The wgmma path's launcher (host code; the kernels are in wgmma/wgmma_kernel.cuh, compiled by
// the instance files of wgmma/wgmma_instances.h): the instance a plan names, the KV
// pool's tensor map for the TMA-box instances, the shared-memory limit raised once per device
// and instance, and the launch. It decides nothing: the plan did.
#include <cuda.h>  // CUtensorMap (the driver entry point is looked up at run time: no -lcuda)
#include <cudaTypedefs.h>  // PFN_cuTensorMapEncodeTiled

#include <atomic>
#include <cstdint>
#include <vector>

#include "common/launch_config.h"
#include "common/split_kv.h"
#include "common/timeline.cuh"
#include "verifybench/kernels.h"
#include "wgmma/wgmma_config.h"
#include "wgmma/wgmma_instances.h"

namespace vb {
namespace {

using namespace wgmma_cfg;

// The instance files' families, in KernelInstance order of the wgmma path.
constexpr int kFamilies = 4;
using FamilyOf = detail::WgmmaKernelFamily (*)();
constexpr FamilyOf kFamilyOf[kFamilies] = {detail::wgmma_gather_family, detail::wgmma_run_boxes_family,
                                           detail::wgmma_page_boxes_family, detail::wgmma_balanced_family};

int family_index(const LaunchPlan& plan) {
  return plan.instance == KernelInstance::kWgmmaBalanced    ? 3
         : plan.instance == KernelInstance::kWgmmaPageBoxes ? 2
         : plan.instance == KernelInstance::kWgmmaRunBoxes  ? 1
                                                            : 0;
}

constexpr int kMaxCachedDevices = 64;
std::atomic<bool> g_smem_limit_raised[kFamilies][2][kMaxCachedDevices];  // [family][over a mask writer][device]

// The KV pool as a 2-D tensor map [pool_rows][576] bf16 for the producer's TMA boxes (16 rows
// x 64 values, 128-byte swizzle), for the launches the planner gives them (wgmma_instance_for,
// planner/planner.cpp). False where TMA cannot address it (no pool, 2^31 rows or more, a base
// not 16-byte aligned) or the driver has no encoder: a box instance's launch is then refused
// (cudaErrorInvalidValue; the plan was made for another pool). Encoding is host-side work (no
// device call).
bool encode_kv_rows_map(const VerifyParams& p, CUtensorMap* map) {
  if (p.kv_pool == nullptr || p.pool_rows < kTmaBoxRows || p.pool_rows > INT32_MAX ||
      (reinterpret_cast<std::uintptr_t>(p.kv_pool) & 15) != 0) {
    return false;
  }
  static const PFN_cuTensorMapEncodeTiled_v12000 encode = [] {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    const cudaError_t err =
        cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found);
    return err == cudaSuccess && found == cudaDriverEntryPointSuccess
               ? reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn)
               : nullptr;
  }();
  if (encode == nullptr) return false;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(mla::kHeadDimQK), static_cast<cuuint64_t>(p.pool_rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(mla::kHeadDimQK) * sizeof(bf16_bits)};
  const cuuint32_t box[2] = {64, static_cast<cuuint32_t>(kTmaBoxRows)};
  const cuuint32_t element_strides[2] = {1, 1};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, const_cast<bf16_bits*>(p.kv_pool_bf16()), dims, strides, box,
                element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                static_cast<CUtensorMapL2promotion>(kTmaL2Promotion), CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) ==
         CUDA_SUCCESS;
}

}  // namespace

namespace detail {

// Each instance file has its own slots; the one launch since the clear wrote one family's.
cudaError_t wgmma_timeline_clear() {
  for (const FamilyOf family : kFamilyOf) {
    if (cudaError_t err = family().timeline_clear(); err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

cudaError_t wgmma_timeline_read(std::vector<FlashVerifyTimelineBlock>* out) {
  for (const FamilyOf family : kFamilyOf) {
    if (cudaError_t err = family().timeline_read(out); err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

cudaError_t wgmma_path_supported(bool* supported) {
  *supported = false;
  int device = 0, major = 0, minor = 0, optin = 0;
  if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return err;
  if (cudaError_t err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device); err != cudaSuccess) return err;
  if (cudaError_t err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device); err != cudaSuccess) return err;
  if (cudaError_t err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
      err != cudaSuccess) {
    return err;
  }
  // sm_90a machine code runs on compute capability 9.0 only.
  *supported = major == 9 && minor == 0 && optin >= kSmemBytes;
  return cudaSuccess;
}

const void* wgmma_main_kernel_of(const LaunchPlan& plan, bool over_mask_writer) {
  const WgmmaKernelFamily family = kFamilyOf[family_index(plan)]();
  return over_mask_writer ? reinterpret_cast<const void*>(family.over_mask_writer)
                          : reinterpret_cast<const void*>(family.kernel);
}

cudaError_t launch_wgmma_main(const VerifyParams& params, const LaunchPlan& plan, const SplitWorkspace& ws,
                              bool overlap_previous_kernel, bool over_mask_writer, cudaStream_t stream) {
  int device = 0;
  if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) return err;
  const bool cacheable = device >= 0 && device < kMaxCachedDevices;
  const int index = family_index(plan);
  CUtensorMap kv_map{};
  const bool tma = plan.instance == KernelInstance::kWgmmaPageBoxes || plan.instance == KernelInstance::kWgmmaRunBoxes;
  if (tma && !encode_kv_rows_map(params, &kv_map)) return cudaErrorInvalidValue;  // the planner saw another pool
  const WgmmaKernelFamily family = kFamilyOf[index]();
  const void* function = over_mask_writer ? reinterpret_cast<const void*>(family.over_mask_writer)
                                          : reinterpret_cast<const void*>(family.kernel);
  std::atomic<bool>& raised = g_smem_limit_raised[index][over_mask_writer ? 1 : 0][cacheable ? device : 0];
  if (!cacheable || !raised.load(std::memory_order_acquire)) {
    const cudaError_t err = cudaFuncSetAttribute(function, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmemBytes);
    if (err != cudaSuccess) return err;
    if (cacheable) raised.store(true, std::memory_order_release);
  }
  const dim3 grid(plan.main_grid.x, plan.main_grid.y, plan.main_grid.z);
  cudaLaunchAttribute attribute{};
  const cudaLaunchConfig_t config =
      launch_config(grid, dim3(plan.main_threads), plan.smem_bytes, stream, overlap_previous_kernel, &attribute);
  const int splits = plan.schedule.num_splits;
  if (over_mask_writer) {
    return cudaLaunchKernelEx(&config, family.over_mask_writer, IndptrLengthParams(params), splits,
                              plan.split_tiles_arg, ws, kv_map, tma);
  }
  return cudaLaunchKernelEx(&config, family.kernel, params, splits, plan.split_tiles_arg, ws, kv_map, tma);
}

}  // namespace detail
}  // namespace vb

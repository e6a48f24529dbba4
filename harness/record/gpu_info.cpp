// query_gpu(): device 0's properties from the CUDA runtime, or why there is none.
#include "harness/record/gpu_info.h"

#include <cuda_runtime_api.h>

#include <fmt/format.h>

namespace vb {

GpuInfo query_gpu() {
  GpuInfo info;
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess || count == 0) {
    info.reason = fmt::format("no CUDA device ({})",
                              err != cudaSuccess ? cudaGetErrorString(err) : "device count is 0");
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    return info;
  }
  cudaDeviceProp prop{};
  if (const cudaError_t e = cudaGetDeviceProperties(&prop, 0); e != cudaSuccess) {
    info.reason = fmt::format("cudaGetDeviceProperties failed: {}", cudaGetErrorString(e));
    return info;
  }
  info.available = true;
  info.device = 0;
  info.name = prop.name;
  info.cc_major = prop.major;
  info.cc_minor = prop.minor;
  info.sm_count = prop.multiProcessorCount;
  info.l2_bytes = prop.l2CacheSize;
  info.global_mem_bytes = static_cast<std::int64_t>(prop.totalGlobalMem);
  cudaDriverGetVersion(&info.driver_version);
  cudaRuntimeGetVersion(&info.runtime_version);
  return info;
}

}  // namespace vb

// One launch configuration for every kernel of this folder that may start over the stream's
// previous kernel (programmatic dependent launch, sm_90 and later).
#pragma once
#include <cstddef>

#include <cuda_runtime_api.h>

namespace vb::detail {

// With overlap_previous_kernel, `attribute` receives the programmatic-stream-serialization
// attribute and the configuration points at it (keep it alive until the launch): the kernel
// may then start once every block of the stream's previous kernel has called
// griddepcontrol.launch_dependents or exited, and must griddepcontrol.wait before it touches
// what that kernel writes or reads.
inline cudaLaunchConfig_t launch_config(dim3 grid, dim3 block, std::size_t smem_bytes, cudaStream_t stream,
                                        bool overlap_previous_kernel, cudaLaunchAttribute* attribute) {
  cudaLaunchConfig_t config{};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = smem_bytes;
  config.stream = stream;
  if (overlap_previous_kernel) {
    *attribute = cudaLaunchAttribute{};
    attribute->id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute->val.programmaticStreamSerializationAllowed = 1;
    config.attrs = attribute;
    config.numAttrs = 1;
  }
  return config;
}

}  // namespace vb::detail

#include "overlap_probe.h"

namespace vb::test {
namespace {

__device__ std::uint64_t global_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void delayed_copy_kernel(unsigned char* dst, const unsigned char* src, std::size_t bytes,
                                    std::uint64_t hold_ns, std::uint64_t* stamps) {
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  const std::uint64_t t0 = global_ns();
  while (global_ns() - t0 < hold_ns) {
  }
  if (threadIdx.x == 0) stamps[0] = global_ns();
  for (std::size_t i = threadIdx.x; i < bytes; i += blockDim.x) dst[i] = src[i];
}

__global__ void overlapped_stamp_kernel(std::uint64_t* stamps) {
  const std::uint64_t entry = global_ns();
  asm volatile("griddepcontrol.wait;" ::: "memory");
  stamps[1] = entry;
  stamps[2] = global_ns();
}

}  // namespace

cudaError_t launch_delayed_copy(void* dst, const void* src, std::size_t bytes, std::uint64_t hold_ns,
                                std::uint64_t* stamps, cudaStream_t stream) {
  delayed_copy_kernel<<<1, 256, 0, stream>>>(static_cast<unsigned char*>(dst), static_cast<const unsigned char*>(src),
                                             bytes, hold_ns, stamps);
  return cudaGetLastError();
}

cudaError_t launch_overlapped_stamp(std::uint64_t* stamps, cudaStream_t stream) {
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(1);
  config.blockDim = dim3(32);
  config.stream = stream;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute.val.programmaticStreamSerializationAllowed = 1;
  config.attrs = &attribute;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, overlapped_stamp_kernel, stamps);
}

}  // namespace vb::test

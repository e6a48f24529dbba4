// Test-only kernels for programmatic dependent launch (FlashVerifyLaunchOptions): a kernel
// that lets its dependents launch at once and writes its output only after a hold, and a
// dependent that stamps when it starts and when its wait returns.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace vb::test {

// One block: griddepcontrol.launch_dependents at entry, then a hold of `hold_ns`
// (%globaltimer), then `bytes` copied from src to dst; stamps[0] receives the time the copy
// began. A kernel launched over it may therefore start long before dst holds src.
cudaError_t launch_delayed_copy(void* dst, const void* src, std::size_t bytes, std::uint64_t hold_ns,
                                std::uint64_t* stamps, cudaStream_t stream);

// Launched over the stream's previous kernel: stamps[1] = its entry, stamps[2] = the return of
// its griddepcontrol.wait (%globaltimer).
cudaError_t launch_overlapped_stamp(std::uint64_t* stamps, cudaStream_t stream);

}  // namespace vb::test

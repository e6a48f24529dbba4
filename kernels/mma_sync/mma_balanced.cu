// The tile-balanced instance: the schedule of verifybench/tile_balance.h, whose blocks walk
// on from request to request.
// Both pipeline depths, for ordinary launches and over a mask writer (mma_sync/mma_kernel.cuh).
#include "mma_sync/mma_kernel.cuh"

namespace vb::detail {

MmaKernelFamily mma_balanced_family() { return mma_kernel_family</*kTokenSplit=*/false, /*kBalanced=*/true>(); }

}  // namespace vb::detail

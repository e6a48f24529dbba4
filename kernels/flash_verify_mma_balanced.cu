// The tile-balanced instance: the schedule of verifybench/tile_balance.h, whose blocks walk
// on from request to request.
// Both pipeline depths, for ordinary launches and over a mask writer (flash_verify_mma.cuh).
#include "flash_verify_mma.cuh"

namespace vb::detail {

MmaKernelFamily mma_balanced_family() { return mma_kernel_family</*kTokenSplit=*/false, /*kBalanced=*/true>(); }

}  // namespace vb::detail

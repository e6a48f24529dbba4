// The tile-balanced instance: the walk over segments of several requests, gathers only.
// Ordinary launches and over a mask writer (wgmma/wgmma_kernel.cuh).
#include "wgmma/wgmma_kernel.cuh"

namespace vb::detail {

WgmmaKernelFamily wgmma_balanced_family() { return wgmma_kernel_family</*kBalanced=*/true, kNoBoxes>(); }

}  // namespace vb::detail

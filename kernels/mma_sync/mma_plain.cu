// The plain instance: every plan that is neither token split nor tile-balanced.
// Both pipeline depths, for ordinary launches and over a mask writer (mma_sync/mma_kernel.cuh).
#include "mma_sync/mma_kernel.cuh"

namespace vb::detail {

MmaKernelFamily mma_plain_family() { return mma_kernel_family</*kTokenSplit=*/false, /*kBalanced=*/false>(); }

}  // namespace vb::detail

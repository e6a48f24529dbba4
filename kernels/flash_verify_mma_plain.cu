// The plain instance: every plan that is neither token split nor tile-balanced.
// Both pipeline depths, for ordinary launches and over a mask writer (flash_verify_mma.cuh).
#include "flash_verify_mma.cuh"

namespace vb::detail {

MmaKernelFamily mma_plain_family() { return mma_kernel_family</*kTokenSplit=*/false, /*kBalanced=*/false>(); }

}  // namespace vb::detail

// The token-split instance: for H*T <= 16 on splits of kTokenSplitMinTiles tiles or more,
// both row groups take alternate tiles of the same 16 rows.
// Both pipeline depths, for ordinary launches and over a mask writer (flash_verify_mma.cuh).
#include "flash_verify_mma.cuh"

namespace vb::detail {

MmaKernelFamily mma_token_split_family() { return mma_kernel_family</*kTokenSplit=*/true, /*kBalanced=*/false>(); }

}  // namespace vb::detail

// The token-split instance: for H*T <= 16 on splits of kTokenSplitMinTiles tiles or more,
// both row groups take alternate tiles of the same 16 rows.
// Both pipeline depths, for ordinary launches and over a mask writer (mma_sync/mma_kernel.cuh).
#include "mma_sync/mma_kernel.cuh"

namespace vb::detail {

MmaKernelFamily mma_token_split_family() { return mma_kernel_family</*kTokenSplit=*/true, /*kBalanced=*/false>(); }

}  // namespace vb::detail

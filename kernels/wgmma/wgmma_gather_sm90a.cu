// The gather instance: fixed-split and even plans whose KV rows all go through cp.async gathers.
// Ordinary launches and over a mask writer (wgmma/wgmma_kernel.cuh).
#include "wgmma/wgmma_kernel.cuh"

namespace vb::detail {

WgmmaKernelFamily wgmma_gather_family() { return wgmma_kernel_family</*kBalanced=*/false, kNoBoxes>(); }

}  // namespace vb::detail

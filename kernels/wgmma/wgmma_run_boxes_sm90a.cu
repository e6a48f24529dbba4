// The run-box instance (token table, fixed-split plans of >= 4 row tiles): TMA boxes for runs of 16 consecutive pool rows.
// Ordinary launches and over a mask writer (wgmma/wgmma_kernel.cuh).
#include "wgmma/wgmma_kernel.cuh"

namespace vb::detail {

WgmmaKernelFamily wgmma_run_boxes_family() { return wgmma_kernel_family</*kBalanced=*/false, kRunBoxes>(); }

}  // namespace vb::detail

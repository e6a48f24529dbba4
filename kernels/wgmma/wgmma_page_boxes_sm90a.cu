// The page-box instance (block table, pages of >= 16 rows): TMA boxes for every tile inside kv_len.
// Ordinary launches and over a mask writer (wgmma/wgmma_kernel.cuh).
#include "wgmma/wgmma_kernel.cuh"

namespace vb::detail {

WgmmaKernelFamily wgmma_page_boxes_family() { return wgmma_kernel_family</*kBalanced=*/false, kPageBoxes>(); }

}  // namespace vb::detail

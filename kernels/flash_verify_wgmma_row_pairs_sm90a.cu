// The row-pair instance: fixed-split plans of an even number of row tiles whose KV rows go through
// cp.async gathers, row tiles 2k and 2k+1 in one 2-block cluster that gathers each tile once
// between them (kRowPairs). Ordinary launches and over a mask writer (flash_verify_wgmma.cuh).
#include "flash_verify_wgmma.cuh"

namespace vb::detail {

WgmmaKernelFamily wgmma_row_pairs_family() { return wgmma_kernel_family</*kBalanced=*/false, kRowPairs>(); }

}  // namespace vb::detail

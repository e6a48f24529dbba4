// The split-release gather instance: fixed-split and even plans of >= 2 row tiles whose KV rows
// all go through cp.async gathers; the second PV warpgroup runs behind the next S and a stage
// frees in halves (kSplitRelease in flash_verify_wgmma.cuh). Ordinary launches and over a mask
// writer.
#include "flash_verify_wgmma.cuh"

namespace vb::detail {

WgmmaKernelFamily wgmma_gather_split_family() {
  return wgmma_kernel_family</*kBalanced=*/false, kNoBoxes, /*kSplitRelease=*/true>();
}

}  // namespace vb::detail

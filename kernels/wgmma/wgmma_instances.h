// The wgmma path's kernels as its launcher (wgmma/wgmma_launch_sm90a.cu) sees them. Each
// instance file compiles one family (ordinary launches and over a mask writer) in a translation
// unit of its own, so the files build in parallel, and hands out its host stubs and its
// phase-timeline slots here:
//   wgmma/wgmma_gather_sm90a.cu      fixed-split and even plans, cp.async gathers only
//   wgmma/wgmma_run_boxes_sm90a.cu   the token table's run boxes (kRunBoxes)
//   wgmma/wgmma_page_boxes_sm90a.cu  the block table's page boxes (kPageBoxes)
//   wgmma/wgmma_balanced_sm90a.cu    the tile-balanced schedule
// Internal to kernels/.
#pragma once
#include <vector>

#include <cuda.h>  // CUtensorMap
#include <cuda_runtime_api.h>

#include "common/split_kv.h"
#include "verifybench/kernels.h"

namespace vb::detail {

using WgmmaKernel = void (*)(VerifyParams, int, int, SplitWorkspace, CUtensorMap, bool);
// The instance for launches over a kernel still writing the mask and the lengths
// (FlashVerifyLaunchOptions::previous_kernel_writes_only_mask_and_lengths).
using WgmmaOverMaskWriterKernel = void (*)(IndptrLengthParams, int, int, SplitWorkspace, CUtensorMap, bool);

// An instance file's kernels and its timeline slots (the timeline functions return
// cudaErrorNotSupported outside -DVB_DEBUG_TIMELINE=1 builds).
struct WgmmaKernelFamily {
  WgmmaKernel kernel;
  WgmmaOverMaskWriterKernel over_mask_writer;
  cudaError_t (*timeline_clear)();
  cudaError_t (*timeline_read)(std::vector<FlashVerifyTimelineBlock>* out);
};
WgmmaKernelFamily wgmma_gather_family();
WgmmaKernelFamily wgmma_run_boxes_family();
WgmmaKernelFamily wgmma_page_boxes_family();
WgmmaKernelFamily wgmma_balanced_family();

}  // namespace vb::detail

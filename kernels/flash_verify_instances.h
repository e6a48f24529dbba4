// The mma.sync path's kernels as the launcher (flash_verify_launch.cu) sees them. Each
// instance file compiles its kernels in a translation unit of its own, so the files build in
// parallel, and hands out their host stubs and its phase-timeline slots here:
//   flash_verify_mma_plain.cu        the plain instance
//   flash_verify_mma_token_split.cu  the token split (H*T <= 16, long splits)
//   flash_verify_mma_balanced.cu     the tile-balanced schedule
//   flash_verify_combine.cu          the split combine of both paths
// Internal to kernels/.
#pragma once
#include <vector>

#include <cuda_runtime_api.h>

#include "flash_verify_split.h"
#include "verifybench/kernels.h"

namespace vb::detail {

using MmaKernel = void (*)(VerifyParams, int, int, SplitWorkspace);
// The instance for launches over a kernel still writing the mask and the lengths
// (FlashVerifyLaunchOptions::previous_kernel_writes_only_mask_and_lengths).
using MmaOverMaskWriterKernel = void (*)(IndptrLengthParams, int, int, SplitWorkspace);

// One instance family at one pipeline depth; both null where the depth is not built.
struct MmaKernels {
  MmaKernel kernel;
  MmaOverMaskWriterKernel over_mask_writer;
};

// An instance file's kernels and its timeline slots (the timeline functions return
// cudaErrorNotSupported outside -DVB_DEBUG_TIMELINE=1 builds).
struct MmaKernelFamily {
  MmaKernels (*at_depth)(int stages);
  cudaError_t (*timeline_clear)();
  cudaError_t (*timeline_read)(std::vector<FlashVerifyTimelineBlock>* out);
};
MmaKernelFamily mma_plain_family();
MmaKernelFamily mma_token_split_family();
MmaKernelFamily mma_balanced_family();

// The combine instance for combine_splits splits per row over `lanes` split lanes
// (tile-balanced plans: their slots per row, FlashVerifyPlan::balanced_slots).
using CombineKernel = void (*)(VerifyParams, int, int, int, SplitWorkspace, int);
CombineKernel combine_kernel_for(int combine_splits, int lanes, bool balanced);
cudaError_t combine_timeline_clear();
cudaError_t combine_timeline_read(std::vector<FlashVerifyTimelineBlock>* out);

}  // namespace vb::detail

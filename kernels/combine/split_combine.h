// The split combine's kernels (split_combine.cu) as the launcher (launch/launcher.cu) sees
// them: the instance for a plan's splits and lanes, and the combine's phase-timeline slots.
// Internal to kernels/.
#pragma once
#include <vector>

#include <cuda_runtime_api.h>

#include "common/split_kv.h"
#include "verifybench/kernels.h"

namespace vb::detail {

// The combine instance for combine_splits splits per row over `lanes` split lanes
// (tile-balanced plans: their slots per row, SplitSchedule::balanced_slots).
using CombineKernel = void (*)(VerifyParams, int, int, int, SplitWorkspace, int);
CombineKernel combine_kernel_for(int combine_splits, int lanes, bool balanced);
cudaError_t combine_timeline_clear();
cudaError_t combine_timeline_read(std::vector<FlashVerifyTimelineBlock>* out);

}  // namespace vb::detail

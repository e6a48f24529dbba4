// The mma.sync engine's kernels as the launcher (launch/launcher.cu) sees them. Each
// instance file compiles its kernels in a translation unit of its own, so the files build in
// parallel, and hands out their host stubs and its phase-timeline slots here:
//   mma_plain.cu        the plain instance
//   mma_token_split.cu  the token split (H*T <= 16, long splits)
//   mma_balanced.cu     the tile-balanced schedule
// Internal to kernels/.
#pragma once
#include <vector>

#include <cuda_runtime_api.h>

#include "common/split_kv.h"
#include "verifybench/kernels.h"

namespace vb::detail {

using MmaKernel = void (*)(VerifyParams, int, int, SplitWorkspace);
// The instance for launches over a kernel still writing the mask and the lengths
// (FlashVerifyLaunchOptions::previous_kernel_writes_only_mask_and_lengths).
using MmaOverMaskWriterKernel = void (*)(IndptrLengthParams, int, int, SplitWorkspace);

// One instance family at one pipeline depth; all null where the depth is not built.
struct MmaKernels {
  MmaKernel kernel;
  MmaOverMaskWriterKernel over_mask_writer;
  MmaKernel fp8_kv;    // an fp8 e4m3 pool (VerifyParams::kv_dtype), ordinary launches only
  MmaKernel fp8_math;  // the same pool with e4m3 tensor math (LaunchPlan::math)
  // sm_120's tensor rate emulated (FlashVerifyLaunchOptions::sm120_tensor_rate_emulation): bf16
  // and fp8 pools with bf16 math, and the fp8 pool with fp8 math; built at sm_120's depth only
  // and in the release builds only, null otherwise.
  MmaKernel sm120_emu;
  MmaKernel fp8_kv_sm120_emu;
  MmaKernel fp8_math_sm120_emu;
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

}  // namespace vb::detail

// What the two production kernel paths share (kernels/flash_verify.cu, the mma.sync path
// and the launcher; kernels/flash_verify_wgmma_sm90a.cu, the sm_90a wgmma path): the split-KV
// workspace layout and the LSE combine that merges it. Internal to kernels/.
#pragma once
#include <cstdint>

#include <cuda_runtime_api.h>

#include "verifybench/kernels.h"

namespace vb::detail {

struct SplitWorkspace {
  float* o_partial;    // [B*T*H rows, num_splits, 512] normalised per split
  float* lse_partial;  // [B*T*H rows, num_splits] natural log (see launch_split_combine)
};

// Launches the LSE combine of every row's split partials into params.o / params.lse, as a
// programmatic dependent launch after the main kernel on `stream`. With split_tiles > 0 (a
// length-aware plan) it reads only the splits that hold tiles: those the main kernel's
// ranges give (tiles of `tokens_per_tile` tokens, max(split_tiles, even division) per
// split), and an empty split writes nothing; with 0 it reads all num_splits.
cudaError_t launch_split_combine(const VerifyParams& params, int num_splits, int split_tiles, int tokens_per_tile,
                                 const SplitWorkspace& ws, cudaStream_t stream);

// The wgmma path's main kernel (flash_verify_wgmma_sm90a.cu). The launcher has checked the
// parameters and the plan; this raises the kernel's shared-memory limit once per device.
cudaError_t launch_wgmma_main(const VerifyParams& params, const FlashVerifyPlan& plan,
                              const SplitWorkspace& ws, cudaStream_t stream);
// Whether the current device can run it (sm_90 with 227 KB of shared memory per block).
cudaError_t wgmma_path_supported(bool* supported);

}  // namespace vb::detail

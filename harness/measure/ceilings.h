// In-run ceilings (docs/background.md §4): measured once at the start of a GPU run, stored in the
// result file, and used as the roofline of every case of that run.
#pragma once
#include <optional>
#include <string>

#include "harness/record/gpu_info.h"
#include "harness/record/result.h"

namespace vb {

struct CeilingOptions {
  double row_read_bytes = 2.0 * (1ll << 30);  // >= 2 GiB pool, read as 1152- and as 576-byte rows
  double copy_bytes = 1.0 * (1ll << 30);      // 1 GiB copied (2 GiB moved) per pass
  int repetitions = 5;                        // timed passes after one warm-up; median kept
  int mma_iterations = 8192;                  // per warp, x kMmaChains mma each (a multiple of 8)
  int wgmma_iterations = 8192;                // per warpgroup, x kWgmmaPerGroup wgmma each
  int mla_tiles = 4096;                       // MLA tile probe: tiles per block and pass
  static constexpr int kMlaTileCopyTiles = 32;  // its copy source: 32 x 72 KB, L2-resident
};

struct CeilingsRun {
  std::optional<Ceilings> ceilings;  // none when a measurement failed
  std::string error;                 // "<what>: <cuda call> failed: ..." when it failed
};

// Never throws; prints nothing.
CeilingsRun measure_ceilings(const GpuInfo& gpu, const CeilingOptions& options = {});

class GpuTimer;
// The launch floors, timed by `timer` exactly as case samples are:
//   launch floor: an empty one-warp kernel as a cold-L2 sample (L2 read flush, events around
//     the launch): c->launch_floor_us;
//   PDL floor (compute capability 9.0 and later, read from the current device): an empty one-warp kernel that lets its
//     dependents start and waits for its prerequisite grid at entry, launched over the
//     previous one as a chain-pdl sample (kChainLaunches in a row after a hold, their time
//     divided by kChainLaunches): c->pdl_floor_us.
// Adds their method entries; returns "" or the first failure.
std::string measure_launch_floor(GpuTimer& timer, Ceilings* c);

}  // namespace vb

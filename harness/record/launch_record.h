// What one executor's launch was, as fields: the planner's LaunchPlan (verifybench/planner.h)
// reduced to what the reports, the traffic model and result.json read. Stored with each GPU
// executor's result (ExecutorResult::launch), so no stage parses a plan back out of text.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "verifybench/planner.h"

namespace vb {

struct LaunchRecord {
  std::string engine;    // the main kernel's tensor-core instruction: "mma.sync" | "wgmma"
  std::string instance;  // the kernel instance, to_string(KernelInstance): "wgmma/page-boxes"
  std::string page_table;  // the form it read: "token-indices" | "block-table"
  std::string math = "bf16";  // its tensor math, to_string(MathMode): "bf16" | "fp8" (e4m3, over an fp8 pool)
  std::array<unsigned, 3> grid{1, 1, 1};  // main kernel grid (m_tiles, splits, batch; tile-balanced: 1)
  int threads = 0;                        // main kernel block size
  int pipeline_stages = 0;                // KV stages of the main kernel
  int smem_bytes = 0;                     // its dynamic shared memory
  int m_tiles = 0;                        // query-row tiles per request
  int splits = 1;                         // KV splits per request (tile-balanced: blocks per row tile)
  int tiles_per_split = 0;                // 0: each request divided evenly over the splits
  bool token_split = false;
  bool tile_balanced = false;
  int balanced_slots = 0;                 // tile-balanced: partial slots per row
  int combine_lanes = 0;                  // split combine (splits > 1): lanes per row, loads per lane
  int combine_loads_per_lane = 0;
  std::array<unsigned, 3> combine_grid{0, 0, 0};  // 0 x 0 x 0: no combine
  // Resident main blocks per SM the device's occupancy query gave on this launch; 0 where the
  // executor does not measure it (only production/sm120-proxy does: its residency is the point).
  int blocks_per_sm = 0;
  // The planner settings that differ from the defaults (PlannerConfig), key -> value; empty
  // for the defaults.
  std::vector<std::pair<std::string, std::string>> planner_settings;
  std::string summary;  // describe(plan): the one line the terminal table and `plan` print

  bool runs_fp8_math() const { return math == to_string(MathMode::kFp8); }
  // Blocks the main kernel launches (grid x * y * z).
  std::int64_t launch_blocks() const {
    return static_cast<std::int64_t>(grid[0]) * grid[1] * grid[2];
  }
};

const char* to_string(PageTableKind kind);  // "token-indices", "block-table"

// The record of a valid plan, read with `page_kind` under `config`.
LaunchRecord launch_record(const LaunchPlan& plan, PageTableKind page_kind, const PlannerConfig& config);

}  // namespace vb

// The production kernel's planner: the one place where a launch is decided. make_launch_plan()
// returns a LaunchPlan that records every choice (engine and kernel instance, pipeline depth and
// shared memory, query-row tiles, split schedule, combine instance and lanes, TMA boxes or the
// gather, grids and blocks); flash_verify_launch() executes it and decides nothing. Every report
// (`verifybench plan`, the run tables, result.json) prints describe(plan).
//
// Planner numbers are run-time settings (PlannerConfig), so an A/B of one needs no rebuild:
// `verifybench run --planner key=value`, or a scenario's `planner:` map. Host-only arithmetic:
// nothing here touches a device except current_device_target().
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

#include "verifybench/verify_params.h"

namespace vb {

// Which engine runs the main kernel: the portable mma.sync path (sm_90 and sm_120), or the
// Hopper wgmma path (sm_90a machine code, compute capability 9.0 only; 64-row tiles).
enum class FlashVerifyPath : int { kMmaSync = 0, kWgmma = 1 };
const char* to_string(FlashVerifyPath path);  // "mma.sync", "wgmma"

// The split schedule of a launch: what the planner's wave model chooses (plan_split_schedule),
// or what a test or an A/B forces. make_launch_plan / complete_launch_plan turn it into a LaunchPlan.
struct SplitSchedule {
  int num_splits = 1;  // KV splits per request (tile-balanced: blocks per row tile)
  int m_tiles = 1;     // query-row tiles per request (H*T rows / the path's rows per tile)
  // mma.sync pipeline depth to force (a built depth: flash_verify_pipeline_variants); 0: the
  // deepest whose shared memory fits the target. The wgmma path has one depth and takes 0.
  int pipeline_stages = 0;
  FlashVerifyPath path = FlashVerifyPath::kMmaSync;
  // KV tiles per split (the path's tiles): 0 divides each request evenly over num_splits;
  // a length-aware plan sets it so that a long request uses more splits than a short one.
  // The kernel never uses fewer than an even division, so no length can lose tiles.
  int tiles_per_split = 0;
  // mma.sync, H*T <= 16: both 16-row groups on alternate tiles of the same rows, merged at the
  // end (the token-split instance). A block of a shorter split in that launch runs one group.
  bool token_split = false;
  // Combine split lanes per row to force (1, 2, 4 or 8); 0: the planner's choice.
  int combine_split_lanes = 0;
  // The tile-balanced schedule (verifybench/tile_balance.h; both paths): num_splits blocks per
  // query-row tile, each an equal share of the batch's tiles laid end to end.
  bool tile_balanced = false;
  // Tile-balanced plans: the partial slots per row the combine's lanes hold (1 .. num_splits).
  int balanced_slots = 0;
  // The planner's model of the longest block, in the path's KV tiles, every wave counted
  // (tile-balanced: units per block); 0 where no model set it.
  int modelled_block_tiles = 0;
};

// The kernel a launch runs, besides its pipeline depth.
enum class KernelInstance : int {
  kMmaPlain = 0,       // mma.sync, fixed or even splits
  kMmaTokenSplit = 1,  // mma.sync, both row groups on alternate tiles (H*T <= 16)
  kMmaBalanced = 2,    // mma.sync, tile-balanced schedule
  kWgmmaGather = 3,    // wgmma, every KV row by cp.async
  kWgmmaRunBoxes = 4,  // wgmma, token table: runs of 16 pool rows as TMA boxes, checked per tile
  kWgmmaPageBoxes = 5, // wgmma, block table of pages >= 16 rows: every tile inside kv_len as boxes
  kWgmmaBalanced = 6,  // wgmma, tile-balanced schedule (gather)
};
const char* to_string(KernelInstance instance);

// What the planner needs to know of the device it plans for.
struct DeviceTarget {
  int num_sms = 0;
  int max_threads_per_sm = 2048;       // resident threads per SM (the combine's lane rule)
  int smem_optin_bytes = 0;            // per-block opt-in shared memory
  int main_blocks_per_sm = 1;          // resident mma.sync main blocks per SM
  bool wgmma = false;                  // compute capability 9.0 with 227 KB per block
  // Dynamic shared memory every mma.sync main block requests at least (0: what it needs). An
  // sm_120 proxy on a Hopper asks for enough that a second block cannot be resident.
  int mma_smem_request_bytes = 0;
};
// The current device's target (occupancy query included). Outside any graph capture.
DeviceTarget current_device_target(cudaError_t* error);

// The shape a launch is planned for.
struct PlanShape {
  int batch = 0;
  int tree_size = 0;
  int num_heads = 0;
  int max_kv_len = 0;               // prefix + tree of the longest request a replay may bring
  const int* kv_lens = nullptr;     // host, batch entries of prefix + tree (nullptr: all max_kv_len)
  PageTableKind page_kind = PageTableKind::kTokenIndices;
  int page_size = 1;                // rows per page (block table), 1 for the token table
  std::int64_t pool_rows = 0;       // KV pool rows (TMA boxes address at most INT32_MAX)
  // fp8 e4m3 pool: the mma.sync engine only (the wgmma engine has no fp8 path yet), with the
  // bf16 pool's tiles, stages and splits: its stages hold the rows widened to bf16, the raw
  // rows landing in their back halves (kernels/NOTES.md, "fp8 KV").
  KvDtype kv_dtype = KvDtype::kBf16;
};

// The shape of a batch of these lengths (prefix + tree per request; kv_lens must outlive it),
// max_kv_len their longest.
PlanShape plan_shape(const std::vector<int>& kv_lens, int tree_size, int num_heads, PageTableKind page_kind,
                     int page_size, std::int64_t pool_rows);

// The most blocks per query-row tile a tile-balanced plan may have (the bound of
// PlannerConfig::balance_max_blocks): they are the main grid's y dimension.
inline constexpr int kMaxBalancedBlocks = 65535;

// Every planner number. Defaults are what the H200 measurements chose (kernels/NOTES.md says
// what each was measured against); planner_options() documents each key.
struct PlannerConfig {
  // Engine choice: wgmma for >= wgmma_min_rows query rows with >= wgmma_min_tiles_per_sm of
  // its 64 x 64 tiles per SM; for 17-63 rows only over pages of >= wgmma_few_rows_min_page_size
  // rows and >= wgmma_few_rows_min_tiles_per_sm such tiles per SM.
  int wgmma_min_rows = 64;
  double wgmma_min_tiles_per_sm = 2;
  int wgmma_few_rows_min_page_size = 16;
  double wgmma_few_rows_min_tiles_per_sm = 6;
  // wgmma TMA boxes on fixed-split plans: the token table's checked run boxes from this many
  // row tiles, the block table's page boxes from this many (0 turns either off). On one row
  // tile, bound by memory, the page-box instance with its early stage release ran 1.08x slower,
  // so there the block table gathers (kernels/NOTES.md).
  int wgmma_run_boxes_min_row_tiles = 4;
  int wgmma_page_boxes_min_row_tiles = 2;
  // Split model (in the path's KV tiles): fixed cost per block, combine cost per split, the
  // fewest tiles per split and the most splits per request.
  double split_overhead_tiles = 2;
  double combine_tiles_per_split = 0.0625;
  int min_tiles_per_split = 2;
  int max_splits = 128;
  // Divides every planned split count (the nightly gate's deliberately slowed configuration: 2).
  int split_divisor = 1;
  // mma.sync token split where one 16-row group holds every row and the longest request's
  // splits have the kernel's kTokenSplitMinTiles tiles (false: never).
  bool token_split = true;
  // Tile-balanced schedule: a request boundary's cost in units, the model's margin over the
  // other plans, the most blocks per row tile, the fewest units per block for more than
  // max_splits blocks, and the partial slots per row the combine's lanes hold.
  int mma_balance_boundary_units = 6;
  int wgmma_balance_boundary_units = 2;
  double mma_balance_min_gain = 1.15;
  double wgmma_balance_min_gain = 1.0;
  int balance_max_blocks = 1024;
  int balance_full_wave_min_units = 32;
  int balance_combine_slots = 8;
  // SGLang adapter: an mma.sync launch over the packing kernel waits for it only before the mask
  // up to this many modelled tiles per block (wgmma launches always do).
  int adapter_mask_wait_max_block_tiles = 10;
};

struct PlannerOptionInfo {
  std::string key;
  std::string meaning;
};
// Every PlannerConfig key with its meaning, in declaration order.
const std::vector<PlannerOptionInfo>& planner_options();
// Sets one key from its text ("split_divisor", "2"). On failure returns false and says why
// in *error (an unknown key lists the known ones; a bad value says what is allowed).
bool set_planner_option(PlannerConfig* config, std::string_view key, std::string_view value, std::string* error);
// "key=value key=value" of the keys that differ from the defaults ("" for the defaults).
std::string planner_config_overrides(const PlannerConfig& config);

// The tensor math of an mma.sync launch over an fp8 e4m3 pool: bf16 (the tile widened to
// bf16, exact; the default) or fp8 (the tile stays e4m3, Q is quantized to e4m3 per query row
// and P to e4m3, m16n8k32 e4m3 mma with fp32 accumulation and softmax; kernels/NOTES.md,
// "fp8 math"). Opt-in: its error bound is scenarios/README.md's "fp8 math".
enum class MathMode : int { kBf16 = 0, kFp8 = 1 };
const char* to_string(MathMode math);  // "bf16", "fp8"

// The complete launch.
struct LaunchGrid {
  unsigned x = 1, y = 1, z = 1;
};
struct LaunchPlan {
  SplitSchedule schedule;  // engine, row tiles, splits, token split, tile balance
  KernelInstance instance = KernelInstance::kMmaPlain;
  int pipeline_stages = 0;   // KV stages of the main kernel
  int smem_bytes = 0;        // dynamic shared memory the main kernel is launched with
  int rows_per_tile = 0;
  int tokens_per_tile = 0;
  LaunchGrid main_grid;      // (m_tiles, splits, batch; tile-balanced: 1)
  int main_threads = 0;
  int split_tiles_arg = 0;   // what the kernels get as split_tiles (tile-balanced: the boundary units, encoded)
  // The split combine (num_splits > 1): splits its lanes hold, lanes per row, loads per lane.
  int combine_splits = 0;
  int combine_lanes = 0;
  int combine_loads_per_lane = 0;
  LaunchGrid combine_grid;
  LaunchGrid combine_block;
  // SGLang adapter launches: the main kernel waits for the packing kernel only before the mask.
  bool adapter_waits_only_before_mask = false;
  // The caller's choice, never the planner's: fp8 only for an fp8 pool on an mma.sync plan
  // (flash_verify_launch refuses any other with cudaErrorNotSupported).
  MathMode math = MathMode::kBf16;
  bool valid = false;        // false: no built kernel serves this schedule on the target
  std::string why_invalid;   // what does not fit, when !valid
};

// The schedule the wave model chooses (the engine where wgmma_available, else mma.sync).
SplitSchedule plan_split_schedule(int batch, int tree_size, int num_heads, int max_kv_len, int num_sms,
                                  int blocks_per_sm, bool wgmma_available = false, const int* kv_lens = nullptr,
                                  int page_size = 1, const PlannerConfig& config = PlannerConfig{});
// The same for a given engine: to run one path where the planner would pick the other.
SplitSchedule plan_split_schedule_for_path(FlashVerifyPath path, int batch, int tree_size, int num_heads,
                                           int max_kv_len, int num_sms, int blocks_per_sm,
                                           const int* kv_lens = nullptr, const PlannerConfig& config = PlannerConfig{});

// Everything else a launch of `schedule` needs on `target`, decided once.
LaunchPlan complete_launch_plan(const SplitSchedule& schedule, const PlanShape& shape, const DeviceTarget& target,
                                const PlannerConfig& config = PlannerConfig{});
// The planner: schedule, then the rest. make_launch_plan_for_path runs one engine where the model
// picks the other.
LaunchPlan make_launch_plan(const PlanShape& shape, const DeviceTarget& target,
                            const PlannerConfig& config = PlannerConfig{});
LaunchPlan make_launch_plan_for_path(FlashVerifyPath path, const PlanShape& shape, const DeviceTarget& target,
                                     const PlannerConfig& config = PlannerConfig{});

// One line that says what will run, e.g.
// "wgmma/page-boxes stages=2 smem=224256 m_tiles=2 splits=4 grid=2x4x8 combine=2 lanes x 2 loads".
std::string describe(const LaunchPlan& plan);

// The combine's lanes per row for `rows` query rows (the rule complete_launch_plan uses).
int flash_verify_combine_lanes(int combine_splits, std::int64_t rows, int num_sms, int max_threads_per_sm = 2048,
                               bool tile_balanced = false);
// The splits per row the combine's lanes hold: every split, or a tile-balanced plan's slots.
int flash_verify_combine_splits(const SplitSchedule& plan);
// Pipeline depths the mma.sync kernel is built with, deepest first; shared memory of one (0:
// not built); the deepest that fits a per-block opt-in limit (0: none).
int flash_verify_pipeline_variants(int* stages, int capacity);
int flash_verify_smem_bytes(int stages, KvDtype kv_dtype = KvDtype::kBf16);
int flash_verify_stages_for_smem_optin(int optin_bytes, KvDtype kv_dtype = KvDtype::kBf16);

}  // namespace vb

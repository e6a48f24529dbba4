// Launchers of the GPU executors. Every launcher is asynchronous on `stream`, allocates
// nothing, never synchronises and returns the first CUDA error it saw (it never exits):
// all of them can be captured in a CUDA graph. The caller owns every buffer.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

#include "verifybench/verify_params.h"

namespace vb {

// ---- naive gather baseline (kernels/naive_verify.cu) ----
// One thread block per (request, node, head) query row, fp32 online softmax over every
// visible token, no length ceiling. Deliberately plain: the second oracle.
cudaError_t naive_verify_launch(const VerifyParams& params, cudaStream_t stream);

// ---- production split-KV flash-decode verify kernel (kernels/flash_verify.cu) ----
// Which engine runs the main kernel: the portable mma.sync path (sm_90 and sm_120), or the
// Hopper wgmma path (sm_90a machine code, compute capability 9.0 only; 64-row tiles).
enum class FlashVerifyPath : int { kMmaSync = 0, kWgmma = 1 };
const char* to_string(FlashVerifyPath path);  // "mma.sync", "wgmma"

struct FlashVerifyPlan {
  int num_splits = 1;  // KV splits per request; fixed for a captured graph
  int m_tiles = 1;     // query-row tiles per request (H*T rows / the path's rows per tile)
  // KV pipeline depth (stages) of the mma.sync path: 0 picks the deepest variant whose
  // shared memory fits the device (4 on sm_90, 2 on sm_120); a listed depth
  // (flash_verify_pipeline_variants) forces it, e.g. to test sm_120's variant on a Hopper.
  // The wgmma path has one depth (2) and takes 0 only.
  int pipeline_stages = 0;
  FlashVerifyPath path = FlashVerifyPath::kMmaSync;
  // KV tiles per split (the path's tiles): 0 divides each request evenly over num_splits;
  // a length-aware plan sets it so that a long request uses more splits than a short one.
  // The kernel never uses fewer than an even division, so no length can lose tiles.
  int tiles_per_split = 0;
  // mma.sync only, H*T <= 16: run the token-split kernel instance (both 16-row groups on
  // alternate tiles of the same rows, merged at the end). The planner sets it when the
  // longest request's splits are long enough (FlashVerifyConfigInfo::token_split_min_tiles);
  // blocks of shorter splits in that launch still run one group. Otherwise refused.
  bool token_split = false;
  // Split lanes per row of the combine (1, 2, 4 or 8, at most max_splits / 8 splits per lane:
  // FlashVerifyConfigInfo); 0 lets the launcher pick (flash_verify_combine_lanes). Forcing
  // one is for tests.
  int combine_split_lanes = 0;
  // The tile-balanced schedule (verifybench/tile_balance.h; both paths). num_splits is then
  // the number of blocks per query-row tile, each owning an equal share of the batch's tiles
  // laid end to end (a block may finish one request and go on into the next). The planner
  // picks it for unequal lengths when its model is cheaper than the length-aware plan's by
  // the path's margin; tiles_per_split is 0 and token_split false with it.
  bool tile_balanced = false;
  // Tile-balanced plans: the partial slots per row the combine's lanes hold (1 .. num_splits;
  // the planner: the most one request takes at the planned lengths, at most 8). Rows with
  // more slots (a long request's, or a replay's) merge the rest in a loop.
  int balanced_slots = 0;
  // What the planner's model puts in the longest block, in the path's KV tiles, every wave of
  // blocks counted (tile-balanced: units per block). Read only by callers that weigh a fixed
  // cost against the launch's length (the SGLang adapter); 0 where no planner set it.
  int modelled_block_tiles = 0;
  // mma.sync only: the main kernel asks for at least this much dynamic shared memory (0: its
  // variant's own). Bytes past the variant's layout are never touched: the request only limits
  // how many blocks an SM holds (the sm_120 proxy below holds a Hopper SM to sm_120's count).
  int min_dynamic_smem_bytes = 0;
};

// The combine's split lanes per row for a launch of `rows` query rows on `num_sms` SMs: of
// min(num_splits, 8) rounded up to a power of two and the halvings of it whose lanes read at
// most max_splits / 8 splits each, the one whose blocks take the fewest waves (the most lanes
// on a tie; tile-balanced plans, below, the fewest).
// max_threads_per_sm: the device's (2048 on sm_90, 1536 on sm_120). tile_balanced: the
// tile-balanced plans' combine, whose instances hold one block per SM fewer (4 at most),
// and which takes the fewer lanes on a tie.
int flash_verify_combine_lanes(int num_splits, std::int64_t rows, int num_sms, int max_threads_per_sm = 2048,
                               bool tile_balanced = false);
// The splits per row the combine's lanes hold for `plan` (what flash_verify_combine_lanes
// takes as num_splits): every split, or a tile-balanced plan's balanced_slots (a request
// with more merges the rest serially).
int flash_verify_combine_splits(const FlashVerifyPlan& plan);

// Pipeline depths the production kernel is built with, deepest first.
int flash_verify_pipeline_variants(int* stages, int capacity);
// Dynamic shared memory of the variant with `stages` stages (0: not a built variant), and
// the depth the launcher picks for a device whose per-block opt-in limit is `optin_bytes`
// (0: no variant fits). Host-only arithmetic: the same choice select_variant makes.
int flash_verify_smem_bytes(int stages);
int flash_verify_stages_for_smem_optin(int optin_bytes);

// Chooses the path and the split count so that B * m_tiles * splits blocks fill `num_sms`
// several times over for the longest expected request. With `wgmma_available` (see
// flash_verify_wgmma_supported), requests of H*T >= 64 rows take the wgmma path when the
// batch holds at least 2 of its 64-row x 64-token tiles per SM; requests of 17-63 rows take
// it when pages hold >= 16 rows (`page_size`) and the batch holds >= 6 such tiles per SM
// (wgmma_cfg::kFewRowsMinPageSize: measured why).
// Host-only arithmetic, no device calls.
//
// With `kv_lens` (host, `batch` entries of prefix + T, each <= max_kv_len) the split model
// sees the actual lengths: when they differ, it sizes splits by the batch's total work (a
// long request gets more splits than a short one) instead of assuming every request is
// as long as the longest. A graph captured with such a plan stays correct for any lengths
// up to max_kv_len.
FlashVerifyPlan flash_verify_plan(int batch, int tree_size, int num_heads, int max_kv_len,
                                  int num_sms, int blocks_per_sm, bool wgmma_available = false,
                                  const int* kv_lens = nullptr, int page_size = 1);

// The split count for a given path (what flash_verify_plan does once it has chosen the
// path): to run one path where the planner would pick the other, e.g. in tests.
FlashVerifyPlan flash_verify_plan_for_path(FlashVerifyPath path, int batch, int tree_size, int num_heads,
                                           int max_kv_len, int num_sms, int blocks_per_sm,
                                           const int* kv_lens = nullptr);

// Whether the current device runs the wgmma path (compute capability 9.0 with 227 KB of
// shared memory per block). Every build carries its sm_90a machine code.
bool flash_verify_wgmma_supported(cudaError_t* error);

// Whether a launch of `plan` reading the page table in `page_kind` form, pages of `page_size`
// rows, runs one of the wgmma path's instances with TMA boxes (kernels/flash_verify_config.h):
// a wgmma plan of fixed splits (not tile-balanced) with at least kTmaMinRowTiles row tiles over
// the token table (runs of consecutive rows, checked per tile), or at least kTmaPageMinRowTiles
// over a block table of pages of >= 16 rows, a power of two (every tile inside kv_len). The
// launcher also needs a pool TMA can address (below 2^31 rows, 16-byte aligned) and falls back
// to the gather-only instance where it is not.
bool flash_verify_wgmma_tma_boxes(const FlashVerifyPlan& plan, PageTableKind page_kind, int page_size);

// The boundary units of a path's tile-balanced schedule (verifybench/tile_balance.h) in this
// build: what the kernel and the planner put in front of every request.
int flash_verify_balance_boundary_units(FlashVerifyPath path = FlashVerifyPath::kMmaSync);

// Bytes of device workspace (split partial O and LSE; for tile-balanced plans also each
// request's partial slots) a plan needs; 0 when num_splits==1.
std::size_t flash_verify_workspace_bytes(const FlashVerifyPlan& plan, int batch, int tree_size,
                                         int num_heads);

// Thread blocks of the main kernel that fit on one SM (occupancy query; call once, outside
// any graph capture). Returns 0 and sets *error on failure.
int flash_verify_blocks_per_sm(cudaError_t* error);

// ---- the sm_120 proxy: the mma.sync path run on a Hopper as sm_120 (RTX PRO 6000) runs it ----
// sm_120's limits (compute capability 12.0): what its SMs hold, per block and per SM.
struct Sm120Limits {
  static constexpr int kSmemPerBlockOptin = 101376;  // 99 KB
  static constexpr int kSmemPerSm = 102400;          // 100 KB
  static constexpr int kSmemReservedPerBlock = 1024;
  static constexpr int kThreadsPerSm = 1536;
  static constexpr int kRegistersPerSm = 65536;
};
// Resident production blocks per sm_120 SM, from those limits and the compiled kernel's
// registers (the current device's machine code stands in for sm_120's: ptxas gives both the
// same count within a few registers), threads and shared memory at sm_120's pipeline depth.
int flash_verify_sm120_blocks_per_sm(cudaError_t* error);
// The plan sm_120 would get for a case, on the current device's SM count: the mma.sync path,
// the pipeline depth that fits sm_120's 99 KB, the planner's splits for sm_120's resident
// blocks, the combine's lanes for its 1536 threads per SM, and min_dynamic_smem_bytes set so
// that the current device's SMs hold no more main-kernel blocks than sm_120's (on an H200,
// 228 KB per SM: one block asks for more than half). Arguments as flash_verify_plan's.
cudaError_t flash_verify_plan_sm120_proxy(int batch, int tree_size, int num_heads, int max_kv_len,
                                          const int* kv_lens, FlashVerifyPlan* plan);
// Main-kernel blocks of `plan` (its variant and shared-memory request) resident per SM of the
// current device (occupancy query; outside any graph capture).
int flash_verify_plan_blocks_per_sm(const FlashVerifyPlan& plan, cudaError_t* error);

// Runs the verify: main kernel, then the LSE combine when plan.num_splits > 1.
// `workspace` must hold flash_verify_workspace_bytes(plan, ...) bytes. q, kv_pool and
// tree_kv must be 16-byte aligned, o and lse 4-byte aligned (cudaErrorInvalidValue
// otherwise, before any device call).
cudaError_t flash_verify_launch(const VerifyParams& params, const FlashVerifyPlan& plan,
                                void* workspace, std::size_t workspace_bytes,
                                cudaStream_t stream);

// How a launch joins the work already on its stream.
struct FlashVerifyLaunchOptions {
  // Programmatic dependent launch of the main kernel (sm_90 and later): the GPU may launch
  // it while the stream's previous kernel is still running, once every block of that kernel
  // has called griddepcontrol.launch_dependents or exited; each block then waits on the
  // device (griddepcontrol.wait) for that kernel to finish, with its memory visible, before
  // it reads an input or writes anything. So the previous kernel may write any input of this
  // launch, and read its outputs or workspace. What it saves is the launch's latency between
  // two kernels, not any of their work: serving loops launch every kernel of a layer this way.
  // This launch's own combine calls launch_dependents at entry, so the stream's next kernel
  // may do the same. Off: an ordinary launch (the default; every report before 2026-11-30's
  // chain runs).
  bool overlap_previous_kernel = false;
  // With overlap_previous_kernel, over a token page table: the previous kernel writes nothing
  // this launch reads but the tree mask and prefix_len (which must equal kv_indptr[b+1] -
  // kv_indptr[b], less T where the table holds the tree rows), and reads nothing this launch
  // writes. The main kernel then takes the lengths from kv_indptr and waits for that kernel
  // only before reading the mask, so its ramp (lengths, page table, Q, the first KV tiles)
  // overlaps it; the combine reads prefix_len after it. The SGLang adapter launches over its
  // packing kernel this way. Otherwise (no overlap, or a block table): cudaErrorInvalidValue.
  bool previous_kernel_writes_only_mask_and_lengths = false;
};
cudaError_t flash_verify_launch(const VerifyParams& params, const FlashVerifyPlan& plan,
                                void* workspace, std::size_t workspace_bytes,
                                cudaStream_t stream, const FlashVerifyLaunchOptions& options);

// Static facts about the compiled production kernel, for reports.
struct FlashVerifyConfigInfo {
  int rows_per_tile;
  int tokens_per_tile;
  int threads;
  int smem_bytes;
  // mma.sync: a split of at least this many tiles whose rows fit one 16-row group (H*T <= 16)
  // runs the token split (both row groups on alternate tiles); 0 where the path has none.
  int token_split_min_tiles;
  // Most splits per request a plan may have (the combine's 8 lanes x its largest instance).
  int max_splits;
};
FlashVerifyConfigInfo flash_verify_config();  // the mma.sync path (shallowest pipeline)
// Either path: rows_per_tile, tokens_per_tile, threads, and smem_bytes of its deepest
// pipeline (mma.sync: 4 stages; wgmma: its single 2-stage variant).
FlashVerifyConfigInfo flash_verify_path_config(FlashVerifyPath path);

// ---- phase timeline (debug builds: -DVB_DEBUG_TIMELINE=1; kernels/NOTES.md) ----
// In such a build every block of the production kernels records, in its own slot, the GPU's
// global timer (ns) at the points that make up a launch's fixed cost; `verifybench profile
// --timeline` reads them after one cold launch. Other builds record nothing (and cost nothing).
enum FlashVerifyTimelineStamp : int {
  // main kernels (either path); t_ns[i] is 0 where the block never got there
  kTimelineEntry = 0,        // first instruction
  kTimelineWorkKnown = 1,    // its request's length loaded: split range known
  kTimelineFirstIssue = 2,   // a producer issued its first KV tile's copies (page-table word in)
  kTimelineQReady = 3,       // the first compute warp holds Q
  kTimelineFirstTile = 4,    // the first compute warp saw its first KV tile land
  kTimelineTilesDone = 5,    // the first compute warp left the tile loop
  kTimelineEnd = 6,          // the first compute warp issued its last output store
  kTimelineTableIn = 7,      // a producer holds its first KV tile's page-table words
  // combine kernel
  kTimelineCombineEntry = 0,
  kTimelineCombineGridDone = 1,  // past griddepcontrol.wait: the main grid has finished
  kTimelineCombineEnd = 2,
  kTimelineCombineLoadsIssued = 3,  // its row's first partials' loads issued
  kTimelineCombineMerged = 4,       // those partials landed and merged in the thread
  kTimelineStamps = 8,
};
struct FlashVerifyTimelineBlock {
  std::uint64_t t_ns[kTimelineStamps];
  std::int32_t block;  // linear block index (x fastest)
  std::int32_t sm;     // %smid
  std::int32_t tiles;  // main kernels: KV tiles of its split; combine: 0
  std::int32_t unused;
};
struct FlashVerifyTimeline {
  std::vector<FlashVerifyTimelineBlock> main;     // blocks of the main kernel that ran
  std::vector<FlashVerifyTimelineBlock> combine;  // blocks of the combine (empty when not split)
  int main_capacity = 0, combine_capacity = 0;    // slots: blocks past them are not recorded
};
bool flash_verify_timeline_built();
// Empties every slot (synchronous). Not in a CUDA graph capture.
cudaError_t flash_verify_timeline_clear();
// The slots written since the last clear, in block order (synchronous).
cudaError_t flash_verify_timeline_read(FlashVerifyTimeline* out);

// ---- SGLang Triton verify interface adapter (kernels/sglang_adapter.cu) ----
// SGLang's extend-attention inputs for tree verify (SPEC.md §2). All pointers are device.
struct SglangVerifyInputs {
  int batch = 0;
  int tree_size = 0;  // qo_indptr must be arange(0, (B+1)*T, T)
  int num_heads = 0;
  float sm_scale = 0.f;
  const bf16_bits* q = nullptr;            // [B*T, H, 576]
  const bf16_bits* k_extend = nullptr;     // [B*T, 1, 576] tree node K rows
  const bf16_bits* v_extend = nullptr;     // [B*T, 1, 512] equals k_extend[..., :512] in MLA
  const bf16_bits* kv_buffer = nullptr;    // [pool_rows, 1, 576]
  std::int64_t pool_rows = 0;
  const std::int32_t* qo_indptr = nullptr;   // [B+1]
  const std::int32_t* kv_indptr = nullptr;   // [B+1] prefix tokens only
  const std::int64_t* kv_indices = nullptr;  // prefix physical rows
  const std::uint8_t* custom_mask = nullptr; // flat, see SPEC.md §2
  const std::int64_t* mask_indptr = nullptr; // [B+1]
  bf16_bits* o = nullptr;                    // [B*T, H, 512]
  float* lse = nullptr;                      // [B*T, H]
};

// Device scratch the adapter needs for a batch: prefix lengths and the packed ancestor
// masks it derives from the flat custom mask.
std::size_t sglang_adapter_scratch_bytes(int batch, int tree_size);

// Converts on the device (no host round trip) and runs flash_verify_launch. The production
// kernel is launched over the conversion kernel (FlashVerifyLaunchOptions), which lets it
// launch at its entry, and it waits for it only before reading the mask
// (previous_kernel_writes_only_mask_and_lengths): the conversion is hidden, not added.
// `options` applies to the conversion kernel: with overlap_previous_kernel it is launched
// over the stream's previous kernel and waits for it before reading anything; the production
// kernel, which may then start before that kernel has finished, waits at its entry.
cudaError_t sglang_verify_launch(const SglangVerifyInputs& in, const FlashVerifyPlan& plan,
                                 void* scratch, std::size_t scratch_bytes, void* workspace,
                                 std::size_t workspace_bytes, cudaStream_t stream,
                                 const FlashVerifyLaunchOptions& options = FlashVerifyLaunchOptions{});

}  // namespace vb

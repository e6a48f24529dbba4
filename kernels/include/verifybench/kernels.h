// Launchers of the GPU executors. Every launcher is asynchronous on `stream`, allocates
// nothing, never synchronises and returns the first CUDA error it saw (it never exits):
// all of them can be captured in a CUDA graph. The caller owns every buffer.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

#include "verifybench/planner.h"
#include "verifybench/verify_params.h"

namespace vb {

// ---- naive gather baseline (kernels/naive/naive_verify.cu) ----
// One thread block per (request, node, head) query row, fp32 online softmax over every
// visible token, no length ceiling. Deliberately plain: the second oracle.
cudaError_t naive_verify_launch(const VerifyParams& params, cudaStream_t stream);

// ---- production split-KV flash-decode verify kernel (kernels/launch/launcher.cu) ----
// The planner (verifybench/planner.h) decides every launch; flash_verify_launch executes it.

// Whether the current device runs the wgmma path (compute capability 9.0 with 227 KB of
// shared memory per block). Every build carries its sm_90a machine code.
bool flash_verify_wgmma_supported(cudaError_t* error);

// The boundary units of a path's tile-balanced schedule under the default planner settings.
int flash_verify_balance_boundary_units(FlashVerifyPath path = FlashVerifyPath::kMmaSync);

// Bytes of device workspace (split partial O and LSE; for tile-balanced plans also each
// request's partial slots) a plan needs; 0 when num_splits==1.
std::size_t flash_verify_workspace_bytes(const SplitSchedule& plan, int batch, int tree_size,
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
// Resident mma.sync main blocks per sm_120 SM, from those limits and the compiled kernel's
// registers (the current device's machine code stands in for sm_120's: ptxas gives both the
// same count within a few registers), threads and shared memory at sm_120's pipeline depth.
int flash_verify_sm120_blocks_per_sm(cudaError_t* error);
// The planner's target for sm_120 on the current device's SMs: no wgmma, sm_120's per-block
// shared memory (so its pipeline depth), threads per SM (the combine's lanes) and resident
// blocks (the split model), and mma_smem_request_bytes set so that the current device's SMs
// hold no more main blocks than sm_120's (on an H200, 228 KB per SM: one block asks for more
// than half). Only the SM count is the current device's.
DeviceTarget sm120_proxy_target(cudaError_t* error);
// Main-kernel blocks of `plan` (its kernel, threads and shared-memory request) resident per SM
// of the current device (occupancy query; outside any graph capture). mma.sync plans only.
int flash_verify_plan_blocks_per_sm(const LaunchPlan& plan, cudaError_t* error);

// Runs `plan` (make_launch_plan / complete_launch_plan): main kernel, then the LSE combine when it
// has more than one split. It decides nothing: a plan that does not match `params` (row
// tiles, batch) or this build (an instance or depth not built, lanes the combine has no
// instance for) is refused with cudaErrorInvalidConfiguration before any device call.
// `workspace` must hold flash_verify_workspace_bytes(plan.schedule, ...) bytes. q, kv_pool and
// tree_kv must be 16-byte aligned, o and lse 4-byte aligned (cudaErrorInvalidValue otherwise).
// An fp8 e4m3 pool (params.kv_dtype) needs a finite kv_scale > 0 (cudaErrorInvalidValue
// otherwise; tree_kv rows are then fp8 too), and runs on mma.sync plans in ordinary launches only:
// a wgmma plan, or a launch over a mask writer, is refused with cudaErrorNotSupported.
// plan.math == MathMode::kFp8 (e4m3 tensor math) needs such a launch too, over an fp8 pool:
// a bf16 pool or a wgmma plan with it is refused with cudaErrorNotSupported.
cudaError_t flash_verify_launch(const VerifyParams& params, const LaunchPlan& plan,
                                void* workspace, std::size_t workspace_bytes,
                                cudaStream_t stream);

// What one flash_verify_launch ran: the kernels (their host stubs), grids, blocks and shared
// memory. Tests check it against the LaunchPlan they gave.
struct FlashVerifyLaunchRecord {
  const void* main_kernel = nullptr;
  LaunchGrid main_grid;
  int main_threads = 0;
  int main_smem_bytes = 0;
  const void* combine_kernel = nullptr;  // null: no combine (one split)
  LaunchGrid combine_grid;
  LaunchGrid combine_block;
};
// The main kernel a plan names (over_mask_writer: its IndptrLengthParams instance; kv_dtype
// fp8: its fp8 pool instance, with plan.math's math), and its combine (null for one split);
// null where this build has no such kernel. The kernel of an ordinary launch: a launch under
// sm_120's emulation (FlashVerifyLaunchOptions) runs that instance's emulated twin, which its
// launch record names.
const void* flash_verify_main_kernel_of(const LaunchPlan& plan, bool over_mask_writer = false,
                                        KvDtype kv_dtype = KvDtype::kBf16);
const void* flash_verify_combine_kernel_of(const LaunchPlan& plan);

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
  // may do the same. Off: an ordinary launch (the default).
  bool overlap_previous_kernel = false;
  // With overlap_previous_kernel, over a token page table: the previous kernel writes nothing
  // this launch reads but the tree mask and prefix_len (which must equal kv_indptr[b+1] -
  // kv_indptr[b], less T where the table holds the tree rows), and reads nothing this launch
  // writes. The main kernel then takes the lengths from kv_indptr and waits for that kernel
  // only before reading the mask, so its ramp (lengths, page table, Q, the first KV tiles)
  // overlaps it; the combine reads prefix_len after it. The SGLang adapter launches over its
  // packing kernel this way. Otherwise (no overlap, or a block table): cudaErrorInvalidValue.
  bool previous_kernel_writes_only_mask_and_lengths = false;
  // The lab's sm_120 emulation (production/sm120-emu): the mma.sync kernel's producer warps
  // keep the tensor pipe loaded so that the math gets sm_120's mma.sync rate per SM and clock
  // (verifybench/sm120_emulation.cuh), bf16 or fp8 math (LaunchPlan::math). Same results,
  // slower. Compute capability 9.0 and an ordinary mma.sync launch at 2 stages (sm_120's depth)
  // in a release build (not the racecheck or timeline builds) only; else cudaErrorNotSupported.
  bool sm120_tensor_rate_emulation = false;
  // Where to record what ran (nullptr: nowhere). Filled only by a launch that succeeded.
  FlashVerifyLaunchRecord* record = nullptr;
};
cudaError_t flash_verify_launch(const VerifyParams& params, const LaunchPlan& plan,
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
  // Main kernels: the SM's cycle counter (clock64) at entry and at kTimelineEnd, 0 where not
  // reached. Cycles over nanoseconds is the SM clock the block ran at, measured inside the
  // launch (NVML's clock is read between samples and misses short dips).
  std::uint64_t clock_entry;
  std::uint64_t clock_end;
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

// ---- SGLang Triton verify interface adapter (kernels/sglang/sglang_adapter.cu) ----
// SGLang's extend-attention inputs for tree verify (docs/background.md §2). All pointers are device.
struct SglangVerifyInputs {
  int batch = 0;
  int tree_size = 0;  // qo_indptr must be arange(0, (B+1)*T, T)
  int num_heads = 0;
  float sm_scale = 0.f;
  const bf16_bits* q = nullptr;            // [B*T, H, 576]
  const bf16_bits* k_extend = nullptr;     // [B*T, 1, 576] tree node K rows
  const bf16_bits* v_extend = nullptr;     // [B*T, 1, 512] equals k_extend[..., :512] in MLA
  const void* kv_buffer = nullptr;         // [pool_rows, 1, 576] of kv_dtype
  std::int64_t pool_rows = 0;
  // An fp8 e4m3 kv_buffer holds value / kv_scale (SGLang's k_scale; v_scale is the same
  // number in MLA, K and V being one row). k_extend stays bf16: the adapter quantizes it as
  // SGLang's set_kv_buffer stores it (x / kv_scale, round to nearest even, saturated at
  // +-448), so tree rows and prefix rows are read alike, as from the cache.
  KvDtype kv_dtype = KvDtype::kBf16;
  float kv_scale = 1.f;
  const std::int32_t* qo_indptr = nullptr;   // [B+1]
  const std::int32_t* kv_indptr = nullptr;   // [B+1] prefix tokens only
  const std::int64_t* kv_indices = nullptr;  // prefix physical rows
  const std::uint8_t* custom_mask = nullptr; // flat, see docs/background.md §2
  const std::int64_t* mask_indptr = nullptr; // [B+1]
  bf16_bits* o = nullptr;                    // [B*T, H, 512]
  float* lse = nullptr;                      // [B*T, H]
};

// Device scratch the adapter needs for a batch: prefix lengths and the packed ancestor
// masks it derives from the flat custom mask.
std::size_t sglang_adapter_scratch_bytes(int batch, int tree_size, KvDtype kv_dtype = KvDtype::kBf16);

// Converts on the device (no host round trip) and runs flash_verify_launch. The production
// kernel is launched over the conversion kernel (FlashVerifyLaunchOptions), which lets it
// launch at its entry, and it waits for it only before reading the mask
// (previous_kernel_writes_only_mask_and_lengths): the conversion is hidden, not added.
// `options` applies to the conversion kernel: with overlap_previous_kernel it is launched
// over the stream's previous kernel and waits for it before reading anything; the production
// kernel, which may then start before that kernel has finished, waits at its entry.
cudaError_t sglang_verify_launch(const SglangVerifyInputs& in, const LaunchPlan& plan,
                                 void* scratch, std::size_t scratch_bytes, void* workspace,
                                 std::size_t workspace_bytes, cudaStream_t stream,
                                 const FlashVerifyLaunchOptions& options = FlashVerifyLaunchOptions{});

}  // namespace vb

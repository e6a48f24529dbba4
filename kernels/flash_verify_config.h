// Compile-time shape of the production verify kernel: everything that changes machine
// code lives here, everything else is a run-time parameter. Shared memory is budgeted
// for sm_120's 99 KB per-block limit so one source fits both sm_90 and sm_120.
#pragma once

#include "verifybench/verify_params.h"


namespace vb::flash_cfg {

inline constexpr int kRowsPerTile = 32;    // query rows (node-major, head-minor) per block
inline constexpr int kTokensPerTile = 32;  // KV tokens per pipeline stage
// kWarps compute warps do the math; kProducerWarps more warps (the producers) do nothing
// but look up page-table words and issue the KV row copies, so the copies' serial issue
// (uniform operands: one lane at a time) and their address loads leave the math warps'
// critical path (ncu on v2: 12 % of stall samples on the math warps' copy loop).
inline constexpr int kWarps = 8;
inline constexpr int kThreads = kWarps * 32;  // compute threads
// Four producer warps, 8 rows each: one producer's 32 serial copies per tile could not
// keep the ring full (H200 A/B: consumers waited on "full" 15 % of their stall samples;
// 4 producers: mtp T4 B64 348 -> 325 us, ddtree-256 B8 -12 %). Twelve warps keep every
// SM sub-partition at 3 warps, so the per-thread register budget stays 168; 16 would cut
// it to 128.
inline constexpr int kProducerWarps = 4;
inline constexpr int kBlockThreads = kThreads + kProducerWarps * 32;  // launch size
// Each producer warp copies kRowsPerProducer rows of every tile (lane l < kRowsPerProducer).
inline constexpr int kRowsPerProducer = 32 / kProducerWarps;
inline constexpr int kComputeBarrier = 1;  // named barriers 1, 2: one per row group

inline constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;

// S = Q K^T: warps split the 576-wide contraction into kKGroups slices and the tile's
// rows into kMGroups m16 tiles; each warp covers all the tile's tokens. Partial S goes
// through shared memory to be summed. Splitting rows (not tokens) halves the Q fragments a
// warp holds (36 registers instead of 72) for twice the K fragment reads: with 168
// registers per thread (12 warps per block), the token split left ptxas no room to keep
// more than one accumulator chain in flight (ncu: S-phase HMMAs serialised on one
// accumulator, each waiting on its own ldmatrix).
inline constexpr int kKGroups = 4;
inline constexpr int kMGroups = kWarps / kKGroups;                          // 2
inline constexpr int kKStepsPerGroup = mla::kHeadDimQK / kMmaK / kKGroups;  // 9
inline constexpr int kNTilesS = kTokensPerTile / kMmaN;                     // 4

// O += P V: each row group's 16 rows, its kKGroups warps splitting the 512 channels.
inline constexpr int kGroupThreads = kKGroups * 32;                   // threads of a row group
inline constexpr int kChannelsPerWarp = mla::kHeadDimV / kKGroups;    // 128
inline constexpr int kNTilesO = kChannelsPerWarp / kMmaN;             // 16
inline constexpr int kKStepsPV = kTokensPerTile / kMmaK;              // 2

// Softmax: kThreadsPerRow threads own one row's statistics, each kTokensPerThread tokens.
inline constexpr int kThreadsPerRow = kThreads / kRowsPerTile;           // 8
inline constexpr int kTokensPerThread = kTokensPerTile / kThreadsPerRow;  // 4

// Shared-memory row strides, padded so that the 8 rows an ldmatrix reads (and the 8 row
// segments of an fp32 fragment store) fall in distinct banks.
inline constexpr int kKvStride = mla::kHeadDimQK + 8;  // bf16: 1168 B, 292 words = 4 mod 32
inline constexpr int kPStride = kTokensPerTile + 8;    // bf16: 80 B = 20 words
inline constexpr int kSStride = kTokensPerTile + 8;    // fp32: 40 words

// The Q tile is staged with cp.async: kLoadThreadsPerRow threads per row, 16 B chunks.
inline constexpr int kChunksPerRow = mla::kHeadDimQK * 2 / 16;  // 72 x 16 B per row
inline constexpr int kLoadThreadsPerRow = kThreads / kRowsPerTile;  // 8
inline constexpr int kChunksPerThread = kChunksPerRow / kLoadThreadsPerRow;  // 9
// KV tiles come through the bulk copy engine: one 1152-byte copy per row, lane l of the
// producer warp copying row l of every tile, counted on the stage's "full" mbarrier.
inline constexpr int kKvRowBytes = mla::kHeadDimQK * 2;

inline constexpr int kStageBytes = kTokensPerTile * kKvStride * 2;
inline constexpr int kSPartialBytes = kKGroups * kRowsPerTile * kSStride * 4;
inline constexpr int kPBytes = kRowsPerTile * kPStride * 2;
inline constexpr int kRowStatBytes = 3 * kRowsPerTile * 4;  // rescale, final max, final sum
inline constexpr int kBarrierBytesPerStage = 16;  // mbarriers "stage full" and "stage empty"

// Pipeline depth is the one shape that depends on the GPU: KV tiles in flight per block
// hide HBM latency, and each costs kStageBytes of shared memory. The launcher picks the
// deepest variant whose shared memory fits the device's per-block opt-in limit:
//   sm_90 (227 KB): 4 stages, 3 tiles (110 KB) in flight while one is computed;
//   sm_120 (99 KB): 2 stages, the double buffer.
inline constexpr int smem_bytes_for_stages(int stages) {
  return stages * (kStageBytes + kBarrierBytesPerStage) + kSPartialBytes + kPBytes + kRowStatBytes;
}
inline constexpr int kPipelineVariants[] = {4, 2};  // deepest first
inline constexpr int kMinStages = 2;

inline constexpr int kSm120SmemLimit = 99 * 1024;
static_assert(smem_bytes_for_stages(kMinStages) <= kSm120SmemLimit,
              "the shallowest variant must fit sm_120's per-block shared memory");
static_assert(kRowsPerTile <= kTokensPerTile, "Q tile is staged through one KV stage");
static_assert(kTokensPerTile == 32 && kRowsPerProducer * kProducerWarps == kTokensPerTile,
              "every row of a tile is copied by one lane of one producer warp");
static_assert(kKvStride * 2 % 16 == 0 && kKvRowBytes % 16 == 0, "bulk copies need 16-byte rows");
static_assert(kStageBytes % 8 == 0 && (kSPartialBytes + kPBytes + kRowStatBytes) % 8 == 0,
              "the stage mbarriers after the row statistics must be 8-byte aligned");
static_assert(kKStepsPerGroup * kKGroups * kMmaK == mla::kHeadDimQK, "K split must be exact");
static_assert(kChunksPerThread * kLoadThreadsPerRow == kChunksPerRow, "load split must be exact");
static_assert(kTokensPerThread * kThreadsPerRow == kTokensPerTile, "softmax split must be exact");
static_assert(kNTilesS % 2 == 0 && kNTilesO % 2 == 0, "ldmatrix.x4 loads two n8 tiles at a time");
static_assert(kMGroups * kMmaM == kRowsPerTile, "each row group owns one m16 tile of the block's rows");

// The combine's lanes hold at most kMaxSplits partials per row of a fixed-split plan
// (PlannerConfig::max_splits may ask for fewer); tile-balanced plans loop past them.
inline constexpr int kMaxSplits = 128;
// The token-split instance runs both row groups only on splits of at least this many tiles
// (the planner asks for the instance on the same condition).
inline constexpr int kTokenSplitMinTiles = 16;

}  // namespace vb::flash_cfg

// ---- the Hopper wgmma path (kernels/flash_verify_wgmma.cuh and its instance files, sm_90a only) ----
// Chosen by the planner on sm_90 devices where the mma.sync path is bound by its issue rate
// (PlannerConfig::wgmma_min_rows and the rest). One block = 64 query rows (one wgmma M) x one
// split; three warpgroups: a producer (cp.async gathers or TMA boxes of KV rows into the
// 128-byte-swizzled layout wgmma reads), a softmax warpgroup (S = Q K^T for all 64 rows, the
// masked online softmax, O for channels 0-255) and a second PV warpgroup (O for channels
// 256-511 from the same P).
namespace vb::wgmma_cfg {
inline constexpr int kRowsPerTile = 64;
inline constexpr int kTokensPerTile = 64;
inline constexpr int kStages = 2;                       // Q (72 KB) + 2 x 72 KB of KV fill 227 KB
inline constexpr int kThreads = 3 * 128;
inline constexpr int kDimBlocks = mla::kHeadDimQK / 64;  // 9 swizzled 128-byte rows per 576-wide row
inline constexpr int kBlockBytes = kTokensPerTile * 128;  // one 64-dim column block of a tile
inline constexpr int kTileBytes = kDimBlocks * kBlockBytes;
inline constexpr int kQBytes = kDimBlocks * kRowsPerTile * 128;
inline constexpr int kPRegs = 16;                        // bf16x2 A fragments of P per thread
inline constexpr int kPExchangeBytes = kPRegs * 128 * 4;
inline constexpr int kOffQ = 0;
inline constexpr int kOffKv = kOffQ + kQBytes;
inline constexpr int kOffPExchange = kOffKv + kStages * kTileBytes;
inline constexpr int kOffRescale = kOffPExchange + kPExchangeBytes;  // [64] floats
inline constexpr int kOffFinalSum = kOffRescale + kRowsPerTile * 4;  // [64] floats
// Registers per thread after setmaxnreg: 88 + 240 + 176 = 3 x 168, the launch budget of 384
// threads. The producer spills at 56; the softmax warpgroup (O half, S, P, row state,
// visibility words) spills at 216; the second PV warpgroup holds O half and P only. (The
// harness's MLA tile probe runs with the same split.)
inline constexpr int kProducerRegs = 88;
inline constexpr int kSoftmaxRegs = 240;
inline constexpr int kSecondPvRegs = 176;
static_assert(kProducerRegs + kSoftmaxRegs + kSecondPvRegs == 3 * 168, "the block's register budget");
// A stage lands in kLoadParts parts of column blocks (dims 0-191, 192-383, 384-575 with 3),
// each with its own "full" mbarrier, so S starts on the first 192 dims while the rest lands.
inline constexpr int kLoadParts = 3;
inline constexpr int kBlocksPerPart = kDimBlocks / kLoadParts;
static_assert(kBlocksPerPart * kLoadParts == kDimBlocks, "load parts split the 9 column blocks evenly");
// KV rows that lie in the pool as runs of 16 consecutive rows land as TMA boxes of 16 rows x
// 64 values, one per column block, issued by one lane of the producer warp that owns those
// rows; other rows (page size 1 scattered, dense tree rows, rows past kv_len) take the 16-byte
// cp.async gather. Two instances have boxes: kRunBoxes (the token table: the producer checks
// each tile's rows, so no layout is assumed) and kPageBoxes (a block table of pages >= 16
// rows, a power of two: each producer warp's 16-row group lies in one page, so every tile
// inside kv_len lands as boxes with no check and one table word per warp). The planner says
// which plan takes which (PlannerConfig::wgmma_run_boxes_min_row_tiles and
// wgmma_page_boxes_min_row_tiles).
// The boxes' L2 promotion (CUtensorMapL2promotion: 256 B).
inline constexpr int kTmaL2Promotion = 3;
inline constexpr int kTmaBoxRows = 16;  // one producer warp's rows of a tile
inline constexpr int kTmaBoxBytes = kTmaBoxRows * 128;
// full[2][parts], empty[2], q_full, q_empty (tile-balanced: the softmax warpgroup's last S of a
// request has read Q, so the producer may load the next request's)
inline constexpr int kOffBarriers = kOffFinalSum + kRowsPerTile * 4;
inline constexpr int kBarrierCount = kStages * kLoadParts + kStages + 2;
// +1024: the dynamic shared-memory base is aligned up to 1024 B (128-byte swizzle atoms).
inline constexpr int kSmemBytes = kOffBarriers + kBarrierCount * 8 + 1024;
inline constexpr int kHopperSmemLimit = 227 * 1024;
static_assert(kSmemBytes <= kHopperSmemLimit, "the wgmma path must fit one block per H100/H200 SM");
static_assert(kOffKv % 1024 == 0 && kTileBytes % 1024 == 0 && kBlockBytes % 1024 == 0,
              "swizzle atoms start at 1024-byte boundaries");
}  // namespace vb::wgmma_cfg

// Compile-time shape of the production verify kernel: everything that changes machine
// code lives here, everything else is a run-time parameter. Shared memory is budgeted
// for sm_120's 99 KB per-block limit so one source fits both sm_90 and sm_120.
#pragma once

#include "verifybench/verify_params.h"

#ifndef VB_PRODUCER_WARPS
#define VB_PRODUCER_WARPS 4
#endif

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
// it to 128. VB_PRODUCER_WARPS overrides the count for A/B builds.
inline constexpr int kProducerWarps = VB_PRODUCER_WARPS;
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

// Split-KV schedule: each split covers at least this many tiles so the combine stays
// cheap next to the main kernel; at most kMaxSplits partials per row.
inline constexpr int kMinTilesPerSplit = 2;
// 128 hold one long request with T = 4 and 8 heads to 121-125 of the H200's 132 SMs (64k:
// 2049 tiles, 17 per split where 129 splits would take 16). Measured with 192 (combine
// instances of 20 and 24 loads per lane): 32k 24.6 -> 26.0 us, 64k and 128k within 1 %
// (H200, reports/h200/2026-11-30-timeline/call3-splits-wide); not kept. sm_120 (188 SMs)
// stays capped at 128 too: unmeasured there.
inline constexpr int kMaxSplits = 128;
// Tile-balanced plans are not held to kMaxSplits: their combine's lanes hold at most
// kBalanceCombineSlots partials per row and loop over the rest, and their workspace holds
// (blocks + batch - 1) partials per row of a request. The planner gives them one block per
// SM and row tile (132 on the H200, where 128 left 4 SMs idle). -DVB_BALANCE_MAX_BLOCKS=128
// restores the old cap for A/B builds.
#ifndef VB_BALANCE_MAX_BLOCKS
#define VB_BALANCE_MAX_BLOCKS 1024
#endif
inline constexpr int kBalanceMaxBlocks = VB_BALANCE_MAX_BLOCKS;
// ... but only where blocks stay long: one block per SM (132) against 128 on the H200
// (reports/h200/2026-11-30-planner call 7, 2 rounds): mixed lengths (56 units per block at
// 128) -0.7 %, DeepSeek shared prefix (84) -1.0 %, Kimi EAGLE B32 (73) -0.5 %; the skewed
// batch (21) +1.1 % and Kimi EAGLE B8 +12 % (its model then chose 15-unit balanced blocks
// over fixed-size splits). Below this many units per block at kMaxSplits blocks, the plan
// keeps kMaxSplits.
inline constexpr int kBalanceFullWaveMinUnits = 32;
inline constexpr int kSplitOverheadTiles = 2;  // Q load, pipeline fill, epilogue, in tile-times
// The combine's cost per split, in tile-times. The first model charged a whole tile per split
// and chose 10 splits for one 4k request, whose main kernel ncu then measured at 31.6 us with
// 13 tiles per block; v2-v4 charged 1/8 (one 2 KB partial per split and row, read in a loop).
// Since the combine reads all of a row's partials in one round trip (7228cd8), 1/16: H200 A/B
// on 10 small cases: 8 of them 1-8 % faster (one 32k request 27.0 -> 24.8 us), one 2 % slower,
// one with an unchanged plan
// (reports/h200/2026-11-29-combine/ab-split-charge/).
#ifndef VB_COMBINE_TILES_PER_SPLIT
#define VB_COMBINE_TILES_PER_SPLIT 0.0625  // A/B builds override it
#endif
inline constexpr double kCombineTilesPerSplit = VB_COMBINE_TILES_PER_SPLIT;

}  // namespace vb::flash_cfg

// ---- the Hopper wgmma path (kernels/flash_verify_wgmma_sm90a.cu, sm_90a only) ----
// Chosen at run time on sm_90 devices for requests with H*T >= kMinRows query rows, where
// the mma.sync path is bound by its issue rate (H200: 38-41 % of the mma.sync ceiling).
// One block = 64 query rows (one wgmma M) x one split; three warpgroups: a producer
// (cp.async gathers of KV rows into the 128-byte-swizzled layout wgmma reads), a softmax
// warpgroup (S = Q K^T for all 64 rows, the masked online softmax, O for channels
// 0-255) and a second PV warpgroup (O for channels 256-511 from the same P).
#ifndef VB_WGMMA_MIN_ROWS
#define VB_WGMMA_MIN_ROWS 64  // A/B builds override it (-DVB_WGMMA_MIN_ROWS=...)
#endif
namespace vb::wgmma_cfg {
inline constexpr int kMinRows = VB_WGMMA_MIN_ROWS;
// ... and only with at least this many 64-row x 64-token tiles of work per SM: on four
// one-request cases of 65-130 such tiles (4k-8k tokens) the wgmma path was 0.82-0.91x the
// mma.sync path (its larger per-block prologue: 72 KB of Q, a 72 KB first tile), from 514
// tiles up it was 1.11-2.39x (H200, reports/h200/2026-11-29-wgmma/final-605f51a).
inline constexpr int kMinTilesPerSm = 2;
// The wgmma path's tile-balanced schedule (verifybench/tile_balance.h; the mma.sync path's
// constants are in flash_verify.cu): what a request boundary costs in 64-token tiles (the
// finished request's partial stores, then the next request's Q, 36-72 KB, loaded once the
// last S of the previous one has read it), and how much cheaper than the fixed-size or even
// plan its model must put it. H200, same calls (reports/h200/2026-11-30-planner, call 5):
// 2 and 4 units ran mixed lengths and the shared prefix alike, the skewed batch 72.1 against
// 73.9 us; taken wherever cheaper (1.0), mixed lengths ran 1.9 % and the DeepSeek shared
// prefix 5.9 % faster than their fixed-size / even plans, Kimi EAGLE B32 (64 rows, modelled
// 1.08x cheaper, like mixed lengths) 0.9 % slower: with every block streaming to the end each
// tile takes longer (mixed lengths: 2.16 -> 2.31 us per tile).
#ifndef VB_WGMMA_BALANCE_BOUNDARY_UNITS
#define VB_WGMMA_BALANCE_BOUNDARY_UNITS 2
#endif
inline constexpr int kBalanceBoundaryUnits = VB_WGMMA_BALANCE_BOUNDARY_UNITS;
#ifndef VB_WGMMA_BALANCE_MIN_GAIN
#define VB_WGMMA_BALANCE_MIN_GAIN 1.0
#endif
inline constexpr double kBalanceMinGain = VB_WGMMA_BALANCE_MIN_GAIN;
// Rows of one mma.sync tile but more than one m16 group (H*T of 17-63: half a wgmma tile)
// take the wgmma path too, where both paths are bound by bytes, when pages hold at least
// kFewRowsMinPageSize rows and the batch at least kFewRowsMinTilesPerSm 64-token tiles per SM.
// Measured in the same runs (H200, cold L2; effdb78 and 114392c finals), wgmma / mma.sync:
// 128k x 8 at page 64 0.946 / 0.945, mixed lengths at page 16 0.960 / 0.960, one 64k and
// one 128k request at page 64 0.97-0.98; why the 64-token gathers stream faster there was not
// profiled. Left on mma.sync: page 1 (shuffled 1.00x, and the planner cannot tell shuffled
// pages from contiguous ones, 0.97x), one 32k request (3.9 tiles per SM: 1.04x slower), and
// 8-row decode at page 64 (1.03-1.04x slower). Unequal lengths take the wgmma path's
// tile-balanced schedule there too (the skewed batch: 72.1 us against 75.5 us for the
// mma.sync path's, same call).
inline constexpr int kFewRowsMinPageSize = 16;
inline constexpr int kFewRowsMinTilesPerSm = 6;  // 3.9 was slower, 7.8 faster; 6 is between
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
// A stage lands in kLoadParts parts of column blocks (dims 0-191, 192-383, 384-575 with 3),
// each with its own "full" mbarrier, so S starts on the first 192 dims while the rest lands.
#ifndef VB_WGMMA_LOAD_PARTS
#define VB_WGMMA_LOAD_PARTS 3  // A/B builds override it
#endif
inline constexpr int kLoadParts = VB_WGMMA_LOAD_PARTS;
inline constexpr int kBlocksPerPart = kDimBlocks / kLoadParts;
static_assert(kBlocksPerPart * kLoadParts == kDimBlocks, "load parts split the 9 column blocks evenly");
// KV rows that lie in the pool as runs of 16 consecutive rows (pages of 16 rows or more, or
// contiguous token tables) land as TMA boxes of 16 rows x 64 values, one per column block,
// issued by one lane of the producer warp that owns those rows; other rows (page size 1
// scattered, dense tree rows, rows past kv_len) take the 16-byte cp.async gather. The producer
// checks each tile's rows, so no layout is assumed. A kernel instance of its own has this
// (kRunBoxes); the launcher takes it for fixed-split plans of at least kTmaMinRowTiles row
// tiles with the token table, where most KV reads are L2 hits (each tile is read by every row
// tile's block). H200 (reports/h200/2026-11-30-tma-boxes): such plans ran 0.959-0.987x v16's
// time (call 4). On every plan (call 1), memory-bound ones (1-2 row tiles) ran 2.5-5.5 %
// slower; with the block table, plans of >= 4 row tiles 5-8 % slower (calls 1, 3, 4); boxes of
// whole 64-row tiles from one thread were slower everywhere (call 2). Session 18
// (reports/h200/2026-11-30-early-entry): the block table's boxes without the check gain on
// every plan (below), and the checked ones on plans of 1-2 row tiles still lose (1.027x, call
// 4): the check and the per-thread table words cost the token table what the boxes save.
// 0: every row by cp.async (the path before). A/B builds override both.
#ifndef VB_WGMMA_TMA_RUNS
#define VB_WGMMA_TMA_RUNS 1
#endif
#ifndef VB_WGMMA_TMA_MIN_ROW_TILES
#define VB_WGMMA_TMA_MIN_ROW_TILES 4
#endif
// The boxes' L2 promotion (CUtensorMapL2promotion: 0 none, 1 64 B, 2 128 B, 3 256 B). H200, five
// plans with boxes (call 9): none 1.009x, 128 B 1.008x the time of 256 B.
#ifndef VB_WGMMA_TMA_L2_PROMOTION
#define VB_WGMMA_TMA_L2_PROMOTION 3
#endif
// The block table's own instance (kPageBoxes): pages of >= 16 rows (a power of two) hold each
// producer warp's 16-row group whole, so every tile inside kv_len lands as boxes with no
// per-row check, and the producer reads one table word per warp and tile instead of four per
// thread. H200 (reports/h200/2026-11-30-early-entry, call 3), block table against the gather,
// 13 wgmma plans: on plans of >= 4 row tiles only 0.962-0.986 (the others unchanged); on every
// fixed-split plan 0.958-0.992 (geomean 0.974), memory-bound ones included (128k x 8 0.972,
// dp128 decode B64 0.965, DFlash-16 B8 0.958). So its threshold is 1 row tile. A/B builds
// override it.
#ifndef VB_WGMMA_TMA_PAGE_MIN_ROW_TILES
#define VB_WGMMA_TMA_PAGE_MIN_ROW_TILES 1
#endif
inline constexpr bool kTmaRuns = VB_WGMMA_TMA_RUNS != 0;
inline constexpr int kTmaMinRowTiles = VB_WGMMA_TMA_MIN_ROW_TILES;
inline constexpr int kTmaPageMinRowTiles = VB_WGMMA_TMA_PAGE_MIN_ROW_TILES;
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

// Compile-time shape of the mma.sync engine (mma_kernel.cuh, sm_90 and sm_120): everything
// that changes its machine code lives here, everything else is a run-time parameter. Shared
// memory is budgeted for sm_120's 99 KB per-block limit so one source fits both sm_90 and sm_120.
#pragma once

#include "verifybench/verify_params.h"

namespace vb::mma_cfg {

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

// mma.sync a compute warp issues per tile: S's k-steps x n8 tiles, PV's (what the sm_120
// emulation's extra tensor work is owed for).
inline constexpr int kMmaPerWarpTile = kKStepsPerGroup * kNTilesS + kKStepsPV * kNTilesO;  // 36 + 32

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
// An fp8 pool's row (576 e4m3 bytes) lands in the last kKvRowBytesFp8 bytes of its stage row
// and is widened in place from there (mma_kernel.cuh, copy_rows_to_stage).
inline constexpr int kKvRowBytesFp8 = mla::kHeadDimQK;
inline constexpr int kFp8RawOffsetBytes = kKvStride * 2 - kKvRowBytesFp8;  // 592

// fp8 math (the kFp8Math instances: an fp8 pool whose tile stays e4m3 in shared memory and
// runs mma.sync m16n8k32 e4m3 -> fp32; kernels/NOTES.md, "fp8 math"). A stage row holds the
// 576 e4m3 bytes at kKvStrideFp8 bytes: 592 = 37 x 16 B, and 37 = 5 mod 8, so the 8 rows an
// ldmatrix reads (rows r .. r+7, 16 B each) start in 16-byte bank groups 5r mod 8: all 8
// distinct (5 is odd), no conflict. 32 rows take 18,944 of the stage's kStageBytes: the
// stages keep the bf16 size because Q (bf16) is staged through the last one.
inline constexpr int kMmaKFp8 = 32;
inline constexpr int kKvStrideFp8 = mla::kHeadDimQK + 16;                       // bytes
inline constexpr int kKStepsFp8 = mla::kHeadDimQK / kMmaKFp8;                  // 18
// The row group's kKGroups warps split the 18 k32 steps 5, 5, 4, 4.
inline constexpr int kKStepsPerGroupFp8 = (kKStepsFp8 + kKGroups - 1) / kKGroups;  // 5
inline constexpr int kKStepsLongGroupsFp8 = kKStepsFp8 - (kKStepsPerGroupFp8 - 1) * kKGroups;  // 2 warps of 5
// P as e4m3 bytes, row stride 48 B = 3 x 16 B: rows r .. r+7 start in bank groups 3r mod 8, distinct.
inline constexpr int kPStrideFp8 = kTokensPerTile + 16;
// fp8 math keeps Q in the stages' tails, past their kTokensPerTile * kKvStrideFp8 bytes of rows:
// row group g's 16 e4m3 Q rows (kKvStrideFp8 apart) in stage g at kFp8MathQ8Offset, and each
// compute warp's copy of its group's 16 Q scales in stage 0 past the token split's O hand-over
// (stage memory from byte 0, kTokenSplitHandoverBytes; it comes after the last tile, when q8
// is no longer read).
inline constexpr int kTokenSplitHandoverBytes = kNTilesO * 4 * kGroupThreads * 4;  // 32,768
inline constexpr int kFp8MathQ8Offset = kTokensPerTile * kKvStrideFp8;            // 18,944
inline constexpr int kFp8MathQScaleOffset = kTokenSplitHandoverBytes;
inline constexpr int kStageBytes = kTokensPerTile * kKvStride * 2;
inline constexpr int kSPartialBytes = kKGroups * kRowsPerTile * kSStride * 4;
inline constexpr int kPBytes = kRowsPerTile * kPStride * 2;
inline constexpr int kRowStatBytes = 3 * kRowsPerTile * 4;  // rescale, final max, final sum
inline constexpr int kBarrierBytesPerStage = 16;  // mbarriers "stage full" and "stage empty"
// An fp8 pool's instances add one "raw rows landed" mbarrier per stage and producer warp.
inline constexpr int kFp8RawBarrierBytesPerStage = 8 * kProducerWarps;

// Pipeline depth is the one shape that depends on the GPU: KV tiles in flight per block
// hide HBM latency, and each costs kStageBytes of shared memory. The launcher picks the
// deepest variant whose shared memory fits the device's per-block opt-in limit:
//   sm_90 (227 KB): 4 stages, 3 tiles (110 KB) in flight while one is computed;
//   sm_120 (99 KB): 2 stages, the double buffer.
inline constexpr int smem_bytes_for_stages(int stages, bool fp8_kv = false) {
  return stages * (kStageBytes + kBarrierBytesPerStage + (fp8_kv ? kFp8RawBarrierBytesPerStage : 0)) +
         kSPartialBytes + kPBytes + kRowStatBytes;
}
inline constexpr int kPipelineVariants[] = {4, 2};  // deepest first
inline constexpr int kMinStages = 2;

inline constexpr int kSm120SmemLimit = 99 * 1024;
static_assert(smem_bytes_for_stages(kMinStages, /*fp8_kv=*/true) <= kSm120SmemLimit,
              "the shallowest variant must fit sm_120's per-block shared memory");
static_assert(kRowsPerTile <= kTokensPerTile, "Q tile is staged through one KV stage");
static_assert(kTokensPerTile == 32 && kRowsPerProducer * kProducerWarps == kTokensPerTile,
              "every row of a tile is copied by one lane of one producer warp");
static_assert(kKvStride * 2 % 16 == 0 && kKvRowBytes % 16 == 0 && kKvRowBytesFp8 % 16 == 0 &&
                  kFp8RawOffsetBytes % 16 == 0,
              "bulk copies need 16-byte rows and destinations");
static_assert(kStageBytes % 8 == 0 && (kSPartialBytes + kPBytes + kRowStatBytes) % 8 == 0,
              "the stage mbarriers after the row statistics must be 8-byte aligned");
static_assert(kKStepsPerGroup * kKGroups * kMmaK == mla::kHeadDimQK, "K split must be exact");
static_assert(kKStepsFp8 * kMmaKFp8 == mla::kHeadDimQK && kKStepsLongGroupsFp8 > 0 &&
                  kKStepsLongGroupsFp8 * kKStepsPerGroupFp8 + (kKGroups - kKStepsLongGroupsFp8) * (kKStepsPerGroupFp8 - 1) ==
                      kKStepsFp8,
              "fp8 math: the k32 steps split 5, 5, 4, 4");
static_assert(kTokensPerTile * kKvStrideFp8 <= kStageBytes && kKvStrideFp8 % 16 == 0 && (kKvStrideFp8 / 16) % 2 == 1,
              "fp8 math: the e4m3 rows fit a stage at an odd number of 16-byte units (conflict-free ldmatrix)");
static_assert(kRowsPerTile * kPStrideFp8 <= kPBytes && (kPStrideFp8 / 16) % 2 == 1, "fp8 math: P fits its bf16 area");
static_assert(kFp8MathQ8Offset + kMmaM * kKvStrideFp8 <= kFp8MathQScaleOffset &&
                  kFp8MathQScaleOffset + kWarps * kMmaM * 4 <= kStageBytes && kMGroups <= kMinStages,
              "fp8 math: each group's Q rows, then the Q scales, lie in the stages' tails");

static_assert(kChunksPerThread * kLoadThreadsPerRow == kChunksPerRow, "load split must be exact");
static_assert(kTokensPerThread * kThreadsPerRow == kTokensPerTile, "softmax split must be exact");
static_assert(kNTilesS % 2 == 0 && kNTilesO % 2 == 0, "ldmatrix.x4 loads two n8 tiles at a time");
static_assert(kMGroups * kMmaM == kRowsPerTile, "each row group owns one m16 tile of the block's rows");

// The token-split instance runs both row groups only on splits of at least this many tiles
// (the planner asks for the instance on the same condition).
inline constexpr int kTokenSplitMinTiles = 16;

}  // namespace vb::mma_cfg

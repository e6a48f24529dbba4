// Compile-time shape of the Hopper wgmma engine (wgmma_kernel.cuh and its instance files,
// sm_90a only): everything that changes its machine code lives here.
#pragma once

#include "verifybench/verify_params.h"

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

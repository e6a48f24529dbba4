// The modelled GPUs and the launch plan `verifybench plan` prints: the kernel's own
// pipeline-depth rule and split model, evaluated without a device.
#include <catch2/catch.hpp>

#include <set>
#include <string>
#include <vector>

#include "harness/plan/device_models.h"
#include "harness/scenario/scenario.h"
#include "verifybench/kernels.h"

namespace {

vb::CaseSpec fixed_chain_case(int batch, int prefix, int nodes, int heads) {
  vb::CaseSpec spec;
  spec.name = "model-test";
  spec.heads = heads;
  spec.batch.dist = vb::PrefixDist::kFixed;
  spec.batch.size = batch;
  spec.batch.value = prefix;
  spec.tree.kind = vb::TreeKind::kChain;
  spec.tree.nodes = nodes;
  return spec;
}

}  // namespace

TEST_CASE("one row per modelled GPU, with the figures the issue names", "[plan]") {
  std::set<std::string> slugs;
  for (const vb::DeviceModel& d : vb::device_models()) {
    CHECK(slugs.insert(d.slug).second);
    CHECK(d.num_sms > 0);
    CHECK(d.blocks_per_sm >= 1);
    CHECK(d.memory_gbps > 0);
    CHECK(d.mma_tflops > 0);
    CHECK_FALSE(d.source.empty());
  }
  const vb::DeviceModel* h200 = vb::find_device_model("h200");
  const vb::DeviceModel* rtx = vb::find_device_model("rtx-pro-6000");
  REQUIRE(h200 != nullptr);
  REQUIRE(rtx != nullptr);
  CHECK(h200->sm_arch == 90);
  CHECK(h200->num_sms == 132);
  CHECK(rtx->sm_arch == 120);
  CHECK(rtx->num_sms == 188);
  CHECK(rtx->smem_optin_bytes == 99 * 1024);
  CHECK(rtx->memory_gbps == Approx(1792));
  CHECK(vb::find_device_model("h100") == nullptr);
  CHECK(vb::device_model_slugs() == "h200, rtx-pro-6000");
}

TEST_CASE("the pipeline depth follows the device's shared memory, as the launcher chooses it", "[plan]") {
  const vb::DeviceModel& rtx = *vb::find_device_model("rtx-pro-6000");
  const vb::DeviceModel& h200 = *vb::find_device_model("h200");
  CHECK(vb::flash_verify_stages_for_smem_optin(rtx.smem_optin_bytes) == 2);
  CHECK(vb::flash_verify_smem_bytes(2) <= rtx.smem_optin_bytes);
  CHECK(vb::flash_verify_stages_for_smem_optin(h200.smem_optin_bytes) == 4);
  CHECK(vb::flash_verify_smem_bytes(4) <= h200.smem_optin_bytes);
  CHECK(vb::flash_verify_smem_bytes(4) > rtx.smem_optin_bytes);  // why sm_120 gets 2 stages
  CHECK(vb::flash_verify_stages_for_smem_optin(vb::flash_verify_smem_bytes(2) - 1) == 0);
  CHECK(vb::flash_verify_smem_bytes(3) == 0);  // not a built variant
}

TEST_CASE("plan_launch: the H200 grid ncu measured, and sm_120's plan from the same model", "[plan]") {
  // kimi_k2_tp8_mtp T=4, B=64, H=8, P=16k: ncu on the H200 saw grid (1, 2, 64), i.e. one
  // row tile, two splits, 128 blocks (the v1 report, reports/README.md).
  const vb::CaseSpec spec = fixed_chain_case(64, 16384, 4, 8);
  const vb::PlannedLaunch h200 = vb::plan_launch(spec, *vb::find_device_model("h200"));
  CHECK(h200.launch.pipeline_stages == 4);
  CHECK(h200.launch.schedule.m_tiles == 1);
  CHECK(h200.launch.schedule.num_splits == 2);
  CHECK(h200.blocks == 128);
  CHECK(h200.waves == Approx(128.0 / 132.0));
  CHECK(h200.kv_tokens == 64 * (16384 + 4));
  // Floors: 1152 B per KV row + q/o/lse per query row; 2 * 1088 FLOP per (row, token).
  const double bytes = 1152.0 * 64 * 16388 + 64.0 * 4 * 8 * (1152 + 1024 + 4);
  CHECK(h200.bytes == Approx(bytes));
  CHECK(h200.flops == Approx(2.0 * 64 * 16388 * 8 * 4 * 1088));
  CHECK(h200.memory_floor_us == Approx(bytes / 4435e9 * 1e6));
  // 2048 query rows, 2 splits: one lane per row (2048 rows / 8 per block x 4 chunks = 1024
  // blocks of the 2-load instance, 8 per SM) beats 2 lanes (2048 blocks), both as rules go.
  CHECK(h200.launch.combine_lanes == 1);
  CHECK(h200.launch.combine_lanes == vb::flash_verify_combine_lanes(2, 2048, 132, 2048));
  CHECK_FALSE(h200.launch.schedule.token_split);  // H*T = 32

  const vb::DeviceModel& rtx_model = *vb::find_device_model("rtx-pro-6000");
  const vb::PlannedLaunch rtx = vb::plan_launch(spec, rtx_model);
  CHECK(rtx.launch.pipeline_stages == 2);
  CHECK(rtx.launch.smem_bytes <= 99 * 1024);
  CHECK(rtx.launch.schedule.m_tiles == 1);
  CHECK(rtx.blocks == 64LL * rtx.launch.schedule.num_splits);
  // The same split model with 188 SMs: at least as many blocks as SMs.
  CHECK(rtx.blocks >= rtx_model.num_sms);
  CHECK(rtx.memory_floor_us > h200.memory_floor_us * 2.4);  // 1792 vs 4435 GB/s
  CHECK(rtx.launch.combine_lanes == (rtx.launch.schedule.num_splits > 1 ? vb::flash_verify_combine_lanes(rtx.launch.schedule.num_splits, 2048, 188, 1536) : 0));
  CHECK(rtx_model.max_threads_per_sm == 1536);
}

TEST_CASE("plan_launch: H*T rows above one tile use several row tiles", "[plan]") {
  const vb::CaseSpec spec = fixed_chain_case(8, 8192, 4, 128);  // 512 rows
  // The H200 takes the wgmma path (64-row tiles) at H*T >= 64; sm_120 has only mma.sync.
  const vb::PlannedLaunch p = vb::plan_launch(spec, *vb::find_device_model("h200"));
  CHECK(p.launch.schedule.path == vb::FlashVerifyPath::kWgmma);
  CHECK(p.launch.schedule.m_tiles == 512 / 64);
  CHECK(p.launch.schedule.m_tiles == 512 / vb::flash_verify_path_config(p.launch.schedule.path).rows_per_tile);
  CHECK(p.blocks == 8LL * p.launch.schedule.m_tiles * p.launch.schedule.num_splits);
  CHECK(p.launch.pipeline_stages == 2);
  CHECK(p.launch.smem_bytes <= 227 * 1024);
  CHECK(p.mma_floor_us > p.memory_floor_us);  // H*T = 512: compute-bound
  const vb::PlannedLaunch rtx = vb::plan_launch(spec, *vb::find_device_model("rtx-pro-6000"));
  CHECK(rtx.launch.schedule.path == vb::FlashVerifyPath::kMmaSync);
  CHECK(rtx.launch.schedule.m_tiles == 512 / vb::flash_verify_config().rows_per_tile);
}

TEST_CASE("plan_split_schedule: the wgmma path only where it is available and H*T >= 64", "[plan]") {
  using vb::FlashVerifyPath;
  CHECK(vb::plan_split_schedule(8, 4, 8, 8192, 132, 1, true).path == FlashVerifyPath::kMmaSync);   // 32 rows
  CHECK(vb::plan_split_schedule(8, 4, 16, 8192, 132, 1, true).path == FlashVerifyPath::kWgmma);    // 64 rows
  CHECK(vb::plan_split_schedule(8, 4, 16, 8192, 132, 1, false).path == FlashVerifyPath::kMmaSync);
  CHECK(vb::plan_split_schedule(8, 4, 16, 8192, 132, 1).path == FlashVerifyPath::kMmaSync);
  // Too little work for the wgmma path's larger prologue: one 4k request is 65 tiles of
  // 64 x 64, under 2 per SM; eight are 520.
  CHECK(vb::plan_split_schedule(1, 4, 16, 4100, 132, 1, true).path == FlashVerifyPath::kMmaSync);
  CHECK(vb::plan_split_schedule(1, 1, 128, 4097, 132, 1, true).path == FlashVerifyPath::kMmaSync);
  CHECK(vb::plan_split_schedule(8, 4, 16, 4100, 132, 1, true).path == FlashVerifyPath::kWgmma);
  CHECK(vb::plan_split_schedule(1, 16, 8, 16400, 132, 1, true).path == FlashVerifyPath::kWgmma);
  const vb::SplitSchedule w = vb::plan_split_schedule(1, 2, 128, 16384, 132, 1, true);  // 256 rows
  CHECK(w.m_tiles == 4);
  CHECK(w.num_splits * w.m_tiles <= 132);  // one wave of 64-row blocks
  CHECK(w.num_splits * w.m_tiles > 100);
  CHECK(std::string(vb::to_string(FlashVerifyPath::kWgmma)) == "wgmma");
  CHECK(std::string(vb::to_string(FlashVerifyPath::kMmaSync)) == "mma.sync");
}

namespace {
// Whether the planner gives `schedule` a TMA-box instance for the page-table form and page size
// (on the H200's target, a pool TMA can address).
bool takes_boxes(const vb::SplitSchedule& schedule, vb::PageTableKind kind, int page_size) {
  vb::PlanShape shape;
  shape.batch = 8;
  shape.tree_size = 4;
  shape.num_heads = 8;
  shape.page_kind = kind;
  shape.page_size = page_size;
  shape.pool_rows = 1 << 20;
  const vb::LaunchPlan plan =
      vb::complete_launch_plan(schedule, shape, vb::device_target(*vb::find_device_model("h200")));
  return plan.instance == vb::KernelInstance::kWgmmaRunBoxes || plan.instance == vb::KernelInstance::kWgmmaPageBoxes;
}
}  // namespace

TEST_CASE("the wgmma path's TMA boxes: fixed splits, the token table from 4 row tiles, pages of 16+ rows from 2", "[plan]") {
  using vb::FlashVerifyPath;
  using vb::PageTableKind;
  // DDTree-64 B8, 8 heads: 512 rows, 8 row tiles of 64 (PlannerConfig::wgmma_run_boxes_min_row_tiles = 4).
  const vb::SplitSchedule ddtree = vb::plan_split_schedule(8, 64, 8, 16448, 132, 1, true, nullptr, 16);
  REQUIRE(ddtree.path == FlashVerifyPath::kWgmma);
  REQUIRE(ddtree.m_tiles == 8);
  CHECK(takes_boxes(ddtree, PageTableKind::kTokenIndices, 16));
  CHECK(takes_boxes(ddtree, PageTableKind::kTokenIndices, 1));  // runs are checked per tile
  // The block table's instance (kPageBoxes) needs every 16-row group inside one page: pages of
  // 16 rows or more, a power of two.
  for (int page : {16, 32, 64, 256}) CHECK(takes_boxes(ddtree, PageTableKind::kBlockTable, page));
  for (int page : {1, 8, 48, 96}) CHECK_FALSE(takes_boxes(ddtree, PageTableKind::kBlockTable, page));
  // 256 rows (4 row tiles) have them, 192 (3) and 128 (2: DFlash-16, one 64k T16 request) not.
  const vb::SplitSchedule four = vb::plan_split_schedule(1, 2, 128, 16384, 132, 1, true);
  REQUIRE(four.m_tiles == 4);
  CHECK(takes_boxes(four, PageTableKind::kTokenIndices, 64));
  CHECK(takes_boxes(four, PageTableKind::kBlockTable, 64));
  // The block table's page boxes go on fixed-split plans of 2 or more row tiles
  // (wgmma_page_boxes_min_row_tiles = 2): one row tile (128k x 8, 32 rows) gathers with either table.
  const vb::SplitSchedule one = vb::plan_split_schedule(8, 4, 8, 131076, 132, 1, true, nullptr, 64);
  REQUIRE(one.path == FlashVerifyPath::kWgmma);
  REQUIRE(one.m_tiles == 1);
  CHECK_FALSE(takes_boxes(one, PageTableKind::kBlockTable, 64));
  CHECK_FALSE(takes_boxes(one, PageTableKind::kTokenIndices, 64));
  for (int heads : {96, 64}) {
    const vb::SplitSchedule fewer = vb::plan_split_schedule(8, 2, heads, 16384, 132, 1, true);
    REQUIRE(fewer.path == FlashVerifyPath::kWgmma);
    REQUIRE(fewer.m_tiles == heads * 2 / 64);
    CHECK_FALSE(takes_boxes(fewer, PageTableKind::kTokenIndices, 64));
    CHECK(takes_boxes(fewer, PageTableKind::kBlockTable, 64));
  }
  // Tile-balanced plans and the mma.sync path never (the balanced instance has no boxes).
  vb::SplitSchedule balanced = ddtree;
  balanced.tile_balanced = true;
  CHECK_FALSE(takes_boxes(balanced, PageTableKind::kTokenIndices, 64));
  CHECK_FALSE(takes_boxes(balanced, PageTableKind::kBlockTable, 64));
  vb::SplitSchedule mma = ddtree;
  mma.path = FlashVerifyPath::kMmaSync;
  CHECK_FALSE(takes_boxes(mma, PageTableKind::kTokenIndices, 64));
  CHECK_FALSE(takes_boxes(mma, PageTableKind::kBlockTable, 64));
  // plan_launch shows it for production (token table) on the H200 only.
  vb::CaseSpec spec = fixed_chain_case(8, 16384, 64, 8);
  spec.pages.size = 16;
  CHECK(vb::plan_launch(spec, *vb::find_device_model("h200")).launch.instance == vb::KernelInstance::kWgmmaRunBoxes);
  CHECK(vb::plan_launch(spec, *vb::find_device_model("rtx-pro-6000")).launch.instance == vb::KernelInstance::kMmaPlain);
}

TEST_CASE("plan_split_schedule: 17-63 rows over pages of 16+ rows take the wgmma path when the batch is long", "[plan]") {
  using vb::FlashVerifyPath;
  // 128k x 8, 32 rows (H = 8, T = 4): pages of 16 and 64 rows go to wgmma, page 1 stays.
  CHECK(vb::plan_split_schedule(8, 4, 8, 131076, 132, 1, true, nullptr, 64).path == FlashVerifyPath::kWgmma);
  CHECK(vb::plan_split_schedule(8, 4, 8, 131076, 132, 1, true, nullptr, 16).path == FlashVerifyPath::kWgmma);
  CHECK(vb::plan_split_schedule(8, 4, 8, 131076, 132, 1, true, nullptr, 1).path == FlashVerifyPath::kMmaSync);
  CHECK(vb::plan_split_schedule(8, 4, 8, 131076, 132, 1, true).path == FlashVerifyPath::kMmaSync);  // page 1 default
  CHECK(vb::plan_split_schedule(8, 4, 8, 131076, 132, 1, false, nullptr, 64).path == FlashVerifyPath::kMmaSync);
  // 24 rows (T = 3) too; 16 rows or fewer (one m16 group: 8-row decode) stay on mma.sync.
  CHECK(vb::plan_split_schedule(8, 3, 8, 131076, 132, 1, true, nullptr, 64).path == FlashVerifyPath::kWgmma);
  CHECK(vb::plan_split_schedule(64, 1, 8, 16385, 132, 1, true, nullptr, 64).path == FlashVerifyPath::kMmaSync);
  CHECK(vb::plan_split_schedule(8, 2, 8, 131076, 132, 1, true, nullptr, 64).path == FlashVerifyPath::kMmaSync);
  // The batch's 64-token tiles per SM: one 64k request holds 7.8 (wgmma), one 32k request 3.9.
  CHECK(vb::plan_split_schedule(1, 4, 8, 65540, 132, 1, true, nullptr, 64).path == FlashVerifyPath::kWgmma);
  CHECK(vb::plan_split_schedule(1, 4, 8, 32772, 132, 1, true, nullptr, 64).path == FlashVerifyPath::kMmaSync);
  // Unequal lengths too, tile-balanced on the wgmma path (the skewed perf case: one 64k
  // request among 47 of 2k, page 16; mma.sync balances it at page 1).
  std::vector<int> skewed(48, 2048 + 4);
  skewed[0] = 65536 + 4;
  const vb::SplitSchedule s = vb::plan_split_schedule(48, 4, 8, 65540, 132, 1, true, skewed.data(), 16);
  CHECK(s.path == FlashVerifyPath::kWgmma);
  CHECK(s.tile_balanced);
  const vb::SplitSchedule s1 = vb::plan_split_schedule(48, 4, 8, 65540, 132, 1, true, skewed.data(), 1);
  CHECK(s1.path == FlashVerifyPath::kMmaSync);
  CHECK(s1.tile_balanced);
  // The chosen wgmma plan is the path's own plan for the same lengths.
  std::vector<int> mixed(32, 4096 + 4);
  mixed[0] = 65536 + 4;
  const vb::SplitSchedule m = vb::plan_split_schedule(32, 4, 8, 65540, 132, 1, true, mixed.data(), 16);
  const vb::SplitSchedule w = vb::plan_split_schedule_for_path(FlashVerifyPath::kWgmma, 32, 4, 8, 65540, 132, 1,
                                                               mixed.data());
  CHECK(m.path == FlashVerifyPath::kWgmma);
  CHECK(m.num_splits == w.num_splits);
  CHECK(m.tiles_per_split == w.tiles_per_split);
  CHECK(m.tile_balanced == w.tile_balanced);
}

TEST_CASE("plan_split_schedule: one request spreads over the H200 in one wave, finer with the cheap combine", "[plan]") {
  // One request, 8 heads, T = 4 (32 rows, one 32-row tile): the split counts the H200 ran
  // fastest with since the combine charge fell to 1/16 tile per split (f6090a6; A/B in
  // reports/h200/2026-11-29-combine/ab-split-charge/, 2026-11-29, in git history at 93371d3:
  // one 32k request 86 -> 114 splits, 26.95 -> 24.75 us). A change of the model that moves them needs a new measurement.
  struct Want { int kv_len, splits; };
  for (const Want w : {Want{4100, 43}, Want{16388, 86}, Want{32772, 114}, Want{65540, 121}}) {
    INFO("kv_len " << w.kv_len);
    const vb::SplitSchedule p = vb::plan_split_schedule(1, 4, 8, w.kv_len, 132, 1, true);
    CHECK(p.path == vb::FlashVerifyPath::kMmaSync);
    CHECK(p.m_tiles == 1);
    CHECK(p.num_splits == w.splits);
    CHECK(p.num_splits <= 132);  // one wave
  }
  // Never more splits than the combine and the workspace take, however long the request.
  CHECK(vb::plan_split_schedule(1, 4, 8, 1 << 20, 132, 1, true).num_splits <= 128);
  CHECK(vb::plan_split_schedule(1, 4, 8, 1 << 20, 188, 1, false).num_splits <= 128);
}

TEST_CASE("plan_split_schedule: the modelled tiles of the longest block, for each kind of plan", "[plan]") {
  // Even plans: the longest request's tiles over its splits, per wave. One 4k request (H8
  // T4): 129 tiles of 32 tokens in 43 splits, one wave. 64 of 16k: 513 tiles in 2 splits,
  // 128 blocks in one wave of 132.
  const vb::SplitSchedule one = vb::plan_split_schedule(1, 4, 8, 4100, 132, 1, true);
  REQUIRE(one.num_splits == 43);
  CHECK(one.modelled_block_tiles == 3);
  const vb::SplitSchedule batch = vb::plan_split_schedule_for_path(vb::FlashVerifyPath::kMmaSync, 64, 4, 8, 16388,
                                                                   132, 1, nullptr);
  CHECK(batch.modelled_block_tiles ==
        (513 + batch.num_splits - 1) / batch.num_splits * ((64L * batch.num_splits + 131) / 132));
  // Fixed-size splits: the split size. Tile-balanced: the units per block.
  std::vector<int> lens(32, 4096 + 4);
  lens[0] = 65536 + 4;
  const vb::SplitSchedule sized =
      vb::plan_split_schedule_for_path(vb::FlashVerifyPath::kMmaSync, 32, 4, 8, 65540, 132, 1, lens.data());
  REQUIRE(sized.tiles_per_split > 0);
  CHECK(sized.modelled_block_tiles == sized.tiles_per_split);
  const vb::SplitSchedule balanced =
      vb::plan_split_schedule_for_path(vb::FlashVerifyPath::kWgmma, 32, 4, 8, 65540, 132, 1, lens.data());
  REQUIRE(balanced.tile_balanced);
  long units = 0;
  for (int len : lens) units += vb::flash_verify_balance_boundary_units(vb::FlashVerifyPath::kWgmma) + (len + 63) / 64;
  CHECK(balanced.modelled_block_tiles == (units + balanced.num_splits - 1) / balanced.num_splits);
}

TEST_CASE("plan_split_schedule: unequal lengths get fixed-size splits sized by the batch's work", "[plan]") {
  // 32 requests: one of 64k tokens, 31 of 4k (H = 8, T = 4), on the mma.sync path's 32-token
  // tiles, where the tile-balanced plan models less than 15 % cheaper (test_tile_balance.cpp;
  // the wgmma path balances this batch).
  std::vector<int> lens(32, 4096 + 4);
  lens[0] = 65536 + 4;
  const auto mma_sync = vb::FlashVerifyPath::kMmaSync;
  const vb::SplitSchedule even = vb::plan_split_schedule_for_path(mma_sync, 32, 4, 8, 65540, 132, 1, nullptr);
  const vb::SplitSchedule sized = vb::plan_split_schedule_for_path(mma_sync, 32, 4, 8, 65540, 132, 1, lens.data());
  CHECK(even.tiles_per_split == 0);
  REQUIRE(sized.tiles_per_split > 0);
  CHECK_FALSE(sized.tile_balanced);
  const int max_tiles = (65540 + 31) / 32;
  // The long request is cut into more, shorter splits than the even plan gives every request.
  CHECK(sized.tiles_per_split < (max_tiles + even.num_splits - 1) / even.num_splits);
  CHECK(sized.num_splits > even.num_splits);
  CHECK(static_cast<long>(sized.num_splits) * sized.tiles_per_split >= max_tiles);  // no tile left out
  CHECK(sized.num_splits <= 128);
  // The smallest split size whose blocks fit one wave of 132, whether or not it is an even
  // division of the long request (every size is tried).
  auto blocks_of = [&](int split_tiles) {
    long blocks = 0;
    for (int len : lens) blocks += ((len + 31) / 32 + split_tiles - 1) / split_tiles;
    return blocks;
  };
  CHECK(blocks_of(sized.tiles_per_split) <= 132);
  CHECK(blocks_of(sized.tiles_per_split - 1) > 132);
  // Equal lengths: exactly the plan made without them.
  const std::vector<int> same(32, 65540);
  const vb::SplitSchedule eq = vb::plan_split_schedule_for_path(mma_sync, 32, 4, 8, 65540, 132, 1, same.data());
  CHECK(eq.tiles_per_split == 0);
  CHECK(eq.num_splits == even.num_splits);
}

TEST_CASE("flash_verify_combine_lanes: one wave of combine threads where the splits allow", "[plan]") {
  // Few rows: as many lanes as splits, a power of two, 8 at most (decode B1: 8 rows, 43 splits).
  CHECK(vb::flash_verify_combine_lanes(43, 8, 132) == 8);
  CHECK(vb::flash_verify_combine_lanes(2, 8, 132) == 2);
  CHECK(vb::flash_verify_combine_lanes(3, 8, 132) == 4);
  CHECK(vb::flash_verify_combine_lanes(5, 8, 132) == 8);
  // 1024 rows on 132 SMs. MTP T4 B32 (4 splits): 4 lanes take 2048 blocks (8 per SM: 2
  // waves), 2 lanes of 2 loads 1024 (one wave), 1 lane no fewer waves. Mixed lengths (17
  // splits): 8 or 4 lanes take 4 waves, 2 lanes of 9 loads (the 10-load instance, 4 blocks
  // per SM) 2 waves; 1 lane would need 17 loads.
  CHECK(vb::flash_verify_combine_lanes(4, 1024, 132) == 2);
  CHECK(vb::flash_verify_combine_lanes(17, 1024, 132) == 2);
  CHECK(vb::flash_verify_combine_lanes(4, 1024, 1000) == 4);  // enough SMs: every split its lane
  // A split count that needs 8 lanes of 16 loads keeps them, whatever the rows.
  CHECK(vb::flash_verify_combine_lanes(128, 1 << 20, 132) == 8);
  // Tile-balanced plans' instances hold one block per SM fewer, 4 at most. 6 slots over 4096
  // rows (DeepSeek shared prefix): 2 lanes of 3 loads take 4096 blocks, 4 waves at the
  // other instances' 8 per SM but 8 at 4, so the balanced combine takes 1 lane (2048 blocks
  // of 6 loads at 4 per SM: 4 waves). 8 slots over 1024 rows (mixed lengths): 1 lane (512
  // blocks at 3 per SM) and 2 lanes (1024 at 4) take 2 waves each; a tie goes to fewer lanes.
  CHECK(vb::flash_verify_combine_lanes(6, 4096, 132, 2048, false) == 2);
  CHECK(vb::flash_verify_combine_lanes(6, 4096, 132, 2048, true) == 1);
  CHECK(vb::flash_verify_combine_lanes(8, 1024, 132, 2048, true) == 1);
  // Never more than 16 splits per lane, never a lane without a split where fewer would do.
  // The same rule with sm_120's figures (188 SMs of 1536 threads).
  CHECK(vb::flash_verify_combine_lanes(43, 8, 188, 1536) == 8);
  CHECK(vb::flash_verify_combine_lanes(17, 1024, 188, 1536) == 2);
  for (int splits = 2; splits <= 128; ++splits) {
    for (std::int64_t rows : {8L, 256L, 1024L, 4096L, 65536L}) {
      const int lanes = vb::flash_verify_combine_lanes(splits, rows, 132);
      INFO("splits " << splits << " rows " << rows << " lanes " << lanes);
      CHECK(vb::flash_verify_combine_lanes(splits, rows, 188, 1536) / 2 < splits);
      CHECK((lanes == 1 || lanes == 2 || lanes == 4 || lanes == 8));
      CHECK((splits + lanes - 1) / lanes <= 16);
      CHECK(lanes / 2 < splits);
    }
  }
}

TEST_CASE("plan_launch: the token split where the H200 A/B found it faster, and nowhere else", "[plan]") {
  const vb::DeviceModel& h200 = *vb::find_device_model("h200");
  // Measured (CHANGELOG.md, v5): faster with splits of 32-256 tiles
  // (decode B32/B64, MTP T2 B8-B64), slower with 3 and 9 (decode B1, B8).
  CHECK(vb::plan_launch(fixed_chain_case(32, 4096, 1, 8), h200).launch.schedule.token_split);
  CHECK(vb::plan_launch(fixed_chain_case(64, 4096, 1, 8), h200).launch.schedule.token_split);
  CHECK(vb::plan_launch(fixed_chain_case(8, 16384, 2, 8), h200).launch.schedule.token_split);
  CHECK(vb::plan_launch(fixed_chain_case(64, 16384, 2, 8), h200).launch.schedule.token_split);
  CHECK_FALSE(vb::plan_launch(fixed_chain_case(1, 4096, 1, 8), h200).launch.schedule.token_split);
  CHECK_FALSE(vb::plan_launch(fixed_chain_case(8, 4096, 1, 8), h200).launch.schedule.token_split);
  // H*T > 16: two live row groups, never.
  CHECK_FALSE(vb::plan_launch(fixed_chain_case(8, 16384, 3, 8), h200).launch.schedule.token_split);
  CHECK_FALSE(vb::plan_launch(fixed_chain_case(64, 16384, 4, 8), h200).launch.schedule.token_split);
  // The wgmma path has no token split.
  const vb::PlannedLaunch wide = vb::plan_launch(fixed_chain_case(8, 8192, 4, 128), h200);
  CHECK(wide.launch.schedule.path == vb::FlashVerifyPath::kWgmma);
  CHECK_FALSE(wide.launch.schedule.token_split);
}

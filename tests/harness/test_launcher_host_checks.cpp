// The production launcher's host-side refusals, which happen before any CUDA call and so
// run (and must hold) on a machine without a GPU. The device-side refusals (shared memory,
// pipeline depth) are in tests/kernels.
#include <catch2/catch.hpp>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "verifybench/kernels.h"

namespace {

// Fake device pointers: never dereferenced, because every call below is refused on the
// host first. `offset` misaligns one of them.
template <typename T>
T* fake(std::uintptr_t address) { return reinterpret_cast<T*>(address); }

vb::VerifyParams aligned_params() {
  vb::VerifyParams p;
  p.batch = 1;
  p.tree_size = 3;
  p.num_heads = 8;
  p.sm_scale = 0.1f;
  p.q = fake<const vb::bf16_bits>(0x10000);
  p.kv_pool = fake<const vb::bf16_bits>(0x20000);
  p.pool_rows = 100;
  p.prefix_len = fake<const std::int32_t>(0x30000);
  p.kv_indptr = fake<const std::int32_t>(0x40000);
  p.kv_indices = fake<const std::int64_t>(0x50000);
  p.tree_mask = fake<const std::uint64_t>(0x60000);
  p.mask_words = 1;
  p.o = fake<vb::bf16_bits>(0x70000);
  p.lse = fake<float>(0x80000);
  return p;
}

// The planner's completion of a schedule for aligned_params()'s shape on the H200: the
// launcher only ever takes a LaunchPlan.
vb::LaunchPlan complete(const vb::SplitSchedule& schedule) {
  vb::PlanShape shape;
  shape.batch = 1;
  shape.tree_size = 3;
  shape.num_heads = 8;
  shape.max_kv_len = 13;
  shape.pool_rows = 100;
  vb::DeviceTarget h200;
  h200.num_sms = 132;
  h200.smem_optin_bytes = 227 * 1024;
  h200.wgmma = true;
  return vb::complete_launch_plan(schedule, shape, h200);
}

}  // namespace

TEST_CASE("the launcher refuses misaligned tensors before touching the device", "[launcher]") {
  const vb::SplitSchedule plan = vb::plan_split_schedule(1, 3, 8, 13, 132, 1);
  // Aligned parameters pass the parameter check: a plan with the wrong tile count is then
  // what stops the call (also on the host), which shows the alignment is what the other
  // calls are refused for.
  vb::SplitSchedule wrong_tiles = plan;
  wrong_tiles.m_tiles += 1;
  CHECK(vb::flash_verify_launch(aligned_params(), complete(wrong_tiles), nullptr, 0, nullptr) ==
        cudaErrorInvalidConfiguration);

  vb::VerifyParams p = aligned_params();
  p.kv_pool = fake<const vb::bf16_bits>(0x20008);  // 8-byte aligned only
  CHECK(vb::flash_verify_launch(p, complete(plan), nullptr, 0, nullptr) == cudaErrorInvalidValue);
  p = aligned_params();
  p.q = fake<const vb::bf16_bits>(0x10002);
  CHECK(vb::flash_verify_launch(p, complete(plan), nullptr, 0, nullptr) == cudaErrorInvalidValue);
  p = aligned_params();
  p.tree_kv = fake<const vb::bf16_bits>(0x90004);  // SGLang's dense tree rows
  CHECK(vb::flash_verify_launch(p, complete(plan), nullptr, 0, nullptr) == cudaErrorInvalidValue);
  p = aligned_params();
  p.o = fake<vb::bf16_bits>(0x70002);
  CHECK(vb::flash_verify_launch(p, complete(plan), nullptr, 0, nullptr) == cudaErrorInvalidValue);
  p = aligned_params();
  p.lse = fake<float>(0x80001);
  CHECK(vb::flash_verify_launch(p, complete(plan), nullptr, 0, nullptr) == cudaErrorInvalidValue);
}

TEST_CASE("the launcher refuses inconsistent shapes before touching the device", "[launcher]") {
  const vb::SplitSchedule plan = vb::plan_split_schedule(1, 3, 8, 13, 132, 1);
  vb::VerifyParams p = aligned_params();
  p.mask_words = 2;  // T = 3 needs exactly one word
  CHECK(vb::flash_verify_launch(p, complete(plan), nullptr, 0, nullptr) == cudaErrorInvalidValue);
  p = aligned_params();
  p.tree_size = vb::mla::kMaxTreeNodes + 1;
  CHECK(vb::flash_verify_launch(p, complete(plan), nullptr, 0, nullptr) == cudaErrorInvalidValue);
  p = aligned_params();
  p.page_kind = vb::PageTableKind::kBlockTable;  // without a block table
  CHECK(vb::flash_verify_launch(p, complete(plan), nullptr, 0, nullptr) == cudaErrorInvalidValue);
  vb::SplitSchedule split_plan{4, plan.m_tiles};
  CHECK(vb::flash_verify_launch(aligned_params(), complete(split_plan), nullptr, 0, nullptr) ==
        cudaErrorInvalidValue);  // splits need a workspace
}

TEST_CASE("the launcher refuses a softmax scale that is not positive and finite", "[launcher]") {
  // The wgmma softmax takes row maxima of unscaled scores and scales inside the exponent:
  // that needs a positive scale. A finite positive one passes the parameter check (the wrong
  // tile count then stops the call), the others are refused.
  const vb::SplitSchedule plan = vb::plan_split_schedule(1, 3, 8, 13, 132, 1);
  vb::SplitSchedule wrong_tiles = plan;
  wrong_tiles.m_tiles += 1;
  vb::VerifyParams p = aligned_params();
  p.sm_scale = 1e-30f;
  CHECK(vb::flash_verify_launch(p, complete(wrong_tiles), nullptr, 0, nullptr) == cudaErrorInvalidConfiguration);
  for (const float scale : {0.f, -0.f, -0.1f, std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN()}) {
    p.sm_scale = scale;
    CHECK(vb::flash_verify_launch(p, complete(plan), nullptr, 0, nullptr) == cudaErrorInvalidValue);
  }
}

TEST_CASE("the launcher refuses wgmma plans that do not match the wgmma path's tiles", "[launcher]") {
  // aligned_params(): T = 3, H = 8 (24 rows): one 64-row tile on the wgmma path.
  vb::SplitSchedule plan;
  plan.path = vb::FlashVerifyPath::kWgmma;
  plan.m_tiles = 2;  // the mma.sync path would want 1 as well; 2 fits neither
  CHECK(vb::flash_verify_launch(aligned_params(), complete(plan), nullptr, 0, nullptr) == cudaErrorInvalidConfiguration);
  plan.m_tiles = 1;
  plan.pipeline_stages = 4;  // a depth of the mma.sync path only: no valid plan
  CHECK(vb::flash_verify_launch(aligned_params(), complete(plan), nullptr, 0, nullptr) == cudaErrorInvalidConfiguration);
  plan.pipeline_stages = 0;
  plan.path = static_cast<vb::FlashVerifyPath>(7);
  CHECK(vb::flash_verify_launch(aligned_params(), complete(plan), nullptr, 0, nullptr) == cudaErrorInvalidConfiguration);
  // A plan the planner completed, then edited by hand, is refused too: the launcher runs only
  // consistent plans, it does not repair them.
  vb::LaunchPlan edited = complete(vb::SplitSchedule{1, 1, 0, vb::FlashVerifyPath::kWgmma});
  REQUIRE(edited.valid);
  edited.main_grid.y = 2;
  CHECK(vb::flash_verify_launch(aligned_params(), edited, nullptr, 0, nullptr) == cudaErrorInvalidConfiguration);
  edited = complete(vb::SplitSchedule{1, 1, 0, vb::FlashVerifyPath::kWgmma});
  edited.instance = vb::KernelInstance::kMmaPlain;
  CHECK(vb::flash_verify_launch(aligned_params(), edited, nullptr, 0, nullptr) == cudaErrorInvalidConfiguration);
  edited = complete(vb::SplitSchedule{1, 1, 0, vb::FlashVerifyPath::kWgmma});
  edited.instance = vb::KernelInstance::kWgmmaPageBoxes;  // over a token table
  CHECK(vb::flash_verify_launch(aligned_params(), edited, nullptr, 0, nullptr) == cudaErrorInvalidConfiguration);
}

TEST_CASE("the launcher refuses a launch over a mask writer without overlap or over a block table", "[launcher]") {
  const vb::SplitSchedule plan = vb::plan_split_schedule(1, 3, 8, 13, 132, 1);
  vb::SplitSchedule wrong_tiles = plan;
  wrong_tiles.m_tiles += 1;  // what stops a call whose parameters and options pass (see above)
  vb::FlashVerifyLaunchOptions options;
  options.previous_kernel_writes_only_mask_and_lengths = true;
  CHECK(vb::flash_verify_launch(aligned_params(), complete(wrong_tiles), nullptr, 0, nullptr, options) == cudaErrorInvalidValue);
  options.overlap_previous_kernel = true;
  CHECK(vb::flash_verify_launch(aligned_params(), complete(wrong_tiles), nullptr, 0, nullptr, options) ==
        cudaErrorInvalidConfiguration);
  vb::VerifyParams block = aligned_params();  // kv_indptr gives no lengths in the block form
  block.page_kind = vb::PageTableKind::kBlockTable;
  block.block_table = fake<const std::int32_t>(0x90000);
  block.page_size = 16;
  block.max_pages = 4;
  CHECK(vb::flash_verify_launch(block, complete(wrong_tiles), nullptr, 0, nullptr) == cudaErrorInvalidConfiguration);
  CHECK(vb::flash_verify_launch(block, complete(wrong_tiles), nullptr, 0, nullptr, options) == cudaErrorInvalidValue);
}

TEST_CASE("the launcher runs a tile-balanced plan made under a raised balance_max_blocks", "[launcher]") {
  // One 2M-token request beside a short one, on a target whose SMs hold 16 main blocks: the
  // tile-balanced plan takes as many blocks as balance_max_blocks allows. The launcher checks a
  // plan against what the plan says, not against the planner's default setting.
  const std::vector<int> kv_lens = {2'000'000, 1'000};
  const vb::PlanShape shape = vb::plan_shape(kv_lens, 3, 8, vb::PageTableKind::kTokenIndices, 1, 4'000'000);
  vb::DeviceTarget wide;
  wide.num_sms = 132;
  wide.main_blocks_per_sm = 16;
  wide.smem_optin_bytes = 227 * 1024;
  vb::PlannerConfig raised;
  std::string error;
  REQUIRE(vb::set_planner_option(&raised, "balance_max_blocks", "2048", &error));
  const vb::LaunchPlan by_default = vb::make_launch_plan(shape, wide);
  const vb::LaunchPlan plan = vb::make_launch_plan(shape, wide, raised);
  REQUIRE(by_default.schedule.tile_balanced);
  REQUIRE(by_default.schedule.num_splits <= vb::PlannerConfig{}.balance_max_blocks);
  REQUIRE(plan.valid);
  REQUIRE(plan.schedule.tile_balanced);
  REQUIRE(plan.schedule.num_splits > vb::PlannerConfig{}.balance_max_blocks);
  REQUIRE(plan.schedule.num_splits <= 2048);

  vb::VerifyParams p = aligned_params();
  p.batch = 2;
  // The plan passes the launcher's plan check: what stops the call (on the host) is the
  // workspace it needs and was not given, cudaErrorInvalidValue, not a refused plan.
  CHECK(vb::flash_verify_launch(p, plan, nullptr, 0, nullptr) == cudaErrorInvalidValue);
  CHECK(vb::flash_verify_launch(p, by_default, nullptr, 0, nullptr) == cudaErrorInvalidValue);
  // Past the grid's y dimension no plan runs.
  vb::SplitSchedule past_grid = plan.schedule;
  past_grid.num_splits = vb::kMaxBalancedBlocks + 1;
  const vb::LaunchPlan too_wide = vb::complete_launch_plan(past_grid, shape, wide, raised);
  REQUIRE(too_wide.valid);
  CHECK(vb::flash_verify_launch(p, too_wide, nullptr, 0, nullptr) == cudaErrorInvalidConfiguration);
  CHECK_FALSE(vb::set_planner_option(&raised, "balance_max_blocks", std::to_string(vb::kMaxBalancedBlocks + 1), &error));
}

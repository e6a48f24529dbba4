// The phase-timeline arithmetic of `verifybench profile --timeline` (harness/measure/timeline_summary.h)
// on synthetic stamps whose every figure is known, and the CLI's refusal on a build without
// the timeline.
#include <catch2/catch.hpp>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/measure/timeline_summary.h"

namespace {

using vb::FlashVerifyTimeline;
using vb::FlashVerifyTimelineBlock;

// A main block entering at `entry` ns whose phases take fixed times; `tiles` of 1 µs each; its
// SM counting `mhz` cycles a µs from an arbitrary start.
FlashVerifyTimelineBlock main_block(int block, int sm, std::uint64_t entry, int tiles, double mhz = 1980.0) {
  FlashVerifyTimelineBlock b{};
  b.block = block;
  b.sm = sm;
  b.tiles = tiles;
  b.t_ns[vb::kTimelineEntry] = entry;
  b.t_ns[vb::kTimelineWorkKnown] = entry + 800;
  b.t_ns[vb::kTimelineQReady] = entry + 1200;
  b.t_ns[vb::kTimelineTableIn] = entry + 1400;
  b.t_ns[vb::kTimelineFirstIssue] = entry + 1600;
  b.t_ns[vb::kTimelineFirstTile] = entry + 2600;
  b.t_ns[vb::kTimelineTilesDone] = entry + 2600 + 1000ull * tiles;
  b.t_ns[vb::kTimelineEnd] = b.t_ns[vb::kTimelineTilesDone] + 700;
  b.clock_entry = 123456789;
  b.clock_end = b.clock_entry + static_cast<std::uint64_t>((b.t_ns[vb::kTimelineEnd] - entry) * mhz / 1000.0);
  return b;
}

FlashVerifyTimelineBlock combine_block(int block, std::uint64_t entry, std::uint64_t grid_done, std::uint64_t end) {
  FlashVerifyTimelineBlock b{};
  b.block = block;
  b.t_ns[vb::kTimelineCombineEntry] = entry;
  b.t_ns[vb::kTimelineCombineGridDone] = grid_done;
  b.t_ns[vb::kTimelineCombineEnd] = end;
  // Loads issued 0.2 us and merged 0.6 us past the grid wait (a finalized row's block, which
  // loads nothing, still passes both).
  b.t_ns[vb::kTimelineCombineLoadsIssued] = grid_done + 200;
  b.t_ns[vb::kTimelineCombineMerged] = grid_done + 600;
  return b;
}

// Three working blocks (entries 1.0, 1.5, 2.0 µs; 4, 4, 8 tiles; the third at 1620 MHz, the
// others at 1980) and one empty split that returned at its entry (3.0 µs). Ends:
// 1.0+2.6+4+0.7 = 8.3, 8.8, 13.3 µs.
FlashVerifyTimeline sample_timeline() {
  FlashVerifyTimeline t;
  t.main = {main_block(0, 10, 1000, 4), main_block(1, 11, 1500, 4), main_block(2, 12, 2000, 8, 1620.0)};
  FlashVerifyTimelineBlock empty{};
  empty.block = 3;
  empty.sm = 10;
  empty.t_ns[vb::kTimelineEntry] = 3000;
  t.main.push_back(empty);
  t.combine = {combine_block(0, 4000, 14300, 15300), combine_block(1, 5000, 14500, 16500)};
  return t;
}

}  // namespace

TEST_CASE("timeline summary: per-block phases, grid spans, imbalance and the combine", "[timeline]") {
  const vb::TimelineSummary s = vb::summarize_timeline(sample_timeline());
  CHECK(s.main_blocks == 4);
  CHECK(s.main_sms == 3);
  CHECK(s.combine_blocks == 2);
  CHECK(s.median_tiles == 4);  // tiles 4, 4, 8 and the empty split's 0: median of {0,4,4,8}
  CHECK(s.max_tiles == 8);
  CHECK(s.dispatch_spread_us == Approx(2.0));  // entries 1.0 .. 3.0
  // Only the three working blocks reached these stamps.
  CHECK(s.to_work_known.count == 3);
  CHECK(s.to_work_known.median_us == Approx(0.8));
  CHECK(s.to_q_ready.median_us == Approx(1.2));
  CHECK(s.to_table_in.median_us == Approx(1.4));
  CHECK(s.to_first_issue.median_us == Approx(1.6));
  CHECK(s.to_first_tile.max_us == Approx(2.6));
  CHECK(s.per_tile.count == 3);
  CHECK(s.per_tile.median_us == Approx(1.0));
  CHECK(s.epilogue.median_us == Approx(0.7));
  CHECK(s.lifetime.median_us == Approx(7.3));
  CHECK(s.lifetime.max_us == Approx(11.3));
  // The clock: the three blocks that reached their end, not the empty split.
  CHECK(s.sm_clock.count == 3);
  CHECK(s.sm_clock.median_mhz == Approx(1980.0).epsilon(1e-3));
  CHECK(s.sm_clock.min_mhz == Approx(1620.0).epsilon(1e-3));
  CHECK(s.main_span_us == Approx(12.3));  // 1.0 -> 13.3
  // Ends after the first entry: 7.3, 7.8, 12.3 and the empty split's 2.0: median 7.55.
  CHECK(s.slowest_end_minus_median_end_us == Approx(12.3 - 7.55));
  CHECK(s.combine_first_entry_us == Approx(3.0));
  CHECK(s.combine_wait_after_main_us == Approx(1.0));  // 13.3 -> 14.3
  CHECK(s.combine_after_wait.median_us == Approx(1.5));  // 1.0 and 2.0
  CHECK(s.combine_after_wait.max_us == Approx(2.0));
  CHECK(s.combine_to_loads_issued.count == 2);
  CHECK(s.combine_to_loads_issued.median_us == Approx(0.2));
  CHECK(s.combine_to_merged.max_us == Approx(0.6));
  CHECK(s.combine_tail_us == Approx(3.2));  // 13.3 -> 16.5
  CHECK(s.device_span_us == Approx(15.5));
}

TEST_CASE("timeline summary: no combine, and no main block is refused", "[timeline]") {
  FlashVerifyTimeline t = sample_timeline();
  t.combine.clear();
  const vb::TimelineSummary s = vb::summarize_timeline(t);
  CHECK(s.combine_blocks == 0);
  CHECK(s.device_span_us == Approx(12.3));
  CHECK(vb::format_timeline_summary(s, 20.0).find("combine: none") != std::string::npos);
  CHECK_THROWS_AS(vb::summarize_timeline(FlashVerifyTimeline{}), std::invalid_argument);
  CHECK_THROWS_AS(vb::median_timeline_summary({}), std::invalid_argument);
}

TEST_CASE("timeline summary: medians over launches, field by field", "[timeline]") {
  FlashVerifyTimeline slow = sample_timeline();
  for (FlashVerifyTimelineBlock& b : slow.main) b.t_ns[vb::kTimelineWorkKnown] += b.t_ns[vb::kTimelineWorkKnown] ? 1000 : 0;
  const vb::TimelineSummary fast_s = vb::summarize_timeline(sample_timeline());
  const vb::TimelineSummary slow_s = vb::summarize_timeline(slow);
  CHECK(slow_s.to_work_known.median_us == Approx(1.8));
  const vb::TimelineSummary m = vb::median_timeline_summary({fast_s, slow_s, slow_s});
  CHECK(m.to_work_known.median_us == Approx(1.8));
  CHECK(m.per_tile.median_us == Approx(1.0));
  CHECK(m.main_blocks == 4);
  CHECK(m.sm_clock.min_mhz == Approx(1620.0).epsilon(1e-3));
}

TEST_CASE("timeline summary: no clock where no block reached its end or the counter did not move", "[timeline]") {
  FlashVerifyTimeline t = sample_timeline();
  for (FlashVerifyTimelineBlock& b : t.main) b.clock_end = b.clock_entry;  // a counter that did not move
  const vb::TimelineSummary s = vb::summarize_timeline(t);
  CHECK(s.sm_clock.count == 0);
  const std::string text = vb::format_timeline_summary(s, 20.0);
  const std::size_t at = text.find("SM clock over a block's lifetime");
  REQUIRE(at != std::string::npos);
  CHECK(text.substr(at, text.find('\n', at) - at).find("not reached") != std::string::npos);
}

TEST_CASE("timeline CSV: one row per recorded block, stamps after the launch's first entry", "[timeline]") {
  const std::string csv = vb::timeline_csv({sample_timeline()});
  CHECK(csv.rfind("launch,kernel,block,sm,tiles,t0_us,t1_us,t2_us,t3_us,t4_us,t5_us,t6_us,t7_us,sm_clock_mhz\n", 0) == 0);
  CHECK(csv.find("\n0,main,0,10,4,0.000,0.800,1.600,1.200,2.600,6.600,7.300,1.400,1980.0\n") != std::string::npos);
  // The empty split: only its entry; stamps it never reached stay empty.
  CHECK(csv.find("\n0,main,3,10,0,2.000,,,,,,,,\n") != std::string::npos);
  CHECK(csv.find("\n0,combine,1,0,0,4.000,13.500,15.500,13.700,14.100,,,,\n") != std::string::npos);
}

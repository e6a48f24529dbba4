// What one launch's phase timeline says (verifybench profile --timeline, on a build with
// -DVB_DEBUG_TIMELINE=1): where the fixed cost of a launch goes, per block and across the
// grid. Pure arithmetic on the stamps the kernels recorded; no device calls.
#pragma once
#include <string>
#include <vector>

#include "verifybench/kernels.h"

namespace vb {

// A figure over the blocks that reached both of its stamps (µs); count 0 when none did.
struct TimelineFigure {
  int count = 0;
  double median_us = 0, max_us = 0;
};

// The SM clock of the main blocks that reached their end: cycles / ns over each block's
// lifetime (entry -> last store), in MHz; count 0 when none did.
struct TimelineClock {
  int count = 0;
  double median_mhz = 0, min_mhz = 0;
};

struct TimelineSummary {
  int main_blocks = 0, main_sms = 0, combine_blocks = 0;
  int median_tiles = 0, max_tiles = 0;
  double dispatch_spread_us = 0;  // first to last main-block entry
  // Per main block, from its entry.
  TimelineFigure to_work_known, to_first_issue, to_q_ready, to_first_tile, lifetime;
  TimelineFigure to_table_in;  // entry -> a producer holds its first tile's page-table words
  TimelineFigure per_tile;  // (loop done - first tile landed) / tiles
  TimelineFigure epilogue;  // loop done -> last store issued
  TimelineClock sm_clock;   // the clock the blocks ran at
  double main_span_us = 0;  // first main entry -> last main end
  double slowest_end_minus_median_end_us = 0;  // imbalance: the last block's end after the median block's
  // Combine (0 when there is none), relative to the main grid.
  double combine_first_entry_us = 0;   // first main entry -> first combine entry
  double combine_wait_after_main_us = 0;  // last main end -> first combine block past its grid wait
  TimelineFigure combine_after_wait;   // per combine block: grid wait done -> end
  TimelineFigure combine_to_loads_issued;  // per combine block: grid wait done -> first loads issued
  TimelineFigure combine_to_merged;        // per combine block: grid wait done -> those partials merged
  double combine_tail_us = 0;          // last main end -> last combine end
  double device_span_us = 0;           // first main entry -> last end of either kernel
};

// Throws std::invalid_argument when the timeline holds no main-kernel block.
TimelineSummary summarize_timeline(const FlashVerifyTimeline& timeline);

// The per-launch summaries' medians, field by field (launches of the same case).
TimelineSummary median_timeline_summary(const std::vector<TimelineSummary>& launches);

// Readable lines: one figure per line, `event_us` (the launch's host-event time) first.
std::string format_timeline_summary(const TimelineSummary& s, double event_us);

// CSV of every recorded block of every launch: launch, kernel, block, sm, tiles, then the
// stamps in µs after that launch's first main-block entry (empty where not reached), then the
// block's SM clock in MHz over its lifetime (main blocks that reached their end; else empty).
std::string timeline_csv(const std::vector<FlashVerifyTimeline>& launches);

}  // namespace vb

// Phase-timeline arithmetic for `verifybench profile --timeline` (harness/measure/timeline_summary.h).
#include "harness/measure/timeline_summary.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/measure/statistics.h"
#include "harness/measure/clock_rate.h"

namespace vb {
namespace {

constexpr double kNsPerUs = 1000.0;

bool reached(const FlashVerifyTimelineBlock& b, int stamp) { return b.t_ns[stamp] != 0; }

// Microseconds from stamp `from` to stamp `to` of every block that reached both.
TimelineFigure figure(const std::vector<FlashVerifyTimelineBlock>& blocks, int from, int to,
                      bool per_tile = false) {
  std::vector<double> us;
  for (const FlashVerifyTimelineBlock& b : blocks) {
    if (!reached(b, from) || !reached(b, to) || b.t_ns[to] < b.t_ns[from]) continue;
    if (per_tile && b.tiles <= 0) continue;
    double d = static_cast<double>(b.t_ns[to] - b.t_ns[from]) / kNsPerUs;
    if (per_tile) d /= b.tiles;
    us.push_back(d);
  }
  TimelineFigure f;
  f.count = static_cast<int>(us.size());
  if (us.empty()) return f;
  f.median_us = median_of(us);
  f.max_us = *std::max_element(us.begin(), us.end());
  return f;
}

std::uint64_t earliest(const std::vector<FlashVerifyTimelineBlock>& blocks, int stamp) {
  std::uint64_t t = 0;
  for (const FlashVerifyTimelineBlock& b : blocks) {
    if (reached(b, stamp) && (t == 0 || b.t_ns[stamp] < t)) t = b.t_ns[stamp];
  }
  return t;
}

std::uint64_t latest(const std::vector<FlashVerifyTimelineBlock>& blocks, int stamp) {
  std::uint64_t t = 0;
  for (const FlashVerifyTimelineBlock& b : blocks) {
    if (reached(b, stamp)) t = std::max(t, b.t_ns[stamp]);
  }
  return t;
}

// The main block's last stamp: its end, or its entry for a block that returned at once
// (an empty split).
std::uint64_t main_end(const FlashVerifyTimelineBlock& b) {
  return reached(b, kTimelineEnd) ? b.t_ns[kTimelineEnd] : b.t_ns[kTimelineEntry];
}

// The SM clock over a main block's lifetime in MHz (cycles per µs), 0 where it did not reach
// its end or its stamps are not ordered.
double block_clock_mhz(const FlashVerifyTimelineBlock& b) {
  return reached(b, kTimelineEnd) ? clock_mhz(b.clock_entry, b.clock_end, b.t_ns[kTimelineEntry], b.t_ns[kTimelineEnd])
                                  : 0.0;
}

TimelineClock clock_figure(const std::vector<FlashVerifyTimelineBlock>& blocks) {
  std::vector<double> mhz;
  for (const FlashVerifyTimelineBlock& b : blocks) {
    if (const double f = block_clock_mhz(b); f > 0) mhz.push_back(f);
  }
  TimelineClock c;
  c.count = static_cast<int>(mhz.size());
  if (mhz.empty()) return c;
  c.median_mhz = median_of(mhz);
  c.min_mhz = *std::min_element(mhz.begin(), mhz.end());
  return c;
}

double us_between(std::uint64_t from, std::uint64_t to) {
  return to > from ? static_cast<double>(to - from) / kNsPerUs : 0.0;
}

}  // namespace

TimelineSummary summarize_timeline(const FlashVerifyTimeline& t) {
  if (t.main.empty()) throw std::invalid_argument("the timeline holds no main-kernel block");
  TimelineSummary s;
  s.main_blocks = static_cast<int>(t.main.size());
  s.combine_blocks = static_cast<int>(t.combine.size());
  std::set<int> sms;
  std::vector<double> tiles, ends;
  std::uint64_t last_end = 0;
  for (const FlashVerifyTimelineBlock& b : t.main) {
    sms.insert(b.sm);
    tiles.push_back(b.tiles);
    last_end = std::max(last_end, main_end(b));
  }
  s.main_sms = static_cast<int>(sms.size());
  s.median_tiles = static_cast<int>(median_of(tiles));
  s.max_tiles = static_cast<int>(*std::max_element(tiles.begin(), tiles.end()));
  const std::uint64_t first_entry = earliest(t.main, kTimelineEntry);
  s.dispatch_spread_us = us_between(first_entry, latest(t.main, kTimelineEntry));
  s.to_work_known = figure(t.main, kTimelineEntry, kTimelineWorkKnown);
  s.to_table_in = figure(t.main, kTimelineEntry, kTimelineTableIn);
  s.to_first_issue = figure(t.main, kTimelineEntry, kTimelineFirstIssue);
  s.to_q_ready = figure(t.main, kTimelineEntry, kTimelineQReady);
  s.to_first_tile = figure(t.main, kTimelineEntry, kTimelineFirstTile);
  s.lifetime = figure(t.main, kTimelineEntry, kTimelineEnd);
  s.per_tile = figure(t.main, kTimelineFirstTile, kTimelineTilesDone, /*per_tile=*/true);
  s.epilogue = figure(t.main, kTimelineTilesDone, kTimelineEnd);
  s.sm_clock = clock_figure(t.main);
  s.main_span_us = us_between(first_entry, last_end);
  for (const FlashVerifyTimelineBlock& b : t.main) ends.push_back(us_between(first_entry, main_end(b)));
  s.slowest_end_minus_median_end_us = s.main_span_us - median_of(ends);
  std::uint64_t device_end = last_end;
  if (!t.combine.empty()) {
    s.combine_first_entry_us = us_between(first_entry, earliest(t.combine, kTimelineCombineEntry));
    s.combine_wait_after_main_us = us_between(last_end, earliest(t.combine, kTimelineCombineGridDone));
    s.combine_after_wait = figure(t.combine, kTimelineCombineGridDone, kTimelineCombineEnd);
    s.combine_to_loads_issued = figure(t.combine, kTimelineCombineGridDone, kTimelineCombineLoadsIssued);
    s.combine_to_merged = figure(t.combine, kTimelineCombineGridDone, kTimelineCombineMerged);
    const std::uint64_t combine_end = latest(t.combine, kTimelineCombineEnd);
    s.combine_tail_us = us_between(last_end, combine_end);
    device_end = std::max(device_end, combine_end);
  }
  s.device_span_us = us_between(first_entry, device_end);
  return s;
}

TimelineSummary median_timeline_summary(const std::vector<TimelineSummary>& launches) {
  if (launches.empty()) throw std::invalid_argument("no launch to summarise");
  auto med = [&](auto field) {
    std::vector<double> v;
    for (const TimelineSummary& s : launches) v.push_back(static_cast<double>(field(s)));
    return median_of(v);
  };
  TimelineSummary m;
  for (int TimelineSummary::*f : {&TimelineSummary::main_blocks, &TimelineSummary::main_sms,
                                  &TimelineSummary::combine_blocks, &TimelineSummary::median_tiles,
                                  &TimelineSummary::max_tiles}) {
    m.*f = static_cast<int>(med([f](const TimelineSummary& s) { return s.*f; }));
  }
  for (double TimelineSummary::*f :
       {&TimelineSummary::dispatch_spread_us, &TimelineSummary::main_span_us,
        &TimelineSummary::slowest_end_minus_median_end_us, &TimelineSummary::combine_first_entry_us,
        &TimelineSummary::combine_wait_after_main_us, &TimelineSummary::combine_tail_us,
        &TimelineSummary::device_span_us}) {
    m.*f = med([f](const TimelineSummary& s) { return s.*f; });
  }
  for (TimelineFigure TimelineSummary::*f :
       {&TimelineSummary::to_work_known, &TimelineSummary::to_table_in, &TimelineSummary::to_first_issue,
        &TimelineSummary::to_q_ready,
        &TimelineSummary::to_first_tile, &TimelineSummary::lifetime, &TimelineSummary::per_tile,
        &TimelineSummary::epilogue, &TimelineSummary::combine_after_wait, &TimelineSummary::combine_to_loads_issued,
        &TimelineSummary::combine_to_merged}) {
    (m.*f).count = static_cast<int>(med([f](const TimelineSummary& s) { return (s.*f).count; }));
    (m.*f).median_us = med([f](const TimelineSummary& s) { return (s.*f).median_us; });
    (m.*f).max_us = med([f](const TimelineSummary& s) { return (s.*f).max_us; });
  }
  m.sm_clock.count = static_cast<int>(med([](const TimelineSummary& s) { return s.sm_clock.count; }));
  m.sm_clock.median_mhz = med([](const TimelineSummary& s) { return s.sm_clock.median_mhz; });
  m.sm_clock.min_mhz = med([](const TimelineSummary& s) { return s.sm_clock.min_mhz; });
  return m;
}

std::string format_timeline_summary(const TimelineSummary& s, double event_us) {
  std::string out;
  auto line = [&](const std::string& what, const std::string& value) {
    out += fmt::format("  {:<52} {}\n", what, value);
  };
  auto fig = [](const TimelineFigure& f) {
    return f.count == 0 ? std::string("not reached")
                        : fmt::format("median {:7.2f}  max {:7.2f} us  ({} blocks)", f.median_us, f.max_us, f.count);
  };
  line("host events around the launch", fmt::format("{:.2f} us", event_us));
  line("device span (first block entry -> last block end)", fmt::format("{:.2f} us", s.device_span_us));
  out += fmt::format("main kernel: {} blocks on {} SMs, tiles per block median {} max {}\n", s.main_blocks,
                     s.main_sms, s.median_tiles, s.max_tiles);
  line("first -> last block entry (dispatch)", fmt::format("{:.2f} us", s.dispatch_spread_us));
  line("entry -> length loaded (split range known)", fig(s.to_work_known));
  line("entry -> first page-table words in", fig(s.to_table_in));
  line("entry -> first KV copies issued (table word in)", fig(s.to_first_issue));
  line("entry -> Q in registers", fig(s.to_q_ready));
  line("entry -> first KV tile landed", fig(s.to_first_tile));
  line("per tile (first landed -> loop done) / tiles", fig(s.per_tile));
  line("loop done -> last store issued (epilogue)", fig(s.epilogue));
  line("block lifetime (entry -> last store)", fig(s.lifetime));
  line("SM clock over a block's lifetime (cycles / ns)",
       s.sm_clock.count == 0 ? std::string("not reached")
                             : fmt::format("median {:7.0f}  min {:7.0f} MHz  ({} blocks)", s.sm_clock.median_mhz,
                                           s.sm_clock.min_mhz, s.sm_clock.count));
  line("first entry -> last block end", fmt::format("{:.2f} us", s.main_span_us));
  line("last block end - median block end (imbalance)", fmt::format("{:.2f} us", s.slowest_end_minus_median_end_us));
  if (s.combine_blocks == 0) {
    out += "combine: none (one split)\n";
    return out;
  }
  out += fmt::format("combine: {} blocks\n", s.combine_blocks);
  line("first main entry -> first combine entry", fmt::format("{:.2f} us", s.combine_first_entry_us));
  line("last main end -> first combine past its grid wait", fmt::format("{:.2f} us", s.combine_wait_after_main_us));
  line("per block: grid wait done -> first loads issued", fig(s.combine_to_loads_issued));
  line("per block: grid wait done -> first partials merged", fig(s.combine_to_merged));
  line("per block: grid wait done -> end", fig(s.combine_after_wait));
  line("last main end -> last combine end", fmt::format("{:.2f} us", s.combine_tail_us));
  return out;
}

std::string timeline_csv(const std::vector<FlashVerifyTimeline>& launches) {
  std::string out = "launch,kernel,block,sm,tiles";
  for (int i = 0; i < kTimelineStamps; ++i) out += fmt::format(",t{}_us", i);
  out += ",sm_clock_mhz\n";
  for (std::size_t l = 0; l < launches.size(); ++l) {
    const std::uint64_t t0 = earliest(launches[l].main, kTimelineEntry);
    auto rows = [&](const std::vector<FlashVerifyTimelineBlock>& blocks, const char* kernel) {
      for (const FlashVerifyTimelineBlock& b : blocks) {
        out += fmt::format("{},{},{},{},{}", l, kernel, b.block, b.sm, b.tiles);
        for (int i = 0; i < kTimelineStamps; ++i) {
          out += b.t_ns[i] == 0 ? std::string(",")
                                : fmt::format(",{:.3f}", (static_cast<double>(b.t_ns[i]) - static_cast<double>(t0)) / kNsPerUs);
        }
        const double mhz = block_clock_mhz(b);
        out += mhz > 0 ? fmt::format(",{:.1f}\n", mhz) : std::string(",\n");
      }
    };
    rows(launches[l].main, "main");
    rows(launches[l].combine, "combine");
  }
  return out;
}

}  // namespace vb

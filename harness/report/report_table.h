// Plain-text writers over CaseResult records: the per-case table and the summary printed on
// stdout by `verifybench run`, plus the small column formatter `verifybench list` uses.
#pragma once
#include <string>
#include <vector>

#include "harness/record/gpu_info.h"
#include "harness/record/result.h"

namespace vb {

// Columns padded to the widest cell; right-aligned columns for numbers. Two spaces between
// columns, no trailing spaces.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header, std::vector<bool> right_aligned = {});
  void add_row(std::vector<std::string> cells);
  std::string render() const;

 private:
  std::vector<std::vector<std::string>> rows_;  // rows_[0] is the header
  std::vector<bool> right_;
};

// One line per executor record (the CPU reference shows as the "ref ms" / "ref rows"
// columns of the case's first line): outcome, max |dO|, max |dLSE|, and where it failed.
std::string format_case_table(const std::vector<CaseResult>& cases);

// "summary: ..." counts, "GPU executors skipped: <reason>" when there is no device, and the
// reproducer of every case that did not pass.
std::string format_summary(const std::vector<CaseResult>& cases, const GpuInfo& gpu);

// One line per timed executor record: median per mode (µs), noise, GB/s, TFLOP/s, % of the
// attainable ceiling; "" when nothing was timed.
std::string format_timing_table(const std::vector<CaseResult>& cases);

// The run's ceilings on one line, as result.json names them: "ceilings: ..." with the 1152-
// and 576-byte row reads (in order, page 1 shuffled), the copy and mma.sync; where measured,
// the datasheet memory bandwidth, mma.sync fp8 and sm_120's emulated rates (with their FLOP per
// clock and SM beside sm_120's).
std::string format_ceilings_text(const Ceilings& c);

// "O[request 0, node 3, head 5, channel 17] expected 0.125 got nan" (LSE: no channel).
std::string format_worst(const char* what, const ErrorStats& stats);

}  // namespace vb

// Sample statistics of the timing engine and the comparison: pure, tested on the CPU.
//
//   percentiles  linear interpolation between order statistics (p = q*(n-1), "type 7")
//   rel_noise    relative standard error of the median:
//                  sigma_hat = (p90 - p10) / 2.5631    (robust sigma: p90-p10 = 2.5631 sigma
//                                                       for a normal distribution)
//                  se_median = 1.2533 * sigma_hat / sqrt(n)   (asymptotic SE of a median)
//                  rel_noise = se_median / median
//                It shrinks as samples accumulate, so a target is reachable for any stable
//                kernel; it is +inf for fewer than 3 samples.
#pragma once
#include <string>
#include <vector>

#include "harness/record/result.h"

namespace vb {

struct SampleStats {
  int n = 0;
  double median = 0, min = 0, max = 0, p10 = 0, p90 = 0;
  double rel_noise = 0;
};
// q in [0, 1]; `sorted` ascending and non-empty.
double percentile_sorted(const std::vector<double>& sorted, double q);
double relative_noise(double p10, double p90, double median, int n);
SampleStats summarize(const std::vector<double>& samples);
// Fills a record's median, min, max, p10, p90 and relative noise from its samples_ms.
void fill_sample_stats(TimingRecord* rec);

// The median of `samples` (mean of the two middle values for an even count); 0 if empty.
double median_of(std::vector<double> samples);
// The same, reordering `samples` instead of copying them (the bootstrap's resample buffers).
double median_in_place(std::vector<double>& samples);

}  // namespace vb

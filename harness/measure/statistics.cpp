#include "harness/measure/statistics.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace vb {

double percentile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

double relative_noise(double p10, double p90, double median, int n) {
  if (n < 3 || !(median > 0)) return std::numeric_limits<double>::infinity();
  constexpr double kP10P90InSigmas = 2.5631;  // 2 * 1.28155
  constexpr double kMedianSeFactor = 1.2533;  // sqrt(pi / 2)
  const double sigma = (p90 - p10) / kP10P90InSigmas;
  return kMedianSeFactor * sigma / std::sqrt(static_cast<double>(n)) / median;
}

SampleStats summarize(const std::vector<double>& samples) {
  SampleStats s;
  s.n = static_cast<int>(samples.size());
  if (samples.empty()) {
    s.rel_noise = std::numeric_limits<double>::infinity();
    return s;
  }
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = percentile_sorted(sorted, 0.5);
  s.p10 = percentile_sorted(sorted, 0.1);
  s.p90 = percentile_sorted(sorted, 0.9);
  s.rel_noise = relative_noise(s.p10, s.p90, s.median, s.n);
  return s;
}

void fill_sample_stats(TimingRecord* rec) {
  const SampleStats s = summarize(rec->samples_ms);
  rec->median_ms = s.median;
  rec->min_ms = s.min;
  rec->max_ms = s.max;
  rec->p10_ms = s.p10;
  rec->p90_ms = s.p90;
  rec->rel_noise = s.rel_noise;
}

double median_of(std::vector<double> v) { return median_in_place(v); }

double median_in_place(std::vector<double>& v) {
  if (v.empty()) return 0;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower_v = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return 0.5 * (lower_v + upper);
}

}  // namespace vb

// What a scenario's spec implies before anything is built: the YAML validation
// (scenario_yaml.cpp) and the problem builder (harness/problem/) both read these.
#include <cstdint>

#include "harness/scenario/scenario.h"
#include "verifybench/verify_params.h"

namespace vb {

std::int64_t full_tree_nodes(int k, int depth, std::int64_t cap) {
  std::int64_t total = 1, level = 1;
  for (int d = 1; d <= depth; ++d) {
    level *= k;
    total += level;
    if (level > cap || total > cap) return -1;
  }
  return total;
}

double data_value_magnitude(const DataSpec& d) {
  switch (d.dist) {
    case DataDist::kNormal: return 4.0 * d.scale;
    default: return 1.0;  // outlier channels: their own tolerance scale (default_tolerance)
  }
}

std::uint64_t fnv1a64(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const char ch : text) {
    h ^= static_cast<unsigned char>(ch);
    h *= 0x100000001b3ull;
  }
  return h;
}

ToleranceSpec default_tolerance(const DataSpec& d) {
  ToleranceSpec t;
  t.o_atol *= data_value_magnitude(d);
  if (d.dist == DataDist::kOutlierChannels) {
    for (const int c : d.outlier_channels) {
      if (c < mla::kHeadDimV) t.o_wide_channels.push_back(c);
    }
    t.o_wide_channel_scale = d.outlier_factor;
  }
  return t;
}

}  // namespace vb

// An SM clock from two readings of the SM's cycle counter and of the GPU's global timer (ns):
// the one arithmetic behind the ceiling probes' clock (ceilings.cpp) and the timeline's
// per-block clock (timeline_summary.cpp).
#pragma once
#include <cstdint>

namespace vb {

// Cycles per microsecond (MHz) between the two readings; 0 when either pair is not ordered.
inline double clock_mhz(std::uint64_t cycles_from, std::uint64_t cycles_to, std::uint64_t ns_from,
                        std::uint64_t ns_to) {
  if (cycles_to <= cycles_from || ns_to <= ns_from) return 0.0;
  return static_cast<double>(cycles_to - cycles_from) * 1e3 / static_cast<double>(ns_to - ns_from);
}

}  // namespace vb

#include "harness/measure/timing_json.h"

#include <cmath>

namespace vb {

using json = nlohmann::ordered_json;

json json_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}

json json_optional_number(const std::optional<double>& v) { return v ? json_number(*v) : json(nullptr); }

json to_json(const TimingRecord& t) {
  json samples = json::array();
  for (double v : t.samples_ms) samples.push_back(json_number(v));
  return json{{"mode", t.mode},
              {"samples_ms", samples},
              {"median_ms", json_number(t.median_ms)},
              {"min_ms", json_number(t.min_ms)},
              {"max_ms", json_number(t.max_ms)},
              {"p10_ms", json_number(t.p10_ms)},
              {"p90_ms", json_number(t.p90_ms)},
              {"rel_noise", json_number(t.rel_noise)},
              {"stop_reason", t.stop_reason},
              {"sm_clock_mhz_median", json_optional_number(t.sm_clock_mhz_median)},
              {"temperature_c_max", json_optional_number(t.temperature_c_max)},
              {"memory_temperature_c_min", json_optional_number(t.memory_temperature_c_min)},
              {"memory_temperature_c_max", json_optional_number(t.memory_temperature_c_max)},
              {"throttled", t.throttled}};
}

}  // namespace vb

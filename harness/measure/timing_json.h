// One timing record as result.json writes it: the one writer for the reports
// (harness/report/report_json.cpp) and the peers runner's timer library
// (ops/bench/verifybench_timing.cpp), whose records are merged into the same reports.
#pragma once
#include <optional>

#include <nlohmann/json.hpp>

#include "harness/record/result.h"

namespace vb {

// A number as result.json stores it: non-finite values as "nan", "inf", "-inf" (JSON has none).
nlohmann::ordered_json json_number(double v);
nlohmann::ordered_json json_optional_number(const std::optional<double>& v);  // null when absent
nlohmann::ordered_json to_json(const TimingRecord& timing);

}  // namespace vb

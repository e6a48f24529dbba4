// results.csv: one row per (case, executor record, timing mode); a record without timings
// gets one row with an empty mode. RFC 4180 quoting.
#pragma once
#include <string>
#include <vector>

#include "harness/record/result.h"

namespace vb {

std::string csv_field(const std::string& text);
std::string format_csv(const std::vector<CaseResult>& cases);

}  // namespace vb

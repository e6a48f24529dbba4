// results.csv: one row per (case, executor record, timing mode); a record without timings
// gets one row with an empty mode. RFC 4180 quoting. The columns are one list
// (report_csv.cpp, csv_columns(), through report_columns.h).
#pragma once
#include <string>
#include <vector>

#include "harness/record/result.h"
#include "harness/report/report_columns.h"  // csv_field

namespace vb {

std::string format_csv(const std::vector<CaseResult>& cases);

}  // namespace vb

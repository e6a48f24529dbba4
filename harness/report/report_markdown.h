// Markdown, CSV and roofline-SVG writers over the same result records as the JSON file.
// Writers only: every number they print was computed by the runner / traffic model.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "harness/report/report_json.h"
#include "harness/record/result.h"

namespace vb {

// summary.md: provenance, ceilings (with how each was measured), one table row per timed
// executor record (or the reason timing did not run), speedups, mask tax, failures.
std::string format_markdown(const Provenance& provenance, const std::optional<Ceilings>& ceilings,
                            const std::vector<CaseResult>& cases);

}  // namespace vb

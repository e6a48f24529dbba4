// roofline.svg: log-log roofline written by hand. x: arithmetic intensity (FLOP per
// algorithmic byte), y: TFLOP/s. Lines: the memory ceilings (shuffled rows, contiguous rows)
// and the mma.sync ceiling; points: each timed executor record at its achieved rate,
// coloured by executor and labelled with the case name.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "harness/record/result.h"

namespace vb {

std::string format_roofline_svg(const std::optional<Ceilings>& ceilings,
                                const std::vector<CaseResult>& cases, const std::string& title);

}  // namespace vb

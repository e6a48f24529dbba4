// fp8 KV against bf16 KV: each fp8 case of a run beside its bf16 twin in the same run, in
// summary.md ("fp8 KV against bf16 KV") and fp8_twins.csv.
//
// Twins: an fp8 case (kv_cache fp8_e4m3) and a bf16 case whose scenario is the fp8 case's
// scenario without its `_fp8` suffix, at the same sweep point (the case name after the
// scenario name, a `math=` sweep value aside: a bf16 case may have a twin of each math), with the same batch, tree size, heads, page size, KV tokens and FLOPs.
// result.json holds no seed or data, so the name links the two and the shape checks the link:
// a bf16 case of that name but another shape is no twin.
#pragma once
#include <string>
#include <vector>

#include "harness/record/result.h"

namespace vb {

inline constexpr const char* kFp8TwinSuffix = "_fp8";

struct Fp8TwinPair {
  const CaseResult* bf16 = nullptr;
  const CaseResult* fp8 = nullptr;
};
// The run's twin pairs, in the fp8 cases' order.
std::vector<Fp8TwinPair> fp8_twin_pairs(const std::vector<CaseResult>& cases);

// summary.md's section: one row per pair and executor timed in the same mode on both; "" when
// the run holds no pair with such an executor.
std::string format_fp8_twin_section(const std::vector<CaseResult>& cases);
// fp8_twins.csv: the same rows with full-precision numbers; the header alone when none.
std::string format_fp8_twins_csv(const std::vector<CaseResult>& cases);

}  // namespace vb

// NVTX ranges of the "verifybench" domain (nvtx3, header-only; free when no tool listens).
//
//  - phases: NvtxRange r("materialize" | "reference" | "verify" | "warm-up" | "timed")
//  - exactly one production launch per case: CaseLaunchRange("<scenario>/<case>"). The
//    name is pushed as nested push/pop ranges, one per '/'-separated component, so that
//    Nsight Compute's push/pop filter, whose nesting delimiter is '/', matches the name
//    as written:  ncu --nvtx --nvtx-include "verifybench@<scenario>/<case>/"
//    (see nvtx_case_filter and scripts/profile.sh). <scenario> is the scenario file stem.
#pragma once
#include <string>
#include <vector>

#include <nvtx3/nvtx3.hpp>

namespace vb {

struct NvtxDomain {
  static constexpr char const* name{"verifybench"};
};

class NvtxRange {
 public:
  explicit NvtxRange(const std::string& name) : range_{nvtx3::message{name}} {}

 private:
  nvtx3::scoped_range_in<NvtxDomain> range_;
};

// "<scenario file stem>/<case name>", every character other than letters, digits and
// "_.,=-/" replaced by '_' (scripts/profile.sh builds the same name).
std::string nvtx_case_range_name(const std::string& scenario_path, const std::string& case_name);
// The --nvtx-include expression matching CaseLaunchRange(name): "verifybench@<name>/".
std::string nvtx_case_filter(const std::string& range_name);

// Pushes one range per '/'-separated component of `name` (empty components skipped), pops
// them all on destruction.
class CaseLaunchRange {
 public:
  explicit CaseLaunchRange(const std::string& name);
  ~CaseLaunchRange();
  CaseLaunchRange(const CaseLaunchRange&) = delete;
  CaseLaunchRange& operator=(const CaseLaunchRange&) = delete;

 private:
  int depth_ = 0;
};

}  // namespace vb

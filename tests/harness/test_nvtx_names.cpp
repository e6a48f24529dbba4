// NVTX range names of the one profiled launch per case (harness/measure/nvtx.cpp): the name
// scripts/profile.sh filters on must be the name the runner pushes.
#include <catch2/catch.hpp>

#include "harness/measure/nvtx.h"

TEST_CASE("a case's NVTX range is '<scenario stem>/<case>' with ncu-safe characters only", "[nvtx]") {
  CHECK(vb::nvtx_case_range_name("scenarios/perf.yaml", "kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64") ==
        "perf/kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64");
  // '[' and ']' (sweep values that are lists) and any other character become '_'.
  CHECK(vb::nvtx_case_range_name("/abs/path/perf.yaml", "kimi_k2_tp8_single_request/batch.prefix_lens=[4096]") ==
        "perf/kimi_k2_tp8_single_request/batch.prefix_lens=_4096_");
  CHECK(vb::nvtx_case_range_name("s.yaml", "a b[1, 2]") == "s/a_b_1,_2_");
  CHECK(vb::nvtx_case_filter(vb::nvtx_case_range_name("scenarios/perf.yaml", "x/y=[1]")) ==
        "verifybench@perf/x/y=_1_/");
}

// scenarios/nightly.yaml, the set scripts/nightly.sh times and gates with `verifybench
// compare`: small, representative (both regimes, single request, page size 1 shuffled) and
// tagged consistently, so a regression in any of perf.yaml's kinds has a case that shows it.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "harness/problem/problem.h"
#include "harness/scenario/scenario.h"

namespace vb {
namespace {

constexpr double kKvRowBytes = 1152;
constexpr double kRidgeHT = 79;          // H200 ridge in H*T (docs/background.md §4)
constexpr double kMaxPoolBytes = 256e6;  // keeps materialization + timing to seconds per case

TEST_CASE("nightly.yaml is a small representative, consistently tagged set", "[compare]") {
  const ScenarioFile f = load_scenario_file(std::string(VB_SOURCE_DIR) + "/scenarios/nightly.yaml");
  CHECK(f.cases.size() >= 6);
  CHECK(f.cases.size() <= 10);
  bool memory = false, compute = false, single = false, page1_shuffled = false;
  for (const CaseSpec& c : f.cases) {
    INFO(c.name);
    const auto has = [&](const char* tag) {
      return std::find(c.tags.begin(), c.tags.end(), tag) != c.tags.end();
    };
    CHECK(has("nightly"));
    CHECK(c.check.mode == CheckMode::kSampled);
    CHECK(has("memory-bound") != has("compute-bound"));
    const int t = tree_size(c.tree);
    CHECK(has("memory-bound") == (static_cast<double>(c.heads) * t < kRidgeHT));
    const int batch =
        c.batch.dist == PrefixDist::kList ? static_cast<int>(c.batch.prefix_lens.size()) : c.batch.size;
    double tokens = 0;
    if (c.batch.dist == PrefixDist::kList) {
      for (int p : c.batch.prefix_lens) tokens += p + t;
    } else {
      REQUIRE(c.batch.dist == PrefixDist::kFixed);
      tokens = static_cast<double>(batch) * (c.batch.value + t);
    }
    CHECK(tokens * kKvRowBytes <= kMaxPoolBytes);
    if (has("single-request")) CHECK(batch == 1);
    if (c.gate.tolerance) CHECK(*c.gate.tolerance <= 0.10);
    memory |= has("memory-bound");
    compute |= has("compute-bound");
    single |= has("single-request");
    page1_shuffled |= c.pages.size == 1 && c.pages.placement == PagePlacement::kShuffled;
  }
  CHECK(memory);
  CHECK(compute);
  CHECK(single);
  CHECK(page1_shuffled);
}

}  // namespace
}  // namespace vb

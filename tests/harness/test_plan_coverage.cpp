// Plan coverage (harness/run/plan_coverage.h): the committed correctness run reaches every
// reachable plan family of both targets, the check names a family once its last case is gone,
// the coverage plans the launches the run plans, and the dense-tree executors' block table
// sends every tree-only page to NaN rows.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness/run/plan_coverage.h"
#include "harness/problem/problem.h"
#include "harness/run/gpu_executor.h"
#include "harness/scenario/scenario.h"

namespace vb {
namespace {

std::vector<CaseSpec> correctness_cases() {
  return load_scenario_file(std::string(VB_SOURCE_DIR) + "/scenarios/correctness.yaml").cases;
}

std::vector<CoverageTarget> lab_targets() { return coverage_targets(*find_device_model("h200")); }

// A reachable family whose launches come from one case only, and that case.
std::pair<std::string, std::string> family_with_one_case(const TargetCoverage& cov) {
  for (const FamilyCoverage& fc : cov.families) {
    if (!fc.reachable()) continue;
    std::set<std::string> names;
    for (const FamilyUse& use : fc.uses) names.insert(use.case_name);
    if (names.size() == 1) return {family_name(fc.family), *names.begin()};
  }
  return {};
}

}  // namespace

TEST_CASE("plan coverage: the lab device's targets are the H200 and sm_120 through the proxy", "[coverage]") {
  const std::vector<CoverageTarget> targets = lab_targets();
  REQUIRE(targets.size() == 2);
  CHECK(targets[0].planned().wgmma);
  CHECK_FALSE(targets[1].planned().wgmma);
  CHECK(targets[1].planned().num_sms == targets[0].planned().num_sms);  // the H200's SMs
  CHECK(flash_verify_stages_for_smem_optin(targets[1].planned().smem_optin_bytes) == 2);
  CHECK(flash_verify_stages_for_smem_optin(targets[0].planned().smem_optin_bytes) == 4);
  std::set<std::string> proxy_executors;
  for (const CoverageExecutor& e : coverage_executors(targets[1])) proxy_executors.insert(e.name);
  CHECK(proxy_executors == std::set<std::string>{"production/sm120-proxy", "production/sm120-emu",
                                                 "production/block-table/sm120-proxy", "sglang-adapter/sm120-proxy",
                                                 "production/block-table/dense-tree/sm120-proxy"});
}

TEST_CASE("plan coverage: correctness.yaml reaches every reachable family of both targets",
          "[coverage]") {
  const std::vector<CaseSpec> cases = correctness_cases();
  for (const CoverageTarget& target : lab_targets()) {
    INFO("target " << target.name);
    const TargetCoverage cov = plan_coverage(target, cases);
    int reachable = 0;
    for (const FamilyCoverage& fc : cov.families) reachable += fc.reachable() ? 1 : 0;
    CHECK(reachable > 0);
    const std::vector<std::string> failures = coverage_failures(cov);
    for (const std::string& f : failures) INFO(f);
    CHECK(failures.empty());
  }
}

TEST_CASE("plan coverage: the check names a family when its last case is removed", "[coverage]") {
  const std::vector<CaseSpec> cases = correctness_cases();
  for (const CoverageTarget& target : lab_targets()) {
    INFO("target " << target.name);
    const auto [family, only_case] = family_with_one_case(plan_coverage(target, cases));
    REQUIRE_FALSE(family.empty());
    INFO("family " << family << " case " << only_case);
    std::vector<CaseSpec> fewer;
    std::copy_if(cases.begin(), cases.end(), std::back_inserter(fewer),
                 [&](const CaseSpec& c) { return c.name != only_case; });
    const std::vector<std::string> failures = coverage_failures(plan_coverage(target, fewer));
    const bool named = std::any_of(failures.begin(), failures.end(), [&](const std::string& f) {
      return f == target.name + ": " + family + ": reachable, but no case's launch is of it";
    });
    CHECK(named);
  }
}

TEST_CASE("plan coverage: a case's planner inputs are the materialized problem's", "[coverage]") {
  const ScenarioFile f = load_scenario_file(std::string(VB_SOURCE_DIR) + "/scenarios/smoke.yaml");
  for (const CaseSpec& spec : f.cases) {
    INFO(spec.name);
    const Problem problem = materialize(spec);
    const CasePlanInputs from_spec = case_plan_inputs(spec);
    const CasePlanInputs from_problem =
        case_plan_inputs(problem.prefix_len, problem.tree_size, problem.num_heads, problem.pages, spec.planner);
    CHECK(from_spec.kv_lens == from_problem.kv_lens);
    CHECK(from_spec.tree_size == from_problem.tree_size);
    CHECK(from_spec.num_heads == from_problem.num_heads);
    CHECK(from_spec.page_size == from_problem.page_size);
    CHECK(from_spec.pool_rows == from_problem.pool_rows);
  }
}

TEST_CASE("plan coverage: a family's name carries every choice", "[coverage]") {
  PlanFamily f{KernelInstance::kWgmmaPageBoxes, PageTableKind::kBlockTable, true, SplitKind::kFixed, 2, 4};
  CHECK(family_name(f) == "wgmma/page-boxes block-table dense-tree split=fixed stages=2 lanes=4");
  f.split = SplitKind::kNone;
  f.combine_lanes = 0;
  CHECK(family_name(f) == "wgmma/page-boxes block-table dense-tree split=none stages=2");
}

TEST_CASE("the dense-tree block table sends every page of only tree rows to NaN rows", "[coverage]") {
  CaseSpec spec;
  spec.name = "dense";
  spec.heads = 8;
  spec.sm_scale = 0.13;
  spec.batch.dist = PrefixDist::kList;
  spec.batch.prefix_lens = {64, 70, 0};  // a page boundary, mid-page, no prefix
  spec.tree.kind = TreeKind::kChain;
  spec.tree.nodes = 40;
  spec.pages.size = 16;
  spec.pages.placement = PagePlacement::kShuffled;
  const Problem problem = materialize(spec);
  const std::vector<std::int32_t> table = dense_tree_block_table(problem);
  const PageLayout& pages = problem.pages;
  REQUIRE(table.size() == pages.block_table.size());
  for (int b = 0; b < problem.batch; ++b) {
    const int prefix_pages = (problem.prefix_len[b] + 15) / 16;
    const int used_pages = (problem.prefix_len[b] + problem.tree_size + 15) / 16;
    for (int page = 0; page < used_pages; ++page) {
      INFO("request " << b << " page " << page);
      const std::int32_t id = table[static_cast<std::size_t>(b) * pages.max_pages + page];
      if (page < prefix_pages) {
        CHECK(id == pages.block_table[static_cast<std::size_t>(b) * pages.max_pages + page]);
        continue;
      }
      REQUIRE(id >= 0);
      REQUIRE(id < pages.num_pages);
      for (int r = 0; r < 16; ++r) {
        const bf16_bits first = problem.kv_pool[(static_cast<std::size_t>(id) * 16 + r) * mla::kHeadDimQK];
        CHECK(std::isnan(bf16_to_float(first)));
      }
    }
  }
}

}  // namespace vb

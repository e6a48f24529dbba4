// The executor registry (harness/record/executor_registry.h) is the one list: a stand-in row
// added here, and nothing else, reaches the runner, --executor / --time-executor, the CSV, the
// Markdown summary, the terminal table and the roofline plot. An executor that is not timed is
// run and checked but never timed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <string>

#include "harness/cli/cli_common.h"
#include "harness/record/executor_registry.h"
#include "harness/report/report_csv.h"
#include "harness/report/report_markdown.h"
#include "harness/report/report_svg.h"
#include "harness/report/report_table.h"
#include "harness/run/runner.h"

namespace {

constexpr const char* kStandIn = "stand-in/fp8";

vb::ExecutorInfo stand_in(bool timed) {
  return {kStandIn, vb::GpuExecutorKind::kProduction, vb::PageTableKind::kTokenIndices, "production kernel",
          "a stand-in for a new executor", timed, {"#123456"}};
}

vb::CaseSpec tiny_spec() {
  vb::CaseSpec spec;
  spec.name = "tiny";
  spec.scenario = "tiny";
  spec.source = "t.yaml:2";
  spec.heads = 2;
  spec.sm_scale = 0.13;
  spec.seed = 1;
  spec.batch.dist = vb::PrefixDist::kList;
  spec.batch.prefix_lens = {5};
  spec.tree.kind = vb::TreeKind::kChain;
  spec.tree.nodes = 2;
  return spec;
}

}  // namespace

TEST_CASE("registry: names are unique, every row has a plot colour, production is numbered", "[registry]") {
  std::set<std::string> names;
  for (const vb::ExecutorInfo& e : vb::executor_registry()) {
    INFO(e.name);
    CHECK(names.insert(e.name).second);
    CHECK(e.plot.colour.size() == 7);
    CHECK(e.plot.colour[0] == '#');
    CHECK(e.name != vb::kReferenceExecutor);
    CHECK(vb::executor_named(e.name).name == e.name);
  }
  for (const char* name : {vb::kNaiveExecutor, vb::kProductionExecutor, vb::kSm120ProxyExecutor}) {
    CHECK(names.count(name) == 1);
  }
  CHECK(vb::executor_named(vb::kProductionExecutor).plot.numbered);
}

TEST_CASE("registry: an unknown executor's message lists every registry name", "[registry]") {
  try {
    vb::executor_for_option("--executor", "bogus");
    FAIL("no UsageError");
  } catch (const vb::UsageError& e) {
    const std::string message = e.what();
    CHECK(message == "--executor bogus: unknown executor (allowed: " + vb::executor_names() + ")");
    for (const vb::ExecutorInfo& info : vb::executor_registry()) CHECK_THAT(message, Catch::Contains(info.name));
  }
}

TEST_CASE("registry: a stand-in row reaches the runner, the options, every writer and the plot", "[registry]") {
  const std::size_t before = vb::executor_registry().size();
  {
    const vb::ScopedStandInExecutor row(stand_in(/*timed=*/true));
    REQUIRE(vb::executor_registry().size() == before + 1);
    CHECK(vb::executor_for_option("--time-executor", kStandIn).name == kStandIn);
    CHECK_THAT(vb::executor_names(), Catch::EndsWith(std::string(", ") + kStandIn));
    vb::RunOptions options;
    options.threads = 1;
    CHECK(vb::times_executor(options, kStandIn));

    vb::GpuInfo none;
    none.reason = "test machine";
    std::vector<vb::CaseResult> cases = {vb::run_case(tiny_spec(), none, options)};
    REQUIRE(cases[0].executors.size() == 1 + before + 1);
    const vb::ExecutorResult& last = cases[0].executors.back();
    CHECK(last.executor == kStandIn);
    CHECK(last.outcome == vb::Outcome::kNotRun);

    CHECK_THAT(vb::format_csv(cases), Catch::Contains(std::string(",") + kStandIn + ","));
    vb::TimingRecord cold;
    cold.mode = "cold-l2";
    cold.samples_ms = {0.02, 0.021, 0.022};
    cold.median_ms = 0.021;
    cases[0].executors.back().timings.push_back(cold);
    CHECK_THAT(vb::format_markdown(vb::Provenance{}, std::nullopt, cases),
               Catch::Contains(std::string("| ") + kStandIn + " |"));
    // Without a device the terminal table counts the GPU executors in one line.
    CHECK_THAT(vb::format_case_table(cases), Catch::Contains(std::to_string(before + 1) + " GPU executors"));
    // The plot's legend names it in its colour, even with no timed point.
    const std::string svg = vb::format_roofline_svg(std::nullopt, cases, "t");
    CHECK_THAT(svg, Catch::Contains("fill=\"#123456\""));
    CHECK_THAT(svg, Catch::Contains(std::string(">") + kStandIn + "</text>"));
  }
  CHECK(vb::executor_registry().size() == before);
  CHECK_THROWS_AS(vb::executor_named(kStandIn), std::invalid_argument);
}

TEST_CASE("registry: an executor that is not timed is never timed, even when named", "[registry]") {
  const vb::ScopedStandInExecutor row(stand_in(/*timed=*/false));
  vb::RunOptions options;
  CHECK_FALSE(vb::times_executor(options, kStandIn));
  options.timed_executors = {kStandIn};
  CHECK_FALSE(vb::times_executor(options, kStandIn));
  CHECK(vb::times_executor(vb::RunOptions{}, vb::kProductionExecutor));
}

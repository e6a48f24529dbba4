// The optional `gate: {tolerance: t}` of a scenario entry (harness/scenario/scenario_yaml.cpp): parsed
// into CaseSpec::gate, 0 < t < 1, sweepable, and bad values fail with file:line:column.
#include <catch2/catch.hpp>

#include <string>

#include "harness/scenario/scenario.h"

namespace vb {
namespace {

using Catch::Contains;

std::string entry(const std::string& extra) {
  return "scenarios:\n"
         "  - name: a\n"
         "    heads: 8\n"
         "    sm_scale: kimi-k2\n"
         "    batch: {prefix_lens: [16]}\n"
         "    tree: {kind: chain, nodes: 4}\n" +
         extra;
}

std::string error_of(const std::string& text) {
  try {
    parse_scenario_text(text, "t.yaml");
  } catch (const ScenarioError& e) {
    return e.what();
  }
  FAIL("expected a ScenarioError for:\n" << text);
  return "";
}

TEST_CASE("gate is optional and unset by default", "[scenario]") {
  const ScenarioFile f = parse_scenario_text(entry(""), "t.yaml");
  REQUIRE(f.cases.size() == 1);
  CHECK_FALSE(f.cases[0].gate.tolerance.has_value());
  const ScenarioFile empty = parse_scenario_text(entry("    gate: {}\n"), "t.yaml");
  CHECK_FALSE(empty.cases[0].gate.tolerance.has_value());
}

TEST_CASE("gate.tolerance is read and can be swept", "[scenario]") {
  const ScenarioFile f = parse_scenario_text(entry("    gate: {tolerance: 0.08}\n"), "t.yaml");
  REQUIRE(f.cases[0].gate.tolerance.has_value());
  CHECK(*f.cases[0].gate.tolerance == Approx(0.08));

  const ScenarioFile s =
      parse_scenario_text(entry("    sweep: {gate.tolerance: [0.02, 5e-2]}\n"), "t.yaml");
  REQUIRE(s.cases.size() == 2);
  CHECK(s.cases[0].name == "a/gate.tolerance=0.02");
  CHECK(*s.cases[0].gate.tolerance == Approx(0.02));
  CHECK(*s.cases[1].gate.tolerance == Approx(0.05));
}

TEST_CASE("gate.tolerance outside (0, 1) or not a number is refused with its position",
          "[scenario]") {
  for (const char* bad : {"0", "1", "1.5", "-0.1", "five", "\"0.05\""}) {
    INFO(bad);
    const std::string msg = error_of(entry(std::string("    gate: {tolerance: ") + bad + "}\n"));
    CHECK_THAT(msg, Contains("t.yaml:7:23: scenarios[0].gate.tolerance: got"));
    CHECK_THAT(msg, Contains("allowed: a number in (0, 1)"));
  }
}

TEST_CASE("gate accepts no other key", "[scenario]") {
  const std::string msg = error_of(entry("    gate: {tolerance: 0.05, runs: 3}\n"));
  CHECK_THAT(msg, Contains("t.yaml:7:29: scenarios[0].gate.runs: unknown key 'runs' in gate"));
}

}  // namespace
}  // namespace vb

// Scenario YAML -> CaseSpec (harness/scenario/scenario_yaml.cpp): every tree kind and batch form,
// presets, sweeps, and one test per kind of bad input checking that the single
// ScenarioError names file:line:column, the dotted field and the bad value.
#include <catch2/catch.hpp>

#include <fmt/format.h>

#include <string>
#include <vector>

#include "harness/problem/problem.h"
#include "harness/scenario/scenario.h"

namespace vb {
namespace {

using Catch::Contains;

// A scenario file as lines, so tests can name "line 5, where `heads` is".
struct Doc {
  std::vector<std::string> lines;
  std::string text() const {
    std::string t;
    for (const auto& l : lines) t += l + "\n";
    return t;
  }
  // "t.yaml:<line>:<column of the nth occurrence of needle in that line>" (1-based).
  std::string at(int line, const std::string& needle, int nth = 0) const {
    const std::string& l = lines.at(line - 1);
    std::size_t pos = l.find(needle);
    for (int i = 0; i < nth && pos != std::string::npos; ++i) pos = l.find(needle, pos + 1);
    REQUIRE(pos != std::string::npos);
    return fmt::format("t.yaml:{}:{}", line, pos + 1);
  }
};

// Lines 1..6; line 2 is the entry (its source line).
Doc base() {
  return Doc{{
      "scenarios:",                         // 1
      "  - name: a",                        // 2
      "    heads: 8",                       // 3
      "    sm_scale: kimi-k2",              // 4
      "    batch: {prefix_lens: [16, 5]}",  // 5
      "    tree: {kind: chain, nodes: 4}",  // 6
  }};
}

ScenarioFile parse(const Doc& d) { return parse_scenario_text(d.text(), "t.yaml"); }

CaseSpec parse_one(const Doc& d) {
  ScenarioFile f = parse(d);
  REQUIRE(f.cases.size() == 1);
  return f.cases[0];
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

void expect_error(const Doc& d, const std::vector<std::string>& parts) {
  const std::string msg = error_of(d.text());
  INFO("message: " << msg);
  for (const auto& p : parts) CHECK_THAT(msg, Contains(p));
}

// ---------------------------------------------------------------- positive

TEST_CASE("minimal entry gets the documented defaults", "[scenario]") {
  const CaseSpec c = parse_one(base());
  CHECK(c.name == "a");
  CHECK(c.scenario == "a");
  CHECK(c.source == "t.yaml:2");
  CHECK(c.heads == 8);
  CHECK(c.dtype == "bf16");
  CHECK(c.seed == 0);
  CHECK(c.tags.empty());
  CHECK(c.batch.dist == PrefixDist::kList);
  CHECK(c.batch.prefix_lens == std::vector<int>{16, 5});
  CHECK(c.batch.size == 2);
  CHECK(c.tree.kind == TreeKind::kChain);
  CHECK(c.tree.nodes == 4);
  CHECK(c.pages.size == 1);
  CHECK(c.pages.placement == PagePlacement::kContiguous);
  CHECK(c.pages.shared_prefix.groups == 0);
  CHECK(c.check.mode == CheckMode::kFull);
  const ToleranceSpec def;
  CHECK(c.tolerance.o_atol == def.o_atol);
  CHECK(c.tolerance.o_rtol == def.o_rtol);
  CHECK(c.tolerance.lse_atol == def.lse_atol);
  CHECK(c.tolerance.lse_rtol == def.lse_rtol);
}

TEST_CASE("every optional field is read", "[scenario]") {
  Doc d = base();
  d.lines.insert(d.lines.end(), {
      "    tags: [perf, memory-bound]",
      "    dtype: bf16",
      "    seed: 18446744073709551615",
      "    tolerance: {o_atol: 1e-3, o_rtol: 0.5, lse_atol: 0, lse_rtol: 0.25}",
      "    check: {mode: sampled, rows: 64, seed: 7}",
      "    pages: {size: 16, placement: shuffled, seed: 4, shared_prefix: {groups: 2, length: 0}}",
  });
  const CaseSpec c = parse_one(d);
  CHECK(c.tags == std::vector<std::string>{"perf", "memory-bound"});
  CHECK(c.seed == 18446744073709551615ull);
  CHECK(c.tolerance.o_atol == Approx(1e-3));
  CHECK(c.tolerance.o_rtol == Approx(0.5));
  CHECK(c.tolerance.lse_atol == 0);
  CHECK(c.tolerance.lse_rtol == 0.25);
  CHECK(c.check.mode == CheckMode::kSampled);
  CHECK(c.check.sampled_rows == 64);
  CHECK(c.check.seed == 7);
  CHECK(c.pages.size == 16);
  CHECK(c.pages.placement == PagePlacement::kShuffled);
  CHECK(c.pages.seed == 4);
  CHECK(c.pages.shared_prefix.groups == 2);
  CHECK(c.pages.shared_prefix.length == 0);
}

TEST_CASE("sm_scale presets give the YaRN scales of docs/background.md §1", "[scenario]") {
  const std::vector<std::pair<std::string, double>> presets = {
      {"kimi-k2", 0.130861}, {"kimi-k2-f64", 0.144680}, {"deepseek-v3", 0.135234}};
  for (const auto& [name, value] : presets) {
    Doc d = base();
    d.lines[3] = "    sm_scale: " + name;
    INFO(name);
    CHECK(std::abs(parse_one(d).sm_scale - value) < 1e-5);
  }
  Doc d = base();
  d.lines[3] = "    sm_scale: 0.0416667";
  CHECK(parse_one(d).sm_scale == Approx(0.0416667));
}

TEST_CASE("every tree kind parses into its spec and node count", "[scenario]") {
  struct Want {
    std::string yaml;
    TreeKind kind;
    int nodes;
  };
  const std::vector<Want> wants = {
      {"{kind: chain, nodes: 16}", TreeKind::kChain, 16},
      {"{kind: kary, branching: 2, depth: 3}", TreeKind::kKAry, 15},
      {"{kind: kary, branching: 1, depth: 5}", TreeKind::kKAry, 6},
      {"{kind: kary, branching: 4, depth: 0}", TreeKind::kKAry, 1},
      {"{kind: eagle, steps: 5, topk: 4, tokens: 8}", TreeKind::kEagle, 8},
      {"{kind: eagle, steps: 3, topk: 1, tokens: 4}", TreeKind::kEagle, 4},
      {"{kind: ddtree, budget: 64, topk: 4, max_depth: 16, seed: 2}", TreeKind::kDDTree, 64},
      {"{kind: ddtree, budget: 1024, topk: 8}", TreeKind::kDDTree, 1024},
      {"{kind: random, nodes: 37, seed: 5}", TreeKind::kRandom, 37},
      {"{kind: explicit, parents: [-1, 0, 0, 1]}", TreeKind::kExplicit, 4},
      {"{kind: explicit, parents: [-1]}", TreeKind::kExplicit, 1},
  };
  for (const Want& w : wants) {
    Doc d = base();
    d.lines[5] = "    tree: " + w.yaml;
    INFO(w.yaml);
    const CaseSpec c = parse_one(d);
    CHECK(c.tree.kind == w.kind);
    // Agrees with the builder's own count (harness/problem/tree.cpp).
    CHECK(tree_size(c.tree) == w.nodes);
    CHECK(build_tree(c.tree, 0).size() == w.nodes);
  }
  Doc d = base();
  d.lines[5] = "    tree: {kind: ddtree, budget: 64, topk: 4, max_depth: 16, seed: 2}";
  const TreeSpec t = parse_one(d).tree;
  CHECK(t.budget == 64);
  CHECK(t.topk == 4);
  CHECK(t.max_depth == 16);
  CHECK(t.seed == 2);
  d.lines[5] = "    tree: {kind: eagle, steps: 5, topk: 4, tokens: 8, seed: 9}";
  const TreeSpec e = parse_one(d).tree;
  CHECK(e.steps == 5);
  CHECK(e.topk == 4);
  CHECK(e.tokens == 8);
  CHECK(e.seed == 9);
  d.lines[5] = "    tree: {kind: kary, branching: 2, depth: 3}";
  const TreeSpec k = parse_one(d).tree;
  CHECK(k.branching == 2);
  CHECK(k.depth == 3);
  d.lines[5] = "    tree: {kind: explicit, parents: [-1, 0, 0, 1]}";
  CHECK(parse_one(d).tree.parents == std::vector<int>{-1, 0, 0, 1});
  d.lines[5] = "    tree: {kind: random, nodes: 37, seed: 5}";
  CHECK(parse_one(d).tree.seed == 5);
}

TEST_CASE("every batch form parses into its spec", "[scenario]") {
  Doc d = base();
  d.lines[4] = "    batch: {prefix_lens: [4096, 17, 0]}";
  BatchSpec b = parse_one(d).batch;
  CHECK(b.dist == PrefixDist::kList);
  CHECK(b.prefix_lens == std::vector<int>{4096, 17, 0});
  CHECK(b.size == 3);

  d.lines[4] = "    batch: {size: 8, prefix: {dist: fixed, value: 4096}}";
  b = parse_one(d).batch;
  CHECK(b.dist == PrefixDist::kFixed);
  CHECK(b.size == 8);
  CHECK(b.value == 4096);

  d.lines[4] = "    batch: {size: 8, prefix: {dist: uniform, min: 100, max: 5000}, seed: 3}";
  b = parse_one(d).batch;
  CHECK(b.dist == PrefixDist::kUniform);
  CHECK(b.size == 8);
  CHECK(b.min == 100);
  CHECK(b.max == 5000);
  CHECK(b.seed == 3);

  d.lines[4] =
      "    batch: {size: 8, prefix: {dist: lognormal, median: 4096, sigma: 1.0, min: 0, max: "
      "65536}, seed: 3}";
  b = parse_one(d).batch;
  CHECK(b.dist == PrefixDist::kLogNormal);
  CHECK(b.size == 8);
  CHECK(b.median == 4096);
  CHECK(b.sigma == 1.0);
  CHECK(b.min == 0);
  CHECK(b.max == 65536);
  CHECK(b.seed == 3);
}

TEST_CASE("block-style YAML and several entries keep file order and sources", "[scenario]") {
  const Doc d{{
      "scenarios:",
      "  - name: first",
      "    heads: 16",
      "    sm_scale: deepseek-v3",
      "    batch:",
      "      size: 2",
      "      prefix:",
      "        dist: fixed",
      "        value: 64",
      "    tree:",
      "      kind: explicit",
      "      parents:",
      "        - -1",
      "        - 0",
      "    pages:",
      "      size: 64",
      "      placement: reversed",
      "  - name: second.v2-x",
      "    heads: 128",
      "    sm_scale: 1",
      "    batch: {prefix_lens: [0]}",
      "    tree: {kind: chain, nodes: 1}",
  }};
  const ScenarioFile f = parse(d);
  REQUIRE(f.cases.size() == 2);
  CHECK(f.path == "t.yaml");
  CHECK(f.cases[0].name == "first");
  CHECK(f.cases[0].source == "t.yaml:2");
  CHECK(f.cases[0].pages.size == 64);
  CHECK(f.cases[0].pages.placement == PagePlacement::kReversed);
  CHECK(f.cases[0].tree.parents == std::vector<int>{-1, 0});
  CHECK(f.cases[1].name == "second.v2-x");
  CHECK(f.cases[1].source == "t.yaml:18");
  CHECK(f.cases[1].heads == 128);
}

TEST_CASE("sweep expands the cartesian product with the last key fastest", "[scenario]") {
  Doc d = base();
  d.lines[4] = "    batch: {size: 2, prefix: {dist: fixed, value: 32}}";
  d.lines.push_back("    sweep: {heads: [8, 16], batch.size: [1, 8], tree.nodes: [2, 4]}");
  const ScenarioFile f = parse(d);
  REQUIRE(f.cases.size() == 8);
  CHECK(f.cases[0].name == "a/heads=8,batch.size=1,tree.nodes=2");
  CHECK(f.cases[1].name == "a/heads=8,batch.size=1,tree.nodes=4");
  CHECK(f.cases[2].name == "a/heads=8,batch.size=8,tree.nodes=2");
  CHECK(f.cases[7].name == "a/heads=16,batch.size=8,tree.nodes=4");
  for (const CaseSpec& c : f.cases) {
    CHECK(c.scenario == "a");
    CHECK(c.source == "t.yaml:2");
    CHECK(c.batch.value == 32);
  }
  CHECK(f.cases[0].heads == 8);
  CHECK(f.cases[7].heads == 16);
  CHECK(f.cases[2].batch.size == 8);
  CHECK(f.cases[1].tree.nodes == 4);
}

TEST_CASE("sweep reaches nested and absent sections and list values", "[scenario]") {
  Doc d = base();
  d.lines[4] = "    batch: {prefix_lens: [64, 128]}";
  d.lines.push_back(
      "    sweep: {pages.shared_prefix.length: [0, 64], pages.shared_prefix.groups: [1], "
      "tree.kind: [chain, random]}");
  // pages is absent: the sweep creates it; length needs a page size dividing it (1).
  const ScenarioFile f = parse(d);
  REQUIRE(f.cases.size() == 4);
  CHECK(f.cases[3].name ==
        "a/pages.shared_prefix.length=64,pages.shared_prefix.groups=1,tree.kind=random");
  CHECK(f.cases[3].pages.shared_prefix.length == 64);
  CHECK(f.cases[3].pages.shared_prefix.groups == 1);
  CHECK(f.cases[3].tree.kind == TreeKind::kRandom);

  Doc l = base();
  l.lines.push_back("    sweep: {batch.prefix_lens: [[1, 2], [3]], sm_scale: [kimi-k2, 0.5]}");
  const ScenarioFile g = parse(l);
  REQUIRE(g.cases.size() == 4);
  CHECK(g.cases[0].name == "a/batch.prefix_lens=[1, 2],sm_scale=kimi-k2");
  CHECK(g.cases[0].batch.prefix_lens == std::vector<int>{1, 2});
  CHECK(g.cases[3].batch.prefix_lens == std::vector<int>{3});
  CHECK(g.cases[3].sm_scale == 0.5);
}

TEST_CASE("to_string names match the YAML spellings", "[scenario]") {
  CHECK(std::string(to_string(TreeKind::kKAry)) == "kary");
  CHECK(std::string(to_string(TreeKind::kDDTree)) == "ddtree");
  CHECK(std::string(to_string(TreeKind::kExplicit)) == "explicit");
  CHECK(std::string(to_string(PagePlacement::kFragmented)) == "fragmented");
  CHECK(std::string(to_string(PagePlacement::kInterleaved)) == "interleaved");
  CHECK(std::string(to_string(PrefixDist::kLogNormal)) == "lognormal");
  CHECK(std::string(to_string(PrefixDist::kList)) == "list");
  CHECK(std::string(to_string(CheckMode::kSampled)) == "sampled");
}

TEST_CASE("every placement spelling parses", "[scenario]") {
  const std::vector<std::pair<std::string, PagePlacement>> all = {
      {"contiguous", PagePlacement::kContiguous}, {"shuffled", PagePlacement::kShuffled},
      {"interleaved", PagePlacement::kInterleaved}, {"fragmented", PagePlacement::kFragmented},
      {"reversed", PagePlacement::kReversed}};
  for (const auto& [name, p] : all) {
    Doc d = base();
    d.lines.push_back("    pages: {size: 16, placement: " + name + "}");
    CHECK(parse_one(d).pages.placement == p);
    CHECK(std::string(to_string(p)) == name);
  }
}

TEST_CASE("load_scenario_file reads a file and names it in sources", "[scenario]") {
  const std::string path = std::string(VB_TEST_DATA_DIR) + "/scenarios/good_minimal.yaml";
  const ScenarioFile f = load_scenario_file(path);
  REQUIRE(f.cases.size() == 1);
  CHECK(f.path == path);
  CHECK(f.cases[0].source == path + ":3");
}

// ---------------------------------------------------------------- bad input

TEST_CASE("bad: YAML syntax error names line and column", "[scenario]") {
  const std::string path = std::string(VB_TEST_DATA_DIR) + "/scenarios/syntax_error.yaml";
  try {
    load_scenario_file(path);
    FAIL("no error");
  } catch (const ScenarioError& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK_THAT(msg, Contains(path + ":5:"));  // the unclosed flow map runs into line 5
    CHECK_THAT(msg, Contains("YAML syntax error"));
  }
}

TEST_CASE("bad: missing file", "[scenario]") {
  const std::string path = std::string(VB_TEST_DATA_DIR) + "/scenarios/no_such_file.yaml";
  try {
    load_scenario_file(path);
    FAIL("no error");
  } catch (const ScenarioError& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK_THAT(msg, Contains(path));
    CHECK_THAT(msg, Contains("cannot open"));
  }
}

TEST_CASE("bad: empty file and comment-only file", "[scenario]") {
  for (const char* name : {"empty.yaml", "comment_only.yaml"}) {
    const std::string path = std::string(VB_TEST_DATA_DIR) + "/scenarios/" + name;
    try {
      load_scenario_file(path);
      FAIL("no error");
    } catch (const ScenarioError& e) {
      const std::string msg = e.what();
      INFO(msg);
      CHECK_THAT(msg, Contains(path + ":1:1"));
      CHECK_THAT(msg, Contains("empty"));
      CHECK_THAT(msg, Contains("scenarios"));
    }
  }
}

TEST_CASE("bad: file without a scenarios key", "[scenario]") {
  const std::string path = std::string(VB_TEST_DATA_DIR) + "/scenarios/no_scenarios.yaml";
  try {
    load_scenario_file(path);
    FAIL("no error");
  } catch (const ScenarioError& e) {
    const std::string msg = e.what();
    INFO(msg);
    CHECK_THAT(msg, Contains(path + ":1:1"));
    CHECK_THAT(msg, Contains("unknown key 'scenario'"));
    CHECK_THAT(msg, Contains("allowed keys: scenarios"));
  }
}

TEST_CASE("bad: empty scenarios list", "[scenario]") {
  const Doc d{{"scenarios: []"}};
  expect_error(d, {d.at(1, "[]"), "scenarios", "got []", "non-empty list"});
}

TEST_CASE("bad: unknown key in an entry lists the allowed keys", "[scenario]") {
  Doc d = base();
  d.lines.push_back("    head_count: 8");
  expect_error(d, {d.at(7, "head_count"), "scenarios[0].head_count", "unknown key 'head_count'",
                   "allowed keys: name, tags, heads"});
}

TEST_CASE("bad: key of another tree kind", "[scenario]") {
  Doc d = base();
  d.lines[5] = "    tree: {kind: kary, branching: 2, nodes: 3}";
  expect_error(d, {d.at(6, "nodes"), "scenarios[0].tree.nodes", "unknown key 'nodes'",
                   "a kary tree", "allowed keys: kind, branching, depth"});
}

TEST_CASE("bad: heads of the wrong type", "[scenario]") {
  Doc d = base();
  d.lines[2] = "    heads: \"eight\"";
  expect_error(d, {d.at(3, "\"eight\""), "scenarios[0].heads", "got \"eight\"", "1..128"});
  d.lines[2] = "    heads: eight";
  expect_error(d, {d.at(3, "eight"), "scenarios[0].heads", "got eight", "an integer in 1..128"});
  d.lines[2] = "    heads: 8.5";
  expect_error(d, {d.at(3, "8.5"), "scenarios[0].heads", "got 8.5"});
  d.lines[2] = "    heads: [8]";
  expect_error(d, {d.at(3, "[8]"), "scenarios[0].heads", "got [8]"});
}

TEST_CASE("bad: heads = 0 and heads absurd", "[scenario]") {
  Doc d = base();
  d.lines[2] = "    heads: 0";
  expect_error(d, {d.at(3, "0"), "scenarios[0].heads", "got 0", "an integer in 1..128"});
  d.lines[2] = "    heads: 4096";
  expect_error(d, {d.at(3, "4096"), "scenarios[0].heads", "got 4096", "1..128"});
}

TEST_CASE("bad: missing required key", "[scenario]") {
  Doc d = base();
  d.lines.erase(d.lines.begin() + 2);  // heads
  expect_error(d, {d.at(2, "name"), "scenarios[0].heads", "missing required key 'heads'", "1..128"});
}

TEST_CASE("bad: negative prefix length", "[scenario]") {
  Doc d = base();
  d.lines[4] = "    batch: {prefix_lens: [16, -5]}";
  expect_error(d, {d.at(5, "-5"), "scenarios[0].batch.prefix_lens[1]", "got -5", "0..1048576"});
}

TEST_CASE("bad: absurd prefix length", "[scenario]") {
  Doc d = base();
  d.lines[4] = "    batch: {size: 2, prefix: {dist: fixed, value: 99999999999}}";
  expect_error(d, {d.at(5, "99999999999"), "scenarios[0].batch.prefix.value", "got 99999999999",
                   "0..1048576"});
}

TEST_CASE("bad: batch size 0 and absurd", "[scenario]") {
  Doc d = base();
  d.lines[4] = "    batch: {size: 0, prefix: {dist: fixed, value: 1}}";
  expect_error(d, {d.at(5, "0"), "scenarios[0].batch.size", "got 0", "1..1024"});
  d.lines[4] = "    batch: {size: 100000, prefix: {dist: fixed, value: 1}}";
  expect_error(d, {d.at(5, "100000"), "scenarios[0].batch.size", "got 100000", "1..1024"});
  d.lines[4] = "    batch: {prefix_lens: []}";
  expect_error(d, {d.at(5, "[]"), "scenarios[0].batch.prefix_lens", "got []", "1..1024"});
}

TEST_CASE("bad: prefix_lens combined with a distribution", "[scenario]") {
  Doc d = base();
  d.lines[4] = "    batch: {prefix_lens: [1], size: 4}";
  expect_error(d, {d.at(5, "4}"), "scenarios[0].batch.size", "cannot be combined with prefix_lens"});
}

TEST_CASE("bad: uniform max below min", "[scenario]") {
  Doc d = base();
  d.lines[4] = "    batch: {size: 2, prefix: {dist: uniform, min: 100, max: 50}}";
  expect_error(d, {d.at(5, "50"), "scenarios[0].batch.prefix.max", "got 50", "max >= min"});
}

TEST_CASE("bad: lognormal without an upper clamp", "[scenario]") {
  Doc d = base();
  d.lines[4] = "    batch: {size: 2, prefix: {dist: lognormal, median: 100, sigma: 1}}";
  expect_error(d, {d.at(5, "{", 1), "scenarios[0].batch.prefix.max", "missing required key 'max'",
                   "1..1048576"});
  d.lines[4] = "    batch: {size: 2, prefix: {dist: lognormal, median: 100, sigma: 1, max: 0}}";
  expect_error(d, {d.at(5, "0}"), "scenarios[0].batch.prefix.max", "got 0", "1..1048576"});
  d.lines[4] = "    batch: {size: 2, prefix: {dist: lognormal, median: 0, sigma: 1, max: 9}}";
  expect_error(d, {d.at(5, "0,"), "scenarios[0].batch.prefix.median", "got 0", "> 0"});
}

TEST_CASE("bad: unknown prefix distribution", "[scenario]") {
  Doc d = base();
  d.lines[4] = "    batch: {size: 2, prefix: {dist: zipf, value: 3}}";
  expect_error(d, {d.at(5, "zipf"), "scenarios[0].batch.prefix.dist", "got zipf",
                   "one of fixed, uniform, lognormal"});
}

TEST_CASE("bad: explicit parent >= child (cycle)", "[scenario]") {
  Doc d = base();
  d.lines[5] = "    tree: {kind: explicit, parents: [-1, 0, 3, 2]}";
  expect_error(d, {d.at(6, "3"), "scenarios[0].tree.parents[2]", "got 3", "0..1",
                   "parent >= child"});
}

TEST_CASE("bad: explicit self parent", "[scenario]") {
  Doc d = base();
  d.lines[5] = "    tree: {kind: explicit, parents: [-1, 1]}";
  expect_error(d, {d.at(6, "1]"), "scenarios[0].tree.parents[1]", "got 1", "a parent index in 0..0"});
}

TEST_CASE("bad: explicit root is not -1", "[scenario]") {
  Doc d = base();
  d.lines[5] = "    tree: {kind: explicit, parents: [0, 0]}";
  expect_error(d, {d.at(6, "0"), "scenarios[0].tree.parents[0]", "got 0", "-1"});
}

TEST_CASE("bad: explicit second root", "[scenario]") {
  Doc d = base();
  d.lines[5] = "    tree: {kind: explicit, parents: [-1, 0, -1]}";
  expect_error(d, {d.at(6, "-1", 1), "scenarios[0].tree.parents[2]", "got -1", "only node 0"});
}

TEST_CASE("bad: tree too large", "[scenario]") {
  Doc d = base();
  d.lines[5] = "    tree: {kind: kary, branching: 4, depth: 6}";
  expect_error(d, {d.at(6, "6}"), "scenarios[0].tree.depth", "got 6", "at most 1024 nodes"});
  d.lines[5] = "    tree: {kind: chain, nodes: 1025}";
  expect_error(d, {d.at(6, "1025"), "scenarios[0].tree.nodes", "got 1025", "1..1024"});
  d.lines[5] = "    tree: {kind: random, nodes: 0}";
  expect_error(d, {d.at(6, "0"), "scenarios[0].tree.nodes", "got 0", "1..1024"});
}

TEST_CASE("bad: eagle tokens beyond its candidates", "[scenario]") {
  Doc d = base();
  d.lines[5] = "    tree: {kind: eagle, steps: 3, topk: 1, tokens: 5}";
  expect_error(d, {d.at(6, "5}"), "scenarios[0].tree.tokens", "got 5", "at most", "= 4"});
}

TEST_CASE("bad: ddtree budget beyond its depth cap", "[scenario]") {
  Doc d = base();
  d.lines[5] = "    tree: {kind: ddtree, budget: 64, topk: 2, max_depth: 4}";
  expect_error(d, {d.at(6, "64"), "scenarios[0].tree.budget", "got 64", "at most 31"});
}

TEST_CASE("bad: unknown tree kind", "[scenario]") {
  Doc d = base();
  d.lines[5] = "    tree: {kind: bush, nodes: 3}";
  expect_error(d, {d.at(6, "bush"), "scenarios[0].tree.kind", "got bush",
                   "chain, kary, eagle, ddtree, random, explicit"});
}

TEST_CASE("bad: unsupported page size", "[scenario]") {
  Doc d = base();
  d.lines.push_back("    pages: {size: 32}");
  expect_error(d, {d.at(7, "32"), "scenarios[0].pages.size", "got 32", "1, 16 or 64"});
}

TEST_CASE("bad: unknown placement", "[scenario]") {
  Doc d = base();
  d.lines.push_back("    pages: {size: 16, placement: random}");
  expect_error(d, {d.at(7, "random"), "scenarios[0].pages.placement", "got random",
                   "contiguous, shuffled, interleaved, fragmented, reversed"});
}

TEST_CASE("bad: shared prefix not a multiple of the page size", "[scenario]") {
  Doc d = base();
  d.lines[4] = "    batch: {prefix_lens: [100, 100]}";
  d.lines.push_back("    pages: {size: 16, shared_prefix: {groups: 1, length: 40}}");
  expect_error(d, {d.at(7, "40"), "scenarios[0].pages.shared_prefix.length", "got 40",
                   "multiple of the page size 16"});
}

TEST_CASE("bad: shared prefix longer than a request's prefix", "[scenario]") {
  Doc d = base();
  d.lines[4] = "    batch: {size: 4, prefix: {dist: uniform, min: 10, max: 500}}";
  d.lines.push_back("    pages: {size: 16, shared_prefix: {groups: 2, length: 32}}");
  expect_error(d, {d.at(7, "32"), "scenarios[0].pages.shared_prefix.length", "got 32", "at most 10"});
}

TEST_CASE("bad: more shared-prefix groups than requests", "[scenario]") {
  Doc d = base();
  d.lines.push_back("    pages: {shared_prefix: {groups: 3, length: 0}}");
  expect_error(d, {d.at(7, "3"), "scenarios[0].pages.shared_prefix.groups", "got 3", "1..2"});
}

TEST_CASE("bad: KV pool beyond 8 GiB of host memory", "[scenario]") {
  Doc d = base();
  d.lines[4] = "    batch: {size: 64, prefix: {dist: fixed, value: 131072}}";
  expect_error(d, {d.at(5, "{"), "scenarios[0].batch", "KV pool", "GiB", "at most 8 GiB"});
}

TEST_CASE("bad: dtype other than bf16", "[scenario]") {
  Doc d = base();
  d.lines.push_back("    dtype: fp16");
  expect_error(d, {d.at(7, "fp16"), "scenarios[0].dtype", "got fp16", "one of bf16"});
}

TEST_CASE("bad: sm_scale zero, negative or unknown preset", "[scenario]") {
  Doc d = base();
  d.lines[3] = "    sm_scale: -0.1";
  expect_error(d, {d.at(4, "-0.1"), "scenarios[0].sm_scale", "got -0.1", "kimi-k2"});
  d.lines[3] = "    sm_scale: 0";
  expect_error(d, {d.at(4, "0"), "scenarios[0].sm_scale", "got 0", "[1e-06, 100]"});
  d.lines[3] = "    sm_scale: llama";
  expect_error(d, {d.at(4, "llama"), "scenarios[0].sm_scale", "got llama", "deepseek-v3"});
}

TEST_CASE("bad: negative tolerance", "[scenario]") {
  Doc d = base();
  d.lines.push_back("    tolerance: {o_atol: -1}");
  expect_error(d, {d.at(7, "-1"), "scenarios[0].tolerance.o_atol", "got -1", ">= 0"});
}

TEST_CASE("bad: sampled-only key with check mode full", "[scenario]") {
  Doc d = base();
  d.lines.push_back("    check: {mode: full, rows: 10}");
  expect_error(d, {d.at(7, "rows"), "scenarios[0].check.rows", "unknown key 'rows'",
                   "allowed keys: mode"});
}

TEST_CASE("bad: bad scenario name", "[scenario]") {
  Doc d = base();
  d.lines[1] = "  - name: has space/slash";
  expect_error(d, {d.at(2, "has"), "scenarios[0].name", "got has space/slash", "[A-Za-z0-9_.-]"});
}

TEST_CASE("bad: duplicate scenario names", "[scenario]") {
  Doc d = base();
  const Doc again = base();
  d.lines.insert(d.lines.end(), again.lines.begin() + 1, again.lines.end());
  expect_error(d, {d.at(7, "a", 1), "scenarios[1].name", "got a", "unique", "line 2"});
}

TEST_CASE("bad: duplicate key in a map", "[scenario]") {
  Doc d = base();
  d.lines[5] = "    tree: {kind: chain, nodes: 4, nodes: 5}";
  expect_error(d, {d.at(6, "nodes", 1), "scenarios[0].tree.nodes", "duplicate key 'nodes'"});
}

TEST_CASE("bad: two sweeps in one entry", "[scenario]") {
  Doc d = base();
  d.lines.push_back("    sweep: {heads: [8, 16]}");
  d.lines.push_back("    sweep: {tree.nodes: [2, 4]}");
  expect_error(d, {d.at(8, "sweep"), "scenarios[0].sweep", "duplicate key 'sweep'",
                   "at most one sweep per entry"});
}

TEST_CASE("bad: sweep over an unknown field", "[scenario]") {
  Doc d = base();
  d.lines.push_back("    sweep: {heads: [8], tree.width: [2, 4]}");
  expect_error(d, {d.at(7, "tree.width"), "scenarios[0].sweep.tree.width", "tree.width",
                   "unknown sweep field", "allowed: heads, sm_scale"});
}

TEST_CASE("bad: sweep over name", "[scenario]") {
  Doc d = base();
  d.lines.push_back("    sweep: {name: [x, y]}");
  expect_error(d, {d.at(7, "name"), "scenarios[0].sweep.name", "unknown sweep field"});
}

TEST_CASE("bad: empty sweep list", "[scenario]") {
  Doc d = base();
  d.lines.push_back("    sweep: {heads: []}");
  expect_error(d, {d.at(7, "[]"), "scenarios[0].sweep.heads", "got []", "non-empty list"});
}

TEST_CASE("bad: sweep value not a list", "[scenario]") {
  Doc d = base();
  d.lines.push_back("    sweep: {heads: 8}");
  expect_error(d, {d.at(7, "8}"), "scenarios[0].sweep.heads", "got 8", "non-empty list"});
}

TEST_CASE("bad: repeated sweep value", "[scenario]") {
  Doc d = base();
  d.lines.push_back("    sweep: {heads: [8, 8]}");
  expect_error(d, {d.at(7, "8", 1), "scenarios[0].sweep.heads[1]", "got 8", "distinct"});
}

TEST_CASE("bad: sweep value validated like a written one, at its own line", "[scenario]") {
  Doc d = base();
  d.lines.push_back("    sweep:");
  d.lines.push_back("      heads: [8, 0]");
  expect_error(d, {d.at(8, "0"), "scenarios[0].heads", "got 0", "1..128", "sweep point heads=0"});
}

TEST_CASE("bad: sweep sets a field the tree kind does not have", "[scenario]") {
  Doc d = base();
  d.lines[5] = "    tree: {kind: kary, branching: 2, depth: 2}";
  d.lines.push_back("    sweep: {tree.nodes: [2]}");
  expect_error(d, {d.at(7, "tree.nodes"), "scenarios[0].tree.nodes", "unknown key 'nodes'",
                   "sweep point tree.nodes=2"});
}

TEST_CASE("bad: entry that is not a map", "[scenario]") {
  const Doc d{{"scenarios:", "  - just-a-name"}};
  expect_error(d, {d.at(2, "just"), "scenarios[0]", "got just-a-name", "a map"});
}

TEST_CASE("bad: entries are reported with their index", "[scenario]") {
  Doc d = base();
  d.lines.insert(d.lines.end(), {
      "  - name: b",
      "    heads: 8",
      "    sm_scale: kimi-k2",
      "    batch: {prefix_lens: [1]}",
      "    tree: {kind: chain, nodes: 2}",
      "  - name: c",
      "    heads: 8",
      "    sm_scale: kimi-k2",
      "    batch: {prefix_lens: [1]}",
      "    tree: {kind: kary, branching: x, depth: 2}",
  });
  expect_error(d, {d.at(16, "x"), "scenarios[2].tree.branching", "got x", "an integer in 1..1023"});
}

}  // namespace
TEST_CASE("tags may be key:value pairs of names, nothing else", "[scenario]") {
  Doc good = base();
  good.lines.push_back("    tags: [perf, \"mask-tax-baseline:twin_case.1\"]");
  const CaseSpec spec = parse_one(good);
  REQUIRE(spec.tags.size() == 2);
  CHECK(spec.tags[1] == "mask-tax-baseline:twin_case.1");

  for (const std::string& bad : std::vector<std::string> {"\":twin\"", "\"key:\"", "\"a:b:c\"", "\"sp ace\""}) {
    Doc d = base();
    d.lines.push_back("    tags: [perf, " + bad + "]");
    INFO("tag " << bad);
    expect_error(d, {d.at(7, bad), "scenarios[0].tags[1]", "key>:<value>"});
  }
}

}  // namespace vb

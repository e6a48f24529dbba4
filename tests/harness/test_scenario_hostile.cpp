// Hostile scenario files (issue 29): each input here was once accepted, crashed, hung or
// cost far more than its size. Every test names the defect it keeps fixed; the contract is
// one ScenarioError "<file>:<line>:<col>: <field>: ..." and nothing allocated or computed
// beyond the limits (harness/scenario/scenario.h, ScenarioLimits; scenarios/README.md, "Limits").
#include <catch2/catch.hpp>

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "harness/cli/cli_common.h"
#include "harness/scenario/scenario.h"
#include "temp_dir.h"

namespace vb {
namespace {

using Catch::Contains;

std::string entry(const std::string& extra, const std::string& heads = "8",
                  const std::string& batch = "{prefix_lens: [16, 5]}",
                  const std::string& tree = "{kind: chain, nodes: 4}") {
  return "scenarios:\n"
         "  - name: a\n"
         "    heads: " + heads + "\n"
         "    sm_scale: kimi-k2\n"
         "    batch: " + batch + "\n"
         "    tree: " + tree + "\n" + extra;
}

std::string error_of(const std::string& text, const ScenarioLimits& limits = {}) {
  try {
    parse_scenario_text(text, "t.yaml", limits);
  } catch (const ScenarioError& e) {
    return e.what();
  }
  FAIL("expected a ScenarioError for:\n" << text);
  return "";
}

// One line, starting with the file's position.
void require_contract(const std::string& msg) {
  INFO("message: " << msg);
  REQUIRE(msg.rfind("t.yaml:", 0) == 0);
  REQUIRE(msg.find('\n') == std::string::npos);
}

double seconds_to_parse(const std::string& text) {
  const auto start = std::chrono::steady_clock::now();
  try {
    parse_scenario_text(text, "t.yaml");
  } catch (const ScenarioError&) {
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

using vb::test::TempDir;

}  // namespace

TEST_CASE("hostile: only one YAML document per file", "[scenario][hostile]") {
  const std::string msg = error_of(entry("") + "---\nscenarios: []\n");
  require_contract(msg);
  CHECK_THAT(msg, Contains("second YAML document"));
}

TEST_CASE("hostile: integers are plain decimal: +-0, 010 and tagged !!str 8 are refused", "[scenario][hostile]") {
  for (const std::string heads : {"+-0", "-+8", "010", "00", "!!str 8", "!!int 8", "0x8", "8.0", "1e1"}) {
    INFO("heads: " << heads);
    const std::string msg = error_of(entry("", heads));
    require_contract(msg);
    CHECK_THAT(msg, Contains("heads") || Contains("tag"));
  }
  CHECK(parse_scenario_text(entry("", "+8"), "t.yaml").cases.at(0).heads == 8);
  // +-0 was read as 0 where 0 is allowed.
  require_contract(error_of(entry("", "8", "{prefix_lens: [+-0]}")));
  require_contract(error_of(entry("    seed: +-0\n")));
}

TEST_CASE("hostile: numbers keep their syntax: leading zeros, doubled signs, bare dots", "[scenario][hostile]") {
  for (const std::string v : {"+-1e-2", "01e-2", "1e", ".", "1e+-2", "--1"}) {
    INFO("o_atol: " << v);
    require_contract(error_of(entry("    tolerance: {o_atol: " + v + "}\n")));
  }
}

TEST_CASE("hostile: sm_scale 1e300 (inf as a float) and 1e-310 are refused with the range", "[scenario][hostile]") {
  for (const std::string v : {"1e300", "1e-310", "1e39", "0"}) {
    std::string text = entry("");
    text.replace(text.find("kimi-k2"), 7, v);
    const std::string msg = error_of(text);
    require_contract(msg);
    CHECK_THAT(msg, Contains("sm_scale") && Contains("[1e-06, 100]"));
  }
}

TEST_CASE("hostile: a positive subnormal tolerance is a number, not 'not >= 0'", "[scenario][hostile]") {
  const ScenarioFile f = parse_scenario_text(entry("    tolerance: {o_atol: 1e-310}\n"), "t.yaml");
  CHECK(f.cases.at(0).tolerance.o_atol > 0);
}

TEST_CASE("hostile: tolerances that cannot fail are refused", "[scenario][hostile]") {
  for (const std::string tol : {"{o_atol: 1e300}", "{o_rtol: 1}", "{lse_rtol: 5}", "{lse_atol: 1e300}",
                                "{o_atol: 0.9, o_rtol: 0.5}"}) {
    INFO(tol);
    const std::string msg = error_of(entry("    tolerance: " + tol + "\n"));
    require_contract(msg);
    CHECK_THAT(msg, Contains("tolerance."));
  }
}

TEST_CASE("hostile: a lognormal median outside [min, max], or huge, is refused (no silent clamp)", "[scenario][hostile]") {
  for (const std::string median : {"70000", "1e300", "1e18"}) {
    const std::string msg = error_of(
        entry("", "8", "{size: 4, prefix: {dist: lognormal, median: " + median + ", sigma: 1, max: 65536}}"));
    require_contract(msg);
    CHECK_THAT(msg, Contains("batch.prefix.median"));
  }
}

TEST_CASE("hostile: B 1024 x T 1024 x H 128 is refused before any allocation, naming the size", "[scenario][hostile]") {
  const std::string msg = error_of(entry("", "128", "{size: 1024, prefix: {dist: fixed, value: 0}}",
                                         "{kind: chain, nodes: 1024}"));
  require_contract(msg);
  CHECK_THAT(msg, Contains("GiB of host memory") && Contains("--max-host-bytes"));
  // The documented option raises it (the reference budget is next in line).
  ScenarioLimits wide;
  wide.max_host_bytes = std::int64_t{1} << 50;
  CHECK_THAT(error_of(entry("", "128", "{size: 1024, prefix: {dist: fixed, value: 0}}", "{kind: chain, nodes: 1024}"), wide),
             Contains("--max-reference-flop"));
}

TEST_CASE("hostile: a 2^20-token request's reference gather is bounded", "[scenario][hostile]") {
  const std::string msg = error_of(entry("    check: {mode: sampled, rows: 16}\n", "8", "{prefix_lens: [1048576]}",
                                         "{kind: chain, nodes: 1}"));
  require_contract(msg);
  CHECK_THAT(msg, Contains("gather") && Contains("--max-reference-bytes"));
}

TEST_CASE("hostile: a fully checked case that would run for hours offers check: sampled", "[scenario][hostile]") {
  const std::string text = entry("", "128", "{prefix_lens: [200000]}", "{kind: chain, nodes: 1024}");
  const std::string msg = error_of(text);
  require_contract(msg);
  CHECK_THAT(msg, Contains("FLOP") && Contains("mode: sampled") && Contains("--max-reference-flop"));
  // Sampled, the same shape is fine.
  CHECK(parse_scenario_text(entry("    check: {mode: sampled, rows: 256}\n", "128", "{prefix_lens: [200000]}",
                                  "{kind: chain, nodes: 1024}"),
                            "t.yaml")
            .cases.size() == 1);
}

TEST_CASE("hostile: duplicate-key detection is not quadratic (one map of 100k keys)", "[scenario][hostile][slow]") {
  std::string text = "scenarios:\n  - {name: a";
  for (int i = 0; i < 100000; ++i) text += fmt::format(", k{}: 1", i);
  text += "}\n";
  const double s = seconds_to_parse(text);
  INFO(s << " s");
  CHECK(s < 5.0);  // quadratic: > 20 s
}

TEST_CASE("hostile: a sweep list's cap is checked as it is read, distinctness in n log n", "[scenario][hostile]") {
  std::string list;
  for (int i = 0; i < 100000; ++i) list += fmt::format("{}{}", i ? ", " : "", i);
  const std::string text = entry("    sweep: {seed: [" + list + "]}\n");
  const std::string msg = error_of(text);
  require_contract(msg);
  CHECK_THAT(msg, Contains("sweep.seed[4096]"));
  CHECK(seconds_to_parse(text) < 5.0);
}

TEST_CASE("hostile: a file's sweeps cannot expand past the case limit", "[scenario][hostile]") {
  std::string list;
  for (int v = 0; v < 4096; ++v) list += fmt::format("{}{}", v ? ", " : "", v);
  std::string text = "scenarios:\n";
  for (int i = 0; i < 3; ++i) {
    text += fmt::format("  - name: e{}\n    heads: 8\n    sm_scale: kimi-k2\n    batch: {{prefix_lens: [1]}}\n"
                        "    tree: {{kind: chain, nodes: 1}}\n    sweep: {{seed: [{}]}}\n",
                        i, list);
  }
  const std::string msg = error_of(text);
  require_contract(msg);
  CHECK_THAT(msg, Contains("12288 or more cases") && Contains("--max-cases"));
}

TEST_CASE("hostile: an alias bomb is refused before it is walked", "[scenario][hostile]") {
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 12; ++i) {  // a11 stands for 10^12 scalars
    text += fmt::format("a{0}: &a{0} [*a{1}, *a{1}, *a{1}, *a{1}, *a{1}, *a{1}, *a{1}, *a{1}, *a{1}, *a{1}]\n", i, i - 1);
  }
  const double s = seconds_to_parse(text);
  const std::string msg = error_of(text);
  require_contract(msg);
  CHECK_THAT(msg, Contains("aliases"));
  CHECK(s < 2.0);
}

TEST_CASE("hostile: entries aliasing one sweep cannot make a million cases", "[scenario][hostile]") {
  std::string text = "scenarios:\n";
  for (int i = 0; i < 300; ++i) {
    text += fmt::format("  - name: e{}\n    heads: 8\n    sm_scale: kimi-k2\n    batch: {{prefix_lens: [1]}}\n"
                        "    tree: {{kind: chain, nodes: 1}}\n",
                        i);
    text += i == 0 ? "    sweep: &s {seed: [" : "    sweep: *s\n";
    if (i == 0) {
      for (int v = 0; v < 4096; ++v) text += fmt::format("{}{}", v ? ", " : "", v);
      text += "]}\n";
    }
  }
  const std::string msg = error_of(text);
  require_contract(msg);
  CHECK_THAT(msg, Contains("aliases") || Contains("--max-cases"));
}

// Found by tests/fuzz's scenario loader: yaml-cpp 0.7's LoadAll never returned on it (and
// grew a vector of null documents meanwhile).
TEST_CASE("hostile: a malformed stream that looped LoadAll forever ends in one error", "[scenario][hostile]") {
  std::ifstream in(std::string(VB_TEST_DATA_DIR) + "/scenarios/hostile_loadall_loop.yaml", std::ios::binary);
  REQUIRE(in);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(seconds_to_parse(text) < 2.0);
  require_contract(error_of(text));
}

TEST_CASE("hostile: the file size limit applies before parsing", "[scenario][hostile]") {
  ScenarioLimits small;
  small.max_file_bytes = 64;
  const std::string msg = error_of(entry(""), small);
  require_contract(msg);
  CHECK_THAT(msg, Contains("--max-file-bytes"));
}

TEST_CASE("hostile: messages are one printable line, control bytes escaped", "[scenario][hostile]") {
  // A block scalar spanning lines, a raw control byte, a non-UTF-8 byte.
  for (const std::string heads : {"|\n      8\n      9", "\"8\x01\"", "\"\xff\""}) {
    const std::string msg = error_of(entry("", heads));
    require_contract(msg);
    CHECK(msg.find('\x01') == std::string::npos);
    CHECK(msg.find('\xff') == std::string::npos);
  }
  CHECK_THAT(error_of(entry("", "\"8\x01\"")), Contains("\\x01"));
  // A quoted key holding a newline (found by tests/fuzz): the unknown-key message names it
  // escaped.
  const std::string key_msg = error_of(entry("    \"hea\\nds\": 8\n"));
  require_contract(key_msg);
  CHECK_THAT(key_msg, Contains("hea\\x0ads"));
}

TEST_CASE("hostile: a sweep value's case name is one printable line", "[scenario][hostile]") {
  const ScenarioFile f = parse_scenario_text(
      entry("    sweep: {tree.parents: [[-1,\n        0]]}\n", "8", "{prefix_lens: [3]}", "{kind: explicit, parents: [-1]}"),
      "t.yaml");
  REQUIRE(f.cases.size() == 1);
  CHECK(f.cases[0].name.find('\n') == std::string::npos);
}

TEST_CASE("hostile: a root that is not a map names the top level", "[scenario][hostile]") {
  const std::string msg = error_of("- a\n- b\n");
  require_contract(msg);
  CHECK_THAT(msg, Contains("the top level"));
}

TEST_CASE("hostile: directories, FIFOs and devices are refused without reading", "[scenario][hostile]") {
  TempDir dir;
  const std::string fifo = (dir.path / "fifo.yaml").string();
  REQUIRE(mkfifo(fifo.c_str(), 0600) == 0);
  for (const std::string& path : {dir.path.string(), fifo, std::string("/dev/zero")}) {
    INFO(path);
    try {
      load_scenario_file(path);
      FAIL("accepted " << path);
    } catch (const ScenarioError& e) {
      CHECK_THAT(e.what(), Contains("not a regular file"));
      CHECK_THAT(e.what(), !Contains("empty"));
    }
  }
}

TEST_CASE("hostile: a file above the size limit is refused from its size, not its contents", "[scenario][hostile]") {
  TempDir dir;
  const std::string path = (dir.path / "big.yaml").string();
  std::ofstream(path) << std::string(2000, '#') << "\n";
  ScenarioLimits small;
  small.max_file_bytes = 1000;
  CHECK_THROWS_WITH(load_scenario_file(path, small), Contains("2001 bytes") && Contains("--max-file-bytes"));
}

}  // namespace vb

// ---- issue 48, items 9 and 11; issue 44, item 8 ----
namespace vb {

TEST_CASE("hostile: a normal scale so small the data rounds to zero is refused", "[scenario][hostile]") {
  // scale 4.9e-324 made q = K = O = 0 and o_atol 0: an all-zero kernel passed.
  for (const char* scale : {"4.9e-324", "1e-30", "8e-19"}) {
    const std::string msg = error_of(entry(fmt::format("    data: {{dist: normal, scale: {}}}\n", scale)));
    require_contract(msg);
    CHECK_THAT(msg, Contains("scenarios[0].data.scale: got " + std::string(scale)));
    CHECK_THAT(msg, Contains("allowed: a number in [8.67e-19, 4]"));
    CHECK_THAT(msg, Contains("an all-zero output would pass"));
  }
  const ScenarioFile f = parse_scenario_text(entry("    data: {dist: normal, scale: 1e-18}\n"), "t.yaml");
  REQUIRE(f.cases.size() == 1);
  CHECK(f.cases[0].tolerance.o_atol > 0);
}

TEST_CASE("hostile: poison that reaches no request is refused", "[scenario][hostile]") {
  // Only requests with 16 or more prefix tokens are poisoned.
  const std::string msg = error_of(
      entry("    data: {dist: uniform, poison: {value: nan}}\n", "8", "{prefix_lens: [15, 5]}"));
  require_contract(msg);
  CHECK_THAT(msg, Contains("t.yaml:7:35: scenarios[0].data.poison: poisons no request"));
  CHECK_THAT(msg, Contains("the longest prefix a request of this batch can have is 15"));
  // A distribution is judged on its bounds: at most 15 tokens here.
  CHECK_THAT(error_of(entry("    data: {dist: uniform, poison: {value: inf, in: q}}\n", "8",
                            "{size: 8, prefix: {dist: uniform, min: 0, max: 15}, seed: 3}")),
             Contains("poisons no request"));
  // A swept poison is judged per sweep point.
  CHECK_THAT(error_of(entry("    data: {dist: uniform}\n    sweep: {data.poison.value: [nan]}\n", "8",
                            "{prefix_lens: [3]}")),
             Contains("poisons no request"));
  CHECK(parse_scenario_text(entry("    data: {dist: uniform, poison: {value: nan}}\n", "8", "{prefix_lens: [16, 0]}"),
                            "t.yaml")
            .cases.size() == 1);
}

TEST_CASE("hostile: a sink outside a request's prefix is refused", "[scenario][hostile]") {
  // entry()'s batch: prefixes 16 and 5.
  const std::string msg = error_of(entry("    data: {dist: sink, at: 10}\n"));
  require_contract(msg);
  CHECK_THAT(msg, Contains("t.yaml:7:28: scenarios[0].data.at: got 10"));
  CHECK_THAT(msg, Contains("the shortest a request of this batch can have is 5 tokens"));
  CHECK_THAT(error_of(entry("    data: {dist: sink, at: 3, count: 3}\n")), Contains("data.at: got 3"));
  CHECK_THAT(error_of(entry("    data: {dist: sink, at: last}\n", "8", "{prefix_lens: [16, 0]}")),
             Contains("data.at: got last"));
  CHECK_THAT(error_of(entry("    data: {dist: sink, count: 6}\n")), Contains("data.count: got 6"));
  for (const char* ok : {"{dist: sink, at: 4}", "{dist: sink, at: last, count: 5}", "{dist: sink}",
                         "{dist: sink, at: root}", "{dist: sink, at: tree}"}) {
    INFO(ok);
    CHECK(parse_scenario_text(entry(fmt::format("    data: {}\n", ok)), "t.yaml").cases.size() == 1);
  }
  CHECK(parse_scenario_text(entry("    data: {dist: sink, at: root}\n", "8", "{prefix_lens: [0]}"), "t.yaml")
            .cases.size() == 1);
}

TEST_CASE("hostile: sweep values are distinct on their whole value, not a cut label", "[scenario][hostile]") {
  // Two 41-element lists that differ only at the end were refused as repeated.
  std::string a = "[-1", b = "[-1";
  for (int i = 1; i < 41; ++i) {
    a += ", 0";
    b += i == 40 ? ", 1" : ", 0";
  }
  a += "]";
  b += "]";
  const ScenarioFile f = parse_scenario_text(
      entry("    sweep: {tree.parents: [" + a + ", " + b + "]}\n", "8", "{prefix_lens: [3]}",
            "{kind: explicit, parents: [-1]}"),
      "t.yaml");
  REQUIRE(f.cases.size() == 2);
  CHECK(f.cases[0].name != f.cases[1].name);
  for (const CaseSpec& c : f.cases) {
    INFO(c.name);
    CHECK(c.name.rfind("a/tree.parents=[-1, 0, 0, ", 0) == 0);
    CHECK(c.name.size() == std::string("a/tree.parents=").size() + 80 + 9);  // 80 characters, "~", 8 hex digits
    CHECK(c.name[c.name.size() - 9] == '~');
  }
  // The same value twice, once in block style, is still repeated.
  CHECK_THAT(error_of(entry("    sweep:\n      batch.prefix_lens:\n        - [1, 2]\n        - - 1\n          - 2\n")),
             Contains("repeated in this sweep list"));
}

TEST_CASE("hostile: a block-style sweep list names its case in flow style, and --case finds it", "[scenario][hostile]") {
  // Issue 44, item 8: the name was a/batch.prefix_lens=- 1\x0a- 2, which no one can type.
  const std::string text = entry("    sweep:\n      batch.prefix_lens:\n        - - 1\n          - 2\n        - [3]\n");
  const ScenarioFile f = parse_scenario_text(text, "t.yaml");
  REQUIRE(f.cases.size() == 2);
  CHECK(f.cases[0].name == "a/batch.prefix_lens=[1, 2]");
  CHECK(f.cases[1].name == "a/batch.prefix_lens=[3]");
  // --case takes the name as `list` prints it.
  const std::vector<ScenarioFile> loaded = {f};
  const std::vector<Selected> picked = select_cases(loaded, {"t.yaml"}, {"a/batch.prefix_lens=[1, 2]"});
  REQUIRE(picked.size() == 1);
  REQUIRE(picked[0].cases.size() == 1);
  CHECK(picked[0].cases[0]->batch.prefix_lens == std::vector<int>{1, 2});
  // A list whose item starts on the line after its dash.
  const ScenarioFile g = parse_scenario_text(
      entry("    sweep:\n      tree.parents:\n        -\n          - -1\n          - 0\n", "8", "{prefix_lens: [3]}",
            "{kind: explicit, parents: [-1]}"),
      "t.yaml");
  REQUIRE(g.cases.size() == 1);
  CHECK(g.cases[0].name == "a/tree.parents=[-1, 0]");
}

TEST_CASE("hostile: planner integers refuse 2e0, 1e2 and 2. as every other integer field", "[scenario][hostile]") {
  for (const char* value : {"2e0", "1e2", "2.", "0x2"}) {
    const std::string msg = error_of(entry(fmt::format("    planner: {{max_splits: {}}}\n", value)));
    require_contract(msg);
    CHECK_THAT(msg, Contains("scenarios[0].planner.max_splits: planner setting 'max_splits': '" + std::string(value) +
                             "' is not a plain decimal integer"));
  }
  CHECK_THAT(error_of(entry("    planner: {split_overhead_tiles: .nan}\n")), Contains("is not a finite decimal number"));
  CHECK(parse_scenario_text(entry("    planner: {max_splits: 2, split_overhead_tiles: 2.5e0}\n"), "t.yaml")
            .cases[0].planner.max_splits == 2);
}

TEST_CASE("hostile: nothing but comments after the document end marker", "[scenario][hostile]") {
  // yaml-cpp ignores a directive after '...': the file would say more than what is read.
  for (const char* tail : {"...\n%YAML 1.2\n", "...\n%TAG ! tag:x,2000:\n", "... # end\n%FOO bar\n"}) {
    const std::string msg = error_of(entry("") + tail);
    require_contract(msg);
    CHECK_THAT(msg, Contains("(document): '%"));
    CHECK_THAT(msg, Contains("after the document end marker '...'; allowed: only comments after '...'"));
  }
  CHECK_THAT(error_of(entry("") + "...\n%YAML 1.2\n"), Contains("t.yaml:8:1:"));
  CHECK(parse_scenario_text(entry("") + "...\n# a comment\n\n", "t.yaml").cases.size() == 1);
  CHECK(parse_scenario_text("%YAML 1.2\n---\n" + entry(""), "t.yaml").cases.size() == 1);
}

}  // namespace vb

// Hostile inputs to the report writers and to `verifybench compare` (issue 29): the report
// set is written as a set, any byte in a name survives into result.json, compare names the
// file of every bad input and bounds its bootstrap.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "harness/compare/compare.h"
#include "harness/report/report_json.h"
#include "temp_dir.h"

namespace vb {
namespace {

namespace fs = std::filesystem;

using vb::test::TempDir;
using vb::test::read_file;

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("hostile: a failed write leaves the earlier report set whole and no temporaries", "[report][hostile]") {
  TempDir dir;
  const fs::path a = dir.path / "result.json", b = dir.path / "results.csv";
  write_files_as_set({{a.string(), "old json"}, {b.string(), "old csv"}});
  // The second file's temporary cannot be created (its folder does not exist): the first
  // file must not be replaced, and the first temporary must be gone.
  CHECK_THROWS_AS(write_files_as_set({{a.string(), "new json"}, {(dir.path / "missing" / "results.csv").string(), "new csv"}}),
                  FileWriteError);
  CHECK(read_file(a) == "old json");
  CHECK(read_file(b) == "old csv");
  CHECK(names_in(dir.path) == std::vector<std::string>{"result.json", "results.csv"});
  // A stale temporary of a killed run (the old fixed name) is neither used nor in the way.
  std::ofstream(dir.path / "result.json.tmp") << "stale";
  write_files_as_set({{a.string(), "new json"}, {b.string(), "new csv"}});
  CHECK(read_file(a) == "new json");
  CHECK(names_in(dir.path) == std::vector<std::string>{"result.json", "result.json.tmp", "results.csv"});
}

TEST_CASE("hostile: a scenario path with a non-UTF-8 byte still gives a result.json", "[report][hostile]") {
  Provenance prov;
  prov.scenario_files.push_back(ScenarioFileInfo{"scen\xff.yaml", "00"});
  CaseResult c;
  c.case_name = "a";
  c.source = "scen\xff.yaml:2";
  c.reproducer = "verifybench run 'scen\xff.yaml' --case a";
  std::string text;
  REQUIRE_NOTHROW(text = result_json_text(prov, {c}));
  CHECK(text.find("scen\xef\xbf\xbd.yaml") != std::string::npos);  // U+FFFD
}

TEST_CASE("hostile: compare names the file and exits 2 for a directory, 1e400, wrong types", "[compare][hostile]") {
  TempDir dir;
  const fs::path overflow = dir.path / "overflow.json";
  std::ofstream(overflow) << R"({"schema": "verifybench.result/2", "cases": [{"samples": [1e400]}]})";
  const fs::path wrong = dir.path / "wrong.json";
  std::ofstream(wrong) << R"({"schema": "verifybench.result/2", "provenance": 7, "cases": 3})";
  for (const fs::path& p : {dir.path, overflow, wrong}) {
    INFO(p);
    try {
      load_timed_run(p.string());
      FAIL("accepted");
    } catch (const CompareInputError& e) {
      CHECK_THAT(e.what(), Catch::Contains(p.string()));
    }
  }
}

TEST_CASE("hostile: the bootstrap of 200k samples a side stays fast and keeps the ratio", "[compare][hostile]") {
  std::vector<double> base(200000), cur(200000);
  for (std::size_t i = 0; i < base.size(); ++i) {
    base[i] = 10.0 + static_cast<double>(i % 101) * 0.01;
    cur[i] = 11.0 + static_cast<double>(i % 97) * 0.01;
  }
  const auto start = std::chrono::steady_clock::now();
  const RatioInterval r = bootstrap_median_ratio(base, cur, 2000, 0.95, 7);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  INFO(s << " s");
  CHECK(s < 5.0);  // every sample in every resample: > 20 s
  CHECK(r.ratio == Approx(11.48 / 10.5).epsilon(0.01));
  CHECK(r.lo <= r.ratio);
  CHECK(r.hi >= r.ratio);
}

}  // namespace vb

// verifybench run --peers: peer rows go to the case of their name, with production's speedup
// where both have a cold-l2 median; files of another form are refused naming the file.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "harness/report/peers_merge.h"
#include "harness/run/runner.h"

namespace {

vb::ExecutorResult timed(const std::string& executor, double cold_ms) {
  vb::ExecutorResult e;
  e.executor = executor;
  e.outcome = vb::Outcome::kPassed;
  e.detail = "the peer's note";
  vb::TimingRecord t;
  t.mode = "cold-l2";
  t.median_ms = cold_ms;
  t.stop_reason = "noise target";
  e.timings.push_back(t);
  return e;
}

std::string write_temp(const std::string& text) {
  static int count = 0;
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("vb-peers-test-" + std::to_string(::getpid()) + "-" + std::to_string(++count) + ".json"))
                               .string();
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("peer rows join their case, with production's speedup", "[peers]") {
  std::vector<vb::CaseResult> results(2);
  results[0].case_name = "a";
  results[0].executors.push_back(timed("production", 0.020));
  results[1].case_name = "b";  // production not timed
  results[1].executors.push_back(vb::ExecutorResult{});
  vb::PeerRows peers;
  peers.cases = {{"a", {timed("peer/sglang-triton", 0.640)}}, {"b", {timed("peer/flashmla", 0.030)}},
                 {"c", {timed("peer/flashinfer", 0.010)}}};
  const vb::PeerMergeSummary summary = vb::merge_peer_rows(peers, &results);
  CHECK(summary.rows_merged == 2);
  REQUIRE(summary.cases_not_in_run == std::vector<std::string>{"c"});
  REQUIRE(results[0].executors.size() == 2);
  const vb::ExecutorResult& peer = results[0].executors[1];
  CHECK(peer.executor == "peer/sglang-triton");
  REQUIRE(peer.production_speedup);
  CHECK(*peer.production_speedup == Approx(32.0));
  CHECK(peer.detail == "the peer's note");  // the peer's own, nothing added
  CHECK_FALSE(results[1].executors[1].production_speedup);
  CHECK(summary.rows_without_speedup == 1);
}

TEST_CASE("a peers file of another form is refused naming the file", "[peers]") {
  const std::string other = write_temp(R"({"format": "verifybench-result/1"})");
  CHECK_THROWS_WITH(vb::read_peer_rows(other), Catch::Matchers::Contains(other + ": format 'verifybench-result/1'"));
  const std::string broken = write_temp(R"({"format": "verifybench-peers/1", "cases": [{"case": "a", "executors": [{}]}]})");
  CHECK_THROWS_WITH(vb::read_peer_rows(broken), Catch::Matchers::Contains(broken + ": cases[0].executors[0]: a malformed row"));
  const std::string not_json = write_temp("{");
  CHECK_THROWS_WITH(vb::read_peer_rows(not_json), Catch::Matchers::Contains(not_json + ":1:2: not JSON"));
  CHECK_THROWS_WITH(vb::read_peer_rows("/nonexistent/peers.json"), Catch::Matchers::Contains("/nonexistent/peers.json: cannot open"));
  std::remove(other.c_str());
  std::remove(broken.c_str());
  std::remove(not_json.c_str());
}

TEST_CASE("peer rows stay in the peer namespace, once each, and never decide the run", "[peers][hostile]") {
  const std::string row = R"({"executor": "NAME", "outcome": "incorrect", "detail": "", "checked_against": "", "rows_checked": 0,
                              "timings": [{"mode": "cold-l2", "samples_ms": [0.001], "median_ms": 0.001, "min_ms": 0.001,
                                           "max_ms": 0.001, "p10_ms": 0.001, "p90_ms": 0.001, "rel_noise": 0,
                                           "stop_reason": "noise target", "throttled": false}]})";
  auto file_with = [&](const std::vector<std::pair<std::string, std::vector<std::string>>>& cases) {
    std::string text = R"({"format": "verifybench-peers/1", "cases": [)";
    for (std::size_t i = 0; i < cases.size(); ++i) {
      text += (i ? "," : "") + std::string(R"({"case": ")") + cases[i].first + R"(", "executors": [)";
      for (std::size_t j = 0; j < cases[i].second.size(); ++j) {
        std::string r = row;
        r.replace(r.find("NAME"), 4, cases[i].second[j]);
        text += (j ? "," : "") + r;
      }
      text += "]}";
    }
    return write_temp(text + "]}");
  };
  for (const char* name : {"production", "naive", "reference", "production/wgmma", "peer/", "peer/a b",
                           "peerless", "peer/\\u001b[2J"}) {
    INFO(name);
    const std::string path = file_with({{"a", {name}}});
    CHECK_THROWS_WITH(vb::read_peer_rows(path), Catch::Matchers::Contains(path + ": cases[0].executors[0]: executor '") &&
                                                    Catch::Matchers::Contains("allowed: a peer name, peer/<name>"));
    std::remove(path.c_str());
  }
  const std::string twice_row = file_with({{"a", {"peer/x", "peer/x"}}});
  CHECK_THROWS_WITH(vb::read_peer_rows(twice_row), Catch::Matchers::Contains("executor 'peer/x' listed twice"));
  const std::string twice_case = file_with({{"a", {"peer/x"}}, {"a", {"peer/y"}}});
  CHECK_THROWS_WITH(vb::read_peer_rows(twice_case), Catch::Matchers::Contains("cases[1]: case 'a' listed twice"));
  const std::string number_format = write_temp(R"({"format": 5})");
  CHECK_THROWS_WITH(vb::read_peer_rows(number_format), Catch::Matchers::Contains(number_format + ": format '5'"));

  // An incorrect 1 us peer row merged into a passing case: the case, the counts and the
  // run's exit code stay the run's own.
  const std::string good = file_with({{"a", {"peer/fast"}}});
  const vb::PeerRows peers = vb::read_peer_rows(good);
  std::vector<vb::CaseResult> results(1);
  results[0].case_name = "a";
  results[0].executors.push_back(timed("production", 0.020));
  vb::merge_peer_rows(peers, &results);
  REQUIRE(results[0].executors.size() == 2);
  CHECK(results[0].executors[1].outcome == vb::Outcome::kIncorrect);
  CHECK(results[0].all_passed());
  CHECK(vb::count_outcomes(results).incorrect == 0);
  CHECK(vb::exit_code_for(results) == vb::kExitOk);
  for (const std::string& p : {twice_row, twice_case, number_format, good}) std::remove(p.c_str());
}

TEST_CASE("a peers file that is a device or FIFO is refused without reading it", "[peers][hostile]") {
  CHECK_THROWS_WITH(vb::read_peer_rows("/dev/zero"), Catch::Matchers::Contains("/dev/zero: a character device"));
  const std::string fifo = (std::filesystem::temp_directory_path() / ("vb-peers-fifo-" + std::to_string(::getpid()))).string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  CHECK_THROWS_WITH(vb::read_peer_rows(fifo), Catch::Matchers::Contains(fifo + ": a FIFO"));
  std::remove(fifo.c_str());
}

TEST_CASE("no executor the harness runs is in the peer namespace", "[peers]") {
  for (const vb::ExecutorInfo& e : vb::executor_registry()) {
    INFO(e.name);
    CHECK_FALSE(vb::is_peer_executor(e.name));
  }
  CHECK_FALSE(vb::is_peer_executor(vb::kReferenceExecutor));
}

// verifybench run --peers: peer rows go to the case of their name, with production's speedup
// where both have a cold-l2 median; files of another form are refused naming the file.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "harness/report/peers_merge.h"

namespace {

vb::ExecutorResult timed(const std::string& executor, double cold_ms) {
  vb::ExecutorResult e;
  e.executor = executor;
  e.outcome = vb::Outcome::kPassed;
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
  CHECK_THAT(peer.detail, Catch::Matchers::Contains("production 32.00x faster (cold-l2 medians: 640.0 us in the "
                                                    "peers file, 20.0 us in this run)"));
  CHECK_FALSE(results[1].executors[1].production_speedup);
  CHECK_THAT(results[1].executors[1].detail, Catch::Matchers::Contains("no speedup: production has no cold-l2 time"));
}

TEST_CASE("a peers file of another form is refused naming the file", "[peers]") {
  const std::string other = write_temp(R"({"format": "verifybench-result/1"})");
  CHECK_THROWS_WITH(vb::read_peer_rows(other), Catch::Matchers::Contains(other + ": format 'verifybench-result/1'"));
  const std::string broken = write_temp(R"({"format": "verifybench-peers/1", "cases": [{"case": "a", "executors": [{}]}]})");
  CHECK_THROWS_WITH(vb::read_peer_rows(broken), Catch::Matchers::Contains(broken + ": a malformed case or row"));
  const std::string not_json = write_temp("{");
  CHECK_THROWS_WITH(vb::read_peer_rows(not_json), Catch::Matchers::Contains(not_json + ": not JSON"));
  CHECK_THROWS_WITH(vb::read_peer_rows("/nonexistent/peers.json"), Catch::Matchers::Contains("cannot be read"));
  std::remove(other.c_str());
  std::remove(broken.c_str());
  std::remove(not_json.c_str());
}

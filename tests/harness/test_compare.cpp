// `verifybench compare` (harness/compare/compare.h, harness/cli/cmd_compare.cpp) on synthetic result files:
// the verdict rule, missing cases, cross-device refusal, correctness failures, ceilings
// normalization, per-case gate tolerances, the writers and the CLI's exit codes.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "harness/compare/compare.h"
#include "harness/measure/statistics.h"
#include "harness/cli/commands.h"
#include "harness/report/report_json.h"

namespace fs = std::filesystem;

namespace vb {
namespace {

using json = nlohmann::ordered_json;
using Catch::Contains;

// n samples spread evenly (golden-ratio sequence) over center * [1 - spread/2, 1 + spread/2]:
// deterministic "noise" whose median is close to center.
std::vector<double> samples(double center, double spread, int n, double phase = 0.0) {
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    const double u = std::fmod(phase + 0.6180339887498949 * (i + 1), 1.0);
    v.push_back(center * (1.0 + spread * (u - 0.5)));
  }
  return v;
}

// The records below carry every field the result writer writes (the one reader,
// result_document_from_json, requires them); compare reads only some of them.
json timing(const std::vector<double>& s, const char* mode = "cold-l2") {
  const double median = median_of(s);
  return json{{"mode", mode},        {"samples_ms", s},  {"median_ms", median}, {"min_ms", median},
              {"max_ms", median},    {"p10_ms", median}, {"p90_ms", median},    {"rel_noise", 0.01},
              {"stop_reason", "noise target"}, {"throttled", false}};
}

json executor(const char* name, const std::vector<double>& s, const char* outcome = "passed",
              const char* bound = nullptr) {
  json e{{"executor", name}, {"outcome", outcome}, {"detail", ""}, {"checked_against", ""},
         {"rows_checked", 0}, {"timings", json::array()}};
  if (!s.empty()) e["timings"].push_back(timing(s));
  e["achieved"] = bound ? json{{"mode", "cold-l2"}, {"gbps", 0}, {"tflops", 0}, {"bound", bound},
                               {"speed_of_light", false}}
                        : json(nullptr);
  return e;
}

json a_case(const std::string& name, std::vector<json> executors,
            std::vector<std::string> tags = {"perf", "memory-bound"}, int page_size = 64) {
  json c{{"case", name},          {"scenario", name},       {"source", "test.yaml:1"},
         {"batch", 1},            {"tree_size", 1},         {"heads", 1},
         {"page_size", page_size}, {"total_kv_tokens", 1}, {"reproducer", ""},
         {"tags", tags}};
  // The CPU reference record is never timed: compare leaves it out.
  c["executors"] = json::array({executor("reference", {}, "not verified")});
  for (json& e : executors) c["executors"].push_back(std::move(e));
  return c;
}

json doc(std::vector<json> cases, const char* device = "NVIDIA H200", int driver = 13000,
         json ceilings = nullptr) {
  return json{{"schema", "verifybench.result/2"},
              {"provenance",
               {{"git_commit", "0123456789abcdef"},
                {"git_state", "clean"},
                {"date_utc", "2025-01-31T12:00:00Z"},
                {"command", "verifybench run scenarios/nightly.yaml --time"},
                {"device",
                 {{"name", device}, {"cc", "9.0"}, {"sm_count", 132}, {"driver_version", driver},
                  {"runtime_version", 13000}}},
                {"build", {{"type", "Release"}, {"cuda_architectures", "90;120"}, {"flags", "-O3"}}}}},
              {"ceilings", ceilings},
              {"cases", cases}};
}

json ceilings(double scale) {
  return json{{"row_read_contiguous_gbps", 4000 * scale},
              {"row_read_shuffled_gbps", 2500 * scale},
              {"d2d_copy_gbps", 3800 * scale},
              {"mma_bf16_tflops", 700 * scale},
              {"method", json::object()}};
}

CompareReport run(const json& base, const json& cur, CompareOptions options = {}) {
  return compare_runs(timed_run_from_json(base, "base.json"), timed_run_from_json(cur, "cur.json"),
                      options);
}

const CompareRow& row_of(const CompareReport& r, const std::string& c, const std::string& e) {
  for (const CompareRow& row : r.rows) {
    if (row.case_name == c && row.executor == e) return row;
  }
  FAIL("no row " << c << " / " << e);
  return r.rows.front();
}

// ---------------------------------------------------------------- the verdict rule

TEST_CASE("identical runs are the same", "[compare]") {
  const json d = doc({a_case("a", {executor("production", samples(0.020, 0.02, 30))}),
                      a_case("b", {executor("production", samples(0.150, 0.01, 20))})});
  const CompareReport r = run(d, d);
  REQUIRE(r.rows.size() == 2);  // the untimed reference records are left out
  for (const CompareRow& row : r.rows) {
    INFO(row.case_name);
    CHECK(row.verdict == Verdict::kSame);
    CHECK(row.ratio == Approx(1.0));
    CHECK(row.lo <= 1.0);
    CHECK(row.hi >= 1.0);
  }
  CHECK(compare_exit_code(r) == kCompareExitOk);
  CHECK(r.slower_cases().empty());
}

TEST_CASE("a 10% slowdown beyond the noise is slower, a 10% speedup faster", "[compare]") {
  const json base = doc({a_case("a", {executor("production", samples(0.020, 0.02, 30))})});
  const json slow = doc({a_case("a", {executor("production", samples(0.022, 0.02, 30, 0.3))})});
  const json fast = doc({a_case("a", {executor("production", samples(0.018, 0.02, 30, 0.3))})});

  const CompareReport r = run(base, slow);
  const CompareRow& row = row_of(r, "a", "production");
  CHECK(row.verdict == Verdict::kSlower);
  CHECK(row.ratio == Approx(1.10).epsilon(0.01));
  CHECK(row.lo > 1.05);
  CHECK(compare_exit_code(r) == kCompareExitRegression);
  CHECK(r.slower_cases() == std::vector<std::string>{"a"});

  const CompareReport f = run(base, fast);
  CHECK(row_of(f, "a", "production").verdict == Verdict::kFaster);
  CHECK(compare_exit_code(f) == kCompareExitOk);
}

TEST_CASE("noisy runs are ambiguous, never a failure", "[compare]") {
  // 30% spread with 10 samples: the median ratio cannot be pinned within +-5%.
  const json base = doc({a_case("a", {executor("production", samples(0.020, 0.30, 10))})});
  for (double shift : {1.0, 1.06, 1.10}) {
    INFO("shift " << shift);
    const json cur =
        doc({a_case("a", {executor("production", samples(0.020 * shift, 0.30, 10, 0.41))})});
    const CompareReport r = run(base, cur);
    const CompareRow& row = row_of(r, "a", "production");
    INFO("interval [" << row.lo << ", " << row.hi << "]");
    CHECK(row.verdict == Verdict::kAmbiguous);
    CHECK(compare_exit_code(r) == kCompareExitOk);
  }
}

TEST_CASE("too few samples are ambiguous", "[compare]") {
  const json base = doc({a_case("a", {executor("production", {0.020, 0.020})})});
  const json cur = doc({a_case("a", {executor("production", {0.030, 0.030})})});
  const CompareRow row = row_of(run(base, cur), "a", "production");
  CHECK(row.verdict == Verdict::kAmbiguous);
  CHECK_THAT(row.note, Contains("fewer than 3 samples"));
}

TEST_CASE("the bootstrap is seeded: the same inputs give the same interval", "[compare]") {
  const std::vector<double> b = samples(1.0, 0.2, 25), c = samples(1.05, 0.2, 25, 0.5);
  const RatioInterval x = bootstrap_median_ratio(b, c, 2000, 0.95, 42);
  const RatioInterval y = bootstrap_median_ratio(b, c, 2000, 0.95, 42);
  CHECK(x.lo == y.lo);
  CHECK(x.hi == y.hi);
  CHECK(x.lo < x.ratio);
  CHECK(x.ratio < x.hi);
  CHECK(median_of({3, 1, 2}) == 2);
  CHECK(median_of({4, 1, 3, 2}) == 2.5);
}

TEST_CASE("the case's gate_tolerance wins over the default tolerance", "[compare]") {
  const json base = doc({a_case("a", {executor("production", samples(0.020, 0.01, 30))})});
  json cur = doc({a_case("a", {executor("production", samples(0.0214, 0.01, 30, 0.3))})});
  const CompareRow strict = row_of(run(base, cur), "a", "production");  // +7% vs +-5%
  CHECK(strict.verdict == Verdict::kSlower);
  CHECK(strict.tolerance_source == "default");

  cur["cases"][0]["gate_tolerance"] = 0.10;
  const CompareRow loose = row_of(run(base, cur), "a", "production");
  CHECK(loose.verdict == Verdict::kSame);
  CHECK(loose.tolerance == Approx(0.10));
  CHECK(loose.tolerance_source == "scenario");

  CompareOptions wide;
  wide.tolerance = 0.10;
  cur["cases"][0].erase("gate_tolerance");
  CHECK(row_of(run(base, cur, wide), "a", "production").verdict == Verdict::kSame);
}

// ---------------------------------------------------------------- missing, untimed

TEST_CASE("cases and executors missing on either side are reported", "[compare]") {
  const std::vector<double> s = samples(0.020, 0.02, 20);
  const json base = doc({a_case("kept", {executor("production", s), executor("naive", s)}),
                         a_case("dropped", {executor("production", s)})});
  const json cur = doc({a_case("kept", {executor("production", s), executor("sglang-adapter", s)}),
                        a_case("added", {executor("production", s)})});
  const CompareReport r = run(base, cur);
  CHECK(row_of(r, "kept", "production").verdict == Verdict::kSame);
  CHECK(row_of(r, "kept", "naive").verdict == Verdict::kMissingInCurrent);
  CHECK(row_of(r, "kept", "sglang-adapter").verdict == Verdict::kMissingInBaseline);
  CHECK(row_of(r, "dropped", "production").verdict == Verdict::kMissingInCurrent);
  CHECK(row_of(r, "added", "production").verdict == Verdict::kMissingInBaseline);
  CHECK_THAT(row_of(r, "dropped", "production").note, Contains("case not in the current run"));
  CHECK(r.count(Verdict::kMissingInCurrent) == 2);
  CHECK(r.count(Verdict::kMissingInBaseline) == 2);
  // CURRENT lacks a case of BASELINE: the gate is incomplete unless that is allowed.
  CHECK_THAT(r.incomplete, Contains("CURRENT lacks 1 case(s) of BASELINE (first: dropped)"));
  CHECK(compare_exit_code(r) == kCompareExitIncomplete);
  CompareOptions allow;
  allow.allow_missing = true;
  const CompareReport allowed = run(base, cur, allow);
  CHECK(allowed.incomplete.empty());
  CHECK(compare_exit_code(allowed) == kCompareExitOk);  // reported, not a failure
  // Only cases CURRENT adds: complete.
  CHECK(compare_exit_code(run(doc({a_case("kept", {executor("production", s)})}), cur)) == kCompareExitOk);
}

TEST_CASE("a gate cannot pass on nothing: no shared case, no cases, nothing timed on both sides", "[compare][hostile]") {
  const std::vector<double> s = samples(0.020, 0.02, 20);
  const json base = doc({a_case("a", {executor("production", s)})});
  CompareOptions allow;
  allow.allow_missing = true;  // not a way around it
  for (const json& cur : {doc({a_case("other", {executor("production", s)})}), doc({})}) {
    const CompareReport r = run(base, cur, allow);
    CHECK_THAT(r.incomplete, Contains("the runs share no case"));
    CHECK(compare_exit_code(r) == kCompareExitIncomplete);
    CHECK_THAT(format_compare_table(r), Contains("incomplete: the runs share no case"));
    CHECK(compare_to_json(r)["exit_code"] == kCompareExitIncomplete);
  }
  const CompareReport untimed = run(base, doc({a_case("a", {executor("production", {}, "not run")})}));
  CHECK_THAT(untimed.incomplete, Contains("no (case, executor) has cold-l2 samples in both runs"));
  CHECK(compare_exit_code(untimed) == kCompareExitIncomplete);
  CompareOptions hot;
  hot.mode = "hot-l2";  // the files hold cold-l2 samples only
  CHECK(compare_exit_code(run(base, base, hot)) == kCompareExitIncomplete);
  // A correctness failure still wins: it is the news.
  const json failed = doc({a_case("x", {executor("production", s, "incorrect")})});
  CHECK(compare_exit_code(run(base, failed)) == kCompareExitIncorrect);
}

TEST_CASE("peer rows are not compared: times and verdicts of another process", "[compare]") {
  const std::vector<double> s = samples(0.020, 0.02, 20);
  const json base = doc({a_case("a", {executor("production", s), executor("peer/x", s)})});
  const json cur = doc({a_case("a", {executor("production", s), executor("peer/x", samples(0.040, 0.02, 20), "incorrect")})});
  const CompareReport r = run(base, cur);
  for (const CompareRow& row : r.rows) CHECK(row.executor == "production");
  CHECK(compare_exit_code(r) == kCompareExitOk);
}

TEST_CASE("a provenance of the wrong type is bad input, not a device mismatch", "[compare][hostile]") {
  const json good = doc({a_case("a", {executor("production", samples(0.020, 0.02, 20))})});
  const std::vector<std::pair<std::string, json>> wrong = {
      {"provenance", 5},
      {"provenance.device", "H200"},
      {"provenance.device.name", 7},
      {"provenance.device.driver_version", json::array()},
      {"provenance.build", "Release"},
      {"provenance.build.type", false},
      {"provenance.git_commit", 12},
  };
  for (const auto& [field, value] : wrong) {
    INFO(field);
    json d = good;
    json* at = &d;
    std::string rest = field;
    for (std::size_t dot; (dot = rest.find('.')) != std::string::npos; rest = rest.substr(dot + 1)) {
      at = &(*at)[rest.substr(0, dot)];
    }
    (*at)[rest] = value;
    CHECK_THROWS_WITH(timed_run_from_json(d, "wrong.json"), Contains("wrong.json: " + field + ": "));
  }
}

TEST_CASE("compare is linear: 100k cases, and one case of 100k executors, take seconds", "[compare][hostile]") {
  json many_cases = doc({});
  for (int i = 0; i < 100000; ++i) {
    many_cases["cases"].push_back(a_case(std::string("c").append(std::to_string(i)), {executor("production", {1.0, 1.0, 1.0})}));
  }
  json many_executors = doc({a_case("a", {})});
  for (int i = 0; i < 100000; ++i) {
    many_executors["cases"][0]["executors"].push_back(executor(std::string("e").append(std::to_string(i)).c_str(), {}));
  }
  many_executors["cases"][0]["executors"].push_back(executor("production", {1.0, 1.0, 1.0}));
  CompareOptions quick;
  quick.resamples = 100;
  for (const json* d : {&many_cases, &many_executors}) {
    const TimedRun t = timed_run_from_json(*d, "many.json");
    const auto start = std::chrono::steady_clock::now();
    const CompareReport r = compare_runs(t, t, quick);
    TimedRun pooled = t;
    pool_samples(&pooled, t);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(s << " s");
    CHECK(s < 10.0);  // quadratic lookups: > 20 s
    CHECK(compare_exit_code(r) == kCompareExitOk);
  }
}

TEST_CASE("a record timed on one side only is untimed", "[compare]") {
  const json base = doc({a_case("a", {executor("production", samples(0.02, 0.02, 20))})});
  const json cur = doc({a_case("a", {executor("production", {}, "not supported")})});
  const CompareRow row = row_of(run(base, cur), "a", "production");
  CHECK(row.verdict == Verdict::kUntimed);
  CHECK_THAT(row.note, Contains("no cold-l2 samples in the current run (outcome not supported)"));
}

// ---------------------------------------------------------------- devices

TEST_CASE("a different device, driver or build is refused unless allowed, then marked",
          "[compare]") {
  const json base = doc({a_case("a", {executor("production", samples(0.020, 0.02, 30))})});
  json other_device = doc({a_case("a", {executor("production", samples(0.022, 0.02, 30, 0.3))})},
                          "NVIDIA RTX PRO 6000 Blackwell");
  const CompareReport refused = run(base, other_device);
  CHECK(refused.refused);
  CHECK(refused.rows.empty());
  REQUIRE(refused.mismatches.size() == 1);
  CHECK_THAT(refused.mismatches[0], Contains("device: \"NVIDIA H200\""));
  CHECK(compare_exit_code(refused) == kCompareExitRefused);
  CHECK_THAT(format_compare_table(refused), Contains("refused"));

  CompareOptions allow;
  allow.allow_cross_device = true;
  const CompareReport marked = run(base, other_device, allow);
  CHECK_FALSE(marked.refused);
  const CompareRow& row = row_of(marked, "a", "production");
  CHECK(row.cross_device);
  CHECK(row.verdict == Verdict::kSlower);
  CHECK(compare_exit_code(marked) == kCompareExitRegression);
  CHECK_THAT(format_compare_table(marked), Contains("slower [cross-device]"));

  json other_driver = base;
  other_driver["provenance"]["device"]["driver_version"] = 12080;
  CHECK(run(base, other_driver).refused);
  json other_flags = base;
  other_flags["provenance"]["build"]["flags"] = "-O3 -DVB_SLOW_SPLITS";
  CHECK(run(base, other_flags).refused);
  json other_type = base;
  other_type["provenance"]["build"]["type"] = "Debug";
  CHECK(run(base, other_type).refused);
}

// ---------------------------------------------------------------- correctness

TEST_CASE("a correctness failure in the current run fails even when faster", "[compare]") {
  const json base = doc({a_case("a", {executor("production", samples(0.020, 0.02, 30))}),
                         a_case("b", {executor("production", samples(0.020, 0.02, 30))})});
  const json cur =
      doc({a_case("a", {executor("production", samples(0.010, 0.02, 30, 0.3), "incorrect")}),
           a_case("b", {executor("production", {}, "launch failed")})});
  const CompareReport r = run(base, cur);
  const CompareRow& a = row_of(r, "a", "production");
  CHECK(a.verdict == Verdict::kFaster);
  CHECK(a.correctness_failure);
  const CompareRow& b = row_of(r, "b", "production");
  CHECK(b.verdict == Verdict::kUntimed);
  CHECK(b.correctness_failure);
  CHECK(r.correctness_failures() == 2);
  CHECK(compare_exit_code(r) == kCompareExitIncorrect);
  CHECK_THAT(format_compare_table(r), Contains("FAILED: incorrect (timing: faster)"));

  // A failure in a case the baseline does not have still fails, and 4 wins over 1.
  const json worse = doc({a_case("a", {executor("production", samples(0.030, 0.02, 30))}),
                          a_case("new", {executor("production", {}, "incorrect")})});
  const CompareReport w = run(base, worse);
  CHECK(row_of(w, "new", "production").correctness_failure);
  CHECK(compare_exit_code(w) == kCompareExitIncorrect);

  // An incorrect baseline is the past: it does not fail today's run.
  const json bad_base = doc({a_case("a", {executor("production", samples(0.020, 0.02, 30), "incorrect")})});
  const json good = doc({a_case("a", {executor("production", samples(0.020, 0.02, 30))})});
  CHECK(compare_exit_code(run(bad_base, good)) == kCompareExitOk);
}

// ---------------------------------------------------------------- normalization

TEST_CASE("ceilings normalization holds an fp8 KV case to the 576-byte rows, a bf16 one to the 1152-byte rows",
          "[compare][fp8]") {
  // Between the runs the 576-byte rows lost 20 % and the 1152-byte rows nothing.
  auto with_576 = [](double scale) {
    json c = ceilings(1.0);
    c["row576_read_contiguous_gbps"] = 3600 * scale;
    c["row576_read_shuffled_gbps"] = 2000 * scale;
    return c;
  };
  auto fp8_case = [](const std::string& name, double ms) {
    json c = a_case(name, {executor("production", samples(ms, 0.01, 30), "passed", "memory")}, {"perf", "memory-bound"}, 1);
    c["kv_cache"] = "fp8_e4m3 scale amax";
    c["traffic"] = {{"algorithmic_bytes", 576}, {"page_bytes", 576}, {"flops", 1.0}, {"kv_unique_bytes", 576},
                    {"kv_row_bytes", 576}};
    return c;
  };
  const json base = doc({fp8_case("fp8", 0.020), a_case("bf16", {executor("production", samples(0.040, 0.01, 30), "passed", "memory")},
                                                      {"perf", "memory-bound"}, 1)},
                        "NVIDIA H200", 13000, with_576(1.0));
  const json cur = doc({fp8_case("fp8", 0.020 * 1.2), a_case("bf16", {executor("production", samples(0.040, 0.01, 30), "passed", "memory")},
                                                            {"perf", "memory-bound"}, 1)},
                       "NVIDIA H200", 13000, with_576(1.0 / 1.2));
  CompareOptions norm;
  norm.normalize = Normalize::kCeilings;
  const CompareReport n = run(base, cur, norm);
  CHECK(row_of(n, "fp8", "production").normalization == Approx(1.0 / 1.2));
  CHECK_THAT(row_of(n, "fp8", "production").note, Contains("row576_read_shuffled_gbps"));
  CHECK(row_of(n, "fp8", "production").verdict == Verdict::kSame);
  CHECK(row_of(n, "bf16", "production").normalization == Approx(1.0));
  CHECK_THAT(row_of(n, "bf16", "production").note, Contains("row_read_shuffled_gbps"));

  // Files without the 576-byte ceiling: the fp8 case falls back to the 1152-byte rows.
  const CompareReport legacy = run(doc({fp8_case("fp8", 0.020)}, "NVIDIA H200", 13000, ceilings(1.0)),
                                   doc({fp8_case("fp8", 0.020)}, "NVIDIA H200", 13000, ceilings(1.0)), norm);
  CHECK_THAT(row_of(legacy, "fp8", "production").note, Contains("by row_read_shuffled_gbps"));
}

TEST_CASE("ceilings normalization turns a uniform 10% machine slowdown into same",
          "[compare]") {
  // A machine 10% slower everywhere: every ceiling / 1.1, every time * 1.1.
  const double slow = 1.1;
  const json base = doc({a_case("mem", {executor("production", samples(0.020, 0.01, 30), "passed", "memory")}),
                         a_case("mma", {executor("production", samples(0.300, 0.01, 30), "passed", "compute")}),
                         a_case("tagged", {executor("production", samples(0.050, 0.01, 30))},
                                {"perf", "compute-bound"}),
                         a_case("p1", {executor("production", samples(0.040, 0.01, 30))},
                                {"perf", "memory-bound"}, 1)},
                        "NVIDIA H200", 13000, ceilings(1.0));
  const json cur = doc({a_case("mem", {executor("production", samples(0.020 * slow, 0.01, 30, 0.3), "passed", "memory")}),
                        a_case("mma", {executor("production", samples(0.300 * slow, 0.01, 30, 0.3), "passed", "compute")}),
                        a_case("tagged", {executor("production", samples(0.050 * slow, 0.01, 30, 0.3))},
                               {"perf", "compute-bound"}),
                        a_case("p1", {executor("production", samples(0.040 * slow, 0.01, 30, 0.3))},
                               {"perf", "memory-bound"}, 1)},
                       "NVIDIA H200", 13000, ceilings(1.0 / slow));

  const CompareReport raw = run(base, cur);
  CHECK(raw.count(Verdict::kSlower) == 4);
  CHECK_FALSE(raw.normalized);

  CompareOptions norm;
  norm.normalize = Normalize::kCeilings;
  const CompareReport n = run(base, cur, norm);
  CHECK(n.normalized);
  for (const CompareRow& row : n.rows) {
    INFO(row.case_name << ": " << row.note << " [" << row.lo << ", " << row.hi << "]");
    CHECK(row.verdict == Verdict::kSame);
    CHECK(row.normalization == Approx(1.0 / slow));
  }
  CHECK_THAT(row_of(n, "mem", "production").note, Contains("row_read_contiguous_gbps"));
  CHECK_THAT(row_of(n, "mma", "production").note, Contains("mma_bf16_tflops"));
  CHECK_THAT(row_of(n, "tagged", "production").note, Contains("mma_bf16_tflops"));
  CHECK_THAT(row_of(n, "p1", "production").note, Contains("row_read_shuffled_gbps"));
  CHECK(compare_exit_code(n) == kCompareExitOk);

  // A real 10% regression on an unchanged machine still shows through normalization.
  const json cur_same_machine = doc(
      {a_case("mem", {executor("production", samples(0.020 * slow, 0.01, 30, 0.3), "passed", "memory")})},
      "NVIDIA H200", 13000, ceilings(1.0));
  CHECK(row_of(run(base, cur_same_machine, norm), "mem", "production").verdict == Verdict::kSlower);
}

TEST_CASE("compare: normalizing by ceilings needs ceilings in both files, auto falls back", "[compare]") {
  const json with = doc({a_case("a", {executor("production", samples(0.02, 0.01, 20))})},
                        "NVIDIA H200", 13000, ceilings(1.0));
  const json without = doc({a_case("a", {executor("production", samples(0.02, 0.01, 20))})});
  CompareOptions norm;
  norm.normalize = Normalize::kCeilings;
  CHECK_THROWS_AS(run(with, without, norm), CompareInputError);
  norm.normalize = Normalize::kAuto;
  const CompareReport r = run(with, without, norm);
  CHECK_FALSE(r.normalized);
  CHECK(row_of(r, "a", "production").verdict == Verdict::kSame);
}

// ---------------------------------------------------------------- input

TEST_CASE("an executor checked twice (sampled reference, then naive) is one compared record", "[compare]") {
  // The runner writes production twice when the CPU checked sampled rows: against the
  // reference (timed) and against naive on every row (untimed). The worse outcome wins.
  const std::vector<double> s = {1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0};
  const json base = doc({a_case("a", {executor("production", s), executor("production", {})})});
  const json cur_ok = doc({a_case("a", {executor("production", s), executor("production", {})})});
  const json cur_bad =
      doc({a_case("a", {executor("production", s), executor("production", {}, "incorrect")})});
  const TimedRun merged = timed_run_from_json(cur_bad, "cur.json");
  REQUIRE(merged.cases.size() == 1);
  int production_records = 0;
  for (const TimedRecord& r : merged.cases[0].executors) {
    if (r.executor != "production") continue;
    ++production_records;
    CHECK(r.outcome == "incorrect");
    CHECK(r.samples_ms.at("cold-l2").size() == s.size());
  }
  CHECK(production_records == 1);
  CHECK(row_of(run(base, cur_ok, {}), "a", "production").verdict == Verdict::kSame);
  CHECK(run(base, cur_bad, {}).correctness_failures() == 1);
}

TEST_CASE("bad input is a CompareInputError naming the file", "[compare]") {
  json v1 = doc({});
  v1["schema"] = "verifybench.result/1";
  CHECK_THROWS_WITH(timed_run_from_json(v1, "old.json"),
                    Contains("old.json: schema is \"verifybench.result/1\""));
  json no_cases = doc({});
  no_cases.erase("cases");
  CHECK_THROWS_WITH(timed_run_from_json(no_cases, "x.json"), Contains("missing \"cases\""));
  json twice = doc({a_case("a", {}), a_case("a", {})});
  CHECK_THROWS_WITH(timed_run_from_json(twice, "x.json"), Contains("case \"a\" appears twice"));
  json timed_twice = doc({a_case("a", {executor("production", {0.1}), executor("production", {0.2})})});
  CHECK_THROWS_WITH(timed_run_from_json(timed_twice, "x.json"), Contains("\"production\" is timed twice"));
  json bad_sample = doc({a_case("a", {executor("production", {0.1})})});
  bad_sample["cases"][0]["executors"][1]["timings"][0]["samples_ms"][0] = "fast";
  CHECK_THROWS_WITH(timed_run_from_json(bad_sample, "x.json"), Contains("not a number"));
  json bad_gate = doc({a_case("a", {})});
  bad_gate["cases"][0]["gate_tolerance"] = 2;
  CHECK_THROWS_WITH(timed_run_from_json(bad_gate, "x.json"), Contains("gate_tolerance"));
  json bad_outcome = doc({a_case("a", {executor("production", {0.1})})});
  bad_outcome["cases"][0]["executors"][1]["outcome"] = 7;
  CHECK_THROWS_WITH(timed_run_from_json(bad_outcome, "x.json"), Contains("x.json: cases[0]: malformed result JSON"));
  for (const json& not_an_int : {json(3.7759e46), json(1.5), json(std::uint64_t{1} << 40), json(-1e300)}) {
    json bad_batch = doc({a_case("a", {})});
    bad_batch["cases"][0]["batch"] = not_an_int;
    CHECK_THROWS_WITH(timed_run_from_json(bad_batch, "x.json"),
                      Contains("x.json: cases[0]: \"batch\": ") && Contains("is not an integer in"));
  }
  json huge_count = doc({a_case("a", {executor("production", {0.1})})});
  huge_count["cases"][0]["executors"][1]["rows_checked"] = 3.7759e46;
  CHECK_THROWS_WITH(timed_run_from_json(huge_count, "x.json"), Contains("\"rows_checked\""));
  CHECK_THROWS_WITH(load_timed_run("/nonexistent/result.json"), Contains("cannot open"));
}

TEST_CASE("compare reads what the result writer writes, through the reader the report tests use", "[compare]") {
  CaseResult c;
  c.case_name = "a";
  c.page_size = 16;
  c.tags = {"perf", "compute-bound"};
  c.gate_tolerance = 0.08;
  ExecutorResult e;
  e.executor = "production";
  e.outcome = Outcome::kPassed;
  TimingRecord t;
  t.mode = "hot-l2";
  t.samples_ms = {0.02, 0.021, 0.019};
  e.timings.push_back(t);
  c.executors.push_back(e);
  const TimedRun run = timed_run_from_json(result_document(Provenance{}, {c}), "written.json");
  CHECK_FALSE(run.device.present);
  CHECK_FALSE(run.ceilings.present);
  REQUIRE(run.cases.size() == 1);
  CHECK(run.cases[0].page_size == 16);
  CHECK(run.cases[0].tags == c.tags);
  CHECK(*run.cases[0].gate_tolerance == 0.08);
  REQUIRE(run.cases[0].executors.size() == 1);
  CHECK(run.cases[0].executors[0].outcome == "passed");
  CHECK(run.cases[0].executors[0].samples_ms.at("hot-l2") == t.samples_ms);
}

TEST_CASE("non-finite samples are left out and no-device files have no timings", "[compare]") {
  json d = doc({a_case("a", {executor("production", {0.02, 0.02, 0.02})})});
  d["cases"][0]["executors"][1]["timings"][0]["samples_ms"].push_back("nan");
  const TimedRun run = timed_run_from_json(d, "x.json");
  CHECK(run.cases[0].executors[1].samples_ms.at("cold-l2").size() == 3);
  json none = doc({});
  none["provenance"]["device"] = nullptr;
  CHECK_FALSE(timed_run_from_json(none, "x.json").device.present);
}

TEST_CASE("pooling joins the samples of re-measurements", "[compare]") {
  TimedRun a = timed_run_from_json(
      doc({a_case("a", {executor("production", {1, 2, 3})})}), "a.json");
  const TimedRun b = timed_run_from_json(
      doc({a_case("a", {executor("production", {4, 5}, "incorrect")}),
           a_case("b", {executor("production", {6})})}),
      "b.json");
  pool_samples(&a, b);
  REQUIRE(a.cases.size() == 2);
  CHECK(a.cases[0].executors[1].samples_ms.at("cold-l2") == std::vector<double>{1, 2, 3, 4, 5});
  CHECK(a.cases[0].executors[1].outcome == "incorrect");
}

// ---------------------------------------------------------------- writers

TEST_CASE("Markdown and JSON writers carry every row and the summary", "[compare]") {
  const json base = doc({a_case("a|b", {executor("production", samples(0.020, 0.02, 30))})});
  const json cur = doc({a_case("a|b", {executor("production", samples(0.022, 0.02, 30, 0.3))})});
  const CompareReport r = run(base, cur);
  const std::string md = format_compare_markdown(r);
  CHECK_THAT(md, Contains("| case | executor | base median (ms) | current median (ms) | ratio | "
                          "95% interval |"));
  CHECK_THAT(md, Contains("| a\\|b | production | 0.0200 | 0.0220 | 1.100 | [1.0"));
  CHECK_THAT(md, Contains("**slower**"));
  const nlohmann::ordered_json j = compare_to_json(r);
  CHECK(j["schema"] == "verifybench.compare/1");
  CHECK(j["exit_code"] == kCompareExitRegression);
  CHECK(j["summary"]["slower"] == 1);
  CHECK(j["summary"]["slower_cases"][0] == "a|b");
  CHECK(j["rows"][0]["verdict"] == "slower");
  CHECK(j["rows"][0]["ci_lo"].get<double>() > 1.05);
}

// ---------------------------------------------------------------- CLI

std::string fixture(const char* name) {
  return std::string(VB_TEST_DATA_DIR) + "/compare/" + name;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

int cli(std::vector<std::string> args) {
  CLI::App app{"test"};
  int code = -1;
  add_compare_command(app, &code);
  args.insert(args.begin(), "compare");
  std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 takes them reversed
  app.parse(reversed);
  return code;
}

TEST_CASE("compare CLI on the fixture files: exit codes and reports", "[compare]") {
  const fs::path dir = fs::temp_directory_path() / ("vb_test_compare_" + std::to_string(::getpid()));
  fs::remove_all(dir);

  CHECK(cli({fixture("baseline_h200.json"), fixture("baseline_h200.json")}) == kCompareExitOk);

  const fs::path list = dir / "slower.txt", md = dir / "diff.md", js = dir / "diff.json";
  CHECK(cli({fixture("baseline_h200.json"), fixture("current_h200_slower.json"), "--slower-list",
             list.string(), "--markdown", md.string(), "--json", js.string()}) ==
        kCompareExitRegression);
  CHECK(read_text(list) == "kimi_k2_tp8_decode/batch.size=8\n");
  CHECK_THAT(read_text(md), Contains("**slower**"));
  CHECK(nlohmann::json::parse(read_text(js))["summary"]["slower"] == 1);

  // Pooling the baseline with itself changes nothing about the verdicts.
  CHECK(cli({fixture("baseline_h200.json"), fixture("current_h200_slower.json"), "--pool-baseline",
             fixture("baseline_h200.json")}) == kCompareExitRegression);
  // A wide default tolerance does not override... the case's own gate (0.05 in the file).
  CHECK(cli({fixture("baseline_h200.json"), fixture("current_h200_slower.json"), "--tolerance",
             "0.3"}) == kCompareExitRegression);

  CHECK(cli({fixture("baseline_h200.json"), fixture("current_rtx.json")}) == kCompareExitRefused);
  CHECK(cli({fixture("baseline_h200.json"), fixture("current_rtx.json"), "--allow-cross-device"}) ==
        kCompareExitOk);
  CHECK(cli({fixture("baseline_h200.json"), fixture("result_v1.json")}) == kCompareExitBadInput);
  CHECK(cli({fixture("baseline_h200.json"), (dir / "absent.json").string()}) == kCompareExitBadInput);
  CHECK_THROWS_AS(cli({fixture("baseline_h200.json"), fixture("baseline_h200.json"), "--tolerance", "1"}),
                  CLI::ValidationError);
  fs::remove_all(dir);
}

TEST_CASE("compare CLI refuses report paths that are not regular files before reading anything", "[compare][hostile]") {
  const fs::path dir = fs::temp_directory_path() / ("vb_test_compare_dest_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path fifo = dir / "fifo", link = dir / "link.json", kept = dir / "kept.json";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::ofstream(kept) << "kept";
  fs::create_symlink(kept, link);
  const std::string base = fixture("baseline_h200.json");
  for (const auto& [option, path] : std::vector<std::pair<std::string, std::string>>{
           {"--json", "/dev/null"}, {"--markdown", link.string()}, {"--slower-list", fifo.string()},
           {"--json", dir.string()}, {"--json", base}}) {
    INFO(option << " " << path);
    CHECK(cli({base, base, option, path}) == kCompareExitBadInput);
  }
  CHECK(fs::is_fifo(fifo));
  CHECK(fs::is_symlink(link));
  CHECK(read_text(kept) == "kept");
  CHECK(cli({base, base, "--json", (dir / "same").string(), "--markdown", (dir / "same").string()}) ==
        kCompareExitBadInput);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace vb

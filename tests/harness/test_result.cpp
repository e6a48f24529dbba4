// compare_with_reference, outcome bookkeeping and reproducers: pure host logic.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "harness/record/result.h"
#include "harness/run/runner.h"
#include "verifybench/verify_params.h"

namespace {

constexpr int kDv = vb::mla::kHeadDimV;
constexpr int kB = 2, kT = 3, kH = 2;

struct Fixture {
  vb::ReferenceOutput ref;     // all B*T*H rows
  std::vector<float> got_o;    // [B*T*H, 512], equal to ref (values exact in float)
  std::vector<float> got_lse;  // [B*T*H]
  vb::ToleranceSpec tol;
};

// Values exactly representable in float so "got == ref" is exact.
Fixture make_fixture() {
  Fixture f;
  for (int b = 0; b < kB; ++b) {
    for (int n = 0; n < kT; ++n) {
      for (int h = 0; h < kH; ++h) {
        f.ref.rows.push_back(vb::QueryRow{b, n, h});
        const int row = (b * kT + n) * kH + h;
        for (int c = 0; c < kDv; ++c) f.ref.o.push_back(((row * 7 + c) % 64 - 32) / 64.0);
        f.ref.lse.push_back(2.0 + row / 8.0);
      }
    }
  }
  f.got_o.assign(f.ref.o.begin(), f.ref.o.end());
  f.got_lse.assign(f.ref.lse.begin(), f.ref.lse.end());
  return f;
}

std::size_t o_index(int b, int n, int h, int c) {
  return static_cast<std::size_t>((b * kT + n) * kH + h) * kDv + c;
}
std::size_t lse_index(int b, int n, int h) { return static_cast<std::size_t>((b * kT + n) * kH + h); }

vb::ExecutorResult compare(const Fixture& f) {
  vb::ExecutorResult r;
  vb::compare_with_reference(f.ref, f.got_o, f.got_lse, kT, kH, f.tol, &r);
  return r;
}

}  // namespace

TEST_CASE("identical output passes with zero error", "[result]") {
  const Fixture f = make_fixture();
  const vb::ExecutorResult r = compare(f);
  CHECK(r.outcome == vb::Outcome::kPassed);
  CHECK(r.rows_checked == kB * kT * kH);
  CHECK(r.o.elements_checked == kB * kT * kH * kDv);
  CHECK(r.lse.elements_checked == kB * kT * kH);
  CHECK(r.o.max_abs_error == 0);
  CHECK(r.lse.max_abs_error == 0);
  CHECK(r.o.elements_failed == 0);
  CHECK(r.o.nonfinite_mismatch == 0);
}

TEST_CASE("a single wrong O element is caught at its exact index", "[result]") {
  Fixture f = make_fixture();
  const std::size_t at = o_index(1, 2, 1, 17);
  const double expected = f.ref.o[at];
  f.got_o[at] = static_cast<float>(expected + 0.5);
  const vb::ExecutorResult r = compare(f);
  CHECK(r.outcome == vb::Outcome::kIncorrect);
  CHECK(r.o.elements_failed == 1);
  CHECK(r.o.nonfinite_mismatch == 0);
  CHECK(r.lse.elements_failed == 0);
  CHECK(r.o.worst.request == 1);
  CHECK(r.o.worst.node == 2);
  CHECK(r.o.worst.head == 1);
  CHECK(r.o.worst.channel == 17);
  CHECK(r.o.worst_expected == expected);
  CHECK(r.o.worst_got == Approx(expected + 0.5));
  CHECK(r.o.max_abs_error == Approx(0.5));
  CHECK(r.o.mean_abs_error == Approx(0.5 / (kB * kT * kH * kDv)));
}

TEST_CASE("the worst element is the largest excess over tolerance, not the largest error",
          "[result]") {
  Fixture f = make_fixture();
  f.tol.o_atol = 0;
  f.tol.o_rtol = 0.1;
  // Two bad elements: a larger absolute error on a large value and a smaller one on a tiny
  // value. Excess = err - 0.1*|ref|.
  const std::size_t big = o_index(0, 0, 0, 0);  // ref = -0.5
  const std::size_t small = o_index(0, 1, 1, 3);
  f.ref.o[small] = 0.0;
  f.got_o[small] = 0.0f;
  f.got_o[big] = static_cast<float>(f.ref.o[big] + 0.1);   // err 0.1, tol 0.05, excess 0.05
  f.got_o[small] = 0.08f;                                     // err 0.08, tol 0, excess 0.08
  const vb::ExecutorResult r = compare(f);
  CHECK(r.o.elements_failed == 2);
  CHECK(r.o.worst.node == 1);
  CHECK(r.o.worst.head == 1);
  CHECK(r.o.worst.channel == 3);
  CHECK(r.o.max_abs_error == Approx(0.1));
}

TEST_CASE("NaN where the reference is finite is incorrect even if all else matches",
          "[result]") {
  Fixture f = make_fixture();
  f.got_o[o_index(0, 1, 0, 511)] = std::numeric_limits<float>::quiet_NaN();
  const vb::ExecutorResult r = compare(f);
  CHECK(r.outcome == vb::Outcome::kIncorrect);
  CHECK(r.o.nonfinite_mismatch == 1);
  CHECK(r.o.elements_failed == 0);
  CHECK(r.o.max_abs_error == 0);  // the finite elements are all exact
  CHECK(r.o.worst.request == 0);
  CHECK(r.o.worst.node == 1);
  CHECK(r.o.worst.head == 0);
  CHECK(r.o.worst.channel == 511);
  CHECK(std::isnan(r.o.worst_got));
}

TEST_CASE("a finite value where the reference is NaN is incorrect", "[result]") {
  Fixture f = make_fixture();
  f.ref.lse[lse_index(1, 0, 1)] = std::numeric_limits<double>::quiet_NaN();
  const vb::ExecutorResult r = compare(f);
  CHECK(r.outcome == vb::Outcome::kIncorrect);
  CHECK(r.lse.nonfinite_mismatch == 1);
  CHECK(r.o.nonfinite_mismatch == 0);
  CHECK(r.lse.worst.request == 1);
  CHECK(r.lse.worst.node == 0);
  CHECK(r.lse.worst.head == 1);
  CHECK(r.lse.worst.channel == -1);
}

TEST_CASE("matching NaN and same-signed Inf positions pass, opposite Inf does not",
          "[result]") {
  Fixture f = make_fixture();
  const std::size_t a = o_index(0, 0, 1, 5), b = o_index(1, 1, 0, 6);
  f.ref.o[a] = std::numeric_limits<double>::quiet_NaN();
  f.got_o[a] = std::numeric_limits<float>::quiet_NaN();
  f.ref.o[b] = std::numeric_limits<double>::infinity();
  f.got_o[b] = std::numeric_limits<float>::infinity();
  CHECK(compare(f).outcome == vb::Outcome::kPassed);
  f.got_o[b] = -std::numeric_limits<float>::infinity();
  const vb::ExecutorResult r = compare(f);
  CHECK(r.outcome == vb::Outcome::kIncorrect);
  CHECK(r.o.nonfinite_mismatch == 1);
  CHECK(r.o.worst.channel == 6);
}

TEST_CASE("a perturbation within atol + rtol*|ref| passes", "[result]") {
  Fixture f = make_fixture();
  for (std::size_t i = 0; i < f.got_o.size(); ++i) {
    const double tol = f.tol.o_atol + f.tol.o_rtol * std::fabs(f.ref.o[i]);
    f.got_o[i] = static_cast<float>(f.ref.o[i] + ((i % 2) ? 0.9 : -0.9) * tol);
  }
  for (std::size_t i = 0; i < f.got_lse.size(); ++i) {
    const double tol = f.tol.lse_atol + f.tol.lse_rtol * std::fabs(f.ref.lse[i]);
    f.got_lse[i] = static_cast<float>(f.ref.lse[i] + 0.5 * tol);
  }
  const vb::ExecutorResult r = compare(f);
  CHECK(r.outcome == vb::Outcome::kPassed);
  CHECK(r.o.max_abs_error > 0);
  CHECK(r.o.max_abs_error <= f.tol.o_atol + f.tol.o_rtol * 0.5 + 1e-6);
}

TEST_CASE("LSE is checked separately from O", "[result]") {
  Fixture f = make_fixture();
  f.got_lse[lse_index(0, 2, 1)] += 0.01f;  // > 2e-3 + 1e-4*|lse|
  const vb::ExecutorResult r = compare(f);
  CHECK(r.outcome == vb::Outcome::kIncorrect);
  CHECK(r.o.elements_failed == 0);
  CHECK(r.o.max_abs_error == 0);
  CHECK(r.lse.elements_failed == 1);
  CHECK(r.lse.worst.request == 0);
  CHECK(r.lse.worst.node == 2);
  CHECK(r.lse.worst.head == 1);
  CHECK(r.lse.worst.channel == -1);
  CHECK(r.lse.max_abs_error == Approx(0.01).epsilon(1e-3));
}

TEST_CASE("sampled reference rows map to (b*T + node)*H + head of the full output",
          "[result]") {
  Fixture full = make_fixture();
  vb::ReferenceOutput sampled;
  sampled.sampled = true;
  sampled.rows = {vb::QueryRow{1, 1, 0}};
  const std::size_t base = o_index(1, 1, 0, 0);
  sampled.o.assign(full.ref.o.begin() + static_cast<std::ptrdiff_t>(base),
                   full.ref.o.begin() + static_cast<std::ptrdiff_t>(base + kDv));
  sampled.lse = {full.ref.lse[lse_index(1, 1, 0)]};
  // A wrong element in a row that was not sampled is not seen...
  full.got_o[o_index(0, 0, 0, 0)] += 1.0f;
  vb::ExecutorResult r;
  vb::compare_with_reference(sampled, full.got_o, full.got_lse, kT, kH, full.tol, &r);
  CHECK(r.outcome == vb::Outcome::kPassed);
  CHECK(r.rows_checked == 1);
  CHECK(r.o.elements_checked == kDv);
  // ...one in the sampled row is.
  full.got_o[o_index(1, 1, 0, 300)] += 1.0f;
  vb::compare_with_reference(sampled, full.got_o, full.got_lse, kT, kH, full.tol, &r);
  CHECK(r.outcome == vb::Outcome::kIncorrect);
  CHECK(r.o.worst.request == 1);
  CHECK(r.o.worst.node == 1);
  CHECK(r.o.worst.head == 0);
  CHECK(r.o.worst.channel == 300);
}

TEST_CASE("an output of the wrong shape is incorrect, not a crash", "[result]") {
  Fixture f = make_fixture();
  f.got_o.resize(f.got_o.size() - kDv);
  f.got_lse.resize(f.got_lse.size() - 1);
  const vb::ExecutorResult r = compare(f);
  CHECK(r.outcome == vb::Outcome::kIncorrect);
  CHECK_THAT(r.detail, Catch::Contains("outside the output"));
}

TEST_CASE("one executor's full output can serve as the reference for another", "[result]") {
  const Fixture f = make_fixture();
  const vb::ReferenceOutput naive =
      vb::reference_from_full_output(f.got_o, f.got_lse, kB, kT, kH);
  CHECK_FALSE(naive.sampled);
  REQUIRE(naive.rows.size() == static_cast<std::size_t>(kB * kT * kH));
  CHECK(naive.rows[5].request == 0);
  CHECK(naive.rows[5].node == 2);
  CHECK(naive.rows[5].head == 1);

  std::vector<float> production_o = f.got_o;
  vb::ExecutorResult r;
  vb::compare_with_reference(naive, production_o, f.got_lse, kT, kH, f.tol, &r);
  CHECK(r.outcome == vb::Outcome::kPassed);
  CHECK(r.rows_checked == kB * kT * kH);

  production_o[o_index(1, 0, 1, 42)] = std::numeric_limits<float>::infinity();
  vb::compare_with_reference(naive, production_o, f.got_lse, kT, kH, f.tol, &r);
  CHECK(r.outcome == vb::Outcome::kIncorrect);
  CHECK(r.o.nonfinite_mismatch == 1);
  CHECK(r.o.worst.request == 1);
  CHECK(r.o.worst.node == 0);
  CHECK(r.o.worst.head == 1);
  CHECK(r.o.worst.channel == 42);
}

TEST_CASE("outcome names round-trip", "[result]") {
  for (vb::Outcome o : {vb::Outcome::kPassed, vb::Outcome::kIncorrect, vb::Outcome::kLaunchFailed,
                        vb::Outcome::kNotVerified, vb::Outcome::kNotSupported,
                        vb::Outcome::kNotRun}) {
    vb::Outcome back = vb::Outcome::kPassed;
    REQUIRE(vb::outcome_from_string(vb::to_string(o), &back));
    CHECK(back == o);
  }
  vb::Outcome unused;
  CHECK_FALSE(vb::outcome_from_string("crashed", &unused));
}

TEST_CASE("case pass/fail, counts and exit codes", "[result]") {
  auto record = [](const char* name, vb::Outcome o) {
    vb::ExecutorResult r;
    r.executor = name;
    r.outcome = o;
    return r;
  };
  vb::CaseResult no_gpu;
  no_gpu.executors = {record("reference", vb::Outcome::kNotVerified),
                      record("naive", vb::Outcome::kNotRun),
                      record("production", vb::Outcome::kNotRun)};
  CHECK(no_gpu.all_passed());
  CHECK(vb::exit_code_for({no_gpu}) == vb::kExitOk);

  vb::CaseResult wrong = no_gpu;
  wrong.executors[1].outcome = vb::Outcome::kPassed;
  wrong.executors[2].outcome = vb::Outcome::kIncorrect;
  CHECK_FALSE(wrong.all_passed());
  CHECK(vb::exit_code_for({no_gpu, wrong}) == vb::kExitIncorrect);

  vb::CaseResult crashed = no_gpu;
  crashed.executors[2].outcome = vb::Outcome::kLaunchFailed;
  CHECK_FALSE(crashed.all_passed());
  CHECK(vb::exit_code_for({wrong, crashed}) == vb::kExitRuntimeFailure);

  const vb::OutcomeCounts n = vb::count_outcomes({no_gpu, wrong, crashed});
  CHECK(n.cases == 3);
  CHECK(n.passed == 1);
  CHECK(n.incorrect == 1);
  CHECK(n.launch_failed == 1);
  CHECK(n.not_run == 3);
  CHECK(n.not_verified == 0);  // the reference record is not counted
}

TEST_CASE("reproducers quote the case name for a POSIX shell", "[result]") {
  CHECK(vb::shell_quote("abc") == "'abc'");
  CHECK(vb::shell_quote("it's") == "'it'\\''s'");
  CHECK(vb::reproducer_for("scenarios/smoke.yaml", "chain/pages.size=16") ==
        "verifybench run scenarios/smoke.yaml --case 'chain/pages.size=16'");
  CHECK(vb::reproducer_for("my dir/a.yaml", "x") == "verifybench run 'my dir/a.yaml' --case 'x'");
}

TEST_CASE("run with --time-executor times only the named executors, every one when none is named", "[result]") {
  vb::RunOptions options;
  for (const vb::ExecutorInfo& run : vb::executor_registry()) CHECK(vb::times_executor(options, run.name));
  options.timed_executors = {"production/sm120-proxy", "naive"};
  CHECK(vb::times_executor(options, "production/sm120-proxy"));
  CHECK(vb::times_executor(options, "naive"));
  CHECK_FALSE(vb::times_executor(options, "production"));
  CHECK_FALSE(vb::times_executor(options, "production/sm120"));  // whole names only
  CHECK(vb::executor_named("production/wgmma").name == "production/wgmma");
  CHECK_THROWS_AS(vb::executor_named("bogus"), std::invalid_argument);
}

TEST_CASE("run_case without a device: reference record plus every GPU executor not run",
          "[result]") {
  vb::CaseSpec spec;
  spec.name = "tiny/pages.size=16";
  spec.scenario = "tiny";
  spec.source = "t.yaml:2";
  spec.heads = 4;
  spec.sm_scale = 0.13;
  spec.seed = 1;
  spec.batch.dist = vb::PrefixDist::kList;
  spec.batch.prefix_lens = {5, 17};
  spec.tree.kind = vb::TreeKind::kChain;
  spec.tree.nodes = 3;
  spec.pages.size = 16;
  spec.pages.placement = vb::PagePlacement::kShuffled;

  vb::GpuInfo none;
  none.reason = "test machine";
  vb::RunOptions options;
  options.threads = 1;
  options.scenario_path = "t.yaml";

  SECTION("full check") {
    const vb::CaseResult r = vb::run_case(spec, none, options);
    CHECK(r.batch == 2);
    CHECK(r.tree_size == 3);
    CHECK(r.heads == 4);
    CHECK(r.page_size == 16);
    CHECK(r.total_kv_tokens == 5 + 17 + 2 * 3);
    CHECK(r.reproducer == "verifybench run t.yaml --case 'tiny/pages.size=16'");
    REQUIRE(r.executors.size() == 1 + vb::executor_registry().size());
    CHECK(r.executors[0].executor == "reference");
    CHECK(r.executors[0].rows_checked == 2 * 3 * 4);
    CHECK(r.executors[0].wall_ms.has_value());
    for (std::size_t i = 1; i < r.executors.size(); ++i) {
      CHECK(r.executors[i].outcome == vb::Outcome::kNotRun);
      CHECK(r.executors[i].detail == "not run: no CUDA device (test machine)");
    }
    CHECK(r.all_passed());
  }
  SECTION("sampled check") {
    spec.check.mode = vb::CheckMode::kSampled;
    spec.check.sampled_rows = 5;
    const vb::CaseResult r = vb::run_case(spec, none, options);
    CHECK(r.executors[0].rows_checked == 5);
    CHECK_THAT(r.executors[0].detail, Catch::Contains("sampled 5 of 24 rows"));
  }
}

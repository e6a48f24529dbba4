// Writers over result records: JSON document and atomic write, text table (golden files).
// Set VB_UPDATE_GOLDEN=1 to rewrite the golden files after an intended format change.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <vector>

#include "harness/report/report_json.h"
#include "harness/report/report_table.h"
#include "harness/record/result.h"
#include "temp_dir.h"

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A fresh empty directory per call, removed by the destructor.
using vb::test::TempDir;

vb::ExecutorResult record(const char* name, vb::Outcome outcome, const char* against = "") {
  vb::ExecutorResult r;
  r.executor = name;
  r.outcome = outcome;
  r.checked_against = against;
  return r;
}

vb::ErrorStats stats(std::int64_t checked, double max_abs, double mean_abs) {
  vb::ErrorStats s;
  s.elements_checked = checked;
  s.max_abs_error = max_abs;
  s.max_rel_error = max_abs * 10;
  s.mean_abs_error = mean_abs;
  return s;
}

// Hand-built records covering every path of the writers: all passed, a wrong O element and
// a NaN LSE, a launch failure, a sampled reference with production checked against naive,
// and a machine without a GPU.
std::vector<vb::CaseResult> sample_results() {
  std::vector<vb::CaseResult> cases;

  vb::CaseResult ok;
  ok.case_name = "chain4";
  ok.scenario = "chain4";
  ok.source = "scenarios/smoke.yaml:3";
  ok.batch = 2;
  ok.tree_size = 4;
  ok.heads = 16;
  ok.page_size = 16;
  ok.total_kv_tokens = 8200;
  ok.reproducer = "verifybench run scenarios/smoke.yaml --case 'chain4'";
  vb::ExecutorResult ref = record("reference", vb::Outcome::kNotVerified);
  ref.detail = "CPU oracle, all 128 rows";
  ref.rows_checked = 128;
  ref.wall_ms = 41.25;
  ok.executors.push_back(ref);
  for (const char* name : {"naive", "production", "production/block-table", "sglang-adapter"}) {
    vb::ExecutorResult r = record(name, vb::Outcome::kPassed, "reference");
    r.rows_checked = 128;
    r.o = stats(128 * 512, 3.90625e-3, 4.1e-4);
    r.lse = stats(128, 9.5367e-7, 1.2e-7);
    ok.executors.push_back(r);
  }
  cases.push_back(ok);

  vb::CaseResult bad = ok;
  bad.case_name = "kary/pages.size=64";
  bad.scenario = "kary";
  bad.page_size = 64;
  bad.reproducer = "verifybench run scenarios/correctness.yaml --case 'kary/pages.size=64'";
  bad.executors[2].outcome = vb::Outcome::kIncorrect;
  bad.executors[2].o.elements_failed = 3;
  bad.executors[2].o.max_abs_error = 0.75;
  bad.executors[2].o.worst = vb::ElementIndex{1, 3, 7, 130};
  bad.executors[2].o.worst_expected = 0.125;
  bad.executors[2].o.worst_got = 0.875;
  bad.executors[3].outcome = vb::Outcome::kIncorrect;
  bad.executors[3].lse.nonfinite_mismatch = 1;
  bad.executors[3].lse.worst = vb::ElementIndex{0, 2, 5, -1};
  bad.executors[3].lse.worst_expected = 3.5;
  bad.executors[3].lse.worst_got = std::numeric_limits<double>::quiet_NaN();
  bad.executors[4].outcome = vb::Outcome::kLaunchFailed;
  bad.executors[4].detail = "sglang_verify_launch failed: invalid argument";
  bad.executors[4].o = vb::ErrorStats{};
  bad.executors[4].lse = vb::ErrorStats{};
  bad.executors[4].checked_against = "";
  cases.push_back(bad);

  vb::CaseResult sampled = ok;
  sampled.case_name = "ddtree-1024";
  sampled.scenario = "ddtree-1024";
  sampled.batch = 1;
  sampled.tree_size = 1024;
  sampled.heads = 16;
  sampled.page_size = 1;
  sampled.total_kv_tokens = 33792;
  sampled.executors[0].rows_checked = 256;
  sampled.executors[0].detail = "CPU oracle, sampled 256 of 16384 rows (seed 7)";
  for (std::size_t i = 1; i < sampled.executors.size(); ++i) {
    sampled.executors[i].checked_against = "reference (sampled 256 of 16384 rows)";
    sampled.executors[i].rows_checked = 256;
  }
  vb::ExecutorResult vs = sampled.executors[2];
  vs.checked_against = "naive (all 16384 rows)";
  vs.rows_checked = 16384;
  vs.o.max_abs_error = 7.8125e-3;
  sampled.executors.insert(sampled.executors.begin() + 3, vs);
  cases.push_back(sampled);

  vb::CaseResult no_gpu;
  no_gpu.case_name = "decode";
  no_gpu.scenario = "decode";
  no_gpu.source = "scenarios/smoke.yaml:20";
  no_gpu.batch = 4;
  no_gpu.tree_size = 1;
  no_gpu.heads = 8;
  no_gpu.page_size = 1;
  no_gpu.total_kv_tokens = 4100;
  no_gpu.reproducer = "verifybench run scenarios/smoke.yaml --case 'decode'";
  vb::ExecutorResult ref2 = ref;
  ref2.rows_checked = 32;
  ref2.wall_ms = 3.0;
  no_gpu.executors.push_back(ref2);
  for (const char* name : {"naive", "production", "production/block-table", "sglang-adapter"}) {
    vb::ExecutorResult r = record(name, vb::Outcome::kNotRun);
    r.detail = "not run: no CUDA device (cudaGetDeviceCount: no CUDA-capable device is detected)";
    no_gpu.executors.push_back(r);
  }
  cases.push_back(no_gpu);
  return cases;
}

vb::Provenance sample_provenance(bool with_gpu) {
  vb::Provenance p;
  p.tool_version = "verifybench test";
  p.date_utc = "2025-01-01T00:00:00Z";
  p.host = "testhost";
  p.git_commit = "unknown";
  p.git_state = "unknown";
  p.command_line = "verifybench run scenarios/smoke.yaml";
  p.scenario_files = {{"scenarios/smoke.yaml", vb::sha256_hex("scenarios: []\n")}};
  p.gpu.available = with_gpu;
  if (with_gpu) {
    p.gpu.name = "NVIDIA H200";
    p.gpu.cc_major = 9;
    p.gpu.sm_count = 132;
  } else {
    p.gpu.reason = "no CUDA device (test)";
  }
  return p;
}

void check_golden(const std::string& name, const std::string& actual) {
  const fs::path path = fs::path(VB_TEST_DATA_DIR) / "golden" / name;
  if (const char* update = std::getenv("VB_UPDATE_GOLDEN"); update != nullptr && *update == '1') {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << actual;
    WARN("rewrote " << path.string());
  }
  REQUIRE(fs::exists(path));
  CHECK(actual == read_text(path));
}

void check_same(const vb::ErrorStats& a, const vb::ErrorStats& b) {
  CHECK(a.elements_checked == b.elements_checked);
  CHECK(a.elements_failed == b.elements_failed);
  CHECK(a.nonfinite_mismatch == b.nonfinite_mismatch);
  CHECK(a.max_abs_error == b.max_abs_error);
  CHECK(a.max_rel_error == b.max_rel_error);
  CHECK(a.mean_abs_error == b.mean_abs_error);
  CHECK(a.worst.request == b.worst.request);
  CHECK(a.worst.node == b.worst.node);
  CHECK(a.worst.head == b.worst.head);
  CHECK(a.worst.channel == b.worst.channel);
  CHECK(((std::isnan(a.worst_expected) && std::isnan(b.worst_expected)) ||
         a.worst_expected == b.worst_expected));
  CHECK(((std::isnan(a.worst_got) && std::isnan(b.worst_got)) || a.worst_got == b.worst_got));
}

}  // namespace

TEST_CASE("sha256 matches the FIPS 180-4 test vectors", "[report]") {
  CHECK(vb::sha256_hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(vb::sha256_hex("abc") ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  CHECK(vb::sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq") ==
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  CHECK(vb::sha256_hex(std::string(1000000, 'a')) ==
        "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST_CASE("the JSON document is versioned and carries provenance and a summary", "[report]") {
  const auto cases = sample_results();
  const nlohmann::ordered_json doc = vb::result_document(sample_provenance(false), cases);
  CHECK(doc.at("schema") == "verifybench.result/3");
  CHECK(doc.begin().key() == "schema");  // first key, so `head` shows it
  CHECK(doc.at("provenance").at("device").is_null());
  CHECK(doc.at("ceilings").is_null());
  CHECK(doc.at("provenance").at("command") == "verifybench run scenarios/smoke.yaml");
  CHECK(doc.at("provenance").at("build").contains("cuda_architectures"));
  CHECK(doc.at("provenance").at("device_unavailable_reason") == "no CUDA device (test)");
  CHECK(doc.at("provenance").at("scenario_files").at(0).at("path") == "scenarios/smoke.yaml");
  CHECK(doc.at("summary").at("cases") == 4);
  CHECK(doc.at("summary").at("incorrect") == 2);
  CHECK(doc.at("summary").at("launch_failed") == 1);
  CHECK(doc.at("summary").at("not_run") == 4);
  CHECK(doc.at("cases").size() == cases.size());
  CHECK(doc.at("cases").at(1).at("all_passed") == false);

  const auto with_gpu = vb::result_document(sample_provenance(true), cases);
  CHECK(with_gpu.at("provenance").at("device").at("name") == "NVIDIA H200");
  CHECK(with_gpu.at("provenance").at("device").at("cc") == "9.0");
}

TEST_CASE("result records round-trip through JSON text", "[report]") {
  const auto cases = sample_results();
  const std::string text = vb::result_document(sample_provenance(false), cases).dump(2);
  const auto parsed = nlohmann::ordered_json::parse(text);  // NaN must not break the text
  REQUIRE(parsed.at("cases").size() == cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const vb::CaseResult back = vb::case_result_from_json(parsed.at("cases").at(i));
    const vb::CaseResult& orig = cases[i];
    CHECK(back.case_name == orig.case_name);
    CHECK(back.scenario == orig.scenario);
    CHECK(back.source == orig.source);
    CHECK(back.batch == orig.batch);
    CHECK(back.tree_size == orig.tree_size);
    CHECK(back.heads == orig.heads);
    CHECK(back.page_size == orig.page_size);
    CHECK(back.total_kv_tokens == orig.total_kv_tokens);
    CHECK(back.reproducer == orig.reproducer);
    REQUIRE(back.executors.size() == orig.executors.size());
    for (std::size_t e = 0; e < orig.executors.size(); ++e) {
      const vb::ExecutorResult& a = back.executors[e];
      const vb::ExecutorResult& b = orig.executors[e];
      CHECK(a.executor == b.executor);
      CHECK(a.outcome == b.outcome);
      CHECK(a.detail == b.detail);
      CHECK(a.checked_against == b.checked_against);
      CHECK(a.rows_checked == b.rows_checked);
      CHECK(a.wall_ms == b.wall_ms);
      check_same(a.o, b.o);
      check_same(a.lse, b.lse);
    }
  }
  // NaN is written as a string, never as JSON null.
  CHECK(parsed.at("cases").at(1).at("executors").at(3).at("lse").at("worst_got") == "nan");
}

TEST_CASE("the math of a case and of a launch, and an fp8-math check, round-trip through JSON", "[report][fp8]") {
  vb::CaseResult c = sample_results().at(0);
  c.math = "fp8";
  vb::ExecutorResult e;
  e.executor = "production";
  e.outcome = vb::Outcome::kPassed;
  e.launch = vb::LaunchRecord{};
  e.launch->math = "fp8";
  e.fp8_math = vb::Fp8MathCheck{1.5e-3, 2.5e-2, 1.9e-2, 0.152};
  c.executors = {e};
  const vb::CaseResult back = vb::case_result_from_json(nlohmann::ordered_json::parse(vb::to_json(c).dump()));
  CHECK(back.math == "fp8");
  REQUIRE(back.executors.size() == 1);
  REQUIRE(back.executors[0].launch);
  CHECK(back.executors[0].launch->math == "fp8");
  REQUIRE(back.executors[0].fp8_math);
  CHECK(back.executors[0].fp8_math->o_sigma == 1.5e-3);
  CHECK(back.executors[0].fp8_math->lse_sigma == 2.5e-2);
  CHECK(back.executors[0].fp8_math->o_atol == 1.9e-2);
  CHECK(back.executors[0].fp8_math->lse_atol == 0.152);
  // Files before fp8 math: bf16 throughout, no check record.
  nlohmann::ordered_json old = vb::to_json(c);
  old.erase("math");
  old["executors"][0].erase("fp8_math");
  old["executors"][0]["launch"].erase("math");
  const vb::CaseResult older = vb::case_result_from_json(old);
  CHECK(older.math == "bf16");
  CHECK(older.executors[0].launch->math == "bf16");
  CHECK_FALSE(older.executors[0].fp8_math);
}

TEST_CASE("write_file_atomic writes the whole file and leaves no temporary", "[report]") {
  TempDir dir;
  const fs::path target = dir.path / "result.json";
  vb::write_result_json(target.string(), sample_provenance(false), sample_results());
  CHECK(fs::exists(target));
  CHECK_FALSE(fs::exists(target.string() + ".tmp"));
  const auto doc = nlohmann::ordered_json::parse(read_text(target));
  CHECK(doc.at("schema") == vb::kResultSchema);

  // Overwriting replaces the content whole.
  vb::write_file_atomic(target.string(), "second\n");
  CHECK(read_text(target) == "second\n");
  CHECK_FALSE(fs::exists(target.string() + ".tmp"));
}

TEST_CASE("an unwritable target leaves no partial file behind", "[report]") {
  TempDir dir;
  SECTION("the target directory cannot hold files") {
    // A regular file where the directory should be: open fails for any user, root too.
    const fs::path not_a_dir = dir.path / "plain-file";
    std::ofstream(not_a_dir) << "x";
    const fs::path target = not_a_dir / "result.json";
    CHECK_THROWS_AS(vb::write_result_json(target.string(), sample_provenance(false),
                                          sample_results()),
                    vb::FileWriteError);
    CHECK(read_text(not_a_dir) == "x");
    CHECK(fs::directory_iterator(dir.path) != fs::directory_iterator());
    std::size_t entries = 0;
    for (const auto& e : fs::directory_iterator(dir.path)) {
      (void)e;
      ++entries;
    }
    CHECK(entries == 1);
  }
  SECTION("the target is a directory (refused before any rename)") {
    const fs::path target = dir.path / "result.json";
    fs::create_directories(target / "inside");
    try {
      vb::write_file_atomic(target.string(), "content\n");
      FAIL("expected FileWriteError");
    } catch (const vb::FileWriteError& e) {
      CHECK_THAT(std::string(e.what()), Catch::Contains("a directory"));
    }
    CHECK(fs::is_directory(target / "inside"));
    CHECK(std::distance(fs::directory_iterator(dir.path), fs::directory_iterator()) == 1);
  }
  SECTION("a read-only directory (skipped when running as root, who may write anyway)") {
    if (::geteuid() == 0) {
      WARN("not checked: running as root, permission bits do not stop writes");
    } else {
      const fs::path ro = dir.path / "ro";
      fs::create_directories(ro);
      fs::permissions(ro, fs::perms::owner_read | fs::perms::owner_exec);
      CHECK_THROWS_AS(vb::write_file_atomic((ro / "r.json").string(), "x"), vb::FileWriteError);
      fs::permissions(ro, fs::perms::owner_all);
      CHECK(fs::directory_iterator(ro) == fs::directory_iterator());
    }
  }
}

TEST_CASE("the case table matches its golden file", "[report]") {
  check_golden("case_table.txt", vb::format_case_table(sample_results()));
}

TEST_CASE("the summary matches its golden file and names the skip reason", "[report]") {
  vb::GpuInfo none;
  none.reason = "no CUDA device (cudaGetDeviceCount: no CUDA-capable device is detected)";
  const std::string summary = vb::format_summary(sample_results(), none);
  CHECK_THAT(summary, Catch::Contains("GPU executors skipped: no CUDA device"));
  check_golden("summary_no_gpu.txt", summary);

  vb::GpuInfo h200;
  h200.available = true;
  const std::string with_gpu = vb::format_summary(sample_results(), h200);
  CHECK_THAT(with_gpu, !Catch::Contains("skipped"));
  CHECK_THAT(with_gpu, Catch::Contains("reproduce kary/pages.size=64: verifybench run "
                                       "scenarios/correctness.yaml --case 'kary/pages.size=64'"));
}

TEST_CASE("TextTable pads columns and trims trailing spaces", "[report]") {
  vb::TextTable t({"name", "n"}, {false, true});
  t.add_row({"a", "1"});
  t.add_row({"long-name", "1234"});
  CHECK(t.render() == "name          n\na             1\nlong-name  1234\n");
}

TEST_CASE("a bundle's build commit (VB_GIT_COMMIT) wins over the checkout at the source path", "[report]") {
  // The lab machine carries a copy of the source tree whose git state can be stale; the
  // bundle's run.sh exports the commit its binaries were built from.
  const std::string fake = "0123456789abcdef0123456789abcdef01234567";
  REQUIRE(setenv("VB_GIT_COMMIT", fake.c_str(), 1) == 0);
  REQUIRE(setenv("VB_GIT_STATE", "clean", 1) == 0);
  const vb::Provenance with_env = vb::collect_provenance({}, "verifybench run x.yaml", vb::GpuInfo{}, "test");
  CHECK(with_env.git_commit == fake);
  CHECK(with_env.git_state == "clean");
  REQUIRE(unsetenv("VB_GIT_COMMIT") == 0);
  REQUIRE(unsetenv("VB_GIT_STATE") == 0);
  const vb::Provenance without_env = vb::collect_provenance({}, "verifybench run x.yaml", vb::GpuInfo{}, "test");
  CHECK(without_env.git_commit != fake);
}

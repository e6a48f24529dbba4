// Markdown, CSV and roofline-SVG writers over one timed result set; JSON round trip of the
// result/2 and /3 fields. Golden files in tests/data/golden (VB_UPDATE_GOLDEN=1 rewrites them).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "harness/compare/compare.h"
#include "harness/report/report_csv.h"
#include "harness/report/report_fp8_twins.h"
#include "harness/report/report_json.h"
#include "harness/report/report_markdown.h"
#include "harness/report/report_svg.h"
#include "harness/report/report_table.h"
#include "harness/measure/timing.h"
#include "harness/measure/traffic_model.h"

namespace fs = std::filesystem;

namespace {

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void check_golden(const std::string& name, const std::string& actual) {
  const fs::path path = fs::path(VB_TEST_DATA_DIR) / "golden" / name;
  if (const char* update = std::getenv("VB_UPDATE_GOLDEN"); update != nullptr && *update == '1') {
    std::ofstream(path, std::ios::binary) << actual;
    WARN("rewrote " << path.string());
  }
  REQUIRE(fs::exists(path));
  CHECK(actual == read_text(path));
}

vb::TimingRecord timing(const char* mode, std::vector<double> samples) {
  vb::TimingRecord t;
  t.mode = mode;
  t.samples_ms = samples;
  vb::fill_sample_stats(&t);
  t.stop_reason = "noise target";
  t.sm_clock_mhz_median = 1980;
  t.temperature_c_max = 41;
  return t;
}

vb::Ceilings sample_ceilings() {
  vb::Ceilings c;
  c.row_read_contiguous_gbps = 4420;
  c.row_read_shuffled_gbps = 4300;
  c.d2d_copy_gbps = 4270;
  c.mma_bf16_tflops = 645;
  c.method = {{"row_read_contiguous", "rows in order"},
              {"row_read_shuffled", "rows shuffled"},
              {"d2d_copy", "cudaMemcpyAsync"},
              {"mma_bf16", "mma.sync chains"}};
  return c;
}

std::vector<vb::CaseResult> sample_cases() {
  std::vector<vb::CaseResult> cases;
  auto make = [&](const std::string& name, int T, int page, double naive_ms, double prod_ms) {
    vb::CaseResult c;
    c.case_name = name;
    c.scenario = name.substr(0, name.find('/'));
    c.source = "scenarios/perf.yaml:1";
    c.batch = 8;
    c.tree_size = T;
    c.heads = 16;
    c.page_size = page;
    c.total_kv_tokens = 8 * (4096 + T);
    c.reproducer = "verifybench run scenarios/perf.yaml --case '" + name + "'";
    c.tags = {"perf"};
    c.traffic = vb::TrafficModel{8 * (4096 + T) * 1152 + 8 * T * 16 * 2180, 8 * (4096 + T) * 1152,
                                 8 * (4096 + T) * 1152, 2.0 * 8 * (4096 + T) * 16 * T * 1088};
    vb::ExecutorResult ref;
    ref.executor = "reference";
    ref.outcome = vb::Outcome::kNotVerified;
    ref.wall_ms = 12.5;
    vb::ExecutorResult naive;
    naive.executor = "naive";
    naive.outcome = vb::Outcome::kPassed;
    naive.checked_against = "reference";
    naive.timings = {timing("cold-l2", {naive_ms, naive_ms * 1.01, naive_ms * 0.99})};
    vb::ExecutorResult prod;
    prod.executor = "production";
    prod.outcome = vb::Outcome::kPassed;
    prod.checked_against = "reference";
    prod.timings = {timing("cold-l2", {prod_ms, prod_ms * 1.02, prod_ms * 0.98, prod_ms}),
                    timing("hot-l2", {prod_ms * 0.8, prod_ms * 0.8, prod_ms * 0.81}),
                    timing("graph", {prod_ms * 0.79, prod_ms * 0.79, prod_ms * 0.8})};
    prod.timings[1].throttled = true;
    c.executors = {ref, naive, prod};
    return c;
  };
  cases.push_back(make("eagle/batch=8", 8, 1, 0.640, 0.021));
  cases.push_back(make("chain8/batch=8", 8, 64, 0.600, 0.020));
  cases[0].tags.push_back("mask-tax-baseline:chain8/batch=8");
  cases[0].executors[2].outcome = vb::Outcome::kIncorrect;  // timed and flagged
  vb::annotate_roofline(&cases, sample_ceilings());
  return cases;
}

vb::Provenance sample_provenance() {
  vb::Provenance p;
  p.tool_version = "verifybench test";
  p.date_utc = "2025-01-01T00:00:00Z";
  p.host = "testhost";
  p.git_commit = "0123456789abcdef";
  p.git_state = "clean";
  p.command_line = "verifybench run scenarios/perf.yaml --time";
  p.scenario_files = {{"scenarios/perf.yaml", "00ff"}};
  p.gpu.available = true;
  p.gpu.name = "NVIDIA H200";
  p.gpu.cc_major = 9;
  p.gpu.sm_count = 132;
  p.gpu.l2_bytes = 60 << 20;
  p.gpu.driver_version = 13000;
  p.gpu.runtime_version = 13000;
  p.build = {"Release", "90;120", "-O3 -DNDEBUG"};
  p.sm_clock_mhz_at_start = 1980;
  p.mem_clock_mhz_at_start = 3201;
  p.nvml_status = "ok";
  return p;
}

}  // namespace

TEST_CASE("markdown summary matches its golden file", "[report]") {
  check_golden("summary_timed.md",
               vb::format_markdown(sample_provenance(), sample_ceilings(), sample_cases()));
}

TEST_CASE("CSV matches its golden file and every row has the header's column count", "[report]") {
  const std::string csv = vb::format_csv(sample_cases());
  check_golden("results.csv", csv);
  std::stringstream in(csv);
  std::string line;
  std::getline(in, line);
  const auto columns = std::count(line.begin(), line.end(), ',');
  while (std::getline(in, line)) CHECK(std::count(line.begin(), line.end(), ',') == columns);
  CHECK(vb::csv_field("a,b\"c") == "\"a,b\"\"c\"");
}

TEST_CASE("roofline SVG matches its golden file, and without data it says so", "[report]") {
  const std::string svg = vb::format_roofline_svg(sample_ceilings(), sample_cases(), "test roofline");
  check_golden("roofline.svg", svg);
  CHECK(svg.rfind("<svg", 0) == 0);
  const std::string empty = vb::format_roofline_svg(std::nullopt, {}, "empty");
  CHECK(empty.find("no ceilings measured") != std::string::npos);
  CHECK(empty.find("no timed cases") != std::string::npos);
}

TEST_CASE("result/2 and /3 fields round-trip through JSON", "[report]") {
  auto cases = sample_cases();
  vb::LaunchRecord launch;
  launch.engine = "wgmma";
  launch.instance = "wgmma/page-boxes";
  launch.page_table = "block-table";
  launch.grid = {2, 4, 8};
  launch.threads = 384;
  launch.pipeline_stages = 2;
  launch.smem_bytes = 224256;
  launch.m_tiles = 2;
  launch.splits = 4;
  launch.tiles_per_split = 7;
  launch.token_split = true;
  launch.tile_balanced = true;
  launch.balanced_slots = 3;
  launch.combine_lanes = 2;
  launch.combine_loads_per_lane = 2;
  launch.combine_grid = {5, 1, 1};
  launch.blocks_per_sm = 1;
  launch.planner_settings = {{"split_divisor", "2"}, {"token_split", "false"}};
  launch.summary = "wgmma/page-boxes stages=2 smem=224256 m_tiles=2 splits=4 grid=2x4x8 combine=2x2";
  cases[0].executors[2].launch = launch;
  cases[0].executors[2].production_speedup = 0.5;
  const auto doc = vb::result_document(sample_provenance(), cases, sample_ceilings());
  CHECK(doc.at("schema") == "verifybench.result/3");
  CHECK(doc.at("cases").at(0).at("executors").at(2).at("launch").at("planner_settings").at("split_divisor") == "2");
  CHECK(doc.at("cases").at(0).at("executors").at(1).at("launch").is_null());
  CHECK(doc.at("provenance").at("device").at("cc") == "9.0");
  CHECK(doc.at("ceilings").at("method").at("mma_bf16") == "mma.sync chains");
  const auto& prod = doc.at("cases").at(0).at("executors").at(2);
  CHECK(prod.at("timings").at(0).at("mode") == "cold-l2");
  CHECK(prod.at("achieved").at("bound") == "compute");  // H*T = 128: above the ridge
  const vb::ResultDocument back = vb::result_document_from_json(nlohmann::ordered_json::parse(doc.dump()));
  REQUIRE(back.ceilings);
  CHECK(back.ceilings->mma_bf16_tflops == 645);
  CHECK(back.ceilings->method.size() == 4);
  REQUIRE(back.cases.size() == 2);
  const vb::CaseResult& c = back.cases[0];
  CHECK(c.tags == cases[0].tags);
  REQUIRE(c.traffic);
  CHECK(c.traffic->algorithmic_bytes == cases[0].traffic->algorithmic_bytes);
  REQUIRE(c.mask_tax);
  CHECK(*c.mask_tax == Approx(*cases[0].mask_tax));
  CHECK(*c.speedup_vs_naive == Approx(*cases[0].speedup_vs_naive));
  const vb::ExecutorResult& e = c.executors[2];
  REQUIRE(e.timings.size() == 3);
  CHECK(e.timings[0].samples_ms == cases[0].executors[2].timings[0].samples_ms);
  CHECK(e.timings[1].throttled);
  CHECK(*e.timings[0].sm_clock_mhz_median == 1980);
  REQUIRE(e.achieved);
  CHECK(e.achieved->gbps == Approx(cases[0].executors[2].achieved->gbps));
  REQUIRE(e.launch);
  const vb::LaunchRecord& l = *e.launch;
  CHECK(l.engine == launch.engine);
  CHECK(l.instance == launch.instance);
  CHECK(l.page_table == launch.page_table);
  CHECK(l.grid == launch.grid);
  CHECK(l.threads == launch.threads);
  CHECK(l.pipeline_stages == launch.pipeline_stages);
  CHECK(l.smem_bytes == launch.smem_bytes);
  CHECK(l.m_tiles == launch.m_tiles);
  CHECK(l.splits == launch.splits);
  CHECK(l.tiles_per_split == launch.tiles_per_split);
  CHECK(l.token_split == launch.token_split);
  CHECK(l.tile_balanced == launch.tile_balanced);
  CHECK(l.balanced_slots == launch.balanced_slots);
  CHECK(l.combine_lanes == launch.combine_lanes);
  CHECK(l.combine_loads_per_lane == launch.combine_loads_per_lane);
  CHECK(l.combine_grid == launch.combine_grid);
  CHECK(l.blocks_per_sm == launch.blocks_per_sm);
  CHECK(l.planner_settings == launch.planner_settings);
  CHECK(l.summary == launch.summary);
  CHECK(l.launch_blocks() == 64);
  REQUIRE(e.production_speedup);
  CHECK(*e.production_speedup == 0.5);
  CHECK_FALSE(c.executors[1].launch);
  CHECK_THROWS_AS(vb::result_document_from_json({{"schema", "verifybench.result/9"}}), vb::ReportError);
}

TEST_CASE("the committed result/1 and /2 files still read, with no launch records", "[report]") {
  for (const char* name : {"result_v1.json", "baseline_h200.json", "current_h200_slower.json", "current_rtx.json"}) {
    INFO(name);
    const std::string path = std::string(VB_TEST_DATA_DIR) + "/compare/" + name;
    const vb::ResultDocument d = vb::result_document_from_json(vb::read_result_json(path));
    CHECK((d.schema == "verifybench.result/1" || d.schema == "verifybench.result/2"));
    REQUIRE_FALSE(d.cases.empty());
    for (const vb::CaseResult& c : d.cases) {
      for (const vb::ExecutorResult& e : c.executors) CHECK_FALSE(e.launch);
    }
  }
  // compare still reads a /2 baseline.
  const vb::TimedRun run = vb::load_timed_run(std::string(VB_TEST_DATA_DIR) + "/compare/baseline_h200.json");
  CHECK(run.schema == "verifybench.result/2");
  CHECK_FALSE(run.cases.empty());
}

TEST_CASE("the launch floor is reported when measured and read back, and older files have none", "[report]") {
  vb::Ceilings c = sample_ceilings();
  c.launch_floor_us = 2.94;
  c.method.emplace_back("launch_floor", "one empty kernel, cold sample");
  const std::string md = vb::format_markdown(sample_provenance(), c, sample_cases());
  CHECK(md.find("| launch floor | 2.9 µs | one empty kernel, cold sample |") != std::string::npos);
  CHECK(md.find("% attainable ignores the floor") != std::string::npos);
  // Not measured: no row, and the golden summary above stays as it was.
  const std::string without = vb::format_markdown(sample_provenance(), sample_ceilings(), sample_cases());
  CHECK(without.find("launch floor") == std::string::npos);

  auto doc = vb::result_document(sample_provenance(), sample_cases(), c);
  CHECK(doc.at("ceilings").at("launch_floor_us") == 2.94);
  const vb::ResultDocument back = vb::result_document_from_json(nlohmann::ordered_json::parse(doc.dump()));
  REQUIRE(back.ceilings);
  CHECK(back.ceilings->launch_floor_us == 2.94);
  // Unmeasured is written as null; files from before the field existed lack the key.
  auto unmeasured = vb::result_document(sample_provenance(), sample_cases(), sample_ceilings());
  CHECK(unmeasured.at("ceilings").at("launch_floor_us").is_null());
  CHECK(vb::result_document_from_json(unmeasured).ceilings->launch_floor_us == 0);
  unmeasured.at("ceilings").erase("launch_floor_us");
  CHECK(vb::result_document_from_json(unmeasured).ceilings->launch_floor_us == 0);
}

TEST_CASE("chain samples get their own table with the overlapped-to-plain ratio, and only when present",
          "[report]") {
  std::vector<vb::CaseResult> cases = sample_cases();
  // Without chain samples neither writer mentions them (the golden summary above has none).
  CHECK(vb::format_markdown(sample_provenance(), sample_ceilings(), cases).find("Back-to-back") == std::string::npos);
  CHECK(vb::format_timing_table(cases).find("back-to-back") == std::string::npos);

  vb::ExecutorResult& prod = cases[1].executors[2];
  REQUIRE(prod.executor == "production");
  prod.timings.push_back(timing("chain", {0.0180, 0.0181, 0.0179}));
  prod.timings.push_back(timing("chain-pdl", {0.0153, 0.0152, 0.0154}));
  const std::string md = vb::format_markdown(sample_provenance(), sample_ceilings(), cases);
  CHECK(md.find("## Back-to-back launches") != std::string::npos);
  // cold 20.0 µs, chain 18.0, chain-pdl 15.3: ratio 0.850.
  CHECK(md.find("| chain8/batch=8 | production | 20.0 | 18.0 | 15.3 | 0.850 |") != std::string::npos);
  // The case without chain samples has no row there.
  CHECK(md.find("| eagle/batch=8 | production | ") == std::string::npos);
  // Achieved rates still come from the cold sample, not from a chain.
  REQUIRE(vb::preferred_timing(prod) != nullptr);
  CHECK(vb::preferred_timing(prod)->mode == "cold-l2");

  const std::string table = vb::format_timing_table(cases);
  CHECK(table.find("back-to-back launches: 8 in a row") != std::string::npos);
  CHECK(table.find("0.850") != std::string::npos);
  // A chain alone (no chain-pdl: an executor that cannot overlap) leaves the ratio out.
  prod.timings.pop_back();
  CHECK(vb::format_markdown(sample_provenance(), sample_ceilings(), cases)
            .find("| chain8/batch=8 | production | 20.0 | 18.0 | - | - |") != std::string::npos);
}

TEST_CASE("the memory temperature range round-trips through JSON, and older files have none", "[report]") {
  std::vector<vb::CaseResult> cases = sample_cases();
  vb::TimingRecord& t = cases[0].executors[2].timings[0];
  t.memory_temperature_c_min = 52;
  t.memory_temperature_c_max = 61;
  auto doc = vb::result_document(sample_provenance(), cases, sample_ceilings());
  auto& timing = doc.at("cases").at(0).at("executors").at(2).at("timings").at(0);
  CHECK(timing.at("memory_temperature_c_min") == 52);
  CHECK(timing.at("memory_temperature_c_max") == 61);
  // Not reported (the hot-l2 record here): written as null.
  CHECK(doc.at("cases").at(0).at("executors").at(2).at("timings").at(1).at("memory_temperature_c_max").is_null());
  vb::ResultDocument back = vb::result_document_from_json(nlohmann::ordered_json::parse(doc.dump()));
  REQUIRE(back.cases.at(0).executors.at(2).timings.at(0).memory_temperature_c_max);
  CHECK(*back.cases[0].executors[2].timings[0].memory_temperature_c_min == 52);
  CHECK(*back.cases[0].executors[2].timings[0].memory_temperature_c_max == 61);
  CHECK_FALSE(back.cases[0].executors[2].timings[1].memory_temperature_c_max);
  // Files from before the fields existed lack the keys.
  timing.erase("memory_temperature_c_min");
  timing.erase("memory_temperature_c_max");
  back = vb::result_document_from_json(doc);
  CHECK_FALSE(back.cases[0].executors[2].timings[0].memory_temperature_c_min);
  CHECK_FALSE(back.cases[0].executors[2].timings[0].memory_temperature_c_max);
}

TEST_CASE("the wgmma ceiling and the PDL floor are reported when measured, and older files read as unmeasured",
          "[report]") {
  vb::Ceilings c = sample_ceilings();
  c.wgmma_bf16_tflops = 790.4;
  c.pdl_floor_us = 1.94;
  c.method.emplace_back("wgmma_bf16", "wgmma m64n256k16 from shared memory");
  c.method.emplace_back("pdl_floor", "empty kernel over the previous one");
  const std::string md = vb::format_markdown(sample_provenance(), c, sample_cases());
  CHECK(md.find("| wgmma bf16 | 790 TFLOP/s | wgmma m64n256k16 from shared memory |") != std::string::npos);
  CHECK(md.find("| PDL floor | 1.94 µs | empty kernel over the previous one |") != std::string::npos);
  CHECK(md.find("best tensor-core ceiling (wgmma 790 TFLOP/s)") != std::string::npos);
  // A probe that did not measure (its accumulator check failed) shows its reason, no value.
  vb::Ceilings failed = sample_ceilings();
  failed.method.emplace_back("wgmma_bf16", "not measured: the probe's D[0][0] is 1 where 2 was expected");
  CHECK(vb::format_markdown(sample_provenance(), failed, sample_cases())
            .find("| wgmma bf16 | - | not measured: the probe's D[0][0] is 1") != std::string::npos);

  auto doc = vb::result_document(sample_provenance(), sample_cases(), c);
  CHECK(doc.at("ceilings").at("wgmma_bf16_tflops") == 790.4);
  CHECK(doc.at("ceilings").at("pdl_floor_us") == 1.94);
  const vb::ResultDocument back = vb::result_document_from_json(nlohmann::ordered_json::parse(doc.dump()));
  CHECK(back.ceilings->wgmma_bf16_tflops == 790.4);
  CHECK(back.ceilings->pdl_floor_us == 1.94);
  auto old = vb::result_document(sample_provenance(), sample_cases(), sample_ceilings());
  CHECK(old.at("ceilings").at("wgmma_bf16_tflops").is_null());
  CHECK(old.at("ceilings").at("pdl_floor_us").is_null());
  old.at("ceilings").erase("wgmma_bf16_tflops");
  old.at("ceilings").erase("pdl_floor_us");
  old.at("ceilings").erase("mma_clock_mhz");  // result files before 2026-12-05
  old.at("ceilings").erase("sm_count");
  for (auto& cs : old.at("cases")) {
    cs.erase("pdl_goal");
    for (auto& e : cs.at("executors")) {
      e.erase("prediction");
      if (!e.at("achieved").is_null()) {
        for (const char* key : {"engine", "pct_of_engine_ceiling", "pct_of_memory_ceiling"}) e.at("achieved").erase(key);
      }
    }
  }
  const vb::ResultDocument legacy = vb::result_document_from_json(old);
  CHECK(legacy.ceilings->wgmma_bf16_tflops == 0);
  CHECK(legacy.ceilings->pdl_floor_us == 0);
  CHECK(legacy.ceilings->mma_clock_mhz == 0);
  CHECK(legacy.ceilings->sm_count == 0);
  CHECK_FALSE(legacy.cases[0].pdl_goal);
  CHECK(legacy.cases[0].executors[2].achieved->engine.empty());
  CHECK_FALSE(legacy.cases[0].executors[2].achieved->pct_of_engine_ceiling);
}

TEST_CASE("the MLA tile ceilings are reported as the kernel design's, never as a roof, and older files read as unmeasured",
          "[report]") {
  vb::Ceilings c = sample_ceilings();
  c.wgmma_bf16_tflops = 977.0;
  c.wgmma_mla_tile_tflops = 901.5;
  c.wgmma_mla_tile_copies_tflops = 812.25;
  c.method.emplace_back("wgmma_mla_tile", "the kernel's tile, nothing waiting");
  c.method.emplace_back("wgmma_mla_tile_copies", "not measured: block 0's O[0][0] 1 where 2 was expected");
  const std::string md = vb::format_markdown(sample_provenance(), c, sample_cases());
  CHECK(md.find("| wgmma MLA tile (kernel design) | 902 TFLOP/s | the kernel's tile, nothing waiting |") !=
        std::string::npos);
  CHECK(md.find("| wgmma MLA tile + copies (kernel design) | 812 TFLOP/s | not measured: block 0's O[0][0] 1") !=
        std::string::npos);
  CHECK(md.find("never a case's roof") != std::string::npos);
  CHECK(md.find("best tensor-core ceiling (wgmma 977 TFLOP/s)") != std::string::npos);  // the roof stays the device's

  auto doc = vb::result_document(sample_provenance(), sample_cases(), c);
  CHECK(doc.at("ceilings").at("wgmma_mla_tile_tflops") == 901.5);
  CHECK(doc.at("ceilings").at("wgmma_mla_tile_copies_tflops") == 812.25);
  const vb::ResultDocument back = vb::result_document_from_json(nlohmann::ordered_json::parse(doc.dump()));
  CHECK(back.ceilings->wgmma_mla_tile_tflops == 901.5);
  CHECK(back.ceilings->wgmma_mla_tile_copies_tflops == 812.25);

  auto old = vb::result_document(sample_provenance(), sample_cases(), sample_ceilings());
  CHECK(old.at("ceilings").at("wgmma_mla_tile_tflops").is_null());
  old.at("ceilings").erase("wgmma_mla_tile_tflops");
  old.at("ceilings").erase("wgmma_mla_tile_copies_tflops");
  const vb::ResultDocument legacy = vb::result_document_from_json(old);
  CHECK(legacy.ceilings->wgmma_mla_tile_tflops == 0);
  CHECK(legacy.ceilings->wgmma_mla_tile_copies_tflops == 0);
  CHECK(vb::format_markdown(sample_provenance(), *legacy.ceilings, sample_cases()).find("MLA tile") ==
        std::string::npos);
}

TEST_CASE("engine, PDL-goal and sm_120 sections: written when their records exist, read back", "[report]") {
  std::vector<vb::CaseResult> cases = sample_cases();
  vb::Ceilings c = sample_ceilings();
  c.wgmma_bf16_tflops = 790;
  c.pdl_floor_us = 2.0;
  c.mma_clock_mhz = 1800;
  c.sm_count = 132;
  c.memory_peak_gbps = 4800;
  c.sm120_emulated_bf16_tflops = 240;
  // Without engines, goals or a proxy, none of the three sections appears (golden unchanged).
  const std::string plain = vb::format_markdown(sample_provenance(), sample_ceilings(), cases);
  CHECK(plain.find("## Tensor-core engines") == std::string::npos);
  CHECK(plain.find("## Small launches") == std::string::npos);
  CHECK(plain.find("## sm_120 proxy") == std::string::npos);

  vb::ExecutorResult& prod = cases[0].executors[2];
  prod.launch = vb::LaunchRecord{};
  prod.launch->engine = "wgmma";
  prod.launch->grid = {2, 2, 8};
  prod.timings.push_back(timing("chain-pdl", {0.0150, 0.0152, 0.0151}));
  vb::ExecutorResult proxy = prod;
  proxy.executor = vb::kSm120ProxyExecutor;
  proxy.launch->engine = "mma.sync";
  proxy.launch->grid = {8, 4, 8};
  proxy.timings = {timing("cold-l2", {0.040, 0.041, 0.042})};
  cases[0].executors.push_back(proxy);
  vb::ExecutorResult emu = proxy;
  emu.executor = vb::kSm120EmuExecutor;
  emu.timings = {timing("cold-l2", {0.090, 0.091, 0.092})};
  cases[0].executors.push_back(emu);
  vb::annotate_roofline(&cases, c);
  REQUIRE(cases[0].pdl_goal);
  REQUIRE(cases[0].executors.back().prediction);
  REQUIRE(cases[0].executors.back().sm120_fractions);
  CHECK_FALSE(cases[0].executors[cases[0].executors.size() - 2].prediction);  // the proxy's

  const std::string md = vb::format_markdown(sample_provenance(), c, cases);
  CHECK(md.find("## Tensor-core engines") != std::string::npos);
  CHECK(md.find("| production | wgmma | compute |") != std::string::npos);
  CHECK(md.find("% of MLA tile + copies") == std::string::npos);  // not measured in this run
  // With the design ceiling measured, wgmma rows carry their share of it; other engines do not.
  vb::Ceilings with_design = c;
  // The push_back above may have moved the executors: the record is looked up again.
  const vb::ExecutorResult& production = cases[0].executors[2];
  REQUIRE(production.executor == "production");
  REQUIRE(production.achieved);
  with_design.wgmma_mla_tile_copies_tflops = 2.0 * production.achieved->tflops;
  const std::string design_md = vb::format_markdown(sample_provenance(), with_design, cases);
  CHECK(design_md.find("| % of MLA tile + copies |") != std::string::npos);
  const std::string prod_row = fmt::format("| {} | production | wgmma |", cases[0].case_name);
  const std::size_t at = design_md.find(prod_row);
  REQUIRE(at != std::string::npos);
  const std::string row = design_md.substr(at, design_md.find('\n', at) - at);
  const std::string last_cell = " | 50.0% |";
  REQUIRE(row.size() > last_cell.size());
  CHECK(row.substr(row.size() - last_cell.size()) == last_cell);
  CHECK(md.find("## Small launches as serving runs them") != std::string::npos);
  CHECK(md.find(fmt::format("| {} | 15.1 |", cases[0].case_name)) != std::string::npos);
  CHECK(md.find("## sm_120 proxy and the predicted RTX PRO 6000 time") != std::string::npos);
  CHECK(md.find("a prediction, not a measurement") != std::string::npos);
  CHECK(md.find("2617 MHz") != std::string::npos);
  CHECK(md.find("188 SMs") != std::string::npos);
  CHECK(md.find("1792 GB/s") != std::string::npos);
  CHECK(md.find("128 MB L2") != std::string::npos);
  // The case's one row: proxy and emulation medians, the emulation's fractions, C, M, rho, the
  // predicted time, its interval and bound, each from the record (checked by hand in
  // test_traffic_model.cpp).
  const vb::DevicePrediction& pred = *cases[0].executors.back().prediction;
  const vb::Sm120EmulatedFractions& frac = *cases[0].executors.back().sm120_fractions;
  CHECK(md.find("| case | math | proxy µs | emu µs | % of emulated sm_120 rate | % of attainable at sm_120 rates | C µs | "
                "M µs | rho | predicted RTX PRO 6000 µs | interval µs | bound |") != std::string::npos);
  const std::string sm120_row =
      fmt::format("| {} | bf16 | 41.0 | 91.0 | {:.1f}% | {:.1f}% | {:.1f} | {:.1f} | {:.2f} | {:.1f} | [{:.1f}, {:.1f}] | {} |",
                  cases[0].case_name, frac.pct_of_emulated_rate, frac.pct_of_attainable, pred.sm_cycles_us,
                  pred.memory_us, pred.rho, pred.time_us, pred.low_us, pred.high_us, pred.bound);
  CHECK(md.find(sm120_row) != std::string::npos);
  CHECK(pred.rho == Approx(4300.0 / 4800));  // page 1: the shuffled rows over the datasheet
  // The emulated rate among the ceilings, also per clock and SM: 240e6 / (1800 x 132) = 1010.
  CHECK(md.find("| sm_120 emulated, bf16 | 240 TFLOP/s (1010 FLOP per clock and SM; sm_120: 1024) |") !=
        std::string::npos);
  CHECK(md.find("| memory, datasheet | 4800 GB/s |") != std::string::npos);

  // Without the datasheet bandwidth (an older run): no prediction, and one line says why.
  vb::Ceilings older = c;
  older.memory_peak_gbps = 0;
  std::vector<vb::CaseResult> unpredicted = cases;
  vb::annotate_roofline(&unpredicted, older);
  CHECK_FALSE(unpredicted[0].executors.back().prediction);
  const std::string older_md = vb::format_markdown(sample_provenance(), older, unpredicted);
  CHECK(older_md.find("No predicted RTX PRO 6000 time: the ceilings lack the datasheet memory bandwidth "
                      "(memory_peak_gbps).") != std::string::npos);
  CHECK(older_md.find("| memory, datasheet |") == std::string::npos);
  // A run with the proxy and no emulation says so instead.
  std::vector<vb::CaseResult> proxy_only = cases;
  proxy_only[0].executors.pop_back();
  const std::string proxy_md = vb::format_markdown(sample_provenance(), c, proxy_only);
  CHECK(proxy_md.find("No predicted RTX PRO 6000 time: this run has no `production/sm120-emu` cold-L2 time") !=
        std::string::npos);

  const auto doc = vb::result_document(sample_provenance(), cases, c);
  CHECK(doc.at("predictions").at("rtx-pro-6000").at("method").get<std::string>().rfind("a prediction, not a", 0) == 0);
  const auto& pj = doc.at("cases").at(0).at("executors").back().at("prediction");
  CHECK(pj.at("kind") == "prediction");
  const vb::ResultDocument back = vb::result_document_from_json(nlohmann::ordered_json::parse(doc.dump()));
  REQUIRE(back.cases[0].pdl_goal);
  CHECK(back.cases[0].pdl_goal->bound_us == Approx(cases[0].pdl_goal->bound_us));
  CHECK(back.cases[0].pdl_goal->met == cases[0].pdl_goal->met);
  REQUIRE(back.cases[0].executors.back().prediction);
  CHECK(back.cases[0].executors.back().prediction->time_us == Approx(cases[0].executors.back().prediction->time_us));
  const vb::DevicePrediction& written = *cases[0].executors.back().prediction;
  const vb::DevicePrediction& read = *back.cases[0].executors.back().prediction;
  CHECK(read.device == written.device);
  CHECK(read.low_us == Approx(written.low_us));
  CHECK(read.high_us == Approx(written.high_us));
  CHECK(read.sm_cycles_us == Approx(written.sm_cycles_us));
  CHECK(read.memory_us == Approx(written.memory_us));
  CHECK(read.memory_datasheet_us == Approx(written.memory_datasheet_us));
  CHECK(read.rho == Approx(written.rho));
  CHECK(read.bound == written.bound);
  CHECK(read.sm_clock_mhz == written.sm_clock_mhz);
  CHECK(read.num_sms == written.num_sms);
  REQUIRE(back.cases[0].executors.back().sm120_fractions);
  CHECK(back.cases[0].executors.back().sm120_fractions->pct_of_emulated_rate == Approx(frac.pct_of_emulated_rate));
  CHECK(back.cases[0].executors.back().sm120_fractions->pct_of_attainable == Approx(frac.pct_of_attainable));
  CHECK(back.ceilings->memory_peak_gbps == Approx(c.memory_peak_gbps));
  CHECK(back.ceilings->sm120_emulated_bf16_tflops == Approx(c.sm120_emulated_bf16_tflops));
  CHECK(back.ceilings->mma_clock_mhz == Approx(c.mma_clock_mhz));
  CHECK(back.ceilings->sm_count == c.sm_count);
  CHECK(back.cases[0].executors[2].achieved->engine == "wgmma");
  CHECK(*back.cases[0].executors[2].achieved->pct_of_engine_ceiling ==
        Approx(*cases[0].executors[2].achieved->pct_of_engine_ceiling));
}

TEST_CASE("a prediction of the two-way model (result files before 2026-12-06) reads as no prediction", "[report]") {
  // The entry such a file holds (reports/h100/2026-12-06-fp8-kv/perf-eagle-dflash, the proxy's
  // record): a roof-fraction estimate and an overlap bound, neither of them this model's.
  const auto old_entry = nlohmann::ordered_json::parse(
      R"({"device": "rtx-pro-6000", "time_us": 157.58, "roof_us": 80.85, "bound": "memory",
          "fraction_of_roof": 0.513, "sm_cycles_us": 44.03, "overlap_bound_us": 80.85,
          "overlap_bound": "memory", "kind": "prediction"})");
  CHECK_FALSE(vb::prediction_from_json(old_entry));
  std::vector<vb::CaseResult> cases = sample_cases();
  auto doc = vb::result_document(sample_provenance(), cases, sample_ceilings());
  doc.at("cases").at(0).at("executors").back()["prediction"] = old_entry;
  doc.at("cases").at(0).at("executors").back().erase("sm120_fractions");
  const vb::ResultDocument legacy = vb::result_document_from_json(doc);
  CHECK_FALSE(legacy.cases[0].executors.back().prediction);
  CHECK_FALSE(legacy.cases[0].executors.back().sm120_fractions);
  // A new-model entry with a field missing is malformed, not silently dropped.
  nlohmann::ordered_json partial = vb::to_json(vb::DevicePrediction{});
  partial.erase("rho");
  CHECK_THROWS_AS(vb::prediction_from_json(partial), nlohmann::json::exception);
}

TEST_CASE("a result document whose schema is not a string is a ReportError, not a crash", "[report]") {
  // Found by the result-JSON fuzzer (tests/fuzz/corpus/result_json/regression-schema-number.json):
  // a number in "schema" threw nlohmann's type_error past every handler.
  const auto doc = nlohmann::ordered_json::parse(R"({"schema": 5500000000000000000000000000011999153157185})");
  CHECK_THROWS_AS(vb::result_document_from_json(doc), vb::ReportError);
  CHECK_THROWS_AS(vb::result_document_from_json(nlohmann::ordered_json::parse(R"({"schema": ["x"]})")),
                  vb::ReportError);
}

namespace {

// The ceilings of a run that measured the 576-byte rows too (distinct from the 1152-byte ones,
// so a case held to the wrong row's roof shows).
vb::Ceilings fp8_run_ceilings() {
  vb::Ceilings c = sample_ceilings();  // 1152-byte rows: 4420 in order, 4300 shuffled
  c.row576_read_contiguous_gbps = 4100;
  c.row576_read_shuffled_gbps = 3650;
  c.memory_peak_gbps = 4800;  // and the figures the RTX PRO 6000 prediction needs
  c.mma_clock_mhz = 1980;
  c.sm_count = 132;
  c.method.emplace_back("row576_read_contiguous", "576-byte rows in order");
  c.method.emplace_back("row576_read_shuffled", "576-byte rows shuffled");
  return c;
}

constexpr int kTwinTree = 2, kTwinHeads = 8, kTwinPrefix = 16384;

// Algorithmic bytes of a twin-test case: its KV rows once, q + o + lse per (node, head).
std::int64_t twin_bytes(int batch, bool fp8) {
  const std::int64_t rows = static_cast<std::int64_t>(batch) * (kTwinPrefix + kTwinTree);
  return rows * (fp8 ? vb::kKvRowBytesFp8 : vb::kKvRowBytes) + std::int64_t{batch} * kTwinTree * kTwinHeads * 2180;
}

// One case of the twin tests: scenario + point, the KV dtype, the batch, and each executor's
// cold-l2 median in µs.
vb::CaseResult twin_case(const std::string& scenario, const std::string& point, bool fp8, int batch,
                         const std::vector<std::pair<std::string, double>>& executor_us) {
  vb::CaseResult c;
  c.scenario = scenario;
  c.case_name = scenario + point;
  c.source = "scenarios/perf.yaml:1";
  c.batch = batch;
  c.tree_size = kTwinTree;
  c.heads = kTwinHeads;
  c.page_size = 1;
  c.total_kv_tokens = std::int64_t{batch} * (kTwinPrefix + kTwinTree);
  c.kv_cache = fp8 ? "fp8_e4m3 scale amax" : "bf16";
  c.reproducer = "verifybench run scenarios/perf.yaml --case '" + c.case_name + "'";
  const std::int64_t kv_bytes = c.total_kv_tokens * (fp8 ? vb::kKvRowBytesFp8 : vb::kKvRowBytes);
  c.traffic = vb::TrafficModel{twin_bytes(batch, fp8), kv_bytes, kv_bytes,
                               2.0 * static_cast<double>(c.total_kv_tokens) * kTwinHeads * kTwinTree * 1088,
                               fp8 ? vb::kKvRowBytesFp8 : vb::kKvRowBytes};
  vb::ExecutorResult ref;
  ref.executor = "reference";
  ref.outcome = vb::Outcome::kNotVerified;
  c.executors.push_back(ref);
  for (const auto& [executor, us] : executor_us) {
    vb::ExecutorResult e;
    e.executor = executor;
    e.outcome = vb::Outcome::kPassed;
    e.checked_against = "reference";
    e.timings = {timing("cold-l2", {us * 1e-3, us * 1.01e-3, us * 0.99e-3})};
    c.executors.push_back(e);
  }
  return c;
}

// Two twin pairs (one fp8 case listed before its bf16 twin), a bf16 / fp8 pair of matching names
// but another batch (no twins), and an fp8 case without a twin.
std::vector<vb::CaseResult> twin_cases() {
  const std::string proxy = vb::kSm120ProxyExecutor, emu = vb::kSm120EmuExecutor;
  std::vector<vb::CaseResult> cases = {
      twin_case("kimi_mtp", "/batch.size=8", false, 8, {{"production", 40.0}, {proxy, 52.0}, {emu, 130.0}}),
      twin_case("kimi_mtp_fp8", "/batch.size=32", true, 32, {{"production", 165.0}}),
      twin_case("kimi_mtp_fp8", "/batch.size=8", true, 8, {{"production", 25.0}, {proxy, 31.2}, {emu, 110.0}}),
      twin_case("kimi_mtp", "/batch.size=32", false, 32, {{"production", 150.0}}),
      twin_case("layout", "/placement=contiguous", false, 64, {{"production", 300.0}}),
      twin_case("layout_fp8", "/placement=contiguous", true, 32, {{"production", 90.0}}),
      twin_case("eagle_fp8", "", true, 8, {{"production", 30.0}}),
  };
  vb::annotate_roofline(&cases, fp8_run_ceilings());
  return cases;
}

// The CSV's rows as fields (no field of these cases needs quoting).
std::vector<std::vector<std::string>> csv_rows(const std::string& csv) {
  std::vector<std::vector<std::string>> rows;
  std::stringstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream cells(line);
    std::string field;
    while (std::getline(cells, field, ',')) fields.push_back(field);
    if (!line.empty() && line.back() == ',') fields.emplace_back();
    rows.push_back(fields);
  }
  return rows;
}

}  // namespace

TEST_CASE("fp8 twins: each fp8 case pairs with the bf16 case of its scenario without _fp8, same point and shape",
          "[report][fp8]") {
  const std::vector<vb::CaseResult> cases = twin_cases();
  const auto pairs = vb::fp8_twin_pairs(cases);
  REQUIRE(pairs.size() == 2);
  CHECK(pairs[0].bf16->case_name == "kimi_mtp/batch.size=32");
  CHECK(pairs[0].fp8->case_name == "kimi_mtp_fp8/batch.size=32");
  CHECK(pairs[1].bf16->case_name == "kimi_mtp/batch.size=8");
  CHECK(pairs[1].fp8->case_name == "kimi_mtp_fp8/batch.size=8");
  // The same names, another batch: no pair; a bf16 case named like a twin is never one.
  std::vector<vb::CaseResult> mislabelled = cases;
  mislabelled[2].kv_cache = "bf16";
  CHECK(vb::fp8_twin_pairs(mislabelled).size() == 1);
}

TEST_CASE("fp8 twins: a math sweep value is not part of the point, so a bf16 case has a twin of each math",
          "[report][fp8]") {
  std::vector<vb::CaseResult> cases = {
      twin_case("kimi_mtp", "/batch.size=8", false, 8, {{"production", 40.0}}),
      twin_case("kimi_mtp_fp8", "/batch.size=8,math=bf16", true, 8, {{"production", 37.0}}),
      twin_case("kimi_mtp_fp8", "/math=fp8,batch.size=8", true, 8, {{"production", 22.0}}),
      twin_case("long", "", false, 8, {{"production", 40.0}}),
      twin_case("long_fp8", "/math=bf16", true, 8, {{"production", 37.0}}),
      twin_case("long_fp8", "/math=fp8", true, 8, {{"production", 21.0}}),
      twin_case("kimi_mtp_fp8", "/batch.size=32,math=fp8", true, 8, {{"production", 22.0}}),  // no bf16 point 32
  };
  cases[2].math = cases[5].math = cases[6].math = "fp8";
  vb::annotate_roofline(&cases, fp8_run_ceilings());
  const auto pairs = vb::fp8_twin_pairs(cases);
  REQUIRE(pairs.size() == 4);
  CHECK(pairs[0].fp8->case_name == "kimi_mtp_fp8/batch.size=8,math=bf16");
  CHECK(pairs[1].fp8->case_name == "kimi_mtp_fp8/math=fp8,batch.size=8");
  CHECK(pairs[1].bf16->case_name == "kimi_mtp/batch.size=8");
  CHECK(pairs[2].bf16->case_name == "long");
  CHECK(pairs[3].bf16->case_name == "long");
  // The CSV names each twin's math (rows of the comma-free "long" names: fields split plainly).
  const auto rows = csv_rows(vb::format_fp8_twins_csv({cases[3], cases[4], cases[5]}));
  REQUIRE(rows.size() == 3);
  const auto math = std::find(rows[0].begin(), rows[0].end(), "fp8_math");
  REQUIRE(math != rows[0].end());
  const auto at = static_cast<std::size_t>(math - rows[0].begin());
  CHECK(rows[1][at] == "bf16");
  CHECK(rows[2][at] == "fp8");
}

TEST_CASE("fp8 twins: summary.md's section and fp8_twins.csv match their golden files", "[report][fp8]") {
  const std::vector<vb::CaseResult> cases = twin_cases();
  const std::string md = vb::format_markdown(sample_provenance(), fp8_run_ceilings(), cases);
  check_golden("summary_fp8_twins.md", md);
  CHECK(md.find("| 576-byte rows, page 1 shuffled | 3650 GB/s | 576-byte rows shuffled |") != std::string::npos);
  const std::string csv = vb::format_fp8_twins_csv(cases);
  check_golden("fp8_twins.csv", csv);

  // Each row's ratio and % of ceiling from the inputs above, not from the writer.
  const auto rows = csv_rows(csv);
  REQUIRE(rows.size() == 5);  // header, batch 32 production, batch 8 production, proxy and emulation
  const std::vector<std::string>& header = rows[0];
  auto field = [&](const std::vector<std::string>& row, const std::string& name) {
    const auto at = std::find(header.begin(), header.end(), name);
    REQUIRE(at != header.end());
    REQUIRE(row.size() == header.size());
    return row[static_cast<std::size_t>(at - header.begin())];
  };
  struct Expected {
    const char* case_name;
    const char* fp8_case;
    const char* executor;
    int batch;
    double bf16_us, fp8_us;
  };
  const Expected expected[] = {
      {"kimi_mtp/batch.size=32", "kimi_mtp_fp8/batch.size=32", "production", 32, 150.0, 165.0},
      {"kimi_mtp/batch.size=8", "kimi_mtp_fp8/batch.size=8", "production", 8, 40.0, 25.0},
      {"kimi_mtp/batch.size=8", "kimi_mtp_fp8/batch.size=8", vb::kSm120ProxyExecutor, 8, 52.0, 31.2},
      {"kimi_mtp/batch.size=8", "kimi_mtp_fp8/batch.size=8", vb::kSm120EmuExecutor, 8, 130.0, 110.0},
  };
  for (std::size_t i = 0; i < std::size(expected); ++i) {
    const Expected& x = expected[i];
    const std::vector<std::string>& row = rows[i + 1];
    CHECK(field(row, "case") == x.case_name);
    CHECK(field(row, "fp8_case") == x.fp8_case);
    CHECK(field(row, "executor") == x.executor);
    CHECK(std::stod(field(row, "bf16_us")) == Approx(x.bf16_us));
    CHECK(std::stod(field(row, "fp8_us")) == Approx(x.fp8_us));
    CHECK(std::stod(field(row, "fp8_over_bf16")) == Approx(x.fp8_us / x.bf16_us).epsilon(1e-5));
    // Page size 1: fp8 against the shuffled 576-byte rows (3650), bf16 the shuffled 1152 (4300).
    const double fp8_gbps = static_cast<double>(twin_bytes(x.batch, true)) / (x.fp8_us * 1e3);
    const double bf16_gbps = static_cast<double>(twin_bytes(x.batch, false)) / (x.bf16_us * 1e3);
    CHECK(std::stod(field(row, "fp8_pct_of_576_byte_row_ceiling")) == Approx(100 * fp8_gbps / 3650).epsilon(1e-5));
    CHECK(std::stod(field(row, "bf16_pct_of_1152_byte_row_ceiling")) == Approx(100 * bf16_gbps / 4300).epsilon(1e-5));
    const bool emulated = std::string(x.executor) == vb::kSm120EmuExecutor;
    CHECK(field(row, "predicted_rtx_pro_6000_fp8_us").empty() == !emulated);
    CHECK(field(row, "predicted_rtx_pro_6000_bf16_us").empty() == !emulated);
  }
  // The emulation's predictions: the larger of its SM cycles at 2617 MHz on 188 SMs (no launch
  // record: all 132 SMs here busy) and its bytes at rho (its own row ceiling / 4800 GB/s) of
  // 1792 GB/s. bf16 is memory-bound there, fp8 SM-bound.
  const auto sm_cycles_us = [](double median_us) { return median_us * 1980 / 2617 * 132 / 188; };
  const double bf16_memory_us = twin_bytes(8, false) / (1792e3 * 4300 / 4800);
  const double fp8_memory_us = twin_bytes(8, true) / (1792e3 * 3650 / 4800);
  REQUIRE(bf16_memory_us > sm_cycles_us(130.0));
  REQUIRE(fp8_memory_us < sm_cycles_us(110.0));
  CHECK(std::stod(field(rows[4], "predicted_rtx_pro_6000_bf16_us")) == Approx(bf16_memory_us).epsilon(1e-5));
  CHECK(std::stod(field(rows[4], "predicted_rtx_pro_6000_fp8_us")) == Approx(sm_cycles_us(110.0)).epsilon(1e-5));

  // A run without twins: no section, and the CSV is its header alone.
  CHECK(vb::format_markdown(sample_provenance(), sample_ceilings(), sample_cases()).find("fp8 KV against") ==
        std::string::npos);
  CHECK(csv_rows(vb::format_fp8_twins_csv(sample_cases())).size() == 1);
}

TEST_CASE("the 576-byte-row ceilings and the KV row size round-trip through JSON, and older files read without them",
          "[report][fp8]") {
  const std::vector<vb::CaseResult> cases = twin_cases();
  auto doc = vb::result_document(sample_provenance(), cases, fp8_run_ceilings());
  CHECK(doc.at("ceilings").at("row576_read_contiguous_gbps") == 4100);
  CHECK(doc.at("ceilings").at("row576_read_shuffled_gbps") == 3650);
  CHECK(doc.at("cases").at(2).at("traffic").at("kv_row_bytes") == 576);
  CHECK(doc.at("cases").at(0).at("traffic").at("kv_row_bytes") == 1152);
  const vb::ResultDocument back = vb::result_document_from_json(nlohmann::ordered_json::parse(doc.dump()));
  CHECK(back.ceilings->row576_read_contiguous_gbps == 4100);
  CHECK(back.ceilings->row576_read_shuffled_gbps == 3650);
  CHECK(back.cases[2].traffic->kv_row_bytes == vb::kKvRowBytesFp8);
  CHECK(back.cases[0].traffic->kv_row_bytes == vb::kKvRowBytes);

  // Files before the 576-byte ceiling: no such ceiling (null or absent), and the row size of an
  // fp8 case read off its kv_cache label.
  auto old = vb::result_document(sample_provenance(), cases, sample_ceilings());
  CHECK(old.at("ceilings").at("row576_read_shuffled_gbps").is_null());
  old.at("ceilings").erase("row576_read_contiguous_gbps");
  old.at("ceilings").erase("row576_read_shuffled_gbps");
  for (auto& c : old.at("cases")) c.at("traffic").erase("kv_row_bytes");
  const vb::ResultDocument legacy = vb::result_document_from_json(old);
  CHECK(legacy.ceilings->row576_read_contiguous_gbps == 0);
  CHECK(legacy.ceilings->row576_read_shuffled_gbps == 0);
  CHECK(legacy.cases[2].traffic->kv_row_bytes == vb::kKvRowBytesFp8);
  CHECK(legacy.cases[0].traffic->kv_row_bytes == vb::kKvRowBytes);

  // A row size no KV dtype has is bad input, named.
  doc.at("cases").at(0).at("traffic").at("kv_row_bytes") = 1000;
  try {
    vb::result_document_from_json(doc);
    FAIL("kv_row_bytes 1000 was read");
  } catch (const vb::ReportError& e) {
    CHECK_THAT(e.what(), Catch::Matchers::Contains("cases[0]") && Catch::Matchers::Contains("\"kv_row_bytes\": 1000") &&
                             Catch::Matchers::Contains("allowed: 1152 (bf16) or 576 (fp8_e4m3)"));
  }
}

TEST_CASE("the 576-byte-row roofs are drawn and printed when measured", "[report][fp8]") {
  const std::string svg = vb::format_roofline_svg(fp8_run_ceilings(), twin_cases(), "fp8");
  CHECK(svg.find("576-byte rows in order 4100 GB/s") != std::string::npos);
  CHECK(svg.find("576-byte rows page 1 shuffled 3650 GB/s") != std::string::npos);
  CHECK(vb::format_roofline_svg(sample_ceilings(), sample_cases(), "bf16").find("576-byte") == std::string::npos);
  const std::string line = vb::format_ceilings_text(fp8_run_ceilings());
  CHECK(line.find("row576_read_contiguous_gbps 4100, row576_read_shuffled_gbps 3650 (576-byte rows)") !=
        std::string::npos);
  CHECK(line.find("row_read_contiguous_gbps 4420, row_read_shuffled_gbps 4300 (1152-byte rows)") != std::string::npos);
}

TEST_CASE("sm_120's emulated rates are drawn and printed when measured, with their FLOP per clock and SM",
          "[report]") {
  vb::Ceilings c = sample_ceilings();
  CHECK(vb::format_roofline_svg(c, sample_cases(), "t").find("sm_120 emulated") == std::string::npos);
  CHECK(vb::format_ceilings_text(c).find("sm120_emulated") == std::string::npos);
  CHECK(vb::format_ceilings_text(c).find("memory_peak_gbps") == std::string::npos);
  c.sm120_emulated_bf16_tflops = 242;
  c.sm120_emulated_fp8_tflops = 484;
  c.mma_fp8_tflops = 1290;
  c.memory_peak_gbps = 3352;
  const std::string svg = vb::format_roofline_svg(c, sample_cases(), "t");
  const std::size_t label = svg.find(">sm_120 emulated bf16 242 TFLOP/s</text>");
  REQUIRE(label != std::string::npos);
  // Its roof line, dashed, just before its label.
  const std::size_t line = svg.rfind("<line", label);
  REQUIRE(line != std::string::npos);
  CHECK(svg.substr(line, label - line).find("stroke-dasharray=\"2 4\"") != std::string::npos);
  // Without the probe's clock and SM count, the rates alone; with them, per clock and SM too:
  // 242e6 / (1755 MHz x 132 SMs) = 1044.6, 484e6 / (1755 x 132) = 2089.3.
  std::string text = vb::format_ceilings_text(c);
  CHECK(text.find("; memory_peak_gbps 3352 (datasheet); mma_fp8_tflops 1290; sm120_emulated_bf16_tflops 242; "
                  "sm120_emulated_fp8_tflops 484\n") != std::string::npos);
  c.mma_clock_mhz = 1755;
  c.sm_count = 132;
  CHECK(vb::flop_per_clock_and_sm(c, 242) == Approx(1044.6344));
  text = vb::format_ceilings_text(c);
  CHECK(text.find("sm120_emulated_bf16_tflops 242 (1045 FLOP per clock and SM; sm_120 1024); "
                  "sm120_emulated_fp8_tflops 484 (2089 FLOP per clock and SM; sm_120 2048)\n") != std::string::npos);
  const std::string md = vb::format_markdown(sample_provenance(), c, sample_cases());
  CHECK(md.find("| sm_120 emulated, fp8 e4m3 | 484 TFLOP/s (2089 FLOP per clock and SM; sm_120: 2048) |") !=
        std::string::npos);
  CHECK(md.find("| mma.sync fp8 e4m3 | 1290 TFLOP/s |") != std::string::npos);
}

// JSON result writer and its one reader (compare and the tests).
#include "harness/report/report_json.h"

#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iterator>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "harness/plan/device_models.h"
#include "harness/measure/timing_json.h"
#include "harness/measure/traffic_model.h"

namespace vb {

// ---------------------------------------------------------------- records <-> JSON
namespace {

using json = nlohmann::ordered_json;

json number(double v) { return json_number(v); }

double read_number(const json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const std::string s = j.get<std::string>();
    if (s == "nan") return std::nan("");
    if (s == "inf") return HUGE_VAL;
    if (s == "-inf") return -HUGE_VAL;
  }
  throw ReportError("not a number in result JSON: " + j.dump());
}

json optional_number(const std::optional<double>& v) { return json_optional_number(v); }

// An integer field of T's range. nlohmann's get<T>() casts a float like 3.8e46 to T, which is
// undefined behaviour; a result file gets a ReportError instead.
template <typename T>
T read_integer(const json& j, const char* key) {
  const json& v = j.at(key);
  const auto out_of_range = [&] {
    return ReportError(fmt::format("\"{}\": {} is not an integer in [{}, {}]", key, v.dump(),
                                   std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
  };
  if (v.is_number_unsigned()) {
    const auto u = v.get<json::number_unsigned_t>();
    if (u > static_cast<json::number_unsigned_t>(std::numeric_limits<T>::max())) throw out_of_range();
    return static_cast<T>(u);
  }
  if (!v.is_number_integer()) throw out_of_range();
  const auto i = v.get<json::number_integer_t>();
  if (i < std::numeric_limits<T>::min() || i > std::numeric_limits<T>::max()) throw out_of_range();
  return static_cast<T>(i);
}

std::optional<double> read_optional_number(const json& j, const char* key) {
  if (!j.contains(key) || j.at(key).is_null()) return std::nullopt;
  return read_number(j.at(key));
}

json to_json(const ElementIndex& e) {
  return json{{"request", e.request}, {"node", e.node}, {"head", e.head}, {"channel", e.channel}};
}

ElementIndex element_from_json(const json& j) {
  ElementIndex e;
  e.request = read_integer<int>(j, "request");
  e.node = read_integer<int>(j, "node");
  e.head = read_integer<int>(j, "head");
  e.channel = read_integer<int>(j, "channel");
  return e;
}

json to_json(const ErrorStats& s) {
  return json{{"elements_checked", s.elements_checked},
              {"elements_failed", s.elements_failed},
              {"nonfinite_mismatch", s.nonfinite_mismatch},
              {"max_abs_error", number(s.max_abs_error)},
              {"max_rel_error", number(s.max_rel_error)},
              {"mean_abs_error", number(s.mean_abs_error)},
              {"worst", to_json(s.worst)},
              {"worst_expected", number(s.worst_expected)},
              {"worst_got", number(s.worst_got)}};
}

ErrorStats stats_from_json(const json& j) {
  ErrorStats s;
  s.elements_checked = read_integer<std::int64_t>(j, "elements_checked");
  s.elements_failed = read_integer<std::int64_t>(j, "elements_failed");
  s.nonfinite_mismatch = read_integer<std::int64_t>(j, "nonfinite_mismatch");
  s.max_abs_error = read_number(j.at("max_abs_error"));
  s.max_rel_error = read_number(j.at("max_rel_error"));
  s.mean_abs_error = read_number(j.at("mean_abs_error"));
  s.worst = element_from_json(j.at("worst"));
  s.worst_expected = read_number(j.at("worst_expected"));
  s.worst_got = read_number(j.at("worst_got"));
  return s;
}

}  // namespace

namespace {

// The prediction's numbers by JSON key, in the order written: one list for writer and reader.
constexpr std::pair<const char*, double DevicePrediction::*> kPredictionNumbers[] = {
    {"time_us", &DevicePrediction::time_us},
    {"low_us", &DevicePrediction::low_us},
    {"high_us", &DevicePrediction::high_us},
    {"sm_cycles_us", &DevicePrediction::sm_cycles_us},
    {"memory_us", &DevicePrediction::memory_us},
    {"memory_datasheet_us", &DevicePrediction::memory_datasheet_us},
    {"rho", &DevicePrediction::rho},
    {"sm_clock_mhz", &DevicePrediction::sm_clock_mhz},
};

}  // namespace

nlohmann::ordered_json to_json(const DevicePrediction& p) {
  json j{{"device", p.device}};
  for (const auto& [key, field] : kPredictionNumbers) j[key] = number(p.*field);
  j["bound"] = p.bound;
  j["num_sms"] = p.num_sms;
  j["kind"] = "prediction";
  return j;
}

std::optional<DevicePrediction> prediction_from_json(const nlohmann::ordered_json& j) {
  if (!j.contains("high_us")) return std::nullopt;
  DevicePrediction p;
  p.device = j.at("device").get<std::string>();
  for (const auto& [key, field] : kPredictionNumbers) p.*field = read_number(j.at(key));
  p.bound = j.at("bound").get<std::string>();
  p.num_sms = read_integer<int>(j, "num_sms");
  return p;
}

nlohmann::ordered_json to_json(const Sm120EmulatedFractions& f) {
  return json{{"pct_of_emulated_rate", number(f.pct_of_emulated_rate)},
              {"pct_of_attainable", number(f.pct_of_attainable)}};
}

Sm120EmulatedFractions sm120_fractions_from_json(const nlohmann::ordered_json& j) {
  Sm120EmulatedFractions f;
  f.pct_of_emulated_rate = read_number(j.at("pct_of_emulated_rate"));
  f.pct_of_attainable = read_number(j.at("pct_of_attainable"));
  return f;
}

nlohmann::ordered_json to_json(const PdlGoal& g) {
  return json{{"executor", g.executor},
              {"chain_pdl_us", number(g.chain_pdl_us)},
              {"roof_us", number(g.roof_us)},
              {"pdl_floor_us", number(g.pdl_floor_us)},
              {"bound_us", number(g.bound_us)},
              {"met", g.met}};
}

PdlGoal pdl_goal_from_json(const nlohmann::ordered_json& j) {
  PdlGoal g;
  g.executor = j.at("executor").get<std::string>();
  g.chain_pdl_us = read_number(j.at("chain_pdl_us"));
  g.roof_us = read_number(j.at("roof_us"));
  g.pdl_floor_us = read_number(j.at("pdl_floor_us"));
  g.bound_us = read_number(j.at("bound_us"));
  g.met = j.at("met").get<bool>();
  return g;
}

nlohmann::ordered_json to_json(const LaunchRecord& r) {
  json settings = json::object();
  for (const auto& [key, value] : r.planner_settings) settings[key] = value;
  return json{{"engine", r.engine},
              {"instance", r.instance},
              {"page_table", r.page_table},
              {"math", r.math},
              {"grid", r.grid},
              {"threads", r.threads},
              {"pipeline_stages", r.pipeline_stages},
              {"smem_bytes", r.smem_bytes},
              {"m_tiles", r.m_tiles},
              {"splits", r.splits},
              {"tiles_per_split", r.tiles_per_split},
              {"token_split", r.token_split},
              {"tile_balanced", r.tile_balanced},
              {"balanced_slots", r.balanced_slots},
              {"combine_lanes", r.combine_lanes},
              {"combine_loads_per_lane", r.combine_loads_per_lane},
              {"combine_grid", r.combine_grid},
              {"blocks_per_sm", r.blocks_per_sm},
              {"planner_settings", settings},
              {"summary", r.summary}};
}

namespace {

std::array<unsigned, 3> read_grid(const json& j, const char* key) {
  const json& v = j.at(key);
  if (!v.is_array() || v.size() != 3) throw ReportError(fmt::format("\"{}\": not a list of 3 integers", key));
  std::array<unsigned, 3> grid{};
  for (std::size_t i = 0; i < 3; ++i) grid[i] = read_integer<unsigned>(json{{key, v[i]}}, key);
  return grid;
}

}  // namespace

LaunchRecord launch_record_from_json(const nlohmann::ordered_json& j) {
  LaunchRecord r;
  r.engine = j.at("engine").get<std::string>();
  r.instance = j.at("instance").get<std::string>();
  r.page_table = j.at("page_table").get<std::string>();
  if (j.contains("math")) r.math = j.at("math").get<std::string>();  // absent before fp8 math: bf16
  r.grid = read_grid(j, "grid");
  r.threads = read_integer<int>(j, "threads");
  r.pipeline_stages = read_integer<int>(j, "pipeline_stages");
  r.smem_bytes = read_integer<int>(j, "smem_bytes");
  r.m_tiles = read_integer<int>(j, "m_tiles");
  r.splits = read_integer<int>(j, "splits");
  r.tiles_per_split = read_integer<int>(j, "tiles_per_split");
  r.token_split = j.at("token_split").get<bool>();
  r.tile_balanced = j.at("tile_balanced").get<bool>();
  r.balanced_slots = read_integer<int>(j, "balanced_slots");
  r.combine_lanes = read_integer<int>(j, "combine_lanes");
  r.combine_loads_per_lane = read_integer<int>(j, "combine_loads_per_lane");
  r.combine_grid = read_grid(j, "combine_grid");
  r.blocks_per_sm = read_integer<int>(j, "blocks_per_sm");
  const json& settings = j.at("planner_settings");
  if (!settings.is_object()) throw ReportError("\"planner_settings\": not an object");
  for (const auto& [key, value] : settings.items()) r.planner_settings.emplace_back(key, value.get<std::string>());
  r.summary = j.at("summary").get<std::string>();
  return r;
}

nlohmann::ordered_json to_json(const ExecutorResult& r) {
  json j{{"executor", r.executor},
         {"outcome", to_string(r.outcome)},
         {"detail", r.detail},
         {"launch", r.launch ? to_json(*r.launch) : json(nullptr)},
         {"checked_against", r.checked_against},
         {"rows_checked", r.rows_checked}};
  j["wall_ms"] = r.wall_ms ? number(*r.wall_ms) : json(nullptr);
  // Error statistics only where a comparison happened; readers default them when absent.
  if (r.o.elements_checked > 0 || r.lse.elements_checked > 0) {
    j["o"] = to_json(r.o);
    j["lse"] = to_json(r.lse);
  }
  if (r.fp8_math) {
    j["fp8_math"] = json{{"o_sigma", number(r.fp8_math->o_sigma)},
                         {"lse_sigma", number(r.fp8_math->lse_sigma)},
                         {"o_atol", number(r.fp8_math->o_atol)},
                         {"lse_atol", number(r.fp8_math->lse_atol)}};
  }
  json timings = json::array();
  for (const TimingRecord& t : r.timings) timings.push_back(to_json(t));
  j["timings"] = timings;
  j["achieved"] = r.achieved ? to_json(*r.achieved) : json(nullptr);
  j["sm120_fractions"] = r.sm120_fractions ? to_json(*r.sm120_fractions) : json(nullptr);
  j["prediction"] = r.prediction ? to_json(*r.prediction) : json(nullptr);
  j["production_speedup"] = optional_number(r.production_speedup);
  return j;
}

ExecutorResult executor_result_from_json(const nlohmann::ordered_json& j) {
  ExecutorResult r;
  r.executor = j.at("executor").get<std::string>();
  const std::string outcome = j.at("outcome").get<std::string>();
  if (!outcome_from_string(outcome, &r.outcome)) {
    throw ReportError("unknown outcome in result JSON: " + outcome);
  }
  r.detail = j.at("detail").get<std::string>();
  // verifybench.result/3 on; older files keep the launch's text in detail.
  if (j.contains("launch") && !j.at("launch").is_null()) r.launch = launch_record_from_json(j.at("launch"));
  r.checked_against = j.at("checked_against").get<std::string>();
  r.rows_checked = read_integer<std::int64_t>(j, "rows_checked");
  if (j.contains("o")) r.o = stats_from_json(j.at("o"));
  if (j.contains("lse")) r.lse = stats_from_json(j.at("lse"));
  if (j.contains("fp8_math")) {  // fp8-math launches only
    const json& f = j.at("fp8_math");
    r.fp8_math = Fp8MathCheck{read_number(f.at("o_sigma")), read_number(f.at("lse_sigma")), read_number(f.at("o_atol")),
                              read_number(f.at("lse_atol"))};
  }
  if (j.contains("wall_ms") && !j.at("wall_ms").is_null()) r.wall_ms = read_number(j.at("wall_ms"));
  if (j.contains("timings")) {
    for (const json& t : j.at("timings")) r.timings.push_back(timing_record_from_json(t));
  }
  if (j.contains("achieved") && !j.at("achieved").is_null()) {
    r.achieved = achieved_from_json(j.at("achieved"));
  }
  // Absent from result files before sm_120's emulation (2026-12-06).
  if (j.contains("sm120_fractions") && !j.at("sm120_fractions").is_null()) {
    r.sm120_fractions = sm120_fractions_from_json(j.at("sm120_fractions"));
  }
  if (j.contains("prediction") && !j.at("prediction").is_null()) {
    r.prediction = prediction_from_json(j.at("prediction"));
  }
  r.production_speedup = read_optional_number(j, "production_speedup");
  return r;
}

nlohmann::ordered_json to_json(const CaseResult& c) {
  json executors = json::array();
  for (const ExecutorResult& e : c.executors) executors.push_back(to_json(e));
  return json{{"case", c.case_name},
              {"scenario", c.scenario},
              {"source", c.source},
              {"batch", c.batch},
              {"tree_size", c.tree_size},
              {"heads", c.heads},
              {"page_size", c.page_size},
              {"total_kv_tokens", c.total_kv_tokens},
              {"kv_cache", c.kv_cache},
              {"math", c.math},
              {"reproducer", c.reproducer},
              {"tags", c.tags},
              {"traffic", c.traffic ? to_json(*c.traffic) : json(nullptr)},
              {"speedup_vs_naive", optional_number(c.speedup_vs_naive)},
              {"mask_tax", optional_number(c.mask_tax)},
              {"gate_tolerance", optional_number(c.gate_tolerance)},
              {"timing_note", c.timing_note},
              {"all_passed", c.all_passed()},
              {"pdl_goal", c.pdl_goal ? to_json(*c.pdl_goal) : json(nullptr)},
              {"executors", executors}};
}

CaseResult case_result_from_json(const nlohmann::ordered_json& j) {
  CaseResult c;
  c.case_name = j.at("case").get<std::string>();
  c.scenario = j.at("scenario").get<std::string>();
  c.source = j.at("source").get<std::string>();
  c.batch = read_integer<int>(j, "batch");
  c.tree_size = read_integer<int>(j, "tree_size");
  c.heads = read_integer<int>(j, "heads");
  c.page_size = read_integer<int>(j, "page_size");
  c.total_kv_tokens = read_integer<std::int64_t>(j, "total_kv_tokens");
  if (j.contains("kv_cache")) c.kv_cache = j.at("kv_cache").get<std::string>();  // absent before fp8 KV
  if (j.contains("math")) c.math = j.at("math").get<std::string>();              // absent before fp8 math
  c.reproducer = j.at("reproducer").get<std::string>();
  if (j.contains("tags")) c.tags = j.at("tags").get<std::vector<std::string>>();
  if (j.contains("traffic") && !j.at("traffic").is_null()) {
    c.traffic = traffic_from_json(j.at("traffic"));
    // Result files of 2026-12-06 before traffic.kv_row_bytes: the label names the dtype.
    if (!j.at("traffic").contains("kv_row_bytes") && kv_cache_is_fp8(c.kv_cache)) {
      c.traffic->kv_row_bytes = kKvRowBytesFp8;
    }
  }
  c.speedup_vs_naive = read_optional_number(j, "speedup_vs_naive");
  c.mask_tax = read_optional_number(j, "mask_tax");
  c.gate_tolerance = read_optional_number(j, "gate_tolerance");
  if (j.contains("pdl_goal") && !j.at("pdl_goal").is_null()) c.pdl_goal = pdl_goal_from_json(j.at("pdl_goal"));
  if (j.contains("timing_note")) c.timing_note = j.at("timing_note").get<std::string>();
  for (const json& e : j.at("executors")) c.executors.push_back(executor_result_from_json(e));
  return c;
}

nlohmann::ordered_json to_json(const Provenance& p) {
  json files = json::array();
  for (const ScenarioFileInfo& f : p.scenario_files) {
    files.push_back(json{{"path", f.path}, {"sha256", f.sha256}});
  }
  json device = nullptr;
  if (p.gpu.available) {
    device = json{{"name", p.gpu.name},
                  {"cc", fmt::format("{}.{}", p.gpu.cc_major, p.gpu.cc_minor)},
                  {"sm_count", p.gpu.sm_count},
                  {"driver_version", p.gpu.driver_version},
                  {"runtime_version", p.gpu.runtime_version},
                  {"index", p.gpu.device},
                  {"l2_bytes", p.gpu.l2_bytes},
                  {"global_mem_bytes", p.gpu.global_mem_bytes},
                  {"sm_clock_mhz_at_start", optional_number(p.sm_clock_mhz_at_start)},
                  {"mem_clock_mhz_at_start", optional_number(p.mem_clock_mhz_at_start)},
                  {"nvml", p.nvml_status}};
  }
  json j{{"tool_version", p.tool_version},
         {"date_utc", p.date_utc},
         {"host", p.host},
         {"git_commit", p.git_commit},
         {"git_state", p.git_state},
         {"command", p.command_line},
         {"scenario_files", files},
         {"device", device},
         {"build",
          {{"type", p.build.type},
           {"cuda_architectures", p.build.cuda_architectures},
           {"flags", p.build.flags}}}};
  if (!p.gpu.available) j["device_unavailable_reason"] = p.gpu.reason;
  if (!p.l2_flush.empty()) j["l2_flush"] = p.l2_flush;
  if (!p.interrupted_by.empty()) {
    j["partial"] = {{"interrupted_by", p.interrupted_by},
                    {"cases_completed", p.cases_completed},
                    {"cases_selected", p.cases_selected}};
  }
  return j;
}

TimingRecord timing_record_from_json(const nlohmann::ordered_json& j) {
  TimingRecord t;
  t.mode = j.at("mode").get<std::string>();
  for (const json& v : j.at("samples_ms")) t.samples_ms.push_back(read_number(v));
  t.median_ms = read_number(j.at("median_ms"));
  t.min_ms = read_number(j.at("min_ms"));
  t.max_ms = read_number(j.at("max_ms"));
  t.p10_ms = read_number(j.at("p10_ms"));
  t.p90_ms = read_number(j.at("p90_ms"));
  t.rel_noise = read_number(j.at("rel_noise"));
  t.stop_reason = j.at("stop_reason").get<std::string>();
  t.sm_clock_mhz_median = read_optional_number(j, "sm_clock_mhz_median");
  t.temperature_c_max = read_optional_number(j, "temperature_c_max");
  // Absent in files from before 2026-11-30 (session 14).
  t.memory_temperature_c_min = read_optional_number(j, "memory_temperature_c_min");
  t.memory_temperature_c_max = read_optional_number(j, "memory_temperature_c_max");
  t.throttled = j.at("throttled").get<bool>();
  return t;
}

nlohmann::ordered_json to_json(const Achieved& a) {
  return json{{"mode", a.mode},
              {"gbps", number(a.gbps)},
              {"tflops", number(a.tflops)},
              {"pct_of_attainable", optional_number(a.pct_of_attainable)},
              {"bound", a.bound.empty() ? json(nullptr) : json(a.bound)},
              {"speed_of_light", a.speed_of_light},
              {"engine", a.engine.empty() ? json(nullptr) : json(a.engine)},
              {"pct_of_engine_ceiling", optional_number(a.pct_of_engine_ceiling)},
              {"pct_of_memory_ceiling", optional_number(a.pct_of_memory_ceiling)}};
}

Achieved achieved_from_json(const nlohmann::ordered_json& j) {
  Achieved a;
  a.mode = j.at("mode").get<std::string>();
  a.gbps = read_number(j.at("gbps"));
  a.tflops = read_number(j.at("tflops"));
  a.pct_of_attainable = read_optional_number(j, "pct_of_attainable");
  if (j.contains("bound") && !j.at("bound").is_null()) a.bound = j.at("bound").get<std::string>();
  a.speed_of_light = j.at("speed_of_light").get<bool>();
  // Absent from result files before the wgmma ceiling (issue 27).
  if (j.contains("engine") && !j.at("engine").is_null()) a.engine = j.at("engine").get<std::string>();
  a.pct_of_engine_ceiling = read_optional_number(j, "pct_of_engine_ceiling");
  a.pct_of_memory_ceiling = read_optional_number(j, "pct_of_memory_ceiling");
  return a;
}

nlohmann::ordered_json to_json(const TrafficModel& t) {
  return json{{"algorithmic_bytes", t.algorithmic_bytes},
              {"page_bytes", t.page_bytes},
              {"flops", number(t.flops)},
              {"kv_unique_bytes", t.kv_unique_bytes},
              {"kv_row_bytes", t.kv_row_bytes}};
}

TrafficModel traffic_from_json(const nlohmann::ordered_json& j) {
  TrafficModel t;
  t.algorithmic_bytes = read_integer<std::int64_t>(j, "algorithmic_bytes");
  t.page_bytes = read_integer<std::int64_t>(j, "page_bytes");
  t.flops = read_number(j.at("flops"));
  t.kv_unique_bytes = read_integer<std::int64_t>(j, "kv_unique_bytes");
  // Absent from result files before the 576-byte ceiling (case_result_from_json then reads the
  // row size off the case's kv_cache).
  if (j.contains("kv_row_bytes")) {
    t.kv_row_bytes = read_integer<std::int64_t>(j, "kv_row_bytes");
    if (t.kv_row_bytes != kKvRowBytes && t.kv_row_bytes != kKvRowBytesFp8) {
      throw ReportError(fmt::format("\"kv_row_bytes\": {} is not a KV row size; allowed: {} (bf16) or {} (fp8_e4m3)",
                                    t.kv_row_bytes, kKvRowBytes, kKvRowBytesFp8));
    }
  }
  return t;
}

nlohmann::ordered_json to_json(const Ceilings& c) {
  json method = json::object();
  for (const auto& [name, text] : c.method) method[name] = text;
  return json{{"row_read_contiguous_gbps", number(c.row_read_contiguous_gbps)},
              {"row_read_shuffled_gbps", number(c.row_read_shuffled_gbps)},
              {"row576_read_contiguous_gbps",
               c.row576_read_contiguous_gbps > 0 ? number(c.row576_read_contiguous_gbps) : json(nullptr)},
              {"row576_read_shuffled_gbps",
               c.row576_read_shuffled_gbps > 0 ? number(c.row576_read_shuffled_gbps) : json(nullptr)},
              {"d2d_copy_gbps", number(c.d2d_copy_gbps)},
              {"mma_bf16_tflops", number(c.mma_bf16_tflops)},
              {"mma_clock_mhz", c.mma_clock_mhz > 0 ? number(c.mma_clock_mhz) : json(nullptr)},
              {"sm_count", c.sm_count > 0 ? json(c.sm_count) : json(nullptr)},
              {"memory_peak_gbps", c.memory_peak_gbps > 0 ? number(c.memory_peak_gbps) : json(nullptr)},
              {"mma_fp8_tflops", c.mma_fp8_tflops > 0 ? number(c.mma_fp8_tflops) : json(nullptr)},
              {"sm120_emulated_bf16_tflops",
               c.sm120_emulated_bf16_tflops > 0 ? number(c.sm120_emulated_bf16_tflops) : json(nullptr)},
              {"sm120_emulated_fp8_tflops",
               c.sm120_emulated_fp8_tflops > 0 ? number(c.sm120_emulated_fp8_tflops) : json(nullptr)},
              {"wgmma_bf16_tflops", c.wgmma_bf16_tflops > 0 ? number(c.wgmma_bf16_tflops) : json(nullptr)},
              {"wgmma_mla_tile_tflops", c.wgmma_mla_tile_tflops > 0 ? number(c.wgmma_mla_tile_tflops) : json(nullptr)},
              {"wgmma_mla_tile_copies_tflops",
               c.wgmma_mla_tile_copies_tflops > 0 ? number(c.wgmma_mla_tile_copies_tflops) : json(nullptr)},
              {"launch_floor_us", c.launch_floor_us > 0 ? number(c.launch_floor_us) : json(nullptr)},
              {"pdl_floor_us", c.pdl_floor_us > 0 ? number(c.pdl_floor_us) : json(nullptr)},
              {"method", method}};
}

Ceilings ceilings_from_json(const nlohmann::ordered_json& j) {
  Ceilings c;
  c.row_read_contiguous_gbps = read_number(j.at("row_read_contiguous_gbps"));
  c.row_read_shuffled_gbps = read_number(j.at("row_read_shuffled_gbps"));
  // Absent from result files before the 576-byte ceiling (2026-12-06).
  c.row576_read_contiguous_gbps = read_optional_number(j, "row576_read_contiguous_gbps").value_or(0);
  c.row576_read_shuffled_gbps = read_optional_number(j, "row576_read_shuffled_gbps").value_or(0);
  c.d2d_copy_gbps = read_number(j.at("d2d_copy_gbps"));
  c.mma_bf16_tflops = read_number(j.at("mma_bf16_tflops"));
  // Absent from result files before the launch floor existed; null when it was not measured.
  if (j.contains("launch_floor_us") && !j.at("launch_floor_us").is_null()) {
    c.launch_floor_us = read_number(j.at("launch_floor_us"));
  }
  // Absent from result files before issue 27; null when not measured on that device.
  c.wgmma_bf16_tflops = read_optional_number(j, "wgmma_bf16_tflops").value_or(0);
  c.pdl_floor_us = read_optional_number(j, "pdl_floor_us").value_or(0);
  // Absent from result files before the MLA tile probe (2026-12-05).
  c.wgmma_mla_tile_tflops = read_optional_number(j, "wgmma_mla_tile_tflops").value_or(0);
  c.wgmma_mla_tile_copies_tflops = read_optional_number(j, "wgmma_mla_tile_copies_tflops").value_or(0);
  // Absent from result files before 2026-12-05.
  c.mma_clock_mhz = read_optional_number(j, "mma_clock_mhz").value_or(0);
  if (j.contains("sm_count") && !j.at("sm_count").is_null()) c.sm_count = read_integer<int>(j, "sm_count");
  // Absent from result files before sm_120's emulation (2026-12-06, issue 46).
  c.memory_peak_gbps = read_optional_number(j, "memory_peak_gbps").value_or(0);
  c.mma_fp8_tflops = read_optional_number(j, "mma_fp8_tflops").value_or(0);
  c.sm120_emulated_bf16_tflops = read_optional_number(j, "sm120_emulated_bf16_tflops").value_or(0);
  c.sm120_emulated_fp8_tflops = read_optional_number(j, "sm120_emulated_fp8_tflops").value_or(0);
  if (j.contains("method")) {
    for (const auto& [name, text] : j.at("method").items()) {
      c.method.emplace_back(name, text.get<std::string>());
    }
  }
  return c;
}

namespace {

// Runs read(), naming `where` in the ReportError of whatever it throws.
template <typename Read>
auto read_at(const std::string& where, Read read) {
  try {
    return read();
  } catch (const json::exception& e) {
    throw ReportError(fmt::format("{}: malformed result JSON: {}", where, e.what()));
  } catch (const ReportError& e) {
    throw ReportError(fmt::format("{}: {}", where, e.what()));
  }
}

}  // namespace

ResultDocument result_document_from_json(const nlohmann::ordered_json& j) {
  ResultDocument d;
  if (!j.is_object() || !j.contains("schema")) throw ReportError("result JSON has no \"schema\"");
  if (!j.at("schema").is_string()) throw ReportError("result JSON's \"schema\" is not a string");
  d.schema = j.at("schema").get<std::string>();
  if (d.schema != "verifybench.result/1" && d.schema != "verifybench.result/2" && d.schema != kResultSchema) {
    throw ReportError("unsupported result schema " + d.schema + " (this build reads " +
                      "verifybench.result/1, /2 and /3)");
  }
  for (const char* key : {"provenance", "cases"}) {
    if (!j.contains(key)) throw ReportError(fmt::format("top level: missing \"{}\"", key));
  }
  d.provenance = j.at("provenance");
  if (j.contains("ceilings") && !j.at("ceilings").is_null()) {
    d.ceilings = read_at("ceilings", [&] { return ceilings_from_json(j.at("ceilings")); });
  }
  const json& cases = j.at("cases");
  if (!cases.is_array()) throw ReportError("cases: not a list");
  for (std::size_t i = 0; i < cases.size(); ++i) {
    d.cases.push_back(
        read_at(fmt::format("cases[{}]", i), [&] { return case_result_from_json(cases[i]); }));
  }
  return d;
}

nlohmann::ordered_json read_result_json(const std::string& path) {
  return parse_json_within(read_input_file(path, kMaxResultFileBytes, kResultFileWhat), path, kMaxResultDocumentBytes,
                           kResultFileWhat);
}

nlohmann::ordered_json result_document(const Provenance& provenance, const std::vector<CaseResult>& cases,
                                       const std::optional<Ceilings>& ceilings) {
  const OutcomeCounts n = count_outcomes(cases);
  json records = json::array();
  for (const CaseResult& c : cases) records.push_back(to_json(c));
  json doc{{"schema", kResultSchema},
              {"provenance", to_json(provenance)},
              {"ceilings", ceilings ? to_json(*ceilings) : json(nullptr)},
              {"summary",
               {{"cases", n.cases},
                {"passed", n.passed},
                {"incorrect", n.incorrect},
                {"launch_failed", n.launch_failed},
                {"not_verified", n.not_verified},
                {"not_supported", n.not_supported},
                {"not_run", n.not_run}}},
              {"cases", records}};
  // How the executors' "prediction" entries were formed, once per device predicted for.
  json predictions = json::object();
  for (const CaseResult& c : cases) {
    for (const ExecutorResult& e : c.executors) {
      if (!e.prediction || predictions.contains(e.prediction->device)) continue;
      if (const DeviceModel* target = find_device_model(e.prediction->device)) {
        predictions[e.prediction->device] = json{{"method", prediction_method(*target)}};
      }
    }
  }
  if (!predictions.empty()) doc["predictions"] = predictions;
  return doc;
}

std::string result_json_text(const Provenance& provenance, const std::vector<CaseResult>& cases,
                             const std::optional<Ceilings>& ceilings) {
  // Paths and case names may hold any bytes: invalid UTF-8 becomes U+FFFD instead of
  // failing the whole report after the run.
  return result_document(provenance, cases, ceilings)
             .dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) +
         "\n";
}

void write_result_json(const std::string& path, const Provenance& provenance,
                       const std::vector<CaseResult>& cases, const std::optional<Ceilings>& ceilings) {
  write_file_atomic(path, result_json_text(provenance, cases, ceilings));
}

}  // namespace vb

#include "harness/report/report_csv.h"

#include <fmt/format.h>

#include "harness/report/report_columns.h"

namespace vb {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

namespace {

// One CSV row: a case, one of its executor records and one of that record's timings (none
// for a record without timings: its timing and rate fields stay empty).
struct CsvRow {
  const CaseResult* c;
  const ExecutorResult* e;
  const TimingRecord* t;
  // The record's achieved rates come from this row's timing.
  const Achieved* achieved() const { return t && e->achieved && e->achieved->mode == t->mode ? &*e->achieved : nullptr; }
};

std::string num(double v) { return fmt::format("{:.6g}", v); }
std::string opt(const std::optional<double>& v) { return v ? num(*v) : std::string(); }
std::string flag(bool v) { return v ? "true" : "false"; }

using CsvColumn = Column<CsvRow>;

// A column of the case.
CsvColumn of_case(const char* header, std::function<std::string(const CaseResult&)> cell) {
  return {header, false, [cell](const CsvRow& r) { return cell(*r.c); }};
}
// A column of the row's timing; empty for a record without timings.
CsvColumn of_timing(const char* header, std::function<std::string(const TimingRecord&)> cell) {
  return {header, false, [cell](const CsvRow& r) { return r.t ? cell(*r.t) : std::string(); }};
}
// A column of the rates that come from the row's timing; empty on the record's other rows.
CsvColumn of_rates(const char* header, std::function<std::string(const Achieved&)> cell) {
  return {header, false, [cell](const CsvRow& r) { return r.achieved() ? cell(*r.achieved()) : std::string(); }};
}

const std::vector<CsvColumn>& csv_columns() {
  static const std::vector<CsvColumn> columns = {
      of_case("case", [](const CaseResult& c) { return c.case_name; }),
      of_case("scenario", [](const CaseResult& c) { return c.scenario; }),
      of_case("batch", [](const CaseResult& c) { return fmt::format("{}", c.batch); }),
      of_case("tree_size", [](const CaseResult& c) { return fmt::format("{}", c.tree_size); }),
      of_case("heads", [](const CaseResult& c) { return fmt::format("{}", c.heads); }),
      of_case("page_size", [](const CaseResult& c) { return fmt::format("{}", c.page_size); }),
      of_case("total_kv_tokens", [](const CaseResult& c) { return fmt::format("{}", c.total_kv_tokens); }),
      of_case("algorithmic_bytes",
              [](const CaseResult& c) { return c.traffic ? fmt::format("{}", c.traffic->algorithmic_bytes) : ""; }),
      of_case("page_bytes", [](const CaseResult& c) { return c.traffic ? fmt::format("{}", c.traffic->page_bytes) : ""; }),
      of_case("flops", [](const CaseResult& c) { return c.traffic ? num(c.traffic->flops) : ""; }),
      {"executor", false, [](const CsvRow& r) { return r.e->executor; }},
      {"outcome", false, [](const CsvRow& r) { return std::string(to_string(r.e->outcome)); }},
      {"checked_against", false, [](const CsvRow& r) { return r.e->checked_against; }},
      of_timing("mode", [](const TimingRecord& t) { return t.mode; }),
      of_timing("samples", [](const TimingRecord& t) { return fmt::format("{}", t.samples_ms.size()); }),
      of_timing("median_ms", [](const TimingRecord& t) { return num(t.median_ms); }),
      of_timing("min_ms", [](const TimingRecord& t) { return num(t.min_ms); }),
      of_timing("max_ms", [](const TimingRecord& t) { return num(t.max_ms); }),
      of_timing("p10_ms", [](const TimingRecord& t) { return num(t.p10_ms); }),
      of_timing("p90_ms", [](const TimingRecord& t) { return num(t.p90_ms); }),
      of_timing("rel_noise", [](const TimingRecord& t) { return num(t.rel_noise); }),
      of_timing("stop_reason", [](const TimingRecord& t) { return t.stop_reason; }),
      of_timing("sm_clock_mhz_median", [](const TimingRecord& t) { return opt(t.sm_clock_mhz_median); }),
      of_timing("temperature_c_max", [](const TimingRecord& t) { return opt(t.temperature_c_max); }),
      of_timing("throttled", [](const TimingRecord& t) { return flag(t.throttled); }),
      of_rates("gbps", [](const Achieved& a) { return num(a.gbps); }),
      of_rates("tflops", [](const Achieved& a) { return num(a.tflops); }),
      of_rates("pct_of_attainable", [](const Achieved& a) { return opt(a.pct_of_attainable); }),
      of_rates("bound", [](const Achieved& a) { return a.bound; }),
      of_rates("speed_of_light", [](const Achieved& a) { return flag(a.speed_of_light); }),
      of_case("speedup_vs_naive", [](const CaseResult& c) { return opt(c.speedup_vs_naive); }),
      of_case("mask_tax", [](const CaseResult& c) { return opt(c.mask_tax); }),
  };
  return columns;
}

}  // namespace

std::string format_csv(const std::vector<CaseResult>& cases) {
  std::vector<CsvRow> rows;
  for (const CaseResult& c : cases) {
    for (const ExecutorResult& e : c.executors) {
      if (e.timings.empty()) rows.push_back({&c, &e, nullptr});
      for (const TimingRecord& t : e.timings) rows.push_back({&c, &e, &t});
    }
  }
  return csv_table(csv_columns(), rows);
}

}  // namespace vb

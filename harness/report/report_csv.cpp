#include "harness/report/report_csv.h"

#include <fmt/format.h>

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
std::string num(double v) { return fmt::format("{:.6g}", v); }
std::string opt(const std::optional<double>& v) { return v ? num(*v) : std::string(); }
}  // namespace

std::string format_csv(const std::vector<CaseResult>& cases) {
  std::string out =
      "case,scenario,batch,tree_size,heads,page_size,total_kv_tokens,algorithmic_bytes,page_bytes,"
      "flops,executor,outcome,checked_against,mode,samples,median_ms,min_ms,max_ms,p10_ms,p90_ms,"
      "rel_noise,stop_reason,sm_clock_mhz_median,temperature_c_max,throttled,gbps,tflops,"
      "pct_of_attainable,bound,speed_of_light,speedup_vs_naive,mask_tax\n";
  for (const CaseResult& c : cases) {
    const std::string head = fmt::format(
        "{},{},{},{},{},{},{},{},{},{}", csv_field(c.case_name), csv_field(c.scenario), c.batch,
        c.tree_size, c.heads, c.page_size, c.total_kv_tokens,
        c.traffic ? fmt::format("{}", c.traffic->algorithmic_bytes) : "",
        c.traffic ? fmt::format("{}", c.traffic->page_bytes) : "",
        c.traffic ? num(c.traffic->flops) : "");
    const std::string tail = fmt::format(",{},{}\n", opt(c.speedup_vs_naive), opt(c.mask_tax));
    for (const ExecutorResult& e : c.executors) {
      const std::string who = fmt::format(",{},{},{}", csv_field(e.executor),
                                          csv_field(to_string(e.outcome)),
                                          csv_field(e.checked_against));
      if (e.timings.empty()) {
        out += head + who + std::string(18, ',') + tail.substr(1);  // 17 empty timing fields
        continue;
      }
      for (const TimingRecord& t : e.timings) {
        const bool achieved_here = e.achieved && e.achieved->mode == t.mode;
        std::string rates = ",,,,,";
        if (achieved_here) {
          const Achieved& a = *e.achieved;
          rates = fmt::format(",{},{},{},{},{}", num(a.gbps), num(a.tflops),
                              opt(a.pct_of_attainable), a.bound, a.speed_of_light ? "true" : "false");
        }
        out += head + who +
               fmt::format(",{},{},{},{},{},{},{},{},{},{},{},{}", t.mode, t.samples_ms.size(),
                           num(t.median_ms), num(t.min_ms), num(t.max_ms), num(t.p10_ms),
                           num(t.p90_ms), num(t.rel_noise), csv_field(t.stop_reason),
                           opt(t.sm_clock_mhz_median), opt(t.temperature_c_max),
                           t.throttled ? "true" : "false") +
               rates + tail;
      }
    }
  }
  return out;
}

}  // namespace vb

#include "harness/report/report_fp8_twins.h"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "harness/measure/traffic_model.h"
#include "harness/plan/device_models.h"
#include "harness/report/report_columns.h"

namespace vb {
namespace {

// The case name after its scenario's ("/tree.nodes=2,batch.size=8"; "" for an unswept case),
// without a `math=` sweep value: an fp8 twin's sweep may add the math, which its bf16 twin has not.
std::string sweep_point(const CaseResult& c) {
  const std::string point = c.case_name.starts_with(c.scenario) ? c.case_name.substr(c.scenario.size()) : c.case_name;
  if (!point.starts_with("/")) return point;
  std::string kept;
  std::size_t begin = 1;
  while (begin <= point.size()) {
    const std::size_t end = std::min(point.find(',', begin), point.size());
    const std::string value = point.substr(begin, end - begin);
    if (!value.starts_with("math=")) kept += (kept.empty() ? "" : ",") + value;
    begin = end + 1;
  }
  return kept.empty() ? "" : "/" + kept;
}

bool same_shape(const CaseResult& a, const CaseResult& b) {
  const bool same_flops = !a.traffic || !b.traffic || a.traffic->flops == b.traffic->flops;
  return a.batch == b.batch && a.tree_size == b.tree_size && a.heads == b.heads && a.page_size == b.page_size &&
         a.total_kv_tokens == b.total_kv_tokens && same_flops;
}

// One row: a pair and an executor timed in the same mode in both.
struct TwinRow {
  const CaseResult* bf16;
  const CaseResult* fp8;
  const ExecutorResult* bf16_record;
  const ExecutorResult* fp8_record;
  double bf16_ms = 0, fp8_ms = 0;  // the medians of the mode both rates come from
};

// The rows of every pair: each executor whose rates (Achieved) come from the same timing mode
// in both cases, in the bf16 case's executor order.
std::vector<TwinRow> twin_rows(const std::vector<CaseResult>& cases) {
  std::vector<TwinRow> rows;
  for (const Fp8TwinPair& pair : fp8_twin_pairs(cases)) {
    for (const ExecutorResult& b : pair.bf16->executors) {
      if (!b.achieved) continue;
      for (const ExecutorResult& f : pair.fp8->executors) {
        if (f.executor != b.executor || !f.achieved || f.achieved->mode != b.achieved->mode) continue;
        const TimingRecord* tb = find_timing(b, b.achieved->mode);
        const TimingRecord* tf = find_timing(f, f.achieved->mode);
        if (tb != nullptr && tf != nullptr) rows.push_back({pair.bf16, pair.fp8, &b, &f, tb->median_ms, tf->median_ms});
      }
    }
  }
  return rows;
}

// How a table prints its numbers: summary.md rounded for reading, the CSV in full.
enum class NumberStyle { kMarkdown, kCsv };

std::vector<Column<TwinRow>> twin_columns(NumberStyle style) {
  const bool csv = style == NumberStyle::kCsv;
  // A number column: `markdown_format` in summary.md, 6 significant digits in the CSV; "-" (CSV:
  // empty) when the row has no value.
  auto number = [csv](const char* header, const char* markdown_format,
                      std::function<std::optional<double>(const TwinRow&)> value) {
    return Column<TwinRow>{header, true, [=](const TwinRow& r) {
                             const std::optional<double> v = value(r);
                             if (!v) return std::string(csv ? "" : "-");
                             return csv ? fmt::format("{:.6g}", *v) : fmt::format(fmt::runtime(markdown_format), *v);
                           }};
  };
  auto text = [csv](const char* header, std::function<std::string(const TwinRow&)> value) {
    return Column<TwinRow>{header, false, [=](const TwinRow& r) { return csv ? value(r) : markdown_escape(value(r)); }};
  };
  auto predicted_us = [](const ExecutorResult& e) -> std::optional<double> {
    if (e.prediction) return e.prediction->time_us;
    return std::nullopt;
  };
  return {
      text(csv ? "case" : "case (bf16 KV)", [](const TwinRow& r) { return r.bf16->case_name; }),
      text(csv ? "fp8_case" : "fp8 twin", [](const TwinRow& r) { return r.fp8->case_name; }),
      text(csv ? "fp8_math" : "fp8 twin's math", [](const TwinRow& r) { return r.fp8->math; }),
      text("executor", [](const TwinRow& r) { return r.bf16_record->executor; }),
      text("mode", [](const TwinRow& r) { return r.bf16_record->achieved->mode; }),
      number(csv ? "bf16_us" : "bf16 µs", "{:.1f}", [](const TwinRow& r) { return r.bf16_ms * 1e3; }),
      number(csv ? "fp8_us" : "fp8 µs", "{:.1f}", [](const TwinRow& r) { return r.fp8_ms * 1e3; }),
      number(csv ? "fp8_over_bf16" : "fp8 / bf16", "{:.3f}", [](const TwinRow& r) { return r.fp8_ms / r.bf16_ms; }),
      number(csv ? "fp8_pct_of_576_byte_row_ceiling" : "fp8 % of 576-byte row ceiling", "{:.1f}%",
             [](const TwinRow& r) { return r.fp8_record->achieved->pct_of_memory_ceiling; }),
      number(csv ? "bf16_pct_of_1152_byte_row_ceiling" : "bf16 % of 1152-byte row ceiling", "{:.1f}%",
             [](const TwinRow& r) { return r.bf16_record->achieved->pct_of_memory_ceiling; }),
      number(csv ? "predicted_rtx_pro_6000_bf16_us" : "predicted RTX PRO 6000 µs, bf16", "{:.1f}",
             [=](const TwinRow& r) { return predicted_us(*r.bf16_record); }),
      number(csv ? "predicted_rtx_pro_6000_fp8_us" : "predicted RTX PRO 6000 µs, fp8", "{:.1f}",
             [=](const TwinRow& r) { return predicted_us(*r.fp8_record); }),
  };
}

}  // namespace

std::vector<Fp8TwinPair> fp8_twin_pairs(const std::vector<CaseResult>& cases) {
  // bf16 cases by (scenario, sweep point).
  std::map<std::pair<std::string, std::string>, const CaseResult*> bf16;
  for (const CaseResult& c : cases) {
    if (!kv_cache_is_fp8(c.kv_cache)) bf16.emplace(std::make_pair(c.scenario, sweep_point(c)), &c);
  }
  const std::string suffix = kFp8TwinSuffix;
  std::vector<Fp8TwinPair> pairs;
  for (const CaseResult& c : cases) {
    if (!kv_cache_is_fp8(c.kv_cache) || !c.scenario.ends_with(suffix)) continue;
    const std::string scenario = c.scenario.substr(0, c.scenario.size() - suffix.size());
    const auto twin = bf16.find({scenario, sweep_point(c)});
    if (twin != bf16.end() && same_shape(*twin->second, c)) pairs.push_back({twin->second, &c});
  }
  return pairs;
}

std::string format_fp8_twin_section(const std::vector<CaseResult>& cases) {
  const std::vector<TwinRow> rows = twin_rows(cases);
  if (rows.empty()) return "";
  std::string method;
  if (const DeviceModel* rtx = find_device_model("rtx-pro-6000")) {
    method = fmt::format(" The predicted RTX PRO 6000 times are `{}`'s (sm_120 proxy section): the larger of its "
                         "SM cycles carried to {:.0f} MHz and {} SMs and its own bytes (576-byte rows for fp8) over "
                         "{:.0f} GB/s of GDDR7 times rho, this run's fraction of its datasheet bandwidth: "
                         "predictions, not measurements.",
                         kSm120EmuExecutor, rtx->sm_clock_mhz, rtx->num_sms, rtx->memory_gbps);
  }
  return "\n## fp8 KV against bf16 KV\n\n"
         "Each fp8 case beside its bf16 twin in this run: the bf16 case of the same scenario name without `_fp8`, "
         "at the same sweep point and of the same shape (batch, tree, heads, page size, KV tokens, FLOPs). Times "
         "are the medians of the mode both rows' rates come from; fp8 / bf16 below 1 is fp8 faster. A twin's sweep may "
         "add `math` (bf16: the tile widened, exact; fp8: e4m3 tensor math), so a bf16 case can have one twin of "
         "each math. Each case is "
         "against the row-read ceiling of its own KV row and page size (576-byte rows for fp8, 1152-byte rows for "
         "bf16; page 1 shuffled for page size 1, in order otherwise)." +
         method + "\n\n" + markdown_table(twin_columns(NumberStyle::kMarkdown), rows);
}

std::string format_fp8_twins_csv(const std::vector<CaseResult>& cases) {
  return csv_table(twin_columns(NumberStyle::kCsv), twin_rows(cases));
}

}  // namespace vb

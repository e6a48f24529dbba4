// Text table and summary writers.
#include "harness/report/report_table.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>

#include <fmt/format.h>

#include "harness/measure/traffic_model.h"
#include "harness/plan/device_models.h"

namespace vb {

TextTable::TextTable(std::vector<std::string> header, std::vector<bool> right_aligned)
    : right_(std::move(right_aligned)) {
  right_.resize(header.size(), false);
  rows_.push_back(std::move(header));
}

void TextTable::add_row(std::vector<std::string> cells) {
  cells.resize(rows_.front().size());
  rows_.push_back(std::move(cells));
}

std::string TextTable::render() const {
  const std::size_t cols = rows_.front().size();
  std::vector<std::size_t> width(cols, 0);
  for (const auto& row : rows_) {
    for (std::size_t c = 0; c < cols; ++c) width[c] = std::max(width[c], row[c].size());
  }
  std::string out;
  for (const auto& row : rows_) {
    std::string line;
    for (std::size_t c = 0; c < cols; ++c) {
      if (c > 0) line += "  ";
      const std::size_t pad = width[c] - row[c].size();
      if (right_[c]) line.append(pad, ' ');
      line += row[c];
      if (!right_[c]) line.append(pad, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line;
    out += '\n';
  }
  return out;
}

namespace {

std::string sci(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:.2e}", v);
}

std::string value(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:.6g}", v);
}

bool compared(const ExecutorResult& e) {
  return e.outcome == Outcome::kPassed || e.outcome == Outcome::kIncorrect;
}

const ExecutorResult* find_reference(const CaseResult& c) {
  for (const ExecutorResult& e : c.executors) {
    if (e.executor == kReferenceExecutor) return &e;
  }
  return nullptr;
}

// Last column: where it went wrong, why it did not run, or what the comparison could not do.
std::string note_for(const ExecutorResult& e) {
  switch (e.outcome) {
    case Outcome::kIncorrect: {
      std::string note;
      auto failed = [](const ErrorStats& s) { return s.elements_failed + s.nonfinite_mismatch; };
      if (failed(e.o) > 0) {
        note = fmt::format("{} of {} O bad ({} NaN/Inf), worst {}", failed(e.o),
                           e.o.elements_checked, e.o.nonfinite_mismatch, format_worst("O", e.o));
      }
      if (failed(e.lse) > 0) {
        if (!note.empty()) note += "; ";
        note += fmt::format("{} of {} LSE bad ({} NaN/Inf), worst {}", failed(e.lse),
                            e.lse.elements_checked, e.lse.nonfinite_mismatch,
                            format_worst("LSE", e.lse));
      }
      return note.empty() ? e.detail : note;
    }
    case Outcome::kLaunchFailed:
    case Outcome::kNotVerified:
    case Outcome::kNotSupported:
      return e.detail;
    case Outcome::kPassed:
    case Outcome::kNotRun:
      return "";  // not run: the summary says why once for all records
  }
  return "";
}

}  // namespace

std::string format_worst(const char* what, const ErrorStats& s) {
  const ElementIndex& w = s.worst;
  const std::string where =
      w.channel >= 0
          ? fmt::format("request {}, node {}, head {}, channel {}", w.request, w.node, w.head,
                        w.channel)
          : fmt::format("request {}, node {}, head {}", w.request, w.node, w.head);
  return fmt::format("{}[{}] expected {} got {}", what, where, value(s.worst_expected),
                     value(s.worst_got));
}

std::string format_case_table(const std::vector<CaseResult>& cases) {
  TextTable table({"case", "B", "T", "H", "page", "KV tokens", "ref ms", "ref rows", "executor",
                   "checked against", "outcome", "max|dO|", "max|dLSE|", "note"},
                  {false, true, true, true, true, true, true, true, false, false, false, true,
                   true, false});
  for (const CaseResult& c : cases) {
    const ExecutorResult* ref = find_reference(c);
    std::string ref_ms = "-", ref_rows = "-";
    if (ref != nullptr) {
      if (ref->wall_ms) ref_ms = fmt::format("{:.1f}", *ref->wall_ms);
      const std::int64_t all = static_cast<std::int64_t>(c.batch) * c.tree_size * c.heads;
      ref_rows = ref->rows_checked == all ? fmt::format("{}", all)
                                          : fmt::format("{} of {}", ref->rows_checked, all);
    }
    std::vector<std::string> head = {c.case_name,
                                     fmt::format("{}", c.batch),
                                     fmt::format("{}", c.tree_size),
                                     fmt::format("{}", c.heads),
                                     fmt::format("{}", c.page_size),
                                     fmt::format("{}", c.total_kv_tokens),
                                     ref_ms,
                                     ref_rows};
    // Without a device every GPU record says the same thing: one line for all of them.
    std::size_t others = 0, not_run = 0;
    for (const ExecutorResult& e : c.executors) {
      if (&e == ref) continue;
      ++others;
      not_run += e.outcome == Outcome::kNotRun ? 1 : 0;
    }
    if (others > 1 && not_run == others) {
      head.insert(head.end(), {fmt::format("{} GPU executors", others), "-",
                               to_string(Outcome::kNotRun), "-", "-", ""});
      table.add_row(std::move(head));
      continue;
    }
    bool first = true;
    for (const ExecutorResult& e : c.executors) {
      if (&e == ref) continue;
      std::vector<std::string> row = first ? head : std::vector<std::string>(head.size());
      first = false;
      row.push_back(e.executor);
      row.push_back(e.checked_against.empty() ? "-" : e.checked_against);
      row.push_back(to_string(e.outcome));
      row.push_back(compared(e) ? sci(e.o.max_abs_error) : "-");
      row.push_back(compared(e) ? sci(e.lse.max_abs_error) : "-");
      row.push_back(note_for(e));
      table.add_row(std::move(row));
    }
    if (first) {  // the reference alone (or nothing at all)
      head.insert(head.end(), {"-", "-", "-", "-", "-", ref != nullptr ? ref->detail : ""});
      table.add_row(std::move(head));
    }
  }
  return table.render();
}

std::string format_summary(const std::vector<CaseResult>& cases, const GpuInfo& gpu) {
  const OutcomeCounts n = count_outcomes(cases);
  int cases_passed = 0;
  for (const CaseResult& c : cases) cases_passed += c.all_passed() ? 1 : 0;
  std::string out = fmt::format(
      "summary: {} cases ({} without failures); executor checks: {} passed, {} incorrect, {} "
      "launch failed, {} not run",
      n.cases, cases_passed, n.passed, n.incorrect, n.launch_failed, n.not_run);
  if (n.not_verified > 0) out += fmt::format(", {} not verified", n.not_verified);
  if (n.not_supported > 0) out += fmt::format(", {} not supported", n.not_supported);
  out += '\n';
  if (!gpu.available) {
    out += fmt::format("GPU executors skipped: {}\n",
                       gpu.reason.empty() ? std::string("no CUDA device") : gpu.reason);
  }
  for (const CaseResult& c : cases) {
    if (!c.all_passed()) out += fmt::format("reproduce {}: {}\n", c.case_name, c.reproducer);
  }
  return out;
}

std::string format_timing_table(const std::vector<CaseResult>& cases) {
  TextTable table({"case", "executor", "cold us", "hot us", "graph us", "noise", "GB/s", "TFLOP/s",
                   "% attain", "bound", "flags"},
                  {false, false, true, true, true, true, true, true, true, false, false});
  bool any = false;
  for (const CaseResult& c : cases) {
    for (const ExecutorResult& e : c.executors) {
      if (e.timings.empty()) continue;
      any = true;
      auto med = [&](const char* mode) {
        const TimingRecord* t = find_timing(e, mode);
        return t ? fmt::format("{:.1f}", t->median_ms * 1e3) : std::string("-");
      };
      const TimingRecord* pref = preferred_timing(e);
      std::string flags;
      for (const TimingRecord& t : e.timings) {
        if (t.stop_reason.rfind("error", 0) == 0) flags += t.mode + " " + t.stop_reason + " ";
        if (t.throttled) flags += t.mode + " throttled ";
      }
      if (e.outcome == Outcome::kIncorrect) flags += "INCORRECT ";
      if (e.achieved && e.achieved->speed_of_light) flags += "above-ceiling ";
      while (!flags.empty() && flags.back() == ' ') flags.pop_back();
      table.add_row({c.case_name, e.executor, med("cold-l2"), med("hot-l2"), med("graph"),
                     pref ? fmt::format("{:.2f}%", 100 * pref->rel_noise) : "-",
                     e.achieved ? fmt::format("{:.0f}", e.achieved->gbps) : "-",
                     e.achieved ? fmt::format("{:.2f}", e.achieved->tflops) : "-",
                     e.achieved && e.achieved->pct_of_attainable
                         ? fmt::format("{:.1f}", *e.achieved->pct_of_attainable)
                         : "-",
                     e.achieved && !e.achieved->bound.empty() ? e.achieved->bound : "-", flags});
    }
  }
  if (!any) return std::string();
  // Chain samples (--modes chain,chain-pdl), per launch, in a table of their own.
  TextTable chains({"case", "executor", "cold us", "chain us", "chain-pdl us", "pdl/chain"},
                   {false, false, true, true, true, true});
  bool any_chain = false;
  for (const CaseResult& c : cases) {
    for (const ExecutorResult& e : c.executors) {
      const TimingRecord* chain = find_timing(e, "chain");
      const TimingRecord* pdl = find_timing(e, "chain-pdl");
      if (chain == nullptr && pdl == nullptr) continue;
      any_chain = true;
      const TimingRecord* cold = find_timing(e, "cold-l2");
      auto us = [](const TimingRecord* t) { return t ? fmt::format("{:.1f}", t->median_ms * 1e3) : std::string("-"); };
      chains.add_row({c.case_name, e.executor, us(cold), us(chain), us(pdl),
                      chain && pdl ? fmt::format("{:.3f}", pdl->median_ms / chain->median_ms) : "-"});
    }
  }
  std::string out = table.render();
  if (any_chain) {
    out += fmt::format("\nback-to-back launches: {} in a row after a hold, per launch (chain-pdl: each over the "
                       "previous, programmatic dependent launch)\n",
                       kChainLaunches);
    out += chains.render();
  }
  return out;
}

std::string format_ceilings_text(const Ceilings& c) {
  std::string line = fmt::format(
      "ceilings: row_read_contiguous_gbps {:.0f}, row_read_shuffled_gbps {:.0f} (1152-byte rows); "
      "row576_read_contiguous_gbps {:.0f}, row576_read_shuffled_gbps {:.0f} (576-byte rows); "
      "d2d_copy_gbps {:.0f}; mma_bf16_tflops {:.0f}",
      c.row_read_contiguous_gbps, c.row_read_shuffled_gbps, c.row576_read_contiguous_gbps, c.row576_read_shuffled_gbps,
      c.d2d_copy_gbps, c.mma_bf16_tflops);
  if (c.memory_peak_gbps > 0) line += fmt::format("; memory_peak_gbps {:.0f} (datasheet)", c.memory_peak_gbps);
  if (c.mma_fp8_tflops > 0) line += fmt::format("; mma_fp8_tflops {:.0f}", c.mma_fp8_tflops);
  // sm_120's emulated rates, also per clock and SM beside sm_120's own.
  auto emulated = [&](const char* name, double tflops, double sm120_per_clock) {
    if (tflops <= 0) return;
    line += fmt::format("; {} {:.0f}", name, tflops);
    if (const double per_clock = flop_per_clock_and_sm(c, tflops); per_clock > 0) {
      line += fmt::format(" ({:.0f} FLOP per clock and SM; sm_120 {:.0f})", per_clock, sm120_per_clock);
    }
  };
  emulated("sm120_emulated_bf16_tflops", c.sm120_emulated_bf16_tflops, kSm120MmaBf16FlopPerClockSm);
  emulated("sm120_emulated_fp8_tflops", c.sm120_emulated_fp8_tflops, kSm120MmaFp8FlopPerClockSm);
  return line + "\n";
}

}  // namespace vb

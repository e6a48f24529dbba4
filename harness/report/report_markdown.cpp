#include "harness/report/report_markdown.h"

#include <functional>

#include <fmt/format.h>

#include "harness/plan/device_models.h"
#include "harness/problem/fp8_math_error.h"
#include "harness/measure/traffic_model.h"
#include "harness/report/report_columns.h"
#include "harness/report/report_fp8_twins.h"

namespace vb {

std::string markdown_escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else out += c;
  }
  return out;
}

namespace {

constexpr auto md = &markdown_escape;

std::string us(double ms) { return fmt::format("{:.1f}", ms * 1e3); }
std::string opt_pct(const std::optional<double>& v) { return v ? fmt::format("{:.1f}%", *v) : "-"; }

// One row of a table over executor records: a case and one of its records.
struct RecordRow {
  const CaseResult* c;
  const ExecutorResult* e;
};

// Each executor row that ran a production engine against that engine's own ceiling, and the
// wgmma rows against the wgmma kernel's design ceiling (its tile with the stage's copies and
// nothing else) where the run measured it.
std::string format_engine_section(const std::vector<CaseResult>& cases, const std::optional<Ceilings>& ceilings) {
  const double design_tflops = ceilings ? ceilings->wgmma_mla_tile_copies_tflops : 0;
  std::vector<RecordRow> rows;
  for (const CaseResult& c : cases) {
    for (const ExecutorResult& e : c.executors) {
      if (e.achieved && e.achieved->pct_of_engine_ceiling) rows.push_back({&c, &e});
    }
  }
  if (rows.empty()) return "";
  std::vector<Column<RecordRow>> columns = {
      {"case", false, [](const RecordRow& r) { return md(r.c->case_name); }},
      {"executor", false, [](const RecordRow& r) { return md(r.e->executor); }},
      {"engine", false, [](const RecordRow& r) { return r.e->achieved->engine; }},
      {"bound", false, [](const RecordRow& r) { return r.e->achieved->bound.empty() ? "-" : r.e->achieved->bound; }},
      {"TFLOP/s", true, [](const RecordRow& r) { return fmt::format("{:.2f}", r.e->achieved->tflops); }},
      {"% of engine ceiling", true, [](const RecordRow& r) { return opt_pct(r.e->achieved->pct_of_engine_ceiling); }},
      {"% attainable", true, [](const RecordRow& r) { return opt_pct(r.e->achieved->pct_of_attainable); }},
  };
  std::string head =
      "\n## Tensor-core engines\n\n"
      "Each production row's TFLOP/s against the ceiling of the instruction it ran (mma.sync rows against the "
      "mma.sync ceiling, wgmma rows against the wgmma ceiling), beside its % of the case's attainable roof.";
  if (design_tflops > 0) {
    head += fmt::format(" The last column holds the wgmma rows against the wgmma kernel's own tile with its copies "
                        "and nothing else ({:.0f} TFLOP/s, Ceilings): how far the softmax, the waits for loads and "
                        "the fixed costs leave the kernel below what its design can issue.",
                        design_tflops);
    columns.push_back({"% of MLA tile + copies", true, [design_tflops](const RecordRow& r) {
                         const Achieved& a = *r.e->achieved;
                         return a.engine == "wgmma" ? fmt::format("{:.1f}%", 100.0 * a.tflops / design_tflops)
                                                    : std::string("-");
                       }});
  }
  return head + "\n\n" + markdown_table(columns, rows);
}

// Issue 27, item 3: chain-pdl median against 1.5 x roof + PDL floor + 3 µs.
std::string format_pdl_goal_section(const std::vector<CaseResult>& cases) {
  std::vector<const CaseResult*> rows;
  int met = 0;
  for (const CaseResult& c : cases) {
    if (!c.pdl_goal) continue;
    rows.push_back(&c);
    met += c.pdl_goal->met ? 1 : 0;
  }
  if (rows.empty()) return "";
  static const std::vector<Column<const CaseResult*>> columns = {
      {"case", false, [](const CaseResult* c) { return md(c->case_name); }},
      {"chain-pdl µs", true, [](const CaseResult* c) { return fmt::format("{:.1f}", c->pdl_goal->chain_pdl_us); }},
      {"roof µs", true, [](const CaseResult* c) { return fmt::format("{:.1f}", c->pdl_goal->roof_us); }},
      {"bound µs", true, [](const CaseResult* c) { return fmt::format("{:.1f}", c->pdl_goal->bound_us); }},
      {"met?", false, [](const CaseResult* c) { return std::string(c->pdl_goal->met ? "yes" : "**no**"); }},
  };
  return fmt::format(
             "\n## Small launches as serving runs them\n\n"
             "Goal: the production executor's chain-pdl median ≤ {} × roof + PDL floor + {:g} µs, where roof is the "
             "case's time at its attainable roof (max(bytes / memory ceiling, FLOPs / tensor ceiling)) and the PDL "
             "floor is this run's. Met on {} of {} cases.\n\n",
             kPdlGoalRoofFactor, kPdlGoalSlackUs, met, rows.size()) +
         markdown_table(columns, rows);
}

std::string median_us(const ExecutorResult& e, const char* mode) {
  const TimingRecord* t = find_timing(e, mode);
  return t ? us(t->median_ms) : std::string("-");
}

// One row of the sm_120 section: a case, its proxy record and its emulation's (either may be
// missing).
struct Sm120Row {
  const CaseResult* c;
  const ExecutorResult* proxy = nullptr;
  const ExecutorResult* emulated = nullptr;
};

std::vector<Sm120Row> sm120_rows(const std::vector<CaseResult>& cases) {
  std::vector<Sm120Row> rows;
  for (const CaseResult& c : cases) {
    Sm120Row row{&c};
    for (const ExecutorResult& e : c.executors) {
      if (e.timings.empty()) continue;
      if (e.executor == kSm120ProxyExecutor) row.proxy = &e;
      if (e.executor == kSm120EmuExecutor) row.emulated = &e;
    }
    if (row.proxy != nullptr || row.emulated != nullptr) rows.push_back(row);
  }
  return rows;
}

// The sentence after the table's description: the prediction's method, or why there is none.
std::string prediction_note(const std::vector<Sm120Row>& rows, const std::optional<Ceilings>& ceilings) {
  const DeviceModel* rtx = find_device_model("rtx-pro-6000");
  bool emulated_cold = false;
  for (const Sm120Row& r : rows) {
    if (r.emulated == nullptr) continue;
    if (r.emulated->prediction) {
      const DeviceModel* target = find_device_model(r.emulated->prediction->device);
      return "**Predicted** RTX PRO 6000 µs: " +
             md(target ? prediction_method(*target) : r.emulated->prediction->device) + ".";
    }
    emulated_cold = emulated_cold || find_timing(*r.emulated, "cold-l2") != nullptr;
  }
  std::string why;
  if (!emulated_cold) {
    why = fmt::format("this run has no `{}` cold-L2 time, the time the prediction is made from", kSm120EmuExecutor);
  } else if (!ceilings) {
    why = "this run measured no ceilings";
  } else if (const std::string missing = rtx ? prediction_missing(*ceilings, *rtx) : "no rtx-pro-6000 model";
             !missing.empty()) {
    why = missing;
  } else {
    why = "this run measured no memory ceiling of the cases' page size and KV row size";
  }
  return "No predicted RTX PRO 6000 time: " + why + ".";
}

// Issue 46, item 1: the sm_120 proxy, its emulation at sm_120's tensor rate, and the RTX PRO
// 6000 time predicted from the emulation.
std::string format_sm120_section(const std::vector<CaseResult>& cases, const std::optional<Ceilings>& ceilings) {
  const std::vector<Sm120Row> rows = sm120_rows(cases);
  if (rows.empty()) return "";
  // A column of the emulation's fractions or of its prediction; "-" without them.
  auto of_fractions = [](const char* header, std::function<double(const Sm120EmulatedFractions&)> pct) {
    return Column<Sm120Row>{header, true, [pct](const Sm120Row& r) {
                              return r.emulated && r.emulated->sm120_fractions
                                         ? fmt::format("{:.1f}%", pct(*r.emulated->sm120_fractions))
                                         : std::string("-");
                            }};
  };
  auto of_prediction = [](const char* header, bool numeric, std::function<std::string(const DevicePrediction&)> cell) {
    return Column<Sm120Row>{header, numeric, [cell](const Sm120Row& r) {
                              return r.emulated && r.emulated->prediction ? cell(*r.emulated->prediction)
                                                                          : std::string("-");
                            }};
  };
  static const std::vector<Column<Sm120Row>> columns = {
      {"case", false, [](const Sm120Row& r) { return md(r.c->case_name); }},
      {"math", false, [](const Sm120Row& r) { return md(r.c->math); }},
      {"proxy µs", true, [](const Sm120Row& r) { return r.proxy ? median_us(*r.proxy, "cold-l2") : "-"; }},
      {"emu µs", true, [](const Sm120Row& r) { return r.emulated ? median_us(*r.emulated, "cold-l2") : "-"; }},
      of_fractions("% of emulated sm_120 rate", [](const Sm120EmulatedFractions& f) { return f.pct_of_emulated_rate; }),
      of_fractions("% of attainable at sm_120 rates",
                   [](const Sm120EmulatedFractions& f) { return f.pct_of_attainable; }),
      of_prediction("C µs", true, [](const DevicePrediction& p) { return fmt::format("{:.1f}", p.sm_cycles_us); }),
      of_prediction("M µs", true, [](const DevicePrediction& p) { return fmt::format("{:.1f}", p.memory_us); }),
      of_prediction("rho", true, [](const DevicePrediction& p) { return fmt::format("{:.2f}", p.rho); }),
      of_prediction("predicted RTX PRO 6000 µs", true,
                    [](const DevicePrediction& p) { return fmt::format("{:.1f}", p.time_us); }),
      of_prediction("interval µs", true,
                    [](const DevicePrediction& p) { return fmt::format("[{:.1f}, {:.1f}]", p.low_us, p.high_us); }),
      of_prediction("bound", false, [](const DevicePrediction& p) { return p.bound; }),
  };
  std::string rate;
  if (ceilings && ceilings->sm120_emulated_bf16_tflops > 0) {
    rate = fmt::format(" (this run's emulated bf16 rate: {:.0f} TFLOP/s", ceilings->sm120_emulated_bf16_tflops);
    if (ceilings->sm120_emulated_fp8_tflops > 0) {
      rate += fmt::format(", fp8: {:.0f} TFLOP/s", ceilings->sm120_emulated_fp8_tflops);
    }
    rate += ")";
  }
  return fmt::format("\n## sm_120 proxy and the predicted RTX PRO 6000 time\n\n"
                     "`{}`: the mma.sync path in sm_120's configuration on this device. `{}`: the same launch "
                     "with its tensor pipe held to sm_120's rate per SM and clock{}. Medians are cold-L2. The % "
                     "columns are the emulation's TFLOP/s against sm_120's emulated rate of the case's math (bf16, "
                     "or fp8 for fp8 math), and against its attainable roof at that rate (min(this run's memory ceiling x intensity, that rate)). "
                     "{}\n\n",
                     kSm120ProxyExecutor, kSm120EmuExecutor, rate, prediction_note(rows, ceilings)) +
         markdown_table(columns, rows);
}

// Issue 46, item 2: each fp8-math launch's error against the exact reference (max and mean
// |dO|, max |dLSE|) beside the rounding model's standard deviations and the tolerance it was
// checked with (scenarios/README.md, "fp8 math").
std::string format_fp8_math_error_section(const std::vector<CaseResult>& cases) {
  std::vector<RecordRow> rows;
  for (const CaseResult& c : cases) {
    for (const ExecutorResult& e : c.executors) {
      if (e.fp8_math && e.o.elements_checked > 0) rows.push_back({&c, &e});
    }
  }
  if (rows.empty()) return "";
  auto number = [](const char* header, std::function<double(const RecordRow&)> value) {
    return Column<RecordRow>{header, true, [value](const RecordRow& r) { return fmt::format("{:.3g}", value(r)); }};
  };
  static const std::vector<Column<RecordRow>> columns = {
      {"case", false, [](const RecordRow& r) { return md(r.c->case_name); }},
      {"executor", false, [](const RecordRow& r) { return md(r.e->executor); }},
      {"checked against", false, [](const RecordRow& r) { return md(r.e->checked_against); }},
      number("max abs dO", [](const RecordRow& r) { return r.e->o.max_abs_error; }),
      number("mean abs dO", [](const RecordRow& r) { return r.e->o.mean_abs_error; }),
      number("O sigma", [](const RecordRow& r) { return r.e->fp8_math->o_sigma; }),
      number("o_atol", [](const RecordRow& r) { return r.e->fp8_math->o_atol; }),
      number("max abs dLSE", [](const RecordRow& r) { return r.e->lse.max_abs_error; }),
      number("LSE sigma", [](const RecordRow& r) { return r.e->fp8_math->lse_sigma; }),
      number("lse_atol", [](const RecordRow& r) { return r.e->fp8_math->lse_atol; }),
      {"outcome", false, [](const RecordRow& r) { return std::string(to_string(r.e->outcome)); }},
  };
  return fmt::format("\n## fp8 math: error against the exact reference\n\n"
                     "Each launch with fp8 tensor math (Q quantized per row and P to e4m3): its error against the "
                     "reference on the dequantized pool, the rounding model's standard deviation of a first-order "
                     "error (sigma, from the case's own data), and the absolute tolerances it was checked with "
                     "(the case's tolerance plus {:g} sigma; relative terms unchanged).\n\n",
                     kFp8MathSigmas) +
         markdown_table(columns, rows);
}

// The Timing table's rows are the timed executor records.
using TimingRow = RecordRow;
using TimingColumn = Column<TimingRow>;

// Errors, throttling, a wrong output, a rate above its ceiling and a peer row's speedup.
std::string timing_notes(const ExecutorResult& e) {
  std::string notes;
  bool throttled = false;
  for (const TimingRecord& t : e.timings) {
    throttled = throttled || t.throttled;
    if (t.stop_reason.rfind("error", 0) == 0) notes += md(t.mode + ": " + t.stop_reason) + "; ";
  }
  if (throttled) notes += "throttled; ";
  if (e.outcome == Outcome::kIncorrect) notes += "**INCORRECT output**; ";
  if (e.achieved && e.achieved->speed_of_light) notes += "SoL! ";
  if (e.production_speedup) notes += fmt::format("production {:.2f}x faster; ", *e.production_speedup);
  return notes;
}

// A column of the case's traffic; "-" without one.
TimingColumn of_traffic(const char* header, std::function<std::string(const TrafficModel&)> cell) {
  return {header, true, [cell](const TimingRow& r) { return r.c->traffic ? cell(*r.c->traffic) : "-"; }};
}
// A column of the record's achieved rates; "-" without them.
TimingColumn of_achieved(const char* header, bool numeric, std::function<std::string(const Achieved&)> cell) {
  return {header, numeric, [cell](const TimingRow& r) { return r.e->achieved ? cell(*r.e->achieved) : "-"; }};
}

const std::vector<TimingColumn>& timing_columns() {
  static const std::vector<TimingColumn> columns = {
      {"case", false, [](const TimingRow& r) { return md(r.c->case_name); }},
      {"B", true, [](const TimingRow& r) { return fmt::format("{}", r.c->batch); }},
      {"T", true, [](const TimingRow& r) { return fmt::format("{}", r.c->tree_size); }},
      {"H", true, [](const TimingRow& r) { return fmt::format("{}", r.c->heads); }},
      {"page", true, [](const TimingRow& r) { return fmt::format("{}", r.c->page_size); }},
      of_traffic("MB", [](const TrafficModel& t) { return fmt::format("{:.2f}", t.algorithmic_bytes / 1e6); }),
      of_traffic("GFLOP", [](const TrafficModel& t) { return fmt::format("{:.3f}", t.flops / 1e9); }),
      of_traffic("FLOP/B", [](const TrafficModel& t) { return fmt::format("{:.1f}", t.intensity()); }),
      {"executor", false, [](const TimingRow& r) { return md(r.e->executor); }},
      {"outcome", false, [](const TimingRow& r) { return std::string(to_string(r.e->outcome)); }},
      {"cold µs", true, [](const TimingRow& r) { return median_us(*r.e, "cold-l2"); }},
      {"hot µs", true, [](const TimingRow& r) { return median_us(*r.e, "hot-l2"); }},
      {"graph µs", true, [](const TimingRow& r) { return median_us(*r.e, "graph"); }},
      {"noise", true,
       [](const TimingRow& r) {
         const TimingRecord* pref = preferred_timing(*r.e);
         return pref ? fmt::format("{:.2f}%", 100 * pref->rel_noise) : "-";
       }},
      of_achieved("GB/s", true, [](const Achieved& a) { return fmt::format("{:.0f}", a.gbps); }),
      of_achieved("TFLOP/s", true, [](const Achieved& a) { return fmt::format("{:.2f}", a.tflops); }),
      of_achieved("% attainable", true, [](const Achieved& a) { return opt_pct(a.pct_of_attainable); }),
      of_achieved("bound", false, [](const Achieved& a) { return a.bound.empty() ? "-" : a.bound; }),
      {"clock MHz", true,
       [](const TimingRow& r) {
         const TimingRecord* pref = preferred_timing(*r.e);
         return pref && pref->sm_clock_mhz_median ? fmt::format("{:.0f}", *pref->sm_clock_mhz_median) : "-";
       }},
      {"notes", false, [](const TimingRow& r) { return timing_notes(*r.e); }},
  };
  return columns;
}

std::string format_speedup_section(const std::vector<CaseResult>& cases) {
  std::vector<const CaseResult*> rows;
  for (const CaseResult& c : cases) {
    if (c.speedup_vs_naive || c.mask_tax) rows.push_back(&c);
  }
  if (rows.empty()) return "";
  static const std::vector<Column<const CaseResult*>> columns = {
      {"case", false, [](const CaseResult* c) { return md(c->case_name); }},
      {"production vs naive (cold)", true,
       [](const CaseResult* c) { return c->speedup_vs_naive ? fmt::format("{:.2f}x", *c->speedup_vs_naive) : "-"; }},
      {"mask tax", true,
       [](const CaseResult* c) { return c->mask_tax ? fmt::format("{:+.1f}%", 100 * *c->mask_tax) : "-"; }},
  };
  return "\n## Speedup and mask tax\n\n" + markdown_table(columns, rows);
}

// Chain samples (--modes chain,chain-pdl): a separate table, since they answer another
// question than the cold sample (what a launch costs between other kernels).
std::string format_chain_section(const std::vector<CaseResult>& cases) {
  std::vector<RecordRow> rows;
  for (const CaseResult& c : cases) {
    for (const ExecutorResult& e : c.executors) {
      if (find_timing(e, "chain") != nullptr || find_timing(e, "chain-pdl") != nullptr) rows.push_back({&c, &e});
    }
  }
  if (rows.empty()) return "";
  static const std::vector<Column<RecordRow>> columns = {
      {"case", false, [](const RecordRow& r) { return md(r.c->case_name); }},
      {"executor", false, [](const RecordRow& r) { return md(r.e->executor); }},
      {"cold µs", true, [](const RecordRow& r) { return median_us(*r.e, "cold-l2"); }},
      {"chain µs", true, [](const RecordRow& r) { return median_us(*r.e, "chain"); }},
      {"chain-pdl µs", true, [](const RecordRow& r) { return median_us(*r.e, "chain-pdl"); }},
      {"chain-pdl / chain", true,
       [](const RecordRow& r) {
         const TimingRecord* chain = find_timing(*r.e, "chain");
         const TimingRecord* pdl = find_timing(*r.e, "chain-pdl");
         return chain && pdl ? fmt::format("{:.3f}", pdl->median_ms / chain->median_ms) : "-";
       }},
  };
  return fmt::format(
             "\n## Back-to-back launches\n\n"
             "A chain sample is {} launches back to back after a hold, divided by {}: what a launch costs "
             "between other kernels, with the L2 holding what the previous launch left. chain-pdl launches each "
             "production launch over the previous one (programmatic dependent launch).\n\n",
             kChainLaunches, kChainLaunches) +
         markdown_table(columns, rows);
}

// One row of the Ceilings table.
struct CeilingRow {
  std::string ceiling, value, how;
};

}  // namespace

std::string format_markdown(const Provenance& p, const std::optional<Ceilings>& ceilings,
                            const std::vector<CaseResult>& cases) {
  std::string s = "# verifybench results\n\n";
  if (!p.interrupted_by.empty()) {
    s += fmt::format("**Partial run**: stopped by {} after {} of {} selected cases; the tables below hold only "
                     "the cases completed.\n\n",
                     p.interrupted_by, p.cases_completed, p.cases_selected);
  }
  s += fmt::format("- command: `{}`\n", p.command_line);
  s += fmt::format("- date (UTC): {}; host: {}; {}\n", p.date_utc, p.host, p.tool_version);
  s += fmt::format("- git: {} ({})\n", p.git_commit, p.git_state);
  s += fmt::format("- build: {}, CUDA architectures {}, flags `{}`\n", p.build.type,
                   p.build.cuda_architectures, p.build.flags);
  if (p.gpu.available) {
    s += fmt::format("- device: {} (cc {}.{}, {} SMs, L2 {} MiB), driver {}, runtime {}\n", p.gpu.name,
                     p.gpu.cc_major, p.gpu.cc_minor, p.gpu.sm_count, p.gpu.l2_bytes >> 20,
                     p.gpu.driver_version, p.gpu.runtime_version);
    s += fmt::format("- clocks at start: SM {} MHz, memory {} MHz (NVML: {})\n",
                     p.sm_clock_mhz_at_start ? fmt::format("{:.0f}", *p.sm_clock_mhz_at_start) : "?",
                     p.mem_clock_mhz_at_start ? fmt::format("{:.0f}", *p.mem_clock_mhz_at_start) : "?",
                     p.nvml_status.empty() ? "not queried" : p.nvml_status);
  } else {
    s += fmt::format("- device: none ({})\n", p.gpu.reason);
  }
  for (const ScenarioFileInfo& f : p.scenario_files) {
    s += fmt::format("- scenario file: `{}` sha256 {}\n", f.path, f.sha256);
  }
  if (!p.l2_flush.empty()) {
    s += fmt::format("- cold-L2 flush: {}\n", p.l2_flush == "write"
                                                  ? "write (a memset of 2x the L2: its dirty lines are "
                                                    "written back inside the timed launch)"
                                                  : "read (one read pass over 2x the L2: clean lines)");
  }

  s += "\n## Ceilings (measured in this run)\n\n";
  if (ceilings) {
    auto method = [&](const std::string& name) {
      for (const auto& [k, v] : ceilings->method) {
        if (k == name) return md(v);
      }
      return std::string("-");
    };
    std::vector<CeilingRow> rows = {
        {"1152-byte rows, in order", fmt::format("{:.0f} GB/s", ceilings->row_read_contiguous_gbps),
         method("row_read_contiguous")},
        {"1152-byte rows, page 1 shuffled", fmt::format("{:.0f} GB/s", ceilings->row_read_shuffled_gbps),
         method("row_read_shuffled")},
    };
    // The 576-byte rows (fp8 KV): absent from result files before 2026-12-06.
    if (ceilings->row576_read_contiguous_gbps > 0 || ceilings->row576_read_shuffled_gbps > 0) {
      rows.push_back({"576-byte rows, in order", fmt::format("{:.0f} GB/s", ceilings->row576_read_contiguous_gbps),
                      method("row576_read_contiguous")});
      rows.push_back({"576-byte rows, page 1 shuffled",
                      fmt::format("{:.0f} GB/s", ceilings->row576_read_shuffled_gbps), method("row576_read_shuffled")});
    }
    if (ceilings->memory_peak_gbps > 0) {
      const std::string how = method("memory_peak");
      rows.push_back({"memory, datasheet", fmt::format("{:.0f} GB/s", ceilings->memory_peak_gbps),
                      how != "-" ? how : "the device's memory clock x bus width x 2 transfers a clock"});
    }
    rows.push_back({"device-to-device copy", fmt::format("{:.0f} GB/s", ceilings->d2d_copy_gbps), method("d2d_copy")});
    rows.push_back({"mma.sync bf16", fmt::format("{:.0f} TFLOP/s", ceilings->mma_bf16_tflops), method("mma_bf16")});
    // A tensor ceiling the run measured or says why not.
    auto tensor_ceiling = [&](const char* label, double tflops, const std::string& name) {
      if (tflops > 0 || method(name) != "-") {
        rows.push_back({label, tflops > 0 ? fmt::format("{:.0f} TFLOP/s", tflops) : std::string("-"), method(name)});
      }
    };
    tensor_ceiling("mma.sync fp8 e4m3", ceilings->mma_fp8_tflops, "mma_fp8");
    // sm_120's rates as this run emulates them, also per clock and SM beside sm_120's own.
    auto emulated_rate = [&](const char* label, double tflops, double sm120_per_clock, const std::string& name) {
      if (tflops <= 0) return;
      const double per_clock = flop_per_clock_and_sm(*ceilings, tflops);
      const std::string value =
          per_clock > 0 ? fmt::format("{:.0f} TFLOP/s ({:.0f} FLOP per clock and SM; sm_120: {:.0f})", tflops,
                                      per_clock, sm120_per_clock)
                        : fmt::format("{:.0f} TFLOP/s", tflops);
      rows.push_back({label, value, method(name)});
    };
    emulated_rate("sm_120 emulated, bf16", ceilings->sm120_emulated_bf16_tflops, kSm120MmaBf16FlopPerClockSm,
                  "sm120_emulated_bf16");
    emulated_rate("sm_120 emulated, fp8 e4m3", ceilings->sm120_emulated_fp8_tflops, kSm120MmaFp8FlopPerClockSm,
                  "sm120_emulated_fp8");
    tensor_ceiling("wgmma bf16", ceilings->wgmma_bf16_tflops, "wgmma_bf16");
    tensor_ceiling("wgmma MLA tile (kernel design)", ceilings->wgmma_mla_tile_tflops, "wgmma_mla_tile");
    tensor_ceiling("wgmma MLA tile + copies (kernel design)", ceilings->wgmma_mla_tile_copies_tflops,
                   "wgmma_mla_tile_copies");
    if (ceilings->launch_floor_us > 0) {
      rows.push_back({"launch floor", fmt::format("{:.1f} µs", ceilings->launch_floor_us), method("launch_floor")});
    }
    if (ceilings->pdl_floor_us > 0) {
      rows.push_back({"PDL floor", fmt::format("{:.2f} µs", ceilings->pdl_floor_us), method("pdl_floor")});
    }
    static const std::vector<Column<CeilingRow>> columns = {
        {"ceiling", false, [](const CeilingRow& r) { return r.ceiling; }},
        {"value", true, [](const CeilingRow& r) { return r.value; }},
        {"how", false, [](const CeilingRow& r) { return r.how; }},
    };
    s += markdown_table(columns, rows);
    s += "\nThe memory roof of a case is the shuffled-row ceiling for page size 1 and the in-order one otherwise, "
         "of its KV row: 1152-byte rows for a bf16 pool, 576-byte rows for an fp8 e4m3 one.";
    if (ceilings->wgmma_bf16_tflops > 0) {
      s += fmt::format(" The compute roof of every case is the device's best tensor-core ceiling ({} {:.0f} TFLOP/s), "
                       "whatever engine runs it; each engine's rows also show their % of their own instruction's "
                       "ceiling (Tensor-core engines below).",
                       ceilings->wgmma_bf16_tflops > ceilings->mma_bf16_tflops ? "wgmma" : "mma.sync",
                       tensor_ceiling_tflops(*ceilings));
    }
    if (ceilings->wgmma_mla_tile_tflops > 0) {
      s += " The MLA tile rows measure the wgmma kernel's own tile with nothing waiting: a ceiling of its design, "
           "never a case's roof.";
    }
    if (ceilings->launch_floor_us > 0) {
      s += " No launch is timed below the launch floor, so a case whose roof time is a small multiple of it "
           "cannot come near its roof (% attainable ignores the floor).";
    }
    s += "\n";
  } else {
    s += "Not measured in this run (no `--time`, no device, or the measurement failed).\n";
  }

  s += "\n## Timing\n\n";
  s += "Times are medians in µs of CUDA-event samples; noise is the relative standard error of the median; "
       "GB/s and TFLOP/s use the algorithmic bytes and FLOPs of the case and the cold-L2 median "
       "(hot-L2, then graph, when cold was not run); `SoL!` marks a rate above its measured ceiling.\n\n";
  std::vector<TimingRow> rows;
  int untimed = 0;
  for (const CaseResult& c : cases) {
    bool any = false;
    for (const ExecutorResult& e : c.executors) {
      if (e.timings.empty()) continue;
      any = true;
      rows.push_back({&c, &e});
    }
    if (!any) ++untimed;
  }
  s += markdown_table(timing_columns(), rows);
  if (untimed > 0) {
    std::string why = "not timed (run with --time)";
    for (const CaseResult& c : cases) {
      if (!c.timing_note.empty()) {
        why = c.timing_note;
        break;
      }
    }
    s += fmt::format("\n{} of {} cases have no timing: {}\n", untimed, cases.size(), why);
  }

  s += format_speedup_section(cases);
  s += format_chain_section(cases);
  s += format_engine_section(cases, ceilings);
  s += format_pdl_goal_section(cases);
  s += format_sm120_section(cases, ceilings);
  s += format_fp8_twin_section(cases);
  s += format_fp8_math_error_section(cases);

  s += "\n## Correctness\n\n";
  const OutcomeCounts n = count_outcomes(cases);
  s += fmt::format("{} cases; executor checks: {} passed, {} incorrect, {} launch failed, {} not run, "
                   "{} not verified, {} not supported.\n",
                   n.cases, n.passed, n.incorrect, n.launch_failed, n.not_run, n.not_verified, n.not_supported);
  for (const CaseResult& c : cases) {
    if (!c.all_passed()) s += fmt::format("- {} failed; reproduce: `{}`\n", md(c.case_name), c.reproducer);
  }
  return s;
}

}  // namespace vb

#include "harness/report/report_markdown.h"

#include <fmt/format.h>

#include "harness/plan/device_models.h"
#include "harness/measure/traffic_model.h"

namespace vb {
namespace {

std::string md(const std::string& text) {  // escape table pipes
  std::string out;
  for (char c : text) {
    if (c == '|') out += "\\|";
    else out += c;
  }
  return out;
}

std::string us(double ms) { return fmt::format("{:.1f}", ms * 1e3); }
std::string opt_pct(const std::optional<double>& v) { return v ? fmt::format("{:.1f}%", *v) : "-"; }

// Each executor row that ran a production engine against that engine's own ceiling, and the
// wgmma rows against the wgmma kernel's design ceiling (its tile with the stage's copies and
// nothing else) where the run measured it.
std::string format_engine_section(const std::vector<CaseResult>& cases, const std::optional<Ceilings>& ceilings) {
  const double design_tflops = ceilings ? ceilings->wgmma_mla_tile_copies_tflops : 0;
  std::string rows;
  for (const CaseResult& c : cases) {
    for (const ExecutorResult& e : c.executors) {
      if (!e.achieved || !e.achieved->pct_of_engine_ceiling) continue;
      const Achieved& a = *e.achieved;
      rows += fmt::format("| {} | {} | {} | {} | {:.2f} | {} | {} |", md(c.case_name), md(e.executor), a.engine,
                          a.bound.empty() ? "-" : a.bound, a.tflops, opt_pct(a.pct_of_engine_ceiling),
                          opt_pct(a.pct_of_attainable));
      if (design_tflops > 0) {
        rows += a.engine == "wgmma" ? fmt::format(" {:.1f}% |", 100.0 * a.tflops / design_tflops) : std::string(" - |");
      }
      rows += "\n";
    }
  }
  if (rows.empty()) return "";
  std::string head =
      "\n## Tensor-core engines\n\n"
      "Each production row's TFLOP/s against the ceiling of the instruction it ran (mma.sync rows against the "
      "mma.sync ceiling, wgmma rows against the wgmma ceiling), beside its % of the case's attainable roof.";
  if (design_tflops > 0) {
    head += fmt::format(" The last column holds the wgmma rows against the wgmma kernel's own tile with its copies "
                        "and nothing else ({:.0f} TFLOP/s, Ceilings): how far the softmax, the waits for loads and "
                        "the fixed costs leave the kernel below what its design can issue.",
                        design_tflops);
  }
  head += "\n\n| case | executor | engine | bound | TFLOP/s | % of engine ceiling | % attainable |";
  head += design_tflops > 0 ? " % of MLA tile + copies |\n| --- | --- | --- | --- | ---: | ---: | ---: | ---: |\n"
                            : "\n| --- | --- | --- | --- | ---: | ---: | ---: |\n";
  return head + rows;
}

// Issue 27, item 3: chain-pdl median against 1.5 x roof + PDL floor + 3 µs.
std::string format_pdl_goal_section(const std::vector<CaseResult>& cases) {
  std::string rows;
  int met = 0, total = 0;
  for (const CaseResult& c : cases) {
    if (!c.pdl_goal) continue;
    const PdlGoal& g = *c.pdl_goal;
    ++total;
    met += g.met ? 1 : 0;
    rows += fmt::format("| {} | {:.1f} | {:.1f} | {:.1f} | {} |\n", md(c.case_name), g.chain_pdl_us, g.roof_us,
                        g.bound_us, g.met ? "yes" : "**no**");
  }
  if (rows.empty()) return "";
  return fmt::format(
             "\n## Small launches as serving runs them\n\n"
             "Goal: the production executor's chain-pdl median ≤ {} × roof + PDL floor + {:g} µs, where roof is the "
             "case's time at its attainable roof (max(bytes / memory ceiling, FLOPs / tensor ceiling)) and the PDL "
             "floor is this run's. Met on {} of {} cases.\n\n"
             "| case | chain-pdl µs | roof µs | bound µs | met? |\n| --- | ---: | ---: | ---: | --- |\n",
             kPdlGoalRoofFactor, kPdlGoalSlackUs, met, total) +
         rows;
}

// Issue 26, item 1: the sm_120 proxy's rows and the RTX PRO 6000 time predicted from them.
std::string format_sm120_proxy_section(const std::vector<CaseResult>& cases) {
  std::string rows, method;
  for (const CaseResult& c : cases) {
    for (const ExecutorResult& e : c.executors) {
      if (e.executor != kSm120ProxyExecutor || !e.achieved) continue;
      const Achieved& a = *e.achieved;
      const TimingRecord* t = preferred_timing(e);
      const DevicePrediction* p = e.prediction ? &*e.prediction : nullptr;
      if (p != nullptr && method.empty()) {
        if (const DeviceModel* target = find_device_model(p->device)) method = prediction_method(*target);
      }
      rows += fmt::format("| {} | {} | {:.2f} | {} | {:.0f} | {} | {} | {} | {} |\n", md(c.case_name),
                          t ? us(t->median_ms) : "-", a.tflops, opt_pct(a.pct_of_engine_ceiling), a.gbps,
                          opt_pct(a.pct_of_memory_ceiling),
                          p ? fmt::format("{:.0f}%", 100 * p->fraction_of_roof) : "-",
                          p ? fmt::format("{:.1f} ({})", p->time_us, p->bound) : "-",
                          p && p->overlap_bound_us ? fmt::format("{:.1f} ({})", *p->overlap_bound_us, p->overlap_bound)
                                                   : "-");
    }
  }
  if (rows.empty()) return "";
  return fmt::format("\n## sm_120 proxy and the predicted RTX PRO 6000 time\n\n"
                     "`{}`: the mma.sync path in sm_120's configuration on this device. The % columns are of this "
                     "run's mma.sync and row ceilings; \"of roof\" is the fraction f of its roof (mma.sync and "
                     "memory) it reaches. **Predicted** RTX PRO 6000 µs: {}.\n\n"
                     "| case | proxy µs | TFLOP/s | % of mma.sync ceiling | GB/s | % of row ceiling | of roof | "
                     "predicted RTX PRO 6000 µs: roof-fraction estimate (bound there) | overlap bound (set by) |\n"
                     "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n",
                     kSm120ProxyExecutor, md(method.empty() ? "not predicted (no ceilings)" : method)) +
         rows;
}

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
    s += "| ceiling | value | how |\n| --- | ---: | --- |\n";
    auto method = [&](const std::string& name) {
      for (const auto& [k, v] : ceilings->method) {
        if (k == name) return md(v);
      }
      return std::string("-");
    };
    s += fmt::format("| 1152-byte rows, in order | {:.0f} GB/s | {} |\n", ceilings->row_read_contiguous_gbps, method("row_read_contiguous"));
    s += fmt::format("| 1152-byte rows, page 1 shuffled | {:.0f} GB/s | {} |\n", ceilings->row_read_shuffled_gbps, method("row_read_shuffled"));
    s += fmt::format("| device-to-device copy | {:.0f} GB/s | {} |\n", ceilings->d2d_copy_gbps, method("d2d_copy"));
    s += fmt::format("| mma.sync bf16 | {:.0f} TFLOP/s | {} |\n", ceilings->mma_bf16_tflops, method("mma_bf16"));
    if (ceilings->wgmma_bf16_tflops > 0 || method("wgmma_bf16") != "-") {
      s += fmt::format("| wgmma bf16 | {} | {} |\n",
                       ceilings->wgmma_bf16_tflops > 0 ? fmt::format("{:.0f} TFLOP/s", ceilings->wgmma_bf16_tflops)
                                                       : std::string("-"),
                       method("wgmma_bf16"));
    }
    auto design_ceiling = [&](const char* label, double tflops, const std::string& name) {
      if (tflops > 0 || method(name) != "-") {
        s += fmt::format("| {} | {} | {} |\n", label, tflops > 0 ? fmt::format("{:.0f} TFLOP/s", tflops) : std::string("-"),
                         method(name));
      }
    };
    design_ceiling("wgmma MLA tile (kernel design)", ceilings->wgmma_mla_tile_tflops, "wgmma_mla_tile");
    design_ceiling("wgmma MLA tile + copies (kernel design)", ceilings->wgmma_mla_tile_copies_tflops,
                   "wgmma_mla_tile_copies");
    if (ceilings->launch_floor_us > 0) {
      s += fmt::format("| launch floor | {:.1f} µs | {} |\n", ceilings->launch_floor_us, method("launch_floor"));
    }
    if (ceilings->pdl_floor_us > 0) {
      s += fmt::format("| PDL floor | {:.2f} µs | {} |\n", ceilings->pdl_floor_us, method("pdl_floor"));
    }
    s += "\nThe memory roof of a case is the shuffled-row ceiling for page size 1 and the in-order one otherwise.";
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
  s += "| case | B | T | H | page | MB | GFLOP | FLOP/B | executor | outcome | cold µs | hot µs | graph µs | noise | GB/s | TFLOP/s | % attainable | bound | clock MHz | notes |\n";
  s += "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | --- |\n";
  int untimed = 0;
  for (const CaseResult& c : cases) {
    const std::string mb = c.traffic ? fmt::format("{:.2f}", c.traffic->algorithmic_bytes / 1e6) : "-";
    const std::string gf = c.traffic ? fmt::format("{:.3f}", c.traffic->flops / 1e9) : "-";
    const std::string in = c.traffic ? fmt::format("{:.1f}", c.traffic->intensity()) : "-";
    bool any = false;
    for (const ExecutorResult& e : c.executors) {
      if (e.timings.empty()) continue;
      any = true;
      auto med = [&](const char* mode) {
        const TimingRecord* t = find_timing(e, mode);
        return t ? us(t->median_ms) : std::string("-");
      };
      const TimingRecord* pref = preferred_timing(e);
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
      s += fmt::format(
          "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n",
          md(c.case_name), c.batch, c.tree_size, c.heads, c.page_size, mb, gf, in, md(e.executor),
          to_string(e.outcome), med("cold-l2"), med("hot-l2"), med("graph"),
          pref ? fmt::format("{:.2f}%", 100 * pref->rel_noise) : "-",
          e.achieved ? fmt::format("{:.0f}", e.achieved->gbps) : "-",
          e.achieved ? fmt::format("{:.2f}", e.achieved->tflops) : "-",
          e.achieved ? opt_pct(e.achieved->pct_of_attainable) : "-",
          e.achieved && !e.achieved->bound.empty() ? e.achieved->bound : "-",
          pref && pref->sm_clock_mhz_median ? fmt::format("{:.0f}", *pref->sm_clock_mhz_median) : "-",
          notes);
    }
    if (!any) ++untimed;
  }
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

  bool header = false;
  for (const CaseResult& c : cases) {
    if (!c.speedup_vs_naive && !c.mask_tax) continue;
    if (!header) {
      s += "\n## Speedup and mask tax\n\n| case | production vs naive (cold) | mask tax |\n| --- | ---: | ---: |\n";
      header = true;
    }
    s += fmt::format("| {} | {} | {} |\n", md(c.case_name),
                     c.speedup_vs_naive ? fmt::format("{:.2f}x", *c.speedup_vs_naive) : "-",
                     c.mask_tax ? fmt::format("{:+.1f}%", 100 * *c.mask_tax) : "-");
  }

  // Chain samples (--modes chain,chain-pdl): a separate table, since they answer another
  // question than the cold sample (what a launch costs between other kernels).
  header = false;
  for (const CaseResult& c : cases) {
    for (const ExecutorResult& e : c.executors) {
      const TimingRecord* chain = find_timing(e, "chain");
      const TimingRecord* pdl = find_timing(e, "chain-pdl");
      if (chain == nullptr && pdl == nullptr) continue;
      if (!header) {
        s += fmt::format(
            "\n## Back-to-back launches\n\n"
            "A chain sample is {} launches back to back after a hold, divided by {}: what a launch costs "
            "between other kernels, with the L2 holding what the previous launch left. chain-pdl launches each "
            "production launch over the previous one (programmatic dependent launch).\n\n"
            "| case | executor | cold µs | chain µs | chain-pdl µs | chain-pdl / chain |\n"
            "| --- | --- | ---: | ---: | ---: | ---: |\n",
            kChainLaunches, kChainLaunches);
        header = true;
      }
      const TimingRecord* cold = find_timing(e, "cold-l2");
      s += fmt::format("| {} | {} | {} | {} | {} | {} |\n", md(c.case_name), md(e.executor),
                       cold ? us(cold->median_ms) : "-", chain ? us(chain->median_ms) : "-",
                       pdl ? us(pdl->median_ms) : "-",
                       chain && pdl ? fmt::format("{:.3f}", pdl->median_ms / chain->median_ms) : "-");
    }
  }

  s += format_engine_section(cases, ceilings);
  s += format_pdl_goal_section(cases);
  s += format_sm120_proxy_section(cases);

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

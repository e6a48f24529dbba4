// Traffic and work model, roofline position, speedup and mask tax.
#include "harness/measure/traffic_model.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/plan/device_models.h"
#include "harness/problem/problem.h"

namespace vb {

TrafficInput traffic_input(const Problem& problem) {
  TrafficInput in;
  in.batch = problem.batch;
  in.tree_size = problem.tree_size;
  in.num_heads = problem.num_heads;
  in.page_size = problem.pages.page_size;
  in.mask_words = problem.mask_words;
  in.prefix_len = problem.prefix_len;
  in.kv_rows = problem.pages.kv_indices;
  in.kv_row_bytes = kv_row_bytes(problem.kv_dtype());
  return in;
}

TrafficModel traffic_model(const TrafficInput& in) {
  TrafficModel m;
  const std::int64_t B = in.batch, T = in.tree_size, H = in.num_heads;
  std::int64_t kv_tokens = 0, table_pages = 0;
  const std::int64_t page = std::max(1, in.page_size);
  for (std::int32_t p : in.prefix_len) {
    kv_tokens += p + T;
    table_pages += (p + T + page - 1) / page;
  }
  std::vector<std::int64_t> rows = in.kv_rows;
  std::sort(rows.begin(), rows.end());
  const std::int64_t unique_rows = std::unique(rows.begin(), rows.end()) - rows.begin();
  std::vector<std::int64_t> pages(rows.begin(), rows.begin() + unique_rows);
  for (std::int64_t& r : pages) r /= page;
  const std::int64_t unique_pages = std::unique(pages.begin(), pages.end()) - pages.begin();

  const std::int64_t table_bytes =
      4 * B + (page == 1 ? 4 * (B + 1) + 8 * kv_tokens : 4 * table_pages);
  const std::int64_t mask_bytes = 8 * B * T * std::max(1, in.mask_words);
  m.kv_row_bytes = in.kv_row_bytes;
  m.kv_unique_bytes = in.kv_row_bytes * unique_rows;
  m.algorithmic_bytes = m.kv_unique_bytes + (kQRowBytes + kORowBytes + kLseBytes) * B * T * H +
                        table_bytes + mask_bytes;
  m.page_bytes = unique_pages * page * in.kv_row_bytes;
  m.flops = kFlopsPerVisiblePair * static_cast<double>(kv_tokens) * static_cast<double>(H) *
            static_cast<double>(T);
  return m;
}

double memory_ceiling_gbps(const Ceilings& c, int page_size, std::int64_t kv_row_bytes) {
  if (kv_row_bytes == kKvRowBytesFp8) {
    return page_size == 1 ? c.row576_read_shuffled_gbps : c.row576_read_contiguous_gbps;
  }
  return page_size == 1 ? c.row_read_shuffled_gbps : c.row_read_contiguous_gbps;
}

double tensor_ceiling_tflops(const Ceilings& c) { return std::max(c.mma_bf16_tflops, c.wgmma_bf16_tflops); }

double engine_ceiling_tflops(const Ceilings& c, const std::string& engine) {
  if (engine == "mma.sync") return c.mma_bf16_tflops;
  if (engine == "wgmma") return c.wgmma_bf16_tflops;
  return 0;
}

double flop_per_clock_and_sm(const Ceilings& c, double tflops) {
  if (c.mma_clock_mhz <= 0 || c.sm_count <= 0) return 0;
  return tflops * 1e6 / (c.mma_clock_mhz * c.sm_count);
}

double attainable_tflops(const Ceilings& c, int page_size, std::int64_t kv_row_bytes, double intensity) {
  return std::min(memory_ceiling_gbps(c, page_size, kv_row_bytes) * intensity / 1e3, tensor_ceiling_tflops(c));
}

namespace {

// max(bytes / memory roof, FLOPs / compute roof) in µs; 0 when a roof is missing.
double roof_us(const TrafficModel& traffic, double memory_gbps, double compute_tflops) {
  if (memory_gbps <= 0 || compute_tflops <= 0) return 0;
  return std::max(static_cast<double>(traffic.algorithmic_bytes) / (memory_gbps * 1e3),
                  traffic.flops / (compute_tflops * 1e6));
}

}  // namespace

double roof_time_us(const TrafficModel& traffic, const Ceilings& c, int page_size) {
  return roof_us(traffic, memory_ceiling_gbps(c, page_size, traffic.kv_row_bytes), tensor_ceiling_tflops(c));
}

std::string executor_engine(const ExecutorResult& e) { return e.launch ? e.launch->engine : ""; }

const TimingRecord* find_timing(const ExecutorResult& e, const std::string& mode) {
  for (const TimingRecord& t : e.timings) {
    if (t.mode == mode && !t.samples_ms.empty() && t.median_ms > 0) return &t;
  }
  return nullptr;
}

const TimingRecord* preferred_timing(const ExecutorResult& e) {
  for (const char* mode : {"cold-l2", "hot-l2", "graph"}) {
    if (const TimingRecord* t = find_timing(e, mode)) return t;
  }
  return nullptr;
}

Achieved achieved_for(const TrafficModel& traffic, const TimingRecord& timing,
                      const std::optional<Ceilings>& ceilings, int page_size, const std::string& engine) {
  Achieved a;
  a.mode = timing.mode;
  a.engine = engine;
  const double seconds = timing.median_ms * 1e-3;
  a.gbps = static_cast<double>(traffic.algorithmic_bytes) / seconds / 1e9;
  a.tflops = traffic.flops / seconds / 1e12;
  if (!ceilings) return a;
  const double mem = memory_ceiling_gbps(*ceilings, page_size, traffic.kv_row_bytes);
  const double tensor = tensor_ceiling_tflops(*ceilings);
  if (tensor > 0 && mem > 0) {
    const double intensity = traffic.intensity();
    a.bound = mem * intensity / 1e3 < tensor ? "memory" : "compute";
    a.pct_of_attainable = 100.0 * a.tflops / attainable_tflops(*ceilings, page_size, traffic.kv_row_bytes, intensity);
    a.speed_of_light = a.gbps > mem || a.tflops > tensor;
  }
  if (mem > 0) a.pct_of_memory_ceiling = 100.0 * a.gbps / mem;
  if (const double own = engine_ceiling_tflops(*ceilings, engine); own > 0) {
    a.pct_of_engine_ceiling = 100.0 * a.tflops / own;
  }
  return a;
}

std::optional<PdlGoal> pdl_goal_for(const CaseResult& c, const Ceilings& ceilings, const std::string& executor) {
  if (!c.traffic || ceilings.pdl_floor_us <= 0) return std::nullopt;
  const double roof = roof_time_us(*c.traffic, ceilings, c.page_size);
  if (roof <= 0) return std::nullopt;
  for (const ExecutorResult& e : c.executors) {
    if (e.executor != executor) continue;
    const TimingRecord* pdl = find_timing(e, "chain-pdl");
    if (pdl == nullptr) return std::nullopt;
    PdlGoal g;
    g.executor = executor;
    g.chain_pdl_us = pdl->median_ms * 1e3;
    g.roof_us = roof;
    g.pdl_floor_us = ceilings.pdl_floor_us;
    g.bound_us = kPdlGoalRoofFactor * roof + ceilings.pdl_floor_us + kPdlGoalSlackUs;
    g.met = g.chain_pdl_us <= g.bound_us;
    return g;
  }
  return std::nullopt;
}

std::optional<Sm120EmulatedFractions> sm120_emulated_fractions(const TrafficModel& traffic, const Achieved& achieved,
                                                               const Ceilings& ceilings, int page_size, MathMode math) {
  const double emulated =
      math == MathMode::kFp8 ? ceilings.sm120_emulated_fp8_tflops : ceilings.sm120_emulated_bf16_tflops;
  const double memory = memory_ceiling_gbps(ceilings, page_size, traffic.kv_row_bytes);
  if (emulated <= 0 || memory <= 0) return std::nullopt;
  Sm120EmulatedFractions f;
  f.pct_of_emulated_rate = 100.0 * achieved.tflops / emulated;
  f.pct_of_attainable = 100.0 * achieved.tflops / std::min(memory * traffic.intensity() / 1e3, emulated);
  return f;
}

std::string prediction_missing(const Ceilings& ceilings, const DeviceModel& target) {
  std::vector<std::string> missing;
  if (ceilings.mma_clock_mhz <= 0) missing.emplace_back("the mma.sync probe's SM clock (mma_clock_mhz)");
  if (ceilings.sm_count <= 0) missing.emplace_back("the device's SM count (sm_count)");
  if (ceilings.memory_peak_gbps <= 0) missing.emplace_back("the datasheet memory bandwidth (memory_peak_gbps)");
  std::string why = missing.empty() ? "" : fmt::format("the ceilings lack {}", fmt::join(missing, ", "));
  if (target.sm_clock_mhz <= 0 || target.num_sms <= 0 || target.memory_gbps <= 0) {
    why += fmt::format("{}the {} model lacks its clock, SM count or memory bandwidth", why.empty() ? "" : "; ",
                       target.name);
  }
  return why;
}

std::optional<DevicePrediction> predict_on_device(const TrafficModel& traffic, double emulated_us,
                                                  const Ceilings& ceilings, int page_size,
                                                  const DeviceModel& target, std::int64_t launch_blocks) {
  const double memory_here = memory_ceiling_gbps(ceilings, page_size, traffic.kv_row_bytes);
  if (!prediction_missing(ceilings, target).empty() || memory_here <= 0 || emulated_us <= 0) return std::nullopt;
  // One block per SM: a launch of fewer blocks than SMs kept only that many busy.
  const std::int64_t busy_sms =
      launch_blocks > 0 ? std::min<std::int64_t>(launch_blocks, ceilings.sm_count) : ceilings.sm_count;
  DevicePrediction p;
  p.device = target.slug;
  p.sm_clock_mhz = target.sm_clock_mhz;
  p.num_sms = target.num_sms;
  p.sm_cycles_us = emulated_us * (ceilings.mma_clock_mhz / target.sm_clock_mhz) *
                   (static_cast<double>(busy_sms) / target.num_sms);
  p.rho = memory_here / ceilings.memory_peak_gbps;
  const double bytes = static_cast<double>(traffic.algorithmic_bytes);
  p.memory_datasheet_us = bytes / (target.memory_gbps * 1e3);
  p.memory_us = bytes / (target.memory_gbps * p.rho * 1e3);
  p.time_us = std::max(p.sm_cycles_us, p.memory_us);
  p.low_us = std::max(p.sm_cycles_us, p.memory_datasheet_us);
  p.high_us = p.sm_cycles_us + p.memory_us;
  p.bound = p.sm_cycles_us >= p.memory_us ? "SM cycles" : "memory";
  return p;
}

std::string prediction_method(const DeviceModel& target) {
  return fmt::format(
      "a prediction, not a measurement, made from `{0}` (the proxy's launch with its tensor pipe held to "
      "sm_120's rate per SM and clock, so its SM cycles hold sm_120's tensor work). C, the SM-side time on the "
      "{1}: its cold-L2 median here x the mma.sync probe's SM clock in this run / {2:.0f} MHz x the SMs its "
      "blocks kept busy here (one block an SM) / {3} SMs. M, the memory time there: the algorithmic bytes / "
      "({4:.0f} GB/s x rho), where {4:.0f} GB/s is its GDDR7's datasheet bandwidth and rho the fraction of this "
      "device's datasheet bandwidth that the row-read ceiling of the case's page size and KV row size reaches in "
      "this run, taken to carry over to GDDR7. Predicted time = max(C, M): the SM side and the memory stream "
      "overlap, as the memory-bound cases show they do here; interval [max(C, bytes / {4:.0f} GB/s), C + M]: full "
      "overlap at the datasheet bandwidth, and no overlap. The emulation cannot show sm_120's 128 MB L2 (a long "
      "shared prefix may sit in it), GDDR7's latency with only 2 pipeline stages in flight, or the clock the card "
      "holds under load: each 100 MHz below {2:.0f} MHz lengthens C by about 4 %",
      kSm120EmuExecutor, target.name, target.sm_clock_mhz, target.num_sms, target.memory_gbps);
}

namespace {

const ExecutorResult* find_executor(const CaseResult& c, const std::string& name) {
  for (const ExecutorResult& e : c.executors) {
    if (e.executor == name && !e.timings.empty()) return &e;
  }
  return nullptr;
}

std::optional<double> cold_median(const CaseResult& c, const std::string& executor) {
  const ExecutorResult* e = find_executor(c, executor);
  if (e == nullptr) return std::nullopt;
  const TimingRecord* t = find_timing(*e, "cold-l2");
  if (t == nullptr) return std::nullopt;
  return t->median_ms;
}

}  // namespace

void annotate_roofline(std::vector<CaseResult>* cases, const std::optional<Ceilings>& ceilings) {
  const DeviceModel* rtx = find_device_model("rtx-pro-6000");
  for (CaseResult& c : *cases) {
    for (ExecutorResult& e : c.executors) {
      const TimingRecord* t = preferred_timing(e);
      if (t == nullptr || !c.traffic) continue;
      // The proxy and its emulation run mma.sync by definition, whatever their launch records say.
      const bool emulated = e.executor == kSm120EmuExecutor;
      const bool mma_sync = emulated || e.executor == kSm120ProxyExecutor;
      e.achieved = achieved_for(*c.traffic, *t, ceilings, c.page_size, mma_sync ? "mma.sync" : executor_engine(e));
      if (!emulated || !ceilings) continue;
      const bool fp8_math = e.launch && e.launch->runs_fp8_math();
      e.sm120_fractions = sm120_emulated_fractions(*c.traffic, *e.achieved, *ceilings, c.page_size,
                                                   fp8_math ? MathMode::kFp8 : MathMode::kBf16);
      if (const TimingRecord* cold = find_timing(e, "cold-l2"); cold != nullptr && rtx != nullptr) {
        e.prediction = predict_on_device(*c.traffic, cold->median_ms * 1e3, *ceilings, c.page_size, *rtx,
                                         e.launch ? e.launch->launch_blocks() : 0);
      }
    }
    if (ceilings) c.pdl_goal = pdl_goal_for(c, *ceilings);
    const auto naive = cold_median(c, kNaiveExecutor), production = cold_median(c, kProductionExecutor);
    if (naive && production) c.speedup_vs_naive = *naive / *production;
  }
  for (CaseResult& c : *cases) {
    for (const std::string& tag : c.tags) {
      if (tag.rfind(kMaskTaxTag, 0) != 0) continue;
      const std::string twin = tag.substr(std::string(kMaskTaxTag).size());
      for (const CaseResult& other : *cases) {
        if (other.case_name != twin) continue;
        const auto tree = cold_median(c, kProductionExecutor), chain = cold_median(other, kProductionExecutor);
        if (tree && chain) c.mask_tax = *tree / *chain - 1.0;
      }
    }
  }
}

}  // namespace vb

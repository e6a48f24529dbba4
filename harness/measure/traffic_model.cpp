// Traffic and work model, roofline position, speedup and mask tax.
#include "harness/measure/traffic_model.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

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

std::optional<DevicePrediction> predict_on_device(const TrafficModel& traffic, double median_us,
                                                  const Ceilings& ceilings, int page_size,
                                                  const DeviceModel& target, std::int64_t launch_blocks) {
  const double here =
      roof_us(traffic, memory_ceiling_gbps(ceilings, page_size, traffic.kv_row_bytes), ceilings.mma_bf16_tflops);
  const double there = roof_us(traffic, target.memory_gbps, target.mma_tflops);
  if (here <= 0 || there <= 0 || median_us <= 0) return std::nullopt;
  DevicePrediction p;
  p.device = target.slug;
  p.fraction_of_roof = here / median_us;
  p.roof_us = there;
  p.time_us = there / p.fraction_of_roof;
  const double memory_us = static_cast<double>(traffic.algorithmic_bytes) / (target.memory_gbps * 1e3);
  p.bound = memory_us >= traffic.flops / (target.mma_tflops * 1e6) ? "memory" : "compute";
  if (ceilings.mma_clock_mhz > 0 && target.sm_clock_mhz > 0 && ceilings.sm_count > 0 && target.num_sms > 0) {
    // The launch's SM-busy cycles here, spread evenly over the target's SMs.
    const std::int64_t busy_sms = launch_blocks > 0 ? std::min<std::int64_t>(launch_blocks, ceilings.sm_count)
                                                    : ceilings.sm_count;
    const double sm_scaling = static_cast<double>(busy_sms) / target.num_sms;
    p.sm_cycles_us = median_us * (ceilings.mma_clock_mhz / target.sm_clock_mhz) * sm_scaling;
    p.overlap_bound_us = std::max(there, *p.sm_cycles_us);
    p.overlap_bound = *p.sm_cycles_us > there ? "SM cycles" : p.bound;
  }
  return p;
}

std::string prediction_method(const DeviceModel& target) {
  return fmt::format(
      "a prediction, not a measurement, made two ways. Roof-fraction estimate: f = the proxy's roof time on this device "
      "(max(bytes / the memory ceiling of the page size and KV row size, FLOPs / the mma.sync ceiling), both "
      "measured in "
      "this run) / its measured median; estimate = {0}'s roof time (max(bytes / {1:.0f} GB/s, FLOPs / "
      "{2:.1f} TFLOP/s); {3}) / f: the fraction of the binding roof carries over. Overlap bound: the larger "
      "of {0}'s roof time and the proxy's SM cycles carried over (its median x the mma.sync probe's SM "
      "clock in this run / {4:.0f} MHz, x the SMs its blocks kept busy here / {5}): a lower bound if the "
      "SM-side work (issue, shared memory, barriers, latencies) takes as many cycles there as here, spreads "
      "evenly over {0}'s {5} SMs and overlaps its slower tensor cores and memory perfectly (an SM here "
      "issues mma.sync at up to about 2,730 FLOP per clock, one there at 1,024). The estimate assumes "
      "instead that the proxy's shortfall from its roof here carries over to the roof there. Neither shows "
      "sm_120's 128 MB L2, GDDR7's latency or the fixed costs of a small launch",
      target.name, target.memory_gbps, target.mma_tflops, target.source, target.sm_clock_mhz, target.num_sms);
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
      // The proxy runs mma.sync by definition, whatever its launch record says.
      const bool proxy = e.executor == kSm120ProxyExecutor;
      e.achieved = achieved_for(*c.traffic, *t, ceilings, c.page_size, proxy ? "mma.sync" : executor_engine(e));
      if (proxy && ceilings && rtx != nullptr) {
        e.prediction =
            predict_on_device(*c.traffic, t->median_ms * 1e3, *ceilings, c.page_size, *rtx,
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

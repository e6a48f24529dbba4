// Traffic and work model, roofline position, speedup and mask tax.
#include "harness/traffic_model.h"

#include <algorithm>
#include <cmath>

#include "harness/problem.h"

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
  m.kv_unique_bytes = kKvRowBytes * unique_rows;
  m.algorithmic_bytes = m.kv_unique_bytes + (kQRowBytes + kORowBytes + kLseBytes) * B * T * H +
                        table_bytes + mask_bytes;
  m.page_bytes = unique_pages * page * kKvRowBytes;
  m.flops = kFlopsPerVisiblePair * static_cast<double>(kv_tokens) * static_cast<double>(H) *
            static_cast<double>(T);
  return m;
}

double memory_ceiling_gbps(const Ceilings& c, int page_size) {
  return page_size == 1 ? c.row_read_shuffled_gbps : c.row_read_contiguous_gbps;
}

double attainable_tflops(const Ceilings& c, int page_size, double intensity) {
  return std::min(memory_ceiling_gbps(c, page_size) * intensity / 1e3, c.mma_bf16_tflops);
}

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
                      const std::optional<Ceilings>& ceilings, int page_size) {
  Achieved a;
  a.mode = timing.mode;
  const double seconds = timing.median_ms * 1e-3;
  a.gbps = static_cast<double>(traffic.algorithmic_bytes) / seconds / 1e9;
  a.tflops = traffic.flops / seconds / 1e12;
  if (ceilings && ceilings->mma_bf16_tflops > 0 && memory_ceiling_gbps(*ceilings, page_size) > 0) {
    const double mem = memory_ceiling_gbps(*ceilings, page_size);
    const double intensity = traffic.intensity();
    a.bound = mem * intensity / 1e3 < ceilings->mma_bf16_tflops ? "memory" : "compute";
    a.pct_of_attainable = 100.0 * a.tflops / attainable_tflops(*ceilings, page_size, intensity);
    a.speed_of_light = a.gbps > mem || a.tflops > ceilings->mma_bf16_tflops;
  }
  return a;
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
  for (CaseResult& c : *cases) {
    for (ExecutorResult& e : c.executors) {
      const TimingRecord* t = preferred_timing(e);
      if (t != nullptr && c.traffic) e.achieved = achieved_for(*c.traffic, *t, ceilings, c.page_size);
    }
    const auto naive = cold_median(c, "naive"), production = cold_median(c, "production");
    if (naive && production) c.speedup_vs_naive = *naive / *production;
  }
  for (CaseResult& c : *cases) {
    for (const std::string& tag : c.tags) {
      if (tag.rfind(kMaskTaxTag, 0) != 0) continue;
      const std::string twin = tag.substr(std::string(kMaskTaxTag).size());
      for (const CaseResult& other : *cases) {
        if (other.case_name != twin) continue;
        const auto tree = cold_median(c, "production"), chain = cold_median(other, "production");
        if (tree && chain) c.mask_tax = *tree / *chain - 1.0;
      }
    }
  }
}

}  // namespace vb

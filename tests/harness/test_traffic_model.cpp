// Traffic and work model on hand-computed cases, roofline position, speedup and mask tax.
#include <catch2/catch.hpp>

#include <numeric>

#include "harness/traffic_model.h"

namespace {

std::vector<std::int64_t> range(std::int64_t first, std::int64_t count) {
  std::vector<std::int64_t> v(count);
  std::iota(v.begin(), v.end(), first);
  return v;
}

void append(std::vector<std::int64_t>& to, const std::vector<std::int64_t>& v) {
  to.insert(to.end(), v.begin(), v.end());
}

}  // namespace

TEST_CASE("traffic model: page size 1 with a shared prefix counts shared rows once", "[traffic]") {
  // B=2, T=4, H=16, P=[100,100]; request 1 shares request 0's first 64 prefix rows.
  vb::TrafficInput in;
  in.batch = 2;
  in.tree_size = 4;
  in.num_heads = 16;
  in.page_size = 1;
  in.mask_words = 1;
  in.prefix_len = {100, 100};
  append(in.kv_rows, range(0, 100));    // request 0 prefix
  append(in.kv_rows, range(100, 4));    // request 0 tree
  append(in.kv_rows, range(0, 64));     // request 1 shared prefix
  append(in.kv_rows, range(200, 36));   // request 1 own prefix
  append(in.kv_rows, range(300, 4));    // request 1 tree
  const vb::TrafficModel m = vb::traffic_model(in);
  // unique rows 104 + 36 + 4 = 144
  CHECK(m.kv_unique_bytes == 144 * 1152);
  // 165888 kv + 147456 q + 131072 o + 512 lse + (8 + 12 + 8*208) table + 64 mask
  CHECK(m.algorithmic_bytes == 446676);
  CHECK(m.page_bytes == 144 * 1152);
  CHECK(m.flops == 2.0 * 208 * 16 * 4 * 1088);
  CHECK(m.intensity() == Approx(28966912.0 / 446676.0));
}

TEST_CASE("traffic model: page size 16 counts whole pages touched", "[traffic]") {
  // B=1, T=4, H=8, P=20: 24 tokens in rows 32..55 = pages 2 and 3 (the last one partial).
  vb::TrafficInput in;
  in.batch = 1;
  in.tree_size = 4;
  in.num_heads = 8;
  in.page_size = 16;
  in.mask_words = 1;
  in.prefix_len = {20};
  in.kv_rows = range(32, 24);
  const vb::TrafficModel m = vb::traffic_model(in);
  CHECK(m.kv_unique_bytes == 24 * 1152);
  // 27648 kv + 36864 q + 32768 o + 128 lse + (4 + 4*2) table + 32 mask
  CHECK(m.algorithmic_bytes == 97452);
  CHECK(m.page_bytes == 2 * 16 * 1152);
  CHECK(m.flops == 2.0 * 24 * 8 * 4 * 1088);
}

namespace {

vb::TimingRecord timing(const char* mode, double median_ms) {
  vb::TimingRecord t;
  t.mode = mode;
  t.samples_ms = {median_ms};
  t.median_ms = t.min_ms = t.max_ms = t.p10_ms = t.p90_ms = median_ms;
  t.stop_reason = "noise target";
  return t;
}

vb::Ceilings ceilings() {
  vb::Ceilings c;
  c.row_read_contiguous_gbps = 4000;
  c.row_read_shuffled_gbps = 3000;
  c.d2d_copy_gbps = 3500;
  c.mma_bf16_tflops = 600;
  return c;
}

}  // namespace

TEST_CASE("roofline: memory roof by page size, bound, % of attainable, speed of light", "[traffic]") {
  vb::TrafficModel t;
  t.algorithmic_bytes = 1'000'000'000;  // 1 GB
  t.flops = 10e12;                      // intensity 10 000 FLOP/B: compute-bound
  const auto c = ceilings();
  CHECK(vb::memory_ceiling_gbps(c, 1) == 3000);
  CHECK(vb::memory_ceiling_gbps(c, 64) == 4000);

  // 1 GB in 1 ms = 1000 GB/s; 10 TFLOP in 1 ms = 10000 TFLOP/s > 600: above the mma roof.
  vb::Achieved a = vb::achieved_for(t, timing("cold-l2", 1.0), c, 1);
  CHECK(a.gbps == Approx(1000));
  CHECK(a.tflops == Approx(10000));
  CHECK(a.bound == "compute");
  CHECK(a.speed_of_light);

  t.flops = 1e9;  // intensity 1: memory-bound; attainable = 3000 GB/s * 1 = 3 TFLOP/s
  a = vb::achieved_for(t, timing("cold-l2", 1.0), c, 1);
  CHECK(a.bound == "memory");
  CHECK(a.tflops == Approx(1.0));
  CHECK(*a.pct_of_attainable == Approx(100.0 / 3.0));
  CHECK_FALSE(a.speed_of_light);

  a = vb::achieved_for(t, timing("cold-l2", 0.25), c, 1);  // 4000 GB/s > 3000 shuffled roof
  CHECK(a.speed_of_light);

  a = vb::achieved_for(t, timing("hot-l2", 1.0), std::nullopt, 1);
  CHECK_FALSE(a.pct_of_attainable.has_value());
  CHECK(a.bound.empty());
}

TEST_CASE("annotate_roofline: speedup over naive and mask tax from the tagged chain twin", "[traffic]") {
  auto make_case = [](const std::string& name, double naive_ms, double prod_ms) {
    vb::CaseResult c;
    c.case_name = name;
    c.page_size = 1;
    c.traffic = vb::TrafficModel{1000000, 1000000, 1000000, 1e9};
    vb::ExecutorResult naive, prod;
    naive.executor = "naive";
    naive.timings = {timing("cold-l2", naive_ms)};
    prod.executor = "production";
    prod.timings = {timing("hot-l2", prod_ms / 2), timing("cold-l2", prod_ms)};
    c.executors = {naive, prod};
    return c;
  };
  std::vector<vb::CaseResult> cases = {make_case("tree", 10.0, 2.5), make_case("chain", 8.0, 2.0)};
  cases[0].tags = {"perf", "mask-tax-baseline:chain"};
  vb::annotate_roofline(&cases, ceilings());
  REQUIRE(cases[0].speedup_vs_naive);
  CHECK(*cases[0].speedup_vs_naive == Approx(4.0));
  REQUIRE(cases[0].mask_tax);
  CHECK(*cases[0].mask_tax == Approx(0.25));
  CHECK_FALSE(cases[1].mask_tax);
  REQUIRE(cases[0].executors[1].achieved);
  CHECK(cases[0].executors[1].achieved->mode == "cold-l2");  // cold preferred over hot
}

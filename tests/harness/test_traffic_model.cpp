// Traffic and work model on hand-computed cases, roofline position, speedup and mask tax.
#include <catch2/catch.hpp>

#include <numeric>

#include "harness/plan/device_models.h"
#include "harness/measure/traffic_model.h"

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
  CHECK(vb::memory_ceiling_gbps(c, 1, vb::kKvRowBytes) == 3000);
  CHECK(vb::memory_ceiling_gbps(c, 64, vb::kKvRowBytes) == 4000);

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

TEST_CASE("roofline: an fp8 case's memory roof is the 576-byte-row ceiling of its page size", "[traffic][fp8]") {
  vb::Ceilings c = ceilings();  // 1152-byte rows: 4000 in order, 3000 shuffled
  c.row576_read_contiguous_gbps = 2500;
  c.row576_read_shuffled_gbps = 2000;
  CHECK(vb::memory_ceiling_gbps(c, 1, vb::kKvRowBytesFp8) == 2000);
  CHECK(vb::memory_ceiling_gbps(c, 16, vb::kKvRowBytesFp8) == 2500);
  CHECK(vb::memory_ceiling_gbps(c, 1, vb::kKvRowBytes) == 3000);
  CHECK(vb::memory_ceiling_gbps(c, 16, vb::kKvRowBytes) == 4000);

  vb::TrafficModel t;
  t.algorithmic_bytes = 1'000'000'000;  // 1 GB in 1 ms: 1000 GB/s
  t.flops = 1e9;                        // intensity 1: memory-bound
  t.kv_row_bytes = vb::kKvRowBytesFp8;
  vb::Achieved a = vb::achieved_for(t, timing("cold-l2", 1.0), c, 1);
  CHECK(*a.pct_of_memory_ceiling == Approx(50.0));  // of 2000, not of 3000
  CHECK(*a.pct_of_attainable == Approx(50.0));
  CHECK(vb::roof_time_us(t, c, 1) == Approx(500.0));  // 1 GB / 2000 GB/s
  a = vb::achieved_for(t, timing("cold-l2", 0.45), c, 1);  // 2222 GB/s: above the 576-byte roof
  CHECK(a.speed_of_light);
  t.kv_row_bytes = vb::kKvRowBytes;  // the same time of a bf16 case: against 3000
  a = vb::achieved_for(t, timing("cold-l2", 1.0), c, 1);
  CHECK(*a.pct_of_memory_ceiling == Approx(100.0 / 3.0));

  // A run without the 576-byte ceiling (a result file before it) gives an fp8 case no memory
  // roof rather than the 1152-byte one.
  c.row576_read_contiguous_gbps = c.row576_read_shuffled_gbps = 0;
  t.kv_row_bytes = vb::kKvRowBytesFp8;
  a = vb::achieved_for(t, timing("cold-l2", 1.0), c, 1);
  CHECK_FALSE(a.pct_of_memory_ceiling.has_value());
  CHECK_FALSE(a.pct_of_attainable.has_value());
  CHECK(vb::roof_time_us(t, c, 1) == 0);
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

TEST_CASE("roofline: the compute roof is the best tensor-core ceiling, each engine against its own", "[traffic]") {
  vb::TrafficModel t;
  t.algorithmic_bytes = 1'000'000'000;  // 1 GB
  t.flops = 1e12;                       // intensity 1000: compute-bound
  auto c = ceilings();                  // mma.sync 600
  c.wgmma_bf16_tflops = 800;
  CHECK(vb::tensor_ceiling_tflops(c) == 800);
  CHECK(vb::engine_ceiling_tflops(c, "mma.sync") == 600);
  CHECK(vb::engine_ceiling_tflops(c, "wgmma") == 800);
  CHECK(vb::engine_ceiling_tflops(c, "") == 0);

  // 1 TFLOP in 1.5 ms = 666.7 TFLOP/s: above mma.sync's 600, below the 800 tensor roof.
  vb::Achieved a = vb::achieved_for(t, timing("cold-l2", 1.5), c, 64, "wgmma");
  CHECK(a.engine == "wgmma");
  CHECK(*a.pct_of_attainable == Approx(100.0 * (1e12 / 1.5e-3 / 1e12) / 800));
  CHECK(*a.pct_of_engine_ceiling == Approx(*a.pct_of_attainable));
  CHECK(*a.pct_of_memory_ceiling == Approx(100.0 * (1e9 / 1.5e-3 / 1e9) / 4000));  // page 64: rows in order
  CHECK_FALSE(a.speed_of_light);  // above the mma.sync ceiling, below the tensor roof: no flag

  a = vb::achieved_for(t, timing("cold-l2", 2.0), c, 64, "mma.sync");  // 500 TFLOP/s
  CHECK(*a.pct_of_engine_ceiling == Approx(500.0 / 600 * 100));
  CHECK(*a.pct_of_attainable == Approx(500.0 / 800 * 100));

  a = vb::achieved_for(t, timing("cold-l2", 1.0), c, 64, "wgmma");  // 1000 TFLOP/s > 800
  CHECK(a.speed_of_light);

  // Without a wgmma ceiling (sm_120, older files): mma.sync is the roof, wgmma has no %.
  c.wgmma_bf16_tflops = 0;
  a = vb::achieved_for(t, timing("cold-l2", 2.0), c, 64, "wgmma");
  CHECK(*a.pct_of_attainable == Approx(500.0 / 600 * 100));
  CHECK_FALSE(a.pct_of_engine_ceiling.has_value());
}

TEST_CASE("roofline: the engine a record ran, from its launch record", "[traffic]") {
  vb::ExecutorResult e;
  // The plan's text says mma.sync; the launch record's field is what counts.
  e.detail = "mma.sync stages=2 smem=98208 m_tiles=1 splits=1 grid=1x1x1";
  CHECK(vb::executor_engine(e).empty());
  e.launch = vb::LaunchRecord{};
  e.launch->engine = "wgmma";
  CHECK(vb::executor_engine(e) == "wgmma");
  e.launch->engine = "mma.sync";
  CHECK(vb::executor_engine(e) == "mma.sync");
}

TEST_CASE("PDL goal: chain-pdl median against 1.5 x roof + PDL floor + 3 us, hand-computed", "[traffic]") {
  vb::CaseResult c;
  c.case_name = "small";
  c.page_size = 64;
  // 4.4 MB at the 4000 GB/s in-order roof = 1.1 us; 1 GFLOP at 600 TFLOP/s = 1.667 us: the
  // compute roof binds. Bound = 1.5 * 1.6667 + 2.0 + 3 = 7.5 us.
  c.traffic = vb::TrafficModel{4'400'000, 4'400'000, 4'400'000, 1e9};
  auto ceil = ceilings();
  ceil.pdl_floor_us = 2.0;
  vb::ExecutorResult prod;
  prod.executor = "production";
  prod.timings = {timing("cold-l2", 0.010), timing("chain-pdl", 0.0075)};
  c.executors = {prod};
  auto goal = vb::pdl_goal_for(c, ceil);
  REQUIRE(goal);
  CHECK(goal->roof_us == Approx(1e9 / 600e12 * 1e6));
  CHECK(goal->bound_us == Approx(1.5 * 1e9 / 600e12 * 1e6 + 2.0 + 3.0));
  CHECK(goal->bound_us == Approx(7.5));
  CHECK(goal->chain_pdl_us == Approx(7.5));
  CHECK(goal->met);  // equal is met
  c.executors[0].timings[1] = timing("chain-pdl", 0.0076);
  goal = vb::pdl_goal_for(c, ceil);
  REQUIRE(goal);
  CHECK_FALSE(goal->met);
  // A wgmma ceiling of 800 lowers the roof to 1.25 us: bound 1.875 + 2 + 3 = 6.875.
  ceil.wgmma_bf16_tflops = 800;
  CHECK(vb::pdl_goal_for(c, ceil)->bound_us == Approx(6.875));

  // No PDL floor, no chain-pdl time, no traffic: no goal.
  auto no_floor = ceil;
  no_floor.pdl_floor_us = 0;
  CHECK_FALSE(vb::pdl_goal_for(c, no_floor));
  c.executors[0].timings = {timing("cold-l2", 0.010)};
  CHECK_FALSE(vb::pdl_goal_for(c, ceil));
}

namespace {
// The ceilings of a run that emulated sm_120 for the prediction tests: rows at 4000 GB/s of a
// 5000 GB/s datasheet (rho 0.8), the mma.sync probe at 1800 MHz on 132 SMs, sm_120's bf16 rate
// emulated at 240 TFLOP/s.
vb::Ceilings emulation_ceilings() {
  vb::Ceilings c;
  c.row_read_contiguous_gbps = 4000;
  c.row_read_shuffled_gbps = 4000;
  c.mma_bf16_tflops = 640;
  c.memory_peak_gbps = 5000;
  c.mma_clock_mhz = 1800;
  c.sm_count = 132;
  c.sm120_emulated_bf16_tflops = 240;
  return c;
}

const vb::DeviceModel& rtx_pro_6000() {
  const vb::DeviceModel* rtx = vb::find_device_model("rtx-pro-6000");
  REQUIRE(rtx != nullptr);
  REQUIRE(rtx->sm_clock_mhz == 2617.0);
  REQUIRE(rtx->num_sms == 188);
  REQUIRE(rtx->memory_gbps == 1792.0);
  return *rtx;
}
}  // namespace

TEST_CASE("sm_120 prediction: SM cycles at sm_120's clock and SMs against bytes at rho of GDDR7", "[traffic]") {
  const vb::DeviceModel& rtx = rtx_pro_6000();
  const vb::Ceilings c = emulation_ceilings();
  vb::TrafficModel t;
  t.algorithmic_bytes = 1'000'000'000;
  t.flops = 1e12;
  // rho = 4000 / 5000 = 0.8: M = 1e9 B / (1792 GB/s x 0.8) = 697.54 us; at the datasheet 558.04 us.

  SECTION("compute-bound: C = 9000 us x 1800 / 2617 x 132 / 188 = 4346.38 us binds") {
    const auto p = vb::predict_on_device(t, 9000.0, c, 64, rtx, 1320);  // ten waves: every SM busy
    REQUIRE(p);
    CHECK(p->device == "rtx-pro-6000");
    CHECK(p->sm_clock_mhz == 2617.0);
    CHECK(p->num_sms == 188);
    CHECK(p->rho == Approx(0.8));
    CHECK(p->sm_cycles_us == Approx(4346.3768));
    CHECK(p->memory_us == Approx(697.5446));
    CHECK(p->memory_datasheet_us == Approx(558.0357));
    CHECK(p->time_us == Approx(4346.3768));
    CHECK(p->low_us == Approx(4346.3768));
    CHECK(p->high_us == Approx(5043.9214));
    CHECK(p->bound == "SM cycles");
    // launch_blocks 0 (unknown) counts every SM here busy: the same C.
    CHECK(vb::predict_on_device(t, 9000.0, c, 64, rtx)->sm_cycles_us == Approx(4346.3768));
  }
  SECTION("half a wave (66 blocks) kept 66 SMs busy: C = 9000 x 1800 / 2617 x 66 / 188 = 2173.19 us") {
    const auto p = vb::predict_on_device(t, 9000.0, c, 64, rtx, 66);
    REQUIRE(p);
    CHECK(p->sm_cycles_us == Approx(2173.1884));
    CHECK(p->time_us == Approx(2173.1884));
  }
  SECTION("memory-bound: C = 241.47 us is shorter than M = 697.54 us") {
    t.flops = 1e10;
    const auto p = vb::predict_on_device(t, 500.0, c, 64, rtx, 1320);
    REQUIRE(p);
    CHECK(p->sm_cycles_us == Approx(241.4654));
    CHECK(p->time_us == Approx(697.5446));
    CHECK(p->low_us == Approx(558.0357));   // max(C, bytes / 1792 GB/s)
    CHECK(p->high_us == Approx(939.0100));  // C + M
    CHECK(p->bound == "memory");
  }
  SECTION("an fp8 case's rho is of the 576-byte-row ceiling: 3200 / 5000 = 0.64, M = 871.93 us") {
    vb::Ceilings fp8 = c;
    fp8.row576_read_contiguous_gbps = 3200;
    t.kv_row_bytes = vb::kKvRowBytesFp8;
    t.flops = 1e10;
    const auto p = vb::predict_on_device(t, 500.0, fp8, 64, rtx, 1320);
    REQUIRE(p);
    CHECK(p->rho == Approx(0.64));
    CHECK(p->memory_us == Approx(871.9308));
    CHECK(p->time_us == Approx(871.9308));
    fp8.row576_read_contiguous_gbps = 0;  // not measured: no rho, no prediction
    CHECK_FALSE(vb::predict_on_device(t, 500.0, fp8, 64, rtx, 1320));
  }
  SECTION("no prediction without the probe's clock, the SM count, the datasheet bandwidth or a median") {
    CHECK(vb::prediction_missing(c, rtx).empty());
    CHECK_FALSE(vb::predict_on_device(t, 0.0, c, 64, rtx));
    vb::Ceilings older = c;
    older.mma_clock_mhz = 0;
    CHECK_FALSE(vb::predict_on_device(t, 9000.0, older, 64, rtx));
    CHECK(vb::prediction_missing(older, rtx).find("mma_clock_mhz") != std::string::npos);
    older = c;
    older.sm_count = 0;
    CHECK_FALSE(vb::predict_on_device(t, 9000.0, older, 64, rtx));
    CHECK(vb::prediction_missing(older, rtx).find("sm_count") != std::string::npos);
    older = c;
    older.memory_peak_gbps = 0;  // a result file before 2026-12-06
    CHECK_FALSE(vb::predict_on_device(t, 9000.0, older, 64, rtx));
    CHECK(vb::prediction_missing(older, rtx) == "the ceilings lack the datasheet memory bandwidth (memory_peak_gbps)");
    vb::DeviceModel unclocked = rtx;
    unclocked.sm_clock_mhz = 0;
    CHECK_FALSE(vb::predict_on_device(t, 9000.0, c, 64, unclocked));
    CHECK(vb::prediction_missing(c, unclocked) ==
          "the NVIDIA RTX PRO 6000 Blackwell model lacks its clock, SM count or memory bandwidth");
    older.mma_clock_mhz = 0;  // and no datasheet bandwidth: both named, in one line
    CHECK(vb::prediction_missing(older, rtx) == "the ceilings lack the mma.sync probe's SM clock (mma_clock_mhz), "
                                                "the datasheet memory bandwidth (memory_peak_gbps)");
  }
}

TEST_CASE("sm_120 emulated fractions: of the emulated bf16 rate and of the attainable roof at sm_120's rates",
          "[traffic]") {
  const vb::Ceilings c = emulation_ceilings();
  vb::TrafficModel t;
  t.algorithmic_bytes = 1'000'000'000;
  vb::Achieved a;
  // Intensity 1000: attainable min(4000 GB/s x 1000, 240 TFLOP/s) = 240; 1e12 FLOP in 9 ms.
  t.flops = 1e12;
  a.tflops = 1e12 / 9e-3 / 1e12;
  auto f = vb::sm120_emulated_fractions(t, a, c, 64);
  REQUIRE(f);
  CHECK(f->pct_of_emulated_rate == Approx(46.2963));
  CHECK(f->pct_of_attainable == Approx(46.2963));
  // Intensity 10: attainable min(40, 240) = 40; 20 TFLOP/s is 50 % of it, 8.33 % of 240.
  t.flops = 1e10;
  a.tflops = 20;
  f = vb::sm120_emulated_fractions(t, a, c, 64);
  REQUIRE(f);
  CHECK(f->pct_of_emulated_rate == Approx(8.3333));
  CHECK(f->pct_of_attainable == Approx(50.0));
  vb::Ceilings older = c;
  older.sm120_emulated_bf16_tflops = 0;
  CHECK_FALSE(vb::sm120_emulated_fractions(t, a, older, 64));
}

TEST_CASE("annotate_roofline: production/sm120-emu gets sm_120's fractions and the prediction, the proxy does not",
          "[traffic]") {
  vb::CaseResult c;
  c.case_name = "ddtree";
  c.page_size = 1;
  c.traffic = vb::TrafficModel{1'000'000'000, 1'000'000'000, 1'000'000'000, 1e12};
  vb::ExecutorResult prod, proxy, emu;
  prod.executor = "production";
  prod.launch = vb::LaunchRecord{};
  prod.launch->engine = "wgmma";
  prod.launch->grid = {8, 2, 1};
  prod.timings = {timing("cold-l2", 2.0)};
  proxy.executor = vb::kSm120ProxyExecutor;
  proxy.launch = vb::LaunchRecord{};
  proxy.launch->engine = "wgmma";  // the proxy is mma.sync whatever its record says
  proxy.launch->grid = {10, 66, 2};
  proxy.timings = {timing("cold-l2", 3.125)};
  emu = proxy;
  emu.executor = vb::kSm120EmuExecutor;
  emu.launch->grid = {11, 3, 2};  // 66 blocks: half the SMs busy
  emu.timings = {timing("cold-l2", 9.0)};
  c.executors = {prod, proxy, emu};
  std::vector<vb::CaseResult> cases = {c};
  vb::Ceilings ceil = emulation_ceilings();
  ceil.wgmma_bf16_tflops = 800;
  vb::annotate_roofline(&cases, ceil);
  const vb::ExecutorResult& p = cases[0].executors[1];
  REQUIRE(p.achieved);
  CHECK(p.achieved->engine == "mma.sync");
  CHECK(*p.achieved->pct_of_engine_ceiling == Approx(320.0 / 640 * 100));  // 1 TFLOP in 3.125 ms
  CHECK(*p.achieved->pct_of_memory_ceiling == Approx(320.0 / 4000 * 100));
  CHECK_FALSE(p.prediction);
  CHECK_FALSE(p.sm120_fractions);
  const vb::ExecutorResult& e = cases[0].executors[2];
  REQUIRE(e.achieved);
  CHECK(e.achieved->engine == "mma.sync");
  REQUIRE(e.sm120_fractions);
  CHECK(e.sm120_fractions->pct_of_emulated_rate == Approx(46.2963));  // 1 TFLOP in 9 ms of 240 TFLOP/s
  REQUIRE(e.prediction);
  CHECK(e.prediction->sm_cycles_us == Approx(2173.1884));  // 9000 us x 1800 / 2617 x 66 / 188
  CHECK(e.prediction->time_us == Approx(2173.1884));
  const vb::ExecutorResult& w = cases[0].executors[0];
  CHECK(w.achieved->engine == "wgmma");
  CHECK(*w.achieved->pct_of_engine_ceiling == Approx(500.0 / 800 * 100));
  CHECK_FALSE(w.prediction);
  CHECK_FALSE(w.sm120_fractions);
  CHECK_FALSE(cases[0].pdl_goal);  // no chain-pdl time, no PDL floor

  // The prediction is made from the emulation's cold-L2 median only: a hot-L2 time has rates, no prediction.
  cases = {c};
  cases[0].executors[2].timings = {timing("hot-l2", 9.0)};
  vb::annotate_roofline(&cases, ceil);
  CHECK(cases[0].executors[2].achieved);
  CHECK(cases[0].executors[2].sm120_fractions);
  CHECK_FALSE(cases[0].executors[2].prediction);
}

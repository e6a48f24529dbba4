// Statistics and the stopping rule of the measurement engine, on synthetic samples.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "harness/measure/timing.h"

TEST_CASE("summarize: order statistics with linear interpolation", "[timing]") {
  const std::vector<double> samples = {10, 1, 9, 2, 8, 3, 7, 4, 6, 5};
  const vb::SampleStats s = vb::summarize(samples);
  CHECK(s.n == 10);
  CHECK(s.min == 1);
  CHECK(s.max == 10);
  CHECK(s.median == Approx(5.5));
  CHECK(s.p10 == Approx(1.9));
  CHECK(s.p90 == Approx(9.1));
  // rel_noise = 1.2533 * ((p90 - p10) / 2.5631) / sqrt(n) / median
  CHECK(s.rel_noise == Approx(1.2533 * (7.2 / 2.5631) / std::sqrt(10.0) / 5.5));
}

TEST_CASE("relative noise: infinite below 3 samples, zero for identical samples", "[timing]") {
  CHECK(std::isinf(vb::summarize({1.0, 1.0}).rel_noise));
  CHECK(std::isinf(vb::summarize({}).rel_noise));
  CHECK(vb::summarize({2.0, 2.0, 2.0}).rel_noise == 0);
  // more samples of the same spread: smaller noise (1/sqrt(n))
  CHECK(vb::relative_noise(0.9, 1.1, 1.0, 400) == Approx(vb::relative_noise(0.9, 1.1, 1.0, 100) / 2));
}

TEST_CASE("stop rule: min samples, noise target, budget, max samples", "[timing]") {
  vb::StopRule rule;  // 1%, 10, 1000, 1 s
  std::vector<double> steady(9, 1.0);
  CHECK(vb::stop_reason(rule, steady, 0.0).empty());          // below min samples
  CHECK(vb::stop_reason(rule, steady, 100.0).empty());        // budget never cuts below min
  steady.push_back(1.0);
  CHECK(vb::stop_reason(rule, steady, 0.0) == "noise target");

  std::vector<double> noisy;
  for (int i = 0; i < 20; ++i) noisy.push_back(i % 2 ? 1.0 : 2.0);  // ~50% spread
  CHECK(vb::stop_reason(rule, noisy, 0.5).empty());
  CHECK(vb::stop_reason(rule, noisy, 1.0) == "time budget");

  rule.max_samples = 20;
  CHECK(vb::stop_reason(rule, noisy, 0.0) == "max samples");

  // noise shrinks with n: the same alternating samples reach 1% eventually
  rule.max_samples = 100000;
  std::vector<double> many;
  int n = 0;
  while (vb::stop_reason(rule, many, 0.0).empty() && n < 100000) many.push_back(++n % 2 ? 1.0 : 1.1);
  CHECK(vb::stop_reason(rule, many, 0.0) == "noise target");
}

TEST_CASE("timing modes parse and reject unknown names", "[timing]") {
  const auto modes = vb::parse_timing_modes("cold,hot,graph");
  REQUIRE(modes.size() == 3);
  CHECK(std::string(vb::to_string(modes[0])) == "cold-l2");
  CHECK(std::string(vb::to_string(modes[1])) == "hot-l2");
  CHECK(std::string(vb::to_string(modes[2])) == "graph");
  CHECK(vb::parse_timing_modes("graph,graph").size() == 1);
  const auto chains = vb::parse_timing_modes("chain,chain-pdl,chain");
  REQUIRE(chains.size() == 2);
  CHECK(std::string(vb::to_string(chains[0])) == "chain");
  CHECK(std::string(vb::to_string(chains[1])) == "chain-pdl");
  CHECK_THROWS_WITH(vb::parse_timing_modes("cold,pdl"), Catch::Contains("'pdl'") && Catch::Contains("chain-pdl"));
  CHECK_THROWS_AS(vb::parse_timing_modes("cold,warm"), std::invalid_argument);
  CHECK_THROWS_AS(vb::parse_timing_modes(""), std::invalid_argument);
}

TEST_CASE("NVML is optional: without libnvidia-ml the engine says so", "[timing]") {
  vb::Nvml& nvml = vb::Nvml::instance();
  if (!nvml.available()) {
    CHECK_FALSE(nvml.sm_clock_mhz().has_value());
    CHECK_FALSE(nvml.throttle_reasons().has_value());
    CHECK_FALSE(nvml.status().empty());
  }
  CHECK(vb::throttle_reason_names(0x4 | 0x40) == "sw-power-cap,hw-thermal");
}

TEST_CASE("L2 flush methods parse by name and nothing else", "[timing]") {
  CHECK(vb::parse_l2_flush("read") == vb::L2Flush::kRead);
  CHECK(vb::parse_l2_flush("write") == vb::L2Flush::kWrite);
  CHECK(std::string(vb::to_string(vb::L2Flush::kRead)) == "read");
  CHECK(std::string(vb::to_string(vb::L2Flush::kWrite)) == "write");
  CHECK_THROWS_AS(vb::parse_l2_flush("memset"), std::invalid_argument);
  CHECK_THROWS_AS(vb::parse_l2_flush(""), std::invalid_argument);
}

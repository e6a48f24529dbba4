// Wall time of the CPU oracle (reference_verify) on materialized problems. The headline
// case is the largest a CI machine must check in full: one request, 32k prefix, 16 heads,
// 64-node tree, page size 1 shuffled (~73 GFLOP of double GEMM); budget 10 s on 2 cores.
//
//   build-ref/vb_bench_reference                       # all cases
//   build-ref/vb_bench_reference --benchmark_filter=p32768
//
// Each iteration is one full reference_verify call. "Time" is the wall clock; "CPU" is the
// CPU time of the whole process (all threads), so on a shared machine CPU / threads tells
// what the wall time would be with the cores to itself. Counters: GFLOP/s over the
// upper-bound FLOP count of docs/background.md §4 (per wall second), threads used, query rows.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <thread>

#include "harness/problem/problem.h"
#include "verifybench/reference.h"

namespace {

struct BenchCase {
  std::string name;
  int prefix = 0;
  int heads = 0;
  vb::TreeKind tree = vb::TreeKind::kChain;
  int nodes = 0;
  int iterations = 1;
};

vb::CaseSpec make_spec(const BenchCase& c) {
  vb::CaseSpec spec;
  spec.name = c.name;
  spec.scenario = "reference_bench";
  spec.heads = c.heads;
  spec.sm_scale = 0.130861;  // Kimi K2, YaRN factor 32 (docs/background.md §1)
  spec.seed = 1;
  spec.batch.dist = vb::PrefixDist::kList;
  spec.batch.prefix_lens = {c.prefix};
  spec.tree.kind = c.tree;
  spec.tree.nodes = c.nodes;
  spec.tree.seed = 7;
  spec.pages.size = 1;
  spec.pages.placement = vb::PagePlacement::kShuffled;
  spec.pages.seed = 3;
  return spec;
}

void run_case(benchmark::State& state, const BenchCase& c, int threads) {
  vb::Problem problem;
  try {
    problem = vb::materialize(make_spec(c));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  const vb::VerifyParams params =
      vb::host_params(problem, vb::PageTableKind::kTokenIndices, nullptr, nullptr);
  const vb::ReferenceOptions options{.threads = threads};
  for (auto _ : state) {
    vb::ReferenceOutput out = vb::reference_verify(params, options);
    benchmark::DoNotOptimize(out.o.data());
    benchmark::ClobberMemory();
  }
  const double kv = static_cast<double>(c.prefix) + c.nodes;
  const double flops = 2.0 * kv * c.heads * c.nodes * (vb::mla::kHeadDimQK + vb::mla::kHeadDimV);
  state.counters["GFLOP/s"] = benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["threads"] = threads;
  state.counters["rows"] = static_cast<double>(problem.query_rows());
}

}  // namespace

int main(int argc, char** argv) {
  const int hw = static_cast<int>(std::thread::hardware_concurrency());
  const BenchCase cases[] = {
      {"small/p1024_h16_t8_chain", 1024, 16, vb::TreeKind::kChain, 8, 20},
      {"p32768_h16_t64_chain", 32768, 16, vb::TreeKind::kChain, 64, 2},
      {"p32768_h16_t64_random", 32768, 16, vb::TreeKind::kRandom, 64, 2},
  };
  for (const BenchCase& c : cases) {
    benchmark::RegisterBenchmark(c.name.c_str(), [c, hw](benchmark::State& s) { run_case(s, c, hw); })
        ->Iterations(c.iterations)
        ->UseRealTime()
        ->MeasureProcessCPUTime()
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// verifybench_bench: Google Benchmark over the GPU executors. One benchmark per case x
// executor ("<case>/<executor>"), manual time from CUDA events (one launch per iteration,
// L2 flushed before each launch outside the timed range unless --hot), counters
// bytes_per_second (algorithmic bytes) and FLOPs (both kIsRate), SkipWithError when there is
// no device or a launch fails. Every --benchmark_* flag works, e.g.
//   verifybench_bench --scenarios scenarios/perf.yaml --case <case name>
//       --benchmark_format=json --benchmark_out=bench.json  (one command line)
#include <benchmark/benchmark.h>

#include <cstdio>
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "harness/run/gpu_executor.h"
#include "harness/problem/problem.h"
#include "harness/run/case_session.h"
#include "harness/run/runner.h"
#include "harness/scenario/scenario.h"
#include "harness/measure/timing.h"
#include "harness/measure/traffic_model.h"

namespace {

struct Shared {
  vb::GpuInfo gpu;
  std::unique_ptr<vb::GpuTimer> timer;
  std::string timer_error;
  bool flush = true;
};

// Cases are materialized and uploaded lazily, one at a time (the previous one is freed), so
// a long scenario file does not hold every KV pool at once.
struct CaseState {
  vb::CaseSpec spec;
  std::unique_ptr<vb::CaseSession> session;
  vb::DeviceProblem* device = nullptr;
  vb::TrafficModel traffic;
  std::string error;
};

CaseState* g_current = nullptr;

bool prepare(CaseState& c, Shared& shared) {
  if (g_current == &c) return c.error.empty();
  if (g_current != nullptr) {
    g_current->device = nullptr;
    g_current->session.reset();
  }
  g_current = &c;
  c.error.clear();
  try {
    c.session = std::make_unique<vb::CaseSession>(c.spec);
  } catch (const std::exception& e) {
    c.error = std::string("materialize failed: ") + e.what();
    return false;
  }
  c.traffic = vb::traffic_model(vb::traffic_input(c.session->problem()));
  c.device = c.session->device(shared.gpu, &c.error);
  if (!c.device) c.error = "upload failed: " + c.error;
  return c.error.empty();
}

void run_benchmark(benchmark::State& state, Shared* shared, CaseState* c, const vb::ExecutorInfo& run) {
  if (!shared->gpu.available) {
    state.SkipWithError(shared->gpu.reason.c_str());  // "no CUDA device (...)"
    return;
  }
  if (!shared->timer) {
    state.SkipWithError(("timer set-up failed: " + shared->timer_error).c_str());
    return;
  }
  if (!prepare(*c, *shared)) {
    state.SkipWithError(c->error.c_str());
    return;
  }
  vb::DeviceProblem* dp = c->device;
  if (std::string why_not; !dp->executor_applies(run.kind, &why_not)) {
    state.SkipWithError(why_not.c_str());
    return;
  }
  const vb::LaunchFn launch = [dp, run](cudaStream_t s, bool) { return dp->launch(run.kind, run.page_kind, s); };
  // Warm-up outside the timed iterations.
  std::string error;
  for (int i = 0; i < 3; ++i) {
    if (!shared->timer->time_once(launch, shared->flush, &error)) {
      state.SkipWithError(error.c_str());
      return;
    }
  }
  for (auto _ : state) {
    const std::optional<double> ms = shared->timer->time_once(launch, shared->flush, &error);
    if (!ms) {
      state.SkipWithError(error.c_str());
      break;
    }
    state.SetIterationTime(*ms * 1e-3);
  }
  state.counters["bytes_per_second"] = benchmark::Counter(
      static_cast<double>(c->traffic.algorithmic_bytes), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["FLOPs"] = benchmark::Counter(c->traffic.flops, benchmark::Counter::kIsIterationInvariantRate);
  const vb::Problem& problem = c->session->problem();
  state.SetLabel(fmt::format("B={} T={} H={} page={} {}", problem.batch, problem.tree_size,
                             problem.num_heads, problem.pages.page_size,
                             shared->flush ? "cold-l2" : "hot-l2"));
}

void usage(std::FILE* out) {
  std::fputs(
      "usage: verifybench_bench --scenarios FILE [--case NAME]... [--hot] [--benchmark_*]\n"
      "\n"
      "Google Benchmark over verifybench's GPU executors: one benchmark <case>/<executor> per case\n"
      "and executor, each iteration one launch timed by CUDA events (manual time), with the counters\n"
      "bytes_per_second (algorithmic bytes) and FLOPs. Without a CUDA device every benchmark is\n"
      "skipped with the reason; an executor that does not apply to a case is skipped with why.\n"
      "\n"
      "verifybench_bench options:\n"
      "  --scenarios FILE  the scenario YAML file to run (required)\n"
      "  --case NAME       only this case (its exact name, as `verifybench list` prints it); repeatable\n"
      "  --hot             keep the L2 warm (a short hold kernel in front of each launch instead of the\n"
      "                    L2 flush, so the host's submission is not timed); default: the L2 flushed\n"
      "                    before every launch, outside the timed range\n"
      "  -h, --help        this help, then Google Benchmark's own flags\n"
      "Exit codes: 0 ran (skips included), 2 bad input (usage, scenario file, unknown case).\n",
      out);
}

// --help: verifybench_bench's own options first, then Google Benchmark's.
void print_help() {
  usage(stdout);
  std::fputs("\nGoogle Benchmark's flags:\n", stdout);
  benchmark::PrintDefaultHelp();
}

}  // namespace

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv, print_help);  // consumes --benchmark_* flags; --help ends here
  std::string file;
  std::vector<std::string> wanted;
  Shared shared;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--scenarios" || arg == "--case") && i + 1 < argc) {
      (arg == "--scenarios" ? file : (wanted.emplace_back(), wanted.back())) = argv[++i];
    } else if (arg == "--hot") {
      shared.flush = false;
    } else if (arg == "-h") {  // Google Benchmark takes --help only
      print_help();
      return 0;
    } else {
      std::fprintf(stderr, "verifybench_bench: error: unknown argument '%s'\n", arg.c_str());
      usage(stderr);
      return 2;
    }
  }
  if (file.empty()) {
    std::fputs("verifybench_bench: error: --scenarios FILE is required\n", stderr);
    usage(stderr);
    return 2;
  }
  vb::ScenarioFile loaded;
  try {
    loaded = vb::load_scenario_file(file);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "verifybench_bench: error: %s\n", e.what());
    return 2;
  }
  shared.gpu = vb::query_gpu();
  if (shared.gpu.available) shared.timer = vb::GpuTimer::create(shared.gpu, &shared.timer_error);

  std::vector<std::unique_ptr<CaseState>> states;
  std::vector<std::string> found;
  for (const vb::CaseSpec& spec : loaded.cases) {
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), spec.name) == wanted.end()) continue;
    found.push_back(spec.name);
    states.push_back(std::make_unique<CaseState>());
    states.back()->spec = spec;
    for (const vb::ExecutorInfo& run : vb::executor_registry()) {
      benchmark::RegisterBenchmark((spec.name + "/" + run.name).c_str(), run_benchmark, &shared,
                                   states.back().get(), run)
          ->UseManualTime()
          ->Unit(benchmark::kMicrosecond);
    }
  }
  for (const std::string& w : wanted) {
    if (std::find(found.begin(), found.end(), w) == found.end()) {
      std::fprintf(stderr, "verifybench_bench: error: unknown case '%s' in %s\n", w.c_str(), file.c_str());
      return 2;
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

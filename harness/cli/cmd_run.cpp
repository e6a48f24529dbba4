// `verifybench run FILE...`: every case (or the named ones) through the fixed phases
// (harness/run/runner.h), then the terminal table and the report set of each file.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <numeric>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "harness/cli/commands.h"
#include "harness/cli/interrupt.h"
#include "harness/io/files.h"
#include "harness/measure/ceilings.h"
#include "harness/measure/timing.h"
#include "harness/measure/traffic_model.h"
#include "harness/report/report_csv.h"
#include "harness/report/report_fp8_twins.h"
#include "harness/report/report_json.h"
#include "harness/report/report_markdown.h"
#include "harness/report/report_svg.h"
#include "harness/report/report_table.h"
#include "harness/run/gpu_executor.h"
#include "harness/report/peers_merge.h"
#include "harness/record/result.h"
#include "harness/run/runner.h"

namespace vb {
namespace {

std::string default_out_dir(const std::string& scenario_path) {
  return (std::filesystem::path("reports") / "local" /
          std::filesystem::path(scenario_path).stem()).string();
}

// Report folders of one run's files: reports/local/<stem>, and <stem>-<hash of the path as
// given> for files whose stems collide, so no file's reports overwrite another's.
std::vector<std::string> default_out_dirs(const std::vector<std::string>& paths) {
  std::map<std::string, int> stems;
  for (const std::string& p : paths) ++stems[default_out_dir(p)];
  std::vector<std::string> dirs;
  for (const std::string& p : paths) {
    std::string d = default_out_dir(p);
    if (stems[d] > 1) d += fmt::format("-{:08x}", static_cast<std::uint32_t>(std::hash<std::string>{}(p)));
    dirs.push_back(d);
  }
  return dirs;
}

void make_dirs(const std::filesystem::path& dir) {
  if (dir.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw ReportError(fmt::format("cannot create {}: {}", dir.string(), ec.message()));
}

struct RunContext {
  std::string cmdline;
  GpuInfo gpu;
  std::optional<Ceilings> ceilings;
  std::optional<double> sm_clock_at_start, mem_clock_at_start;
  std::string nvml_status;
  std::string l2_flush;  // cold-L2 flush method of this run's timer ("" when not timed)
  std::vector<std::size_t> cases_selected;  // per scenario file, in the order given
  int stopped_by_signal = 0;  // SIGINT / SIGTERM that stopped the run before its last case, else 0
};

// The report set of `scenario_paths` holds `cases_completed` of its `cases_selected` cases.
Provenance provenance_for(const std::vector<std::string>& scenario_paths, const RunContext& ctx,
                          std::size_t cases_completed, std::size_t cases_selected) {
  Provenance prov = collect_provenance(scenario_paths, ctx.cmdline, ctx.gpu, kToolVersion);
  prov.sm_clock_mhz_at_start = ctx.sm_clock_at_start;
  prov.mem_clock_mhz_at_start = ctx.mem_clock_at_start;
  prov.nvml_status = ctx.nvml_status;
  prov.l2_flush = ctx.l2_flush;
  if (ctx.stopped_by_signal != 0) {
    prov.interrupted_by = signal_name(ctx.stopped_by_signal);
    prov.cases_completed = cases_completed;
    prov.cases_selected = cases_selected;
  }
  return prov;
}

// result.json, summary.md, results.csv, fp8_twins.csv, roofline.svg into `dir` (each written atomically);
// the JSON goes to `json_path` instead when one is given. `results` are those completed of
// the `cases_selected` cases of `scenario_paths`.
void write_reports(const std::string& dir, const std::string& json_path,
                   const std::vector<std::string>& scenario_paths, const std::vector<CaseResult>& results,
                   std::size_t cases_selected, const RunContext& ctx) {
  const Provenance prov = provenance_for(scenario_paths, ctx, results.size(), cases_selected);
  const std::filesystem::path out(dir);
  make_dirs(out);
  const std::string json = json_path.empty() ? (out / "result.json").string() : json_path;
  make_dirs(std::filesystem::path(json).parent_path());
  std::string title = "verifybench roofline";
  if (ctx.gpu.available) title += " - " + ctx.gpu.name;
  // The five files are one set: all written before any replaces an earlier run's file.
  std::vector<std::pair<std::string, std::string>> set = {
      {(out / "summary.md").string(), format_markdown(prov, ctx.ceilings, results)},
      {(out / "results.csv").string(), format_csv(results)},
      {(out / "fp8_twins.csv").string(), format_fp8_twins_csv(results)},
      {(out / "roofline.svg").string(), format_roofline_svg(ctx.ceilings, results, title)},
      {json, result_json_text(prov, results, ctx.ceilings)}};
  write_files_as_set(set);
  std::printf("wrote %s, %s/{summary.md,results.csv,fp8_twins.csv,roofline.svg}\n", json.c_str(), out.string().c_str());
}

struct TimeArgs {
  bool time = false;
  std::string modes = "cold,hot,graph";
  std::string l2_flush = "read";
  double noise = 0.01;
  int min_samples = 10, max_samples = 1000;
  double budget_s = 1.0;
  std::vector<std::string> executors;  // --time-executor: empty times every executor that ran
};

struct RunArgs {
  std::vector<std::string> files, cases;
  std::string json_path, out_dir, peers_path;
  int threads = 0;
  TimeArgs time;
  ScenarioOptions scenario;
};

// --peers: each file's results get the peer rows of their cases; warns about peer-file cases
// this run did not have. Returns every file's results, in order.
std::vector<CaseResult> merge_peers(const PeerRows& peers, std::vector<std::vector<CaseResult>>* per_file) {
  std::vector<CaseResult> all;
  int merged = 0, without_speedup = 0;
  for (std::vector<CaseResult>& results : *per_file) {
    const PeerMergeSummary summary = merge_peer_rows(peers, &results);
    merged += summary.rows_merged;
    without_speedup += summary.rows_without_speedup;
    all.insert(all.end(), results.begin(), results.end());
  }
  for (const auto& [name, rows] : peers.cases) {
    const bool in_run = std::any_of(all.begin(), all.end(), [&](const CaseResult& c) { return c.case_name == name; });
    if (!in_run) std::fprintf(stderr, "verifybench: warning: --peers %s: case %s is not in this run\n", peers.path.c_str(), name.c_str());
  }
  std::printf("merged %d peer rows from %s\n", merged, peers.path.c_str());
  if (without_speedup > 0) {
    std::printf("note: %d timed peer rows get no speedup: production has no cold-l2 time in this run (run with --time)\n",
                without_speedup);
  }
  return all;
}

// The files of one report set (write_reports), as written into `dir`.
constexpr const char* kReportSetFiles[] = {"result.json", "summary.md", "results.csv", "roofline.svg"};

// Every report location must be usable before the first case runs.
void check_report_paths(const RunArgs& args, const std::vector<std::string>& report_dirs) {
  const std::vector<std::string> dirs = args.out_dir.empty() ? report_dirs : std::vector<std::string>{args.out_dir};
  const char* option = args.out_dir.empty() ? "report folder" : "--out-dir";
  for (const std::string& d : dirs) {
    prepare_output_dir(d, option);
    for (const char* name : kReportSetFiles) {
      check_destination((std::filesystem::path(d) / name).string(), "report file");
    }
  }
  if (!args.json_path.empty()) prepare_output_file(args.json_path, "--json");
}

std::optional<PeerRows> read_peers(const std::string& path) {
  if (path.empty()) return std::nullopt;
  try {
    return read_peer_rows(path);
  } catch (const std::runtime_error& e) {
    throw UsageError(std::string("--peers ") + e.what());
  }
}

// The executors --time-executor names, each checked against the known ones; throws UsageError.
std::vector<std::string> timed_executors(const TimeArgs& time_args) {
  for (const std::string& name : time_args.executors) executor_for_option("--time-executor", name);
  return time_args.executors;
}

// The timing options of --modes, --l2-flush, --noise and the sample bounds; throws UsageError.
TimingOptions timing_options(const TimeArgs& time_args, L2Flush* l2_flush) {
  TimingOptions timing;
  timing.rule.target_noise = time_args.noise;
  timing.rule.min_samples = time_args.min_samples;
  timing.rule.max_samples = time_args.max_samples;
  timing.rule.budget_s = time_args.budget_s;
  try {
    timing.modes = parse_timing_modes(time_args.modes);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--modes: ") + e.what());
  }
  try {
    *l2_flush = parse_l2_flush(time_args.l2_flush);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--l2-flush: ") + e.what());
  }
  if (timing.rule.max_samples < timing.rule.min_samples) {
    throw UsageError(fmt::format("--max-samples {} is below --min-samples {}",
                                 timing.rule.max_samples, timing.rule.min_samples));
  }
  return timing;
}

// NVML's clocks at the start; with --time, the timer and this run's ceilings. Returns the
// timer, or nullptr when the run is not timed; *timing_failed when it should have been.
std::unique_ptr<GpuTimer> set_up_timing(bool time, L2Flush l2_flush, bool progress, RunContext* ctx,
                                        bool* timing_failed) {
  const GpuInfo& gpu = ctx->gpu;
  if (gpu.available) {
    Nvml& nvml = Nvml::instance();
    nvml.bind(gpu.device);
    ctx->nvml_status = nvml.status();
    ctx->sm_clock_at_start = nvml.sm_clock_mhz();
    ctx->mem_clock_at_start = nvml.mem_clock_mhz();
  }
  if (!time || !gpu.available) return nullptr;
  std::string error;
  std::unique_ptr<GpuTimer> timer = GpuTimer::create(gpu, &error, l2_flush);
  if (!timer) {
    std::fprintf(stderr, "verifybench: error: timing disabled: %s\n", error.c_str());
    *timing_failed = true;
  } else {
    ctx->l2_flush = to_string(l2_flush);
    if (progress) std::fprintf(stderr, "measuring ceilings ...");
    const CeilingsRun c = measure_ceilings(gpu);
    if (progress) std::fprintf(stderr, " done\n");
    if (c.ceilings) {
      ctx->ceilings = c.ceilings;
      if (const std::string floor_error = measure_launch_floor(*timer, &*ctx->ceilings); !floor_error.empty()) {
        std::fprintf(stderr, "verifybench: warning: %s (no launch floor in the reports)\n", floor_error.c_str());
      }
    } else {
      std::fprintf(stderr, "verifybench: warning: %s (no roofline position in the reports)\n", c.error.c_str());
    }
  }
  if (ctx->nvml_status.rfind("ok", 0) != 0) {
    std::fprintf(stderr, "verifybench: note: %s; clocks and temperature not recorded\n", ctx->nvml_status.c_str());
  }
  return timer;
}

// Runs every selected case, one file after another, with a progress line per case on a
// terminal, until SIGINT or SIGTERM (the case in progress finishes). Returns each file's
// results, roofline-annotated within the file (none for a file the run did not reach).
std::vector<std::vector<CaseResult>> run_selected(const std::vector<Selected>& selected, const RunOptions& base,
                                                  bool timing_failed, const RunContext& ctx, bool progress) {
  std::size_t total = 0;
  for (const Selected& s : selected) total += s.cases.size();
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  std::vector<std::vector<CaseResult>> per_file;
  std::size_t index = 0;
  for (const Selected& s : selected) {
    RunOptions options = base;
    options.scenario_path = s.path_as_given;
    std::vector<CaseResult> results;
    for (const CaseSpec* spec : s.cases) {
      if (interrupt_signal() != 0) break;
      ++index;
      const auto case_start = std::chrono::steady_clock::now();
      if (progress) {
        std::fprintf(stderr, "[%zu/%zu] %s ...", index, total, spec->name.c_str());
        std::fflush(stderr);
      }
      results.push_back(run_case(*spec, ctx.gpu, options));
      if (timing_failed) results.back().timing_note = "not timed: the timer could not be set up";
      if (progress) {
        std::fprintf(stderr, " %.1f s (elapsed %.1f s, %zu left)\n", seconds(case_start), seconds(start),
                     total - index);
      }
      raise_test_signal_after(index);
    }
    annotate_roofline(&results, ctx.ceilings);
    per_file.push_back(std::move(results));
  }
  return per_file;
}

void print_run(const std::vector<CaseResult>& all_results, bool time, const RunContext& ctx) {
  const GpuInfo& gpu = ctx.gpu;
  std::fputs(format_case_table(all_results).c_str(), stdout);
  if (ctx.ceilings) std::fputs(format_ceilings_text(*ctx.ceilings).c_str(), stdout);
  if (time) {
    const std::string timing_table = format_timing_table(all_results);
    if (!timing_table.empty()) std::fputs(timing_table.c_str(), stdout);
    else std::printf("timing: %s\n", gpu.available ? "nothing timed" : ("not run: " + gpu.reason).c_str());
  }
  std::fputs(format_summary(all_results, gpu).c_str(), stdout);
  std::fflush(stdout);
}

// One report set for the whole run (--out-dir, or a single file), else one per file plus
// the combined --json.
void write_run_reports(const RunArgs& args, const std::vector<std::string>& paths,
                       const std::vector<std::string>& report_dirs, const std::vector<CaseResult>& all_results,
                       const std::vector<std::vector<CaseResult>>& per_file, const RunContext& ctx) {
  const std::size_t total_selected = std::accumulate(ctx.cases_selected.begin(), ctx.cases_selected.end(), std::size_t{0});
  if (!args.out_dir.empty() || paths.size() == 1) {
    write_reports(args.out_dir.empty() ? report_dirs.front() : args.out_dir, args.json_path, paths, all_results,
                  total_selected, ctx);
    return;
  }
  for (std::size_t i = 0; i < paths.size(); ++i) {
    write_reports(report_dirs[i], "", {paths[i]}, per_file[i], ctx.cases_selected[i], ctx);
  }
  if (!args.json_path.empty()) {
    make_dirs(std::filesystem::path(args.json_path).parent_path());
    write_result_json(args.json_path, provenance_for(paths, ctx, all_results.size(), total_selected), all_results,
                      ctx.ceilings);
    std::printf("wrote %s\n", args.json_path.c_str());
  }
}

// result.json and compare key on case names: two files of one run may not share one.
void refuse_shared_case_names(const std::vector<Selected>& selected) {
  std::map<std::string, std::string> file_of;
  for (const Selected& s : selected) {
    for (const CaseSpec* c : s.cases) {
      const auto [at, added] = file_of.emplace(c->name, s.path_as_given);
      if (!added) {
        throw UsageError(fmt::format("case {} is in both {} and {}; allowed: case names unique across a run's files",
                                     printable_text(c->name), printable_text(at->second),
                                     printable_text(s.path_as_given)));
      }
    }
  }
}

int run_cases(const RunArgs& args, const std::string& command_line) {
  const std::vector<ScenarioFile> loaded = load_all(args.files, args.scenario);
  const std::vector<Selected> selected = select_cases(loaded, args.files, args.cases);
  refuse_shared_case_names(selected);
  RunContext ctx;
  std::vector<std::string> paths;
  for (const Selected& s : selected) {
    paths.push_back(s.path_as_given);
    ctx.cases_selected.push_back(s.cases.size());
  }
  const std::vector<std::string> report_dirs = default_out_dirs(paths);
  check_report_paths(args, report_dirs);
  const std::optional<PeerRows> peer_rows = read_peers(args.peers_path);
  ctx.cmdline = command_line;
  ctx.gpu = query_gpu();
  const bool progress = ::isatty(STDERR_FILENO) != 0;

  L2Flush l2_flush = L2Flush::kRead;
  RunOptions options;
  options.threads = args.threads;
  options.time = args.time.time;
  options.timing = timing_options(args.time, &l2_flush);
  options.timed_executors = timed_executors(args.time);
  bool timing_failed = false;
  const std::unique_ptr<GpuTimer> timer = set_up_timing(args.time.time, l2_flush, progress, &ctx, &timing_failed);
  options.timer = timer.get();

  install_interrupt_handlers();
  std::vector<std::vector<CaseResult>> per_file = run_selected(selected, options, timing_failed, ctx, progress);
  ctx.stopped_by_signal = interrupt_signal();
  std::vector<CaseResult> all_results;
  for (const std::vector<CaseResult>& results : per_file) {
    all_results.insert(all_results.end(), results.begin(), results.end());
  }
  if (peer_rows) {
    all_results = merge_peers(*peer_rows, &per_file);
    for (std::vector<CaseResult>& results : per_file) annotate_roofline(&results, ctx.ceilings);
  }
  // Mask-tax twins may sit in another file of the same run.
  annotate_roofline(&all_results, ctx.ceilings);
  print_run(all_results, args.time.time, ctx);
  write_run_reports(args, paths, report_dirs, all_results, per_file, ctx);
  if (ctx.stopped_by_signal != 0) {
    std::fprintf(stderr, "verifybench: stopped by %s after %zu of %zu cases: the reports hold those, marked partial\n",
                 signal_name(ctx.stopped_by_signal), all_results.size(),
                 std::accumulate(ctx.cases_selected.begin(), ctx.cases_selected.end(), std::size_t{0}));
    return exit_code_for_signal(ctx.stopped_by_signal);
  }
  return exit_code_for(all_results);
}

// Every timing option needs --time: without it nothing is timed, and an option that would be
// ignored is refused instead (exit 2, "--modes requires --time").
void add_timing_options(CLI::App* cmd, TimeArgs* time_args) {
  CLI::Option* time = cmd->add_flag("--time", time_args->time,
                "time every executor that ran (after the checks; incorrect ones too, flagged) "
                "and measure the device ceilings first");
  cmd->add_option("--modes", time_args->modes,
                  "timing modes, comma-separated: cold (L2 flushed before each sample), hot, "
                  "graph (CUDA-graph replay), chain (8 launches back to back, per launch), chain-pdl "
                  "(the same, each production launch over the previous: programmatic dependent launch)")
      ->capture_default_str()
      ->needs(time);
  cmd->add_option("--l2-flush", time_args->l2_flush,
                  "how a cold sample empties the L2 first: read (a read pass over 2x the L2: clean "
                  "lines) or write (a memset, as reports before 2026-11-29 'wgmma' did: its dirty "
                  "lines are written back inside the timed launch)")
      ->capture_default_str()->check(CLI::IsMember({"read", "write"}))
      ->needs(time);
  cmd->add_option("--noise", time_args->noise,
                  "target relative noise: stop when the relative standard error of the median "
                  "is at or below it")
      ->capture_default_str()->check(number_in({0, 1}))
      ->needs(time);
  cmd->add_option("--min-samples", time_args->min_samples, "minimum samples per measurement (>= 3)")
      ->capture_default_str()->check(integer_in(3, 1000000))
      ->needs(time);
  cmd->add_option("--max-samples", time_args->max_samples, "maximum samples per measurement")
      ->capture_default_str()->check(integer_in(3, 1000000))
      ->needs(time);
  cmd->add_option("--budget-s", time_args->budget_s,
                  "time budget per measurement in seconds (never cuts below --min-samples)")
      ->capture_default_str()->check(number_in({0, 3600}))
      ->needs(time);
  cmd->add_option("--time-executor", time_args->executors,
                  "time only this executor (record name: production, production/sm120-proxy, ...); repeatable. "
                  "Every executor still runs and is checked; default: time every one that ran")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->needs(time);
}

}  // namespace

CLI::App* add_run_command(CLI::App& app, const Invocation& invocation, int* exit_code) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd = app.add_subcommand(
      "run", "Run every case (or the named ones): CPU reference, then each GPU executor, "
             "compared element by element. Prints a table; writes a JSON result file.");
  cmd->add_option("FILE", args->files, "scenario YAML files")->required();
  cmd->add_option("--case", args->cases, "run only this case (exact name as `list` prints it); repeatable")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--json", args->json_path,
                  "also/instead: write the combined JSON result file here (the other reports "
                  "still go to the report folder)");
  cmd->add_option("--threads", args->threads, "CPU reference threads, 0..4096 (0: all hardware threads)")
      ->check(integer_in(0, 4096));
  add_launch_options(cmd, &args->scenario);
  cmd->add_option("--out-dir", args->out_dir,
                  "report folder: result.json, summary.md, results.csv, roofline.svg (default: "
                  "reports/local/<file stem>/ per file; one combined folder when given)");
  add_timing_options(cmd, &args->time);
  cmd->add_option("--peers", args->peers_path,
                  "peer kernels' rows from `python -m verifybench.peers CASE_DIR... --out FILE` (cases exported from "
                  "this scenario file), reported beside production with the speedup where both have cold-l2 times");
  add_limit_options(cmd, &args->scenario);
  cmd->callback([args, invocation, exit_code] {
    *exit_code = run_command([&] { return run_cases(*args, invocation.command_line); });
  });
  return cmd;
}

}  // namespace vb

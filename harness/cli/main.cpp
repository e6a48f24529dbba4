// verifybench CLI: `list` shows what scenario files expand to, `run` checks every executor
// of every case against the CPU reference and writes the table and the JSON result file.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "harness/measure/ceilings.h"
#include "harness/compare/compare.h"
#include "harness/cli/compare_cli.h"
#include "harness/plan/device_models.h"
#include "harness/export/export_safetensors.h"
#include "harness/run/gpu_executor.h"
#include "harness/measure/nvtx.h"
#include "harness/run/peers_merge.h"
#include "harness/problem/problem.h"
#include "harness/report/report_csv.h"
#include "harness/report/report_json.h"
#include "harness/report/report_markdown.h"
#include "harness/report/report_svg.h"
#include "harness/report/report_table.h"
#include "harness/run/result.h"
#include "harness/run/runner.h"
#include "harness/scenario/scenario.h"
#include "harness/measure/timeline_summary.h"
#include "harness/measure/timing.h"
#include "harness/measure/traffic_model.h"

namespace {

constexpr const char* kVersion = "verifybench 0.1.0";

constexpr const char* kFooter = R"(Exit codes:
  0  every check passed (GPU executors count as passed when not run for lack of a device)
  1  a check failed: some executor's output is out of tolerance or NaN/Inf misplaced
  2  bad input: scenario file error, command-line usage error, unknown case name
  3  runtime failure: a CUDA call or launch failed, or the report could not be written
     (3 wins over 1 when both happen)
Errors are one line on stderr: "verifybench: error: <message>".)";

// Thrown for bad input discovered after parsing (unknown case names).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "verifybench: error: %s\n", message.c_str());
  return code;
}

std::string command_line(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool plain = !arg.empty() && arg.find_first_not_of(
                                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789_-./+=:,") == std::string::npos;
    if (i > 0) out += ' ';
    out += plain ? arg : vb::shell_quote(arg);
  }
  return out;
}

// The resource limits every command loads scenario files under (--max-* options).
vb::ScenarioLimits g_scenario_limits;

// Options raising the limits a scenario file is checked against (scenarios/README.md, "Limits").
void add_limit_options(CLI::App* cmd) {
  vb::ScenarioLimits& l = g_scenario_limits;
  cmd->add_option("--max-file-bytes", l.max_file_bytes, "largest scenario file read (default 1 MiB)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-cases", l.max_cases, "most cases one file may expand to (default 10000)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-host-bytes", l.max_host_bytes, "host memory one case may take (default 16 GiB)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-reference-flop", l.max_reference_flop, "CPU reference FLOP one case may take (default 1e12)")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--max-reference-bytes", l.max_reference_bytes,
                  "K one request's CPU reference may gather, per thread (default 2 GiB)")
      ->check(CLI::PositiveNumber);
}

// `--planner key=value` settings of the command line (plan, run, profile, export): applied to
// every case after its scenario's own `planner:` map, so one build serves any planner A/B.
std::vector<std::string> g_planner_settings;

void apply_planner_settings(vb::CaseSpec* spec) {
  for (const std::string& setting : g_planner_settings) {
    const std::size_t eq = setting.find('=');
    std::string error;
    if (eq == std::string::npos) {
      throw UsageError(fmt::format("--planner {}: expected key=value (keys: verifybench plan --help)", setting));
    }
    if (!vb::set_planner_option(&spec->planner, setting.substr(0, eq), setting.substr(eq + 1), &error)) {
      throw UsageError("--planner " + setting + ": " + error);
    }
  }
}

std::vector<vb::ScenarioFile> load_all(const std::vector<std::string>& files) {
  std::vector<vb::ScenarioFile> loaded;
  for (const std::string& f : files) {
    loaded.push_back(vb::load_scenario_file(f, g_scenario_limits));
    for (vb::CaseSpec& spec : loaded.back().cases) apply_planner_settings(&spec);
  }
  return loaded;
}

std::string planner_help() {
  std::string out = "production planner setting, key=value, repeatable; applied after a scenario's planner: map. Keys:";
  for (const vb::PlannerOptionInfo& o : vb::planner_options()) out += "\n  " + o.key + ": " + o.meaning;
  return out;
}

// ---------------------------------------------------------------- list
int batch_size(const vb::BatchSpec& b) {
  return b.dist == vb::PrefixDist::kList ? static_cast<int>(b.prefix_lens.size()) : b.size;
}

// Exact for listed and fixed prefixes; "~" + the expected value for drawn distributions
// (the draw itself happens in materialize).
std::string kv_tokens_text(const vb::CaseSpec& spec, int tree_size) {
  const vb::BatchSpec& b = spec.batch;
  const std::int64_t tree_part = static_cast<std::int64_t>(batch_size(b)) * tree_size;
  switch (b.dist) {
    case vb::PrefixDist::kList: {
      std::int64_t sum = 0;
      for (int p : b.prefix_lens) sum += p;
      return fmt::format("{}", sum + tree_part);
    }
    case vb::PrefixDist::kFixed:
      return fmt::format("{}", static_cast<std::int64_t>(b.size) * b.value + tree_part);
    case vb::PrefixDist::kUniform:
      return fmt::format("~{}", static_cast<std::int64_t>(b.size) * (b.min + b.max) / 2 +
                                    tree_part);
    case vb::PrefixDist::kLogNormal:
      return fmt::format("~{}", static_cast<std::int64_t>(b.size * b.median) + tree_part);
  }
  return "?";
}

int cmd_list(const std::vector<std::string>& files) {
  const std::vector<vb::ScenarioFile> loaded = load_all(files);
  for (std::size_t i = 0; i < loaded.size(); ++i) {
    const vb::ScenarioFile& file = loaded[i];
    std::set<std::string> scenarios;
    for (const vb::CaseSpec& c : file.cases) scenarios.insert(c.scenario);
    if (i > 0) std::printf("\n");
    std::printf("%s: %zu scenarios, %zu cases\n", file.path.c_str(), scenarios.size(),
                file.cases.size());
    vb::TextTable table({"case", "tree", "B", "T", "H", "page", "placement", "KV tokens", "check",
                         "source"},
                        {false, false, false, true, true, true, true, false, true, false, false});
    for (const vb::CaseSpec& c : file.cases) {
      const int t = vb::tree_size(c.tree);
      const std::string check =
          c.check.mode == vb::CheckMode::kFull
              ? std::string("full")
              : fmt::format("sampled {}", c.check.sampled_rows);
      table.add_row({c.name, vb::to_string(c.tree.kind), fmt::format("{}", batch_size(c.batch)),
                     fmt::format("{}", t), fmt::format("{}", c.heads),
                     fmt::format("{}", c.pages.size), vb::to_string(c.pages.placement),
                     kv_tokens_text(c, t), check, c.source});
    }
    std::fputs(table.render().c_str(), stdout);
  }
  std::fputs("(KV tokens = sum over requests of prefix + tree; ~ marks the expected value of a "
             "drawn prefix distribution)\n",
             stdout);
  return vb::kExitOk;
}

// ---------------------------------------------------------------- plan
// The production launch each case gets on each modelled device (harness/plan/device_models.h):
// pipeline depth, shared memory, query-row tiles, KV splits, waves, and the memory and mma
// floors at that device's roofs. Pure arithmetic: no GPU, no materialized KV pool.
int cmd_plan(const std::vector<std::string>& files, const std::vector<std::string>& device_slugs) {
  std::vector<const vb::DeviceModel*> devices;
  for (const std::string& slug : device_slugs) {
    const vb::DeviceModel* d = vb::find_device_model(slug);
    if (d == nullptr) {
      return fail(vb::kExitBadInput,
                  fmt::format("--device {}: unknown device (allowed: {})", slug, vb::device_model_slugs()));
    }
    devices.push_back(d);
  }
  if (devices.empty()) {
    for (const vb::DeviceModel& d : vb::device_models()) devices.push_back(&d);
  }
  const std::vector<vb::ScenarioFile> loaded = load_all(files);
  for (std::size_t i = 0; i < loaded.size(); ++i) {
    const vb::ScenarioFile& file = loaded[i];
    if (i > 0) std::printf("\n");
    std::printf("%s: %zu cases\n", file.path.c_str(), file.cases.size());
    vb::TextTable table({"case", "device", "launch plan (production)", "block table", "blocks", "waves", "KV tokens",
                         "MB", "GFLOP", "mem floor us", "mma floor us", "bound"},
                        {false, false, false, false, true, true, true, true, true, true, true, false});
    for (const vb::CaseSpec& c : file.cases) {
      for (const vb::DeviceModel* d : devices) {
        const vb::PlannedLaunch p = vb::plan_launch(c, *d);
        table.add_row({c.name, d->slug, vb::describe(p.launch),
                       p.block_table_launch.valid ? vb::to_string(p.block_table_launch.instance) : "-",
                       fmt::format("{}", p.blocks), fmt::format("{:.2f}", p.waves), fmt::format("{}", p.kv_tokens),
                       fmt::format("{:.1f}", p.bytes / 1e6), fmt::format("{:.2f}", p.flops / 1e9),
                       fmt::format("{:.1f}", p.memory_floor_us), fmt::format("{:.1f}", p.mma_floor_us),
                       p.memory_floor_us >= p.mma_floor_us ? "memory" : "compute"});
      }
    }
    std::fputs(table.render().c_str(), stdout);
  }
  std::printf("\nlaunch plan: kernel instance, pipeline stages, dynamic shared memory (B), query-row tiles, KV splits "
              "(tiles/split: fixed-size splits; slots: the tile-balanced schedule's combine slots), main grid, and "
              "the combine's lanes x loads per lane; the same line `run` prints per executor (LaunchPlan, "
              "kernels/include/verifybench/planner.h)\n");
  std::printf("\ndevices (harness/plan/device_models.cpp):\n");
  for (const vb::DeviceModel* d : devices) {
    std::printf("  %-13s %s, sm_%d, %d SMs, %d B shared memory per block, %d block(s) per SM, %.0f GB/s, %.1f TFLOP/s, %s: %s\n",
                d->slug.c_str(), d->name.c_str(), d->sm_arch, d->num_sms, d->smem_optin_bytes, d->blocks_per_sm,
                d->memory_gbps, d->mma_tflops,
                d->wgmma ? "wgmma path for H*T >= 64, and 17-63 over pages of 16+" : "mma.sync path only",
                d->source.c_str());
  }
  std::fputs("(floors: KV rows once + q + o + lse at the memory roof; 2*(P+T)*H*T*1088 FLOP at the mma roof; "
             "the kernel's own split model and pipeline-depth rule)\n",
             stdout);
  return vb::kExitOk;
}

// ---------------------------------------------------------------- run
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1])});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string close_names(const std::string& wanted, const std::vector<std::string>& names) {
  std::vector<std::pair<std::size_t, std::string>> scored;
  for (const std::string& n : names) {
    const std::size_t d = edit_distance(wanted, n);
    const bool contains = n.find(wanted) != std::string::npos || wanted.find(n) != std::string::npos;
    if (contains || d <= std::max<std::size_t>(3, wanted.size() / 3)) scored.emplace_back(d, n);
  }
  std::sort(scored.begin(), scored.end());
  if (scored.empty()) return "no close names (verifybench list FILE shows every case)";
  std::string out = "close names: ";
  constexpr std::size_t kShown = 5;
  for (std::size_t i = 0; i < std::min(kShown, scored.size()); ++i) {
    if (i > 0) out += ", ";
    out += vb::shell_quote(scored[i].second);
  }
  return out;
}

struct Selected {
  const vb::ScenarioFile* file;
  std::string path_as_given;
  std::vector<const vb::CaseSpec*> cases;
};

std::vector<Selected> select_cases(const std::vector<vb::ScenarioFile>& loaded,
                                   const std::vector<std::string>& paths,
                                   const std::vector<std::string>& wanted) {
  std::vector<Selected> selected;
  std::vector<std::string> all_names;
  std::set<std::string> found;
  for (std::size_t i = 0; i < loaded.size(); ++i) {
    Selected s{&loaded[i], paths[i], {}};
    for (const vb::CaseSpec& c : loaded[i].cases) {
      all_names.push_back(c.name);
      if (wanted.empty() || std::find(wanted.begin(), wanted.end(), c.name) != wanted.end()) {
        s.cases.push_back(&c);
        found.insert(c.name);
      }
    }
    if (!s.cases.empty() || wanted.empty()) selected.push_back(std::move(s));
  }
  for (const std::string& w : wanted) {
    if (found.count(w) == 0) {
      throw UsageError(fmt::format("unknown case {}; {}", vb::shell_quote(w),
                                   close_names(w, all_names)));
    }
  }
  return selected;
}

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

// A report folder must be a writable directory before the first case runs: created if
// missing, probed with a file that is removed again.
void check_output_dir(const std::string& dir, const char* option) {
  std::error_code ec;
  const std::filesystem::path path(dir);
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_directory(path, ec)) {
    throw UsageError(fmt::format("{} {}: not a directory; allowed: a folder (created if missing)", option, dir));
  }
  std::filesystem::create_directories(path, ec);
  if (ec) throw UsageError(fmt::format("{} {}: cannot create it: {}", option, dir, ec.message()));
  const std::string probe = (path / fmt::format(".verifybench-probe-{}", ::getpid())).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw UsageError(fmt::format("{} {}: not writable: {}", option, dir, std::strerror(errno)));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

void make_dirs(const std::filesystem::path& dir) {
  if (dir.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw vb::ReportError(fmt::format("cannot create {}: {}", dir.string(), ec.message()));
}

struct RunContext {
  std::string cmdline;
  vb::GpuInfo gpu;
  std::optional<vb::Ceilings> ceilings;
  std::optional<double> sm_clock_at_start, mem_clock_at_start;
  std::string nvml_status;
  std::string l2_flush;  // cold-L2 flush method of this run's timer ("" when not timed)
};

vb::Provenance provenance_for(const std::vector<std::string>& scenario_paths, const RunContext& ctx) {
  vb::Provenance prov = vb::collect_provenance(scenario_paths, ctx.cmdline, ctx.gpu, kVersion);
  prov.sm_clock_mhz_at_start = ctx.sm_clock_at_start;
  prov.mem_clock_mhz_at_start = ctx.mem_clock_at_start;
  prov.nvml_status = ctx.nvml_status;
  prov.l2_flush = ctx.l2_flush;
  return prov;
}

// result.json, summary.md, results.csv, roofline.svg into `dir` (each written atomically);
// the JSON goes to `json_path` instead when one is given.
void write_reports(const std::string& dir, const std::string& json_path,
                   const std::vector<std::string>& scenario_paths,
                   const std::vector<vb::CaseResult>& results, const RunContext& ctx) {
  const vb::Provenance prov = provenance_for(scenario_paths, ctx);
  const std::filesystem::path out(dir);
  make_dirs(out);
  const std::string json = json_path.empty() ? (out / "result.json").string() : json_path;
  make_dirs(std::filesystem::path(json).parent_path());
  std::string title = "verifybench roofline";
  if (ctx.gpu.available) title += " - " + ctx.gpu.name;
  // The four files are one set: all written before any replaces an earlier run's file.
  std::vector<std::pair<std::string, std::string>> set = {
      {(out / "summary.md").string(), vb::format_markdown(prov, ctx.ceilings, results)},
      {(out / "results.csv").string(), vb::format_csv(results)},
      {(out / "roofline.svg").string(), vb::format_roofline_svg(ctx.ceilings, results, title)},
      {json, vb::result_json_text(prov, results, ctx.ceilings)}};
  vb::write_files_as_set(set);
  std::printf("wrote %s, %s/{summary.md,results.csv,roofline.svg}\n", json.c_str(), out.string().c_str());
}

struct TimeArgs {
  bool time = false;
  std::string modes = "cold,hot,graph";
  std::string l2_flush = "read";
  double noise = 0.01;
  int min_samples = 10, max_samples = 1000;
  double budget_s = 1.0;
};

// --peers: each file's results get the peer rows of their cases; warns about peer-file cases
// this run did not have. Returns every file's results, in order.
std::vector<vb::CaseResult> merge_peers(const vb::PeerRows& peers, std::vector<std::vector<vb::CaseResult>>* per_file) {
  std::vector<vb::CaseResult> all;
  int merged = 0;
  for (std::vector<vb::CaseResult>& results : *per_file) {
    merged += vb::merge_peer_rows(peers, &results).rows_merged;
    all.insert(all.end(), results.begin(), results.end());
  }
  for (const auto& [name, rows] : peers.cases) {
    const bool in_run = std::any_of(all.begin(), all.end(), [&](const vb::CaseResult& c) { return c.case_name == name; });
    if (!in_run) std::fprintf(stderr, "verifybench: warning: --peers %s: case %s is not in this run\n", peers.path.c_str(), name.c_str());
  }
  std::printf("merged %d peer rows from %s\n", merged, peers.path.c_str());
  return all;
}

int cmd_run(const std::vector<std::string>& files, const std::vector<std::string>& wanted,
            const std::string& json_path, const std::string& out_dir, int threads,
            const TimeArgs& time_args, const std::string& cmdline, const std::string& peers_path) {
  const std::vector<vb::ScenarioFile> loaded = load_all(files);
  const std::vector<Selected> selected = select_cases(loaded, files, wanted);
  std::vector<std::string> paths;
  for (const Selected& s : selected) paths.push_back(s.path_as_given);
  const std::vector<std::string> report_dirs = default_out_dirs(paths);
  if (!out_dir.empty()) {
    check_output_dir(out_dir, "--out-dir");
  } else {
    for (const std::string& d : report_dirs) check_output_dir(d, "report folder");
  }
  if (!json_path.empty()) {
    if (std::filesystem::is_directory(json_path)) {
      throw UsageError(fmt::format("--json {}: a directory; allowed: a file path", json_path));
    }
    const std::string parent = std::filesystem::path(json_path).parent_path().string();
    if (!parent.empty()) check_output_dir(parent, "--json's folder");
  }
  std::optional<vb::PeerRows> peer_rows;
  if (!peers_path.empty()) {
    try {
      peer_rows = vb::read_peer_rows(peers_path);
    } catch (const std::runtime_error& e) {
      throw UsageError(std::string("--peers ") + e.what());
    }
  }
  RunContext ctx;
  ctx.cmdline = cmdline;
  ctx.gpu = vb::query_gpu();
  const vb::GpuInfo& gpu = ctx.gpu;
  const bool progress = ::isatty(STDERR_FILENO) != 0;

  vb::TimingOptions timing;
  timing.rule.target_noise = time_args.noise;
  timing.rule.min_samples = time_args.min_samples;
  timing.rule.max_samples = time_args.max_samples;
  timing.rule.budget_s = time_args.budget_s;
  try {
    timing.modes = vb::parse_timing_modes(time_args.modes);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--modes: ") + e.what());
  }
  vb::L2Flush l2_flush = vb::L2Flush::kRead;
  try {
    l2_flush = vb::parse_l2_flush(time_args.l2_flush);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--l2-flush: ") + e.what());
  }
  if (timing.rule.max_samples < timing.rule.min_samples) {
    throw UsageError(fmt::format("--max-samples {} is below --min-samples {}",
                                 timing.rule.max_samples, timing.rule.min_samples));
  }

  // Timing set-up: NVML, clocks at start, the ceilings of this run, the timer.
  std::unique_ptr<vb::GpuTimer> timer;
  bool timing_failed = false;
  if (gpu.available) {
    vb::Nvml& nvml = vb::Nvml::instance();
    nvml.bind(gpu.device);
    ctx.nvml_status = nvml.status();
    ctx.sm_clock_at_start = nvml.sm_clock_mhz();
    ctx.mem_clock_at_start = nvml.mem_clock_mhz();
  }
  if (time_args.time && gpu.available) {
    std::string error;
    timer = vb::GpuTimer::create(gpu, &error, l2_flush);
    if (timer) ctx.l2_flush = vb::to_string(l2_flush);
    if (!timer) {
      std::fprintf(stderr, "verifybench: error: timing disabled: %s\n", error.c_str());
      timing_failed = true;
    } else {
      if (progress) std::fprintf(stderr, "measuring ceilings ...");
      const vb::CeilingsRun c = vb::measure_ceilings(gpu);
      if (progress) std::fprintf(stderr, " done\n");
      if (c.ceilings) {
        ctx.ceilings = c.ceilings;
        if (const std::string error = vb::measure_launch_floor(*timer, &*ctx.ceilings); !error.empty()) {
          std::fprintf(stderr, "verifybench: warning: %s (no launch floor in the reports)\n", error.c_str());
        }
      } else {
        std::fprintf(stderr, "verifybench: warning: %s (no roofline position in the reports)\n",
                     c.error.c_str());
      }
    }
    if (ctx.nvml_status.rfind("ok", 0) != 0) {
      std::fprintf(stderr, "verifybench: note: %s; clocks and temperature not recorded\n",
                   ctx.nvml_status.c_str());
    }
  }

  std::size_t total = 0;
  for (const Selected& s : selected) total += s.cases.size();
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };

  std::vector<vb::CaseResult> all_results;
  std::vector<std::vector<vb::CaseResult>> per_file;
  std::size_t index = 0;
  for (const Selected& s : selected) {
    vb::RunOptions options;
    options.threads = threads;
    options.scenario_path = s.path_as_given;
    options.time = time_args.time;
    options.timing = timing;
    options.timer = timer.get();
    std::vector<vb::CaseResult> results;
    for (const vb::CaseSpec* spec : s.cases) {
      ++index;
      const auto case_start = std::chrono::steady_clock::now();
      if (progress) {
        std::fprintf(stderr, "[%zu/%zu] %s ...", index, total, spec->name.c_str());
        std::fflush(stderr);
      }
      results.push_back(vb::run_case(*spec, gpu, options));
      if (timing_failed) results.back().timing_note = "not timed: the timer could not be set up";
      if (progress) {
        std::fprintf(stderr, " %.1f s (elapsed %.1f s, %zu left)\n", seconds(case_start),
                     seconds(start), total - index);
      }
    }
    vb::annotate_roofline(&results, ctx.ceilings);
    all_results.insert(all_results.end(), results.begin(), results.end());
    per_file.push_back(std::move(results));
  }
  if (peer_rows) {
    all_results = merge_peers(*peer_rows, &per_file);
    for (std::vector<vb::CaseResult>& results : per_file) vb::annotate_roofline(&results, ctx.ceilings);
  }
  // Mask-tax twins may sit in another file of the same run.
  vb::annotate_roofline(&all_results, ctx.ceilings);

  std::fputs(vb::format_case_table(all_results).c_str(), stdout);
  if (time_args.time) {
    const std::string timing_table = vb::format_timing_table(all_results);
    if (!timing_table.empty()) std::fputs(timing_table.c_str(), stdout);
    else std::printf("timing: %s\n", gpu.available ? "nothing timed" : ("not run: " + gpu.reason).c_str());
  }
  std::fputs(vb::format_summary(all_results, gpu).c_str(), stdout);
  std::fflush(stdout);

  if (!out_dir.empty() || selected.size() == 1) {
    write_reports(out_dir.empty() ? report_dirs.front() : out_dir, json_path, paths,
                  all_results, ctx);
  } else {
    for (std::size_t i = 0; i < selected.size(); ++i) {
      write_reports(report_dirs[i], "", {paths[i]}, per_file[i], ctx);
    }
    if (!json_path.empty()) {
      make_dirs(std::filesystem::path(json_path).parent_path());
      vb::write_result_json(json_path, provenance_for(paths, ctx), all_results, ctx.ceilings);
      std::printf("wrote %s\n", json_path.c_str());
    }
  }
  return vb::exit_code_for(all_results);
}

// ---------------------------------------------------------------- profile
// Materialize one case, warm the production kernel up outside any range, then run it once
// inside the case's NVTX range; print the ncu command that profiles exactly that launch.
// With --timeline (a build with -DVB_DEBUG_TIMELINE=1): `launches` cold-L2 launches instead,
// each one's phase timeline read back; prints their median summary and writes every block's
// stamps as CSV. timeline_mode chain / chain-pdl: each recorded launch is instead the last of
// a chain sample's launches (vb::kChainLaunches back to back; chain-pdl each over the previous),
// whose stamps are the ones left in the slots.
int cmd_profile_timeline(vb::DeviceProblem& device, const vb::GpuExecutorRun& run, const vb::GpuInfo& gpu,
                         const std::string& case_name, const std::string& csv_path, int launches,
                         const std::string& timeline_mode) {
  std::string error;
  const std::unique_ptr<vb::GpuTimer> timer = vb::GpuTimer::create(gpu, &error, vb::L2Flush::kRead);
  if (!timer) return fail(vb::kExitRuntimeFailure, "timer: " + error);
  const vb::LaunchFn launch = [&](cudaStream_t s, bool overlap) {
    return device.launch(run.kind, run.page_kind, s, overlap);
  };
  const bool chain = timeline_mode != "cold";
  const bool overlap = timeline_mode == "chain-pdl";
  std::vector<vb::FlashVerifyTimeline> timelines;
  std::vector<vb::TimelineSummary> summaries;
  std::vector<double> event_us;
  for (int i = 0; i < launches; ++i) {
    if (cudaError_t err = vb::flash_verify_timeline_clear(); err != cudaSuccess) {
      return fail(vb::kExitRuntimeFailure, fmt::format("timeline clear failed: {}", cudaGetErrorString(err)));
    }
    const std::optional<double> ms = chain ? timer->time_launches(launch, false, vb::kChainLaunches, overlap, &error)
                                           : timer->time_once(launch, /*flush_l2=*/true, &error);
    if (!ms) return fail(vb::kExitRuntimeFailure, run.name + " launch failed: " + error);
    vb::FlashVerifyTimeline t;
    if (cudaError_t err = vb::flash_verify_timeline_read(&t); err != cudaSuccess) {
      return fail(vb::kExitRuntimeFailure, fmt::format("timeline read failed: {}", cudaGetErrorString(err)));
    }
    if (t.main.empty()) {
      return fail(vb::kExitBadInput, fmt::format("--timeline: executor {} recorded no production-kernel block "
                                                 "(only the production executors have stamps)", run.name));
    }
    if (i == 0 && (t.main.size() >= static_cast<std::size_t>(t.main_capacity) ||
                   t.combine.size() >= static_cast<std::size_t>(t.combine_capacity))) {
      std::printf("note: the build records %d main and %d combine blocks per launch; this launch filled them, so "
                  "the figures below cover those blocks only\n", t.main_capacity, t.combine_capacity);
    }
    summaries.push_back(vb::summarize_timeline(t));
    timelines.push_back(std::move(t));
    event_us.push_back(*ms * 1000.0);
  }
  std::string times;
  for (double us : event_us) times += fmt::format(" {:.2f}", us);
  const std::string what =
      chain ? fmt::format("{} {} samples (the last of {} launches each; host event times per launch)", launches,
                          timeline_mode, vb::kChainLaunches)
            : fmt::format("{} cold-L2 launches", launches);
  std::printf("timeline of %s (%s), %s; host event times (us):%s\n", case_name.c_str(), run.name.c_str(),
              what.c_str(), times.c_str());
  std::printf("medians over the launches:\n%s",
              vb::format_timeline_summary(vb::median_timeline_summary(summaries), vb::median_of(event_us)).c_str());
  vb::write_file_atomic(csv_path, vb::timeline_csv(timelines));
  std::printf("wrote %s\n", csv_path.c_str());
  return vb::kExitOk;
}

int cmd_profile(const std::string& file, const std::string& case_name, const std::string& executor,
                const std::string& timeline_csv_path, int timeline_launches, const std::string& timeline_mode,
                const std::string& self) {
  const auto run = std::find_if(vb::gpu_executor_runs().begin(), vb::gpu_executor_runs().end(),
                                [&](const vb::GpuExecutorRun& r) { return r.name == executor; });
  if (run == vb::gpu_executor_runs().end()) {
    std::string allowed;
    for (const vb::GpuExecutorRun& r : vb::gpu_executor_runs()) allowed += (allowed.empty() ? "" : ", ") + r.name;
    return fail(vb::kExitBadInput, fmt::format("--executor {}: unknown executor (allowed: {})", executor, allowed));
  }
  const std::vector<vb::ScenarioFile> loaded = load_all({file});
  const std::vector<Selected> selected = select_cases(loaded, {file}, {case_name});
  const vb::CaseSpec& spec = *selected.front().cases.front();
  const bool timeline = !timeline_csv_path.empty();
  if (timeline && !vb::flash_verify_timeline_built()) {
    return fail(vb::kExitBadInput, "--timeline: this build records no timeline; build the kernels with "
                                   "-DVB_DEBUG_TIMELINE=1 (scripts/bundle_variant.sh BASE OUT -DVB_DEBUG_TIMELINE=1)");
  }
  const std::string range = vb::nvtx_case_range_name(file, spec.name);
  const std::string filter = vb::nvtx_case_filter(range);
  if (!timeline) {
    std::printf("ncu command for this case:\n  ncu --clock-control none --nvtx --nvtx-include %s "
                "--set full -o %s %s profile %s --case %s --executor %s\n",
                vb::shell_quote(filter).c_str(),
                vb::shell_quote("reports/local/ncu-" + std::filesystem::path(file).stem().string()).c_str(),
                self.c_str(), file.c_str(), vb::shell_quote(spec.name).c_str(), vb::shell_quote(executor).c_str());
  }
  std::fflush(stdout);
  const vb::GpuInfo gpu = vb::query_gpu();
  if (!gpu.available) return fail(vb::kExitRuntimeFailure, "profile needs a GPU: " + gpu.reason);
  const vb::Problem problem = [&] {
    vb::NvtxRange r("materialize");
    return vb::materialize(spec);
  }();
  std::string error;
  const auto device = vb::DeviceProblem::upload(problem, gpu, &error);
  if (!device) return fail(vb::kExitRuntimeFailure, "upload failed: " + error);
  cudaStream_t stream = nullptr;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
    return fail(vb::kExitRuntimeFailure, "cudaStreamCreate failed");
  }
  constexpr int kWarmup = 3;
  cudaError_t err = cudaSuccess;
  {
    vb::NvtxRange r("warm-up");
    for (int i = 0; i < kWarmup && err == cudaSuccess; ++i) err = device->launch(run->kind, run->page_kind, stream);
    if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
  }
  if (err == cudaSuccess && timeline) {
    cudaStreamDestroy(stream);
    return cmd_profile_timeline(*device, *run, gpu, spec.name, timeline_csv_path, timeline_launches, timeline_mode);
  }
  if (err == cudaSuccess) {
    vb::CaseLaunchRange r(range);
    err = device->launch(run->kind, run->page_kind, stream);
    if (err == cudaSuccess) err = cudaStreamSynchronize(stream);
  }
  cudaStreamDestroy(stream);
  if (err != cudaSuccess) {
    return fail(vb::kExitRuntimeFailure, fmt::format("{} launch failed: {}", executor, cudaGetErrorString(err)));
  }
  std::printf("ran %s (%s) once inside NVTX range %s (domain verifybench)\n", spec.name.c_str(), executor.c_str(),
              range.c_str());
  return vb::kExitOk;
}

// ---------------------------------------------------------------- export
// One case's inputs and outputs in SGLang's tensor names and dtypes (safetensors + case.json),
// so other kernels can run on exactly the same bytes.
int cmd_export(const std::string& file, const std::string& case_name, const std::string& dir,
               int threads, const std::string& cmdline) {
  const std::vector<vb::ScenarioFile> loaded = load_all({file});
  const std::vector<Selected> selected = select_cases(loaded, {file}, {case_name});
  const vb::CaseSpec& spec = *selected.front().cases.front();
  vb::ExportOptions options;
  options.scenario_path = file;
  options.command = cmdline;
  options.reference_threads = threads;
  options.on_note = [](const std::string& note) { std::fprintf(stderr, "verifybench: %s\n", note.c_str()); };
  const vb::GpuInfo gpu = vb::query_gpu();
  if (!gpu.available) std::fprintf(stderr, "verifybench: GPU outputs not exported: %s\n", gpu.reason.c_str());
  const vb::ExportResult result = vb::export_case_from_spec(spec, gpu, dir, options);
  for (const std::string& f : result.files) std::printf("wrote %s\n", f.c_str());
  std::printf("%llu bytes; GPU outputs: %zu\n", static_cast<unsigned long long>(result.bytes_written),
              result.gpu_outputs_written.size());
  return vb::kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  // Line-buffered even into a file or pipe: a run killed by a time limit (a sanitizer on the
  // lab machine) still leaves every finished case's lines in its log.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  CLI::App app{"verifybench: validates and benchmarks the MLA tree-verify attention kernels "
               "against a CPU reference, case by case from YAML scenario files.",
               "verifybench"};
  app.footer(kFooter);  // before the subcommands: they inherit it
  app.set_version_flag("--version", kVersion);
  app.require_subcommand(1, 1);

  std::vector<std::string> list_files;
  CLI::App* list = app.add_subcommand(
      "list", "Show the scenarios of each file and the cases their sweeps expand to.");
  list->add_option("FILE", list_files, "scenario YAML files")->required();

  std::vector<std::string> plan_files, plan_devices;
  CLI::App* plan = app.add_subcommand(
      "plan", "Show the production launch each case gets on each modelled GPU (pipeline depth, "
              "shared memory, tiles, KV splits, waves) and its memory and mma floors. No GPU needed.");
  plan->add_option("FILE", plan_files, "scenario YAML files")->required();
  plan->add_option("--planner", g_planner_settings, planner_help())->expected(1)->multi_option_policy(
      CLI::MultiOptionPolicy::TakeAll);
  plan->add_option("--device", plan_devices, "modelled GPU, repeatable (default: every one: " +
                                                 vb::device_model_slugs() + ")");

  std::vector<std::string> run_files, run_cases;
  std::string json_path;
  int threads = 0;
  CLI::App* run = app.add_subcommand(
      "run", "Run every case (or the named ones): CPU reference, then each GPU executor, "
             "compared element by element. Prints a table; writes a JSON result file.");
  run->add_option("FILE", run_files, "scenario YAML files")->required();
  run->add_option("--case", run_cases,
                  "run only this case (exact name as `list` prints it); repeatable")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  run->add_option("--json", json_path,
                  "also/instead: write the combined JSON result file here (the other reports "
                  "still go to the report folder)");
  run->add_option("--threads", threads, "CPU reference threads, 0..4096 (0: all hardware threads)")
      ->check(CLI::Range(0, 4096));
  run->add_option("--planner", g_planner_settings, planner_help())->expected(1)->multi_option_policy(
      CLI::MultiOptionPolicy::TakeAll);
  std::string out_dir;
  TimeArgs time_args;
  std::string peers_path;
  run->add_option("--out-dir", out_dir,
                  "report folder: result.json, summary.md, results.csv, roofline.svg (default: "
                  "reports/local/<file stem>/ per file; one combined folder when given)");
  run->add_flag("--time", time_args.time,
                "time every executor that ran (after the checks; incorrect ones too, flagged) "
                "and measure the device ceilings first");
  run->add_option("--modes", time_args.modes,
                  "timing modes, comma-separated: cold (L2 flushed before each sample), hot, "
                  "graph (CUDA-graph replay), chain (8 launches back to back, per launch), chain-pdl "
                  "(the same, each production launch over the previous: programmatic dependent launch)")
      ->capture_default_str();
  run->add_option("--l2-flush", time_args.l2_flush,
                  "how a cold sample empties the L2 first: read (a read pass over 2x the L2: clean "
                  "lines) or write (a memset, as reports before 2026-11-29 'wgmma' did: its dirty "
                  "lines are written back inside the timed launch)")
      ->capture_default_str()->check(CLI::IsMember({"read", "write"}));
  run->add_option("--noise", time_args.noise,
                  "target relative noise: stop when the relative standard error of the median "
                  "is at or below it")
      ->capture_default_str()->check(CLI::Range(0.0, 1.0));
  run->add_option("--min-samples", time_args.min_samples, "minimum samples per measurement (>= 3)")
      ->capture_default_str()->check(CLI::Range(3, 1000000));
  run->add_option("--max-samples", time_args.max_samples, "maximum samples per measurement")
      ->capture_default_str()->check(CLI::Range(3, 1000000));
  run->add_option("--budget-s", time_args.budget_s,
                  "time budget per measurement in seconds (never cuts below --min-samples)")
      ->capture_default_str()->check(CLI::Range(0.0, 3600.0));
  run->add_option("--peers", peers_path,
                  "peer kernels' rows from `python -m verifybench.peers CASE_DIR... --out FILE` (cases exported from "
                  "this scenario file), reported beside production with the speedup where both have cold-l2 times");

  std::string profile_file, profile_case, profile_executor = "production";
  CLI::App* profile = app.add_subcommand(
      "profile", "Warm up one GPU executor (default: the production kernel) on one case, run it once "
                 "inside the case's NVTX range, and print the ncu command that profiles exactly that launch.");
  profile->add_option("FILE", profile_file, "scenario YAML file")->required();
  profile->add_option("--case", profile_case, "the case (exact name as `list` prints it)")->required();
  profile->add_option("--planner", g_planner_settings, planner_help())->expected(1)->multi_option_policy(
      CLI::MultiOptionPolicy::TakeAll);
  profile->add_option("--executor", profile_executor,
                      "GPU executor to run (production, production/block-table, production/mma.sync, production/wgmma, naive, "
                      "sglang-adapter, production/sm120-proxy)")
      ->capture_default_str();
  std::string profile_timeline;
  int profile_launches = 5;
  CLI::Option* timeline_option = profile->add_option("--timeline", profile_timeline,
                      "instead of the NVTX launch: time cold-L2 launches of a build with -DVB_DEBUG_TIMELINE=1, "
                      "print where each launch's time went (medians) and write every block's stamps to this CSV file");
  profile->add_option("--launches", profile_launches, "cold launches for --timeline (1..1000)")
      ->capture_default_str()->check(CLI::Range(1, 1000))->needs(timeline_option);
  std::string profile_timeline_mode = "cold";
  profile->add_option("--timeline-mode", profile_timeline_mode,
                      "what each --timeline launch is: cold (one cold-L2 launch), chain or chain-pdl (the last of a "
                      "chain sample's back-to-back launches, chain-pdl each over the previous)")
      ->capture_default_str()->check(CLI::IsMember({"cold", "chain", "chain-pdl"}))->needs(timeline_option);

  std::string export_file, export_case, export_dir;
  CLI::App* export_cmd = app.add_subcommand(
      "export", "Write one case's inputs and outputs (CPU reference, and every GPU executor "
                "when a device is present) as safetensors in SGLang's tensor names and dtypes, "
                "plus case.json describing them.");
  export_cmd->add_option("FILE", export_file, "scenario YAML file")->required();
  export_cmd->add_option("--case", export_case, "the case (exact name as `list` prints it)")->required();
  export_cmd->add_option("--planner", g_planner_settings, planner_help())->expected(1)->multi_option_policy(
      CLI::MultiOptionPolicy::TakeAll);
  export_cmd->add_option("DIR", export_dir, "output folder (created; replaced files are written atomically)")
      ->required();
  export_cmd->add_option("--threads", threads, "CPU reference threads, 0..4096 (0: all hardware threads)")
      ->check(CLI::Range(0, 4096));

  int compare_exit = 0;
  CLI::App* compare = vb::add_compare_command(app, &compare_exit);

  for (CLI::App* cmd : {list, plan, run, profile, export_cmd}) add_limit_options(cmd);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::string message = e.what();
    if (message.find("subcommand") != std::string::npos) message += " (list, plan, run, profile, export or compare; see --help)";
    return fail(vb::kExitBadInput, message);
  }

  try {
    if (compare->parsed()) return compare_exit;
    if (list->parsed()) return cmd_list(list_files);
    if (plan->parsed()) return cmd_plan(plan_files, plan_devices);
    if (export_cmd->parsed()) {
      return cmd_export(export_file, export_case, export_dir, threads, command_line(argc, argv));
    }
    if (profile->parsed()) {
      return cmd_profile(profile_file, profile_case, profile_executor, profile_timeline, profile_launches,
                         profile_timeline_mode, argv[0]);
    }
    return cmd_run(run_files, run_cases, json_path, out_dir, threads, time_args,
                   command_line(argc, argv), peers_path);
  } catch (const vb::ScenarioError& e) {
    return fail(vb::kExitBadInput, e.what());
  } catch (const UsageError& e) {
    return fail(vb::kExitBadInput, e.what());
  } catch (const vb::ExportError& e) {
    return fail(vb::kExitRuntimeFailure, e.what());
  } catch (const vb::ReportError& e) {
    return fail(vb::kExitRuntimeFailure, e.what());
  } catch (const std::exception& e) {
    return fail(vb::kExitRuntimeFailure, e.what());
  }
}

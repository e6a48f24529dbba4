// `verifybench plan FILE... [--device NAME]...`: the production launch each case gets on each
// modelled device (harness/plan/device_models.h): pipeline depth, shared memory, query-row
// tiles, KV splits, waves, and the memory and mma floors at that device's roofs. Pure
// arithmetic: no GPU, no materialized KV pool.
#include <cstdio>
#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "harness/cli/commands.h"
#include "harness/run/plan_coverage.h"
#include "harness/plan/device_models.h"
#include "harness/report/report_table.h"
#include "harness/run/runner.h"

namespace vb {
namespace {

struct PlanArgs {
  std::vector<std::string> files, device_slugs;
  ScenarioOptions scenario;
  bool coverage = false;
  bool check = false;
};

// The named devices, or every modelled one when none is named; throws UsageError for a name
// that is not modelled.
std::vector<const DeviceModel*> devices_named(const std::vector<std::string>& slugs) {
  std::vector<const DeviceModel*> devices;
  for (const std::string& slug : slugs) {
    const DeviceModel* d = find_device_model(slug);
    if (d == nullptr) {
      throw UsageError(fmt::format("--device {}: unknown device (allowed: {})", slug, device_model_slugs()));
    }
    devices.push_back(d);
  }
  if (devices.empty()) {
    for (const DeviceModel& d : device_models()) devices.push_back(&d);
  }
  return devices;
}

void print_plan_table(const ScenarioFile& file, const std::vector<const DeviceModel*>& devices) {
  std::printf("%s: %zu cases\n", file.path.c_str(), file.cases.size());
  TextTable table({"case", "device", "launch plan (production)", "block table", "blocks", "waves", "KV tokens",
                   "KV cache", "MB", "GFLOP", "mem floor us", "mma floor us", "bound"},
                  {false, false, false, false, true, true, true, false, true, true, true, true, false});
  for (const CaseSpec& c : file.cases) {
    for (const DeviceModel* d : devices) {
      const PlannedLaunch p = plan_launch(c, *d);
      table.add_row({c.name, d->slug, describe(p.launch),
                     p.block_table_launch.valid ? to_string(p.block_table_launch.instance) : "-",
                     fmt::format("{}", p.blocks), fmt::format("{:.2f}", p.waves), fmt::format("{}", p.kv_tokens),
                     kv_cache_and_math_label(c),
                     fmt::format("{:.1f}", p.bytes / 1e6), fmt::format("{:.2f}", p.flops / 1e9),
                     fmt::format("{:.1f}", p.memory_floor_us), fmt::format("{:.1f}", p.mma_floor_us),
                     p.memory_floor_us >= p.mma_floor_us ? "memory" : "compute"});
    }
  }
  std::fputs(table.render().c_str(), stdout);
}

void print_plan_legend(const std::vector<const DeviceModel*>& devices) {
  std::printf("\nlaunch plan: kernel instance, pipeline stages, dynamic shared memory (B), query-row tiles, KV splits "
              "(tiles/split: fixed-size splits; slots: the tile-balanced schedule's combine slots), main grid, and "
              "the combine's lanes x loads per lane; the same line `run` prints per executor (LaunchPlan, "
              "kernels/include/verifybench/planner.h)\n");
  std::printf("\ndevices (harness/plan/device_models.cpp):\n");
  for (const DeviceModel* d : devices) {
    std::printf("  %-13s %s, sm_%d, %d SMs, %d B shared memory per block, %d block(s) per SM, %.0f GB/s, %.1f TFLOP/s, %s: %s\n",
                d->slug.c_str(), d->name.c_str(), d->sm_arch, d->num_sms, d->smem_optin_bytes, d->blocks_per_sm,
                d->memory_gbps, d->mma_tflops,
                d->wgmma ? "wgmma path for H*T >= 64, and 17-63 over pages of 16+" : "mma.sync path only",
                d->source.c_str());
  }
  std::fputs("(floors: KV rows once + q + o + lse at the memory roof; 2*(P+T)*H*T*1088 FLOP at the mma roof; "
             "the kernel's own split model and pipeline-depth rule)\n",
             stdout);
}

// Case names as "a, b, c (+N more)", so that a family's row stays one line.
std::string first_names(const std::vector<std::string>& names, std::size_t shown) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < shown; ++i) out += (i > 0 ? ", " : "") + names[i];
  if (names.size() > shown) out += fmt::format(" (+{} more)", names.size() - shown);
  return out;
}

void print_target_coverage(const TargetCoverage& cov) {
  std::string executors;
  for (const CoverageExecutor& e : cov.executors) executors += (executors.empty() ? "" : ", ") + e.name;
  std::printf("\nplan coverage: %s (executors: %s)\n", cov.target.name.c_str(), executors.c_str());
  TextTable table({"plan family", "cases", "rising/sink", "case names", "executors"},
                  {false, true, true, false, false});
  std::map<std::string, std::vector<std::string>> unreachable;  // reason -> families
  std::vector<std::string> uncovered, unprobed;
  int reachable = 0, covered = 0;
  for (const FamilyCoverage& fc : cov.families) {
    const std::string name = family_name(fc.family);
    if (!fc.unreachable.empty()) {
      unreachable[fc.unreachable].push_back(name);
      continue;
    }
    if (!fc.reachable()) {
      unprobed.push_back(name);
      continue;
    }
    ++reachable;
    std::set<std::string> case_set, executor_set;
    int rescale_cases = 0;
    for (const FamilyUse& use : fc.uses) {
      if (case_set.insert(use.case_name).second && use.rescale_data) ++rescale_cases;
      executor_set.insert(use.executor);
    }
    if (case_set.empty()) uncovered.push_back(name);
    covered += case_set.empty() ? 0 : 1;
    const std::vector<std::string> cases(case_set.begin(), case_set.end());
    table.add_row({name, fmt::format("{}", cases.size()), fmt::format("{}", rescale_cases), cases.empty() ? "NOT COVERED" : first_names(cases, 3),
                   fmt::format("{}", fmt::join(executor_set, ", "))});
  }
  std::fputs(table.render().c_str(), stdout);
  std::printf("%d reachable families, %d covered by a case, %zu not covered%s\n", reachable, covered,
              uncovered.size(), uncovered.empty() ? "" : ":");
  for (const std::string& name : uncovered) std::printf("  NOT COVERED  %s\n", name.c_str());
  if (!unprobed.empty()) {
    std::printf("not given by the planner on any of the %d probe shapes (%zu families):\n", cov.probe_shapes,
                unprobed.size());
    for (const std::string& name : unprobed) std::printf("  %s\n", name.c_str());
  }
  for (const auto& [reason, names] : unreachable) {
    std::printf("unreachable by design (%zu families): %s\n", names.size(), reason.c_str());
    for (const std::string& name : names) std::printf("  %s\n", name.c_str());
  }
}

// `plan --coverage`: the table per target of each lab device over every file's cases
// together; with --check, exit 1 naming each failure (coverage_failures).
int plan_coverage_of(const PlanArgs& args, const std::vector<const DeviceModel*>& devices,
                     const std::vector<ScenarioFile>& loaded) {
  std::vector<CaseSpec> cases;
  for (const ScenarioFile& f : loaded) cases.insert(cases.end(), f.cases.begin(), f.cases.end());
  std::vector<std::string> failures;
  for (const DeviceModel* d : devices) {
    for (const CoverageTarget& target : coverage_targets(*d)) {
      const TargetCoverage cov = plan_coverage(target, cases);
      print_target_coverage(cov);
      for (std::string& f : coverage_failures(cov)) failures.push_back(std::move(f));
    }
  }
  if (!args.check) return kExitOk;
  for (const std::string& f : failures) std::fprintf(stderr, "verifybench: coverage: %s\n", f.c_str());
  if (!failures.empty()) return kExitIncorrect;
  std::printf("\ncoverage check passed: every reachable family has a case\n");
  return kExitOk;
}

int plan_cases(const PlanArgs& args) {
  std::vector<const DeviceModel*> devices = devices_named(args.device_slugs);
  const std::vector<ScenarioFile> loaded = load_all(args.files, args.scenario);
  if (args.coverage) {
    // By default the lab devices: the modelled Hopper, whose run also covers sm_120 (the proxy).
    if (args.device_slugs.empty()) std::erase_if(devices, [](const DeviceModel* d) { return d->sm_arch != 90; });
    return plan_coverage_of(args, devices, loaded);
  }
  for (std::size_t i = 0; i < loaded.size(); ++i) {
    if (i > 0) std::printf("\n");
    print_plan_table(loaded[i], devices);
  }
  print_plan_legend(devices);
  return kExitOk;
}

}  // namespace

CLI::App* add_plan_command(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* cmd = app.add_subcommand(
      "plan", "Show the production launch each case gets on each modelled GPU (pipeline depth, "
              "shared memory, tiles, KV splits, waves) and its memory and mma floors. No GPU needed.");
  cmd->add_option("FILE", args->files, "scenario YAML files")->required();
  add_launch_options(cmd, &args->scenario);
  cmd->add_option("--device", args->device_slugs, "modelled GPU, repeatable (default: every one: " +
                                                      device_model_slugs() + ")");
  cmd->add_flag("--coverage", args->coverage,
                 "list every plan family per device target (the device, and sm_120 through the proxy on a "
                 "Hopper) with the cases and executors whose launches are of it, and the unreachable ones with why");
  cmd->add_flag("--check", args->check,
                "with --coverage: exit 1 when a reachable family has no case (each named on stderr)");
  add_limit_options(cmd, &args->scenario);
  cmd->callback([args, exit_code] {
    *exit_code = run_command([&] {
      if (args->check && !args->coverage) throw UsageError("--check needs --coverage");
      return plan_cases(*args);
    });
  });
  return cmd;
}

}  // namespace vb

// `verifybench plan FILE... [--device NAME]...`: the production launch each case gets on each
// modelled device (harness/plan/device_models.h): pipeline depth, shared memory, query-row
// tiles, KV splits, waves, and the memory and mma floors at that device's roofs. Pure
// arithmetic: no GPU, no materialized KV pool.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "harness/cli/commands.h"
#include "harness/plan/device_models.h"
#include "harness/report/report_table.h"
#include "harness/run/runner.h"

namespace vb {
namespace {

struct PlanArgs {
  std::vector<std::string> files, device_slugs;
  ScenarioOptions scenario;
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
                   "MB", "GFLOP", "mem floor us", "mma floor us", "bound"},
                  {false, false, false, false, true, true, true, true, true, true, true, false});
  for (const CaseSpec& c : file.cases) {
    for (const DeviceModel* d : devices) {
      const PlannedLaunch p = plan_launch(c, *d);
      table.add_row({c.name, d->slug, describe(p.launch),
                     p.block_table_launch.valid ? to_string(p.block_table_launch.instance) : "-",
                     fmt::format("{}", p.blocks), fmt::format("{:.2f}", p.waves), fmt::format("{}", p.kv_tokens),
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

int plan_cases(const PlanArgs& args) {
  const std::vector<const DeviceModel*> devices = devices_named(args.device_slugs);
  const std::vector<ScenarioFile> loaded = load_all(args.files, args.scenario);
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
  add_planner_option(cmd, &args->scenario);
  cmd->add_option("--device", args->device_slugs, "modelled GPU, repeatable (default: every one: " +
                                                      device_model_slugs() + ")");
  add_limit_options(cmd, &args->scenario);
  cmd->callback([args, exit_code] { *exit_code = run_command([&] { return plan_cases(*args); }); });
  return cmd;
}

}  // namespace vb

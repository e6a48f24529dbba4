// `verifybench list FILE...`: what each scenario file expands to, one row per case.
#include <cstdio>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "harness/cli/commands.h"
#include "harness/problem/problem.h"
#include "harness/report/report_table.h"
#include "harness/run/runner.h"

namespace vb {
namespace {

int batch_size(const BatchSpec& b) {
  return b.dist == PrefixDist::kList ? static_cast<int>(b.prefix_lens.size()) : b.size;
}

// Exact for listed and fixed prefixes; "~" + the expected value for drawn distributions
// (the draw itself happens in materialize).
std::string kv_tokens_text(const CaseSpec& spec, int tree_size) {
  const BatchSpec& b = spec.batch;
  const std::int64_t tree_part = static_cast<std::int64_t>(batch_size(b)) * tree_size;
  switch (b.dist) {
    case PrefixDist::kList: {
      std::int64_t sum = 0;
      for (int p : b.prefix_lens) sum += p;
      return fmt::format("{}", sum + tree_part);
    }
    case PrefixDist::kFixed:
      return fmt::format("{}", static_cast<std::int64_t>(b.size) * b.value + tree_part);
    case PrefixDist::kUniform:
      return fmt::format("~{}", static_cast<std::int64_t>(b.size) * (b.min + b.max) / 2 +
                                    tree_part);
    case PrefixDist::kLogNormal:
      return fmt::format("~{}", static_cast<std::int64_t>(b.size * b.median) + tree_part);
  }
  return "?";
}

int list_cases(const std::vector<std::string>& files, const ScenarioOptions& scenario_options) {
  const std::vector<ScenarioFile> loaded = load_all(files, scenario_options);
  for (std::size_t i = 0; i < loaded.size(); ++i) {
    const ScenarioFile& file = loaded[i];
    std::set<std::string> scenarios;
    for (const CaseSpec& c : file.cases) scenarios.insert(c.scenario);
    if (i > 0) std::printf("\n");
    std::printf("%s: %zu scenarios, %zu cases\n", file.path.c_str(), scenarios.size(),
                file.cases.size());
    TextTable table({"case", "tree", "B", "T", "H", "page", "placement", "KV tokens", "KV cache", "check",
                     "source"},
                    {false, false, false, true, true, true, true, false, false, true, false});
    for (const CaseSpec& c : file.cases) {
      const int t = tree_size(c.tree);
      const std::string check =
          c.check.mode == CheckMode::kFull
              ? std::string("full")
              : fmt::format("sampled {}", c.check.sampled_rows);
      table.add_row({c.name, to_string(c.tree.kind), fmt::format("{}", batch_size(c.batch)),
                     fmt::format("{}", t), fmt::format("{}", c.heads),
                     fmt::format("{}", c.pages.size), to_string(c.pages.placement),
                     kv_tokens_text(c, t), kv_cache_and_math_label(c), check, c.source});
    }
    std::fputs(table.render().c_str(), stdout);
  }
  std::fputs("(KV tokens = sum over requests of prefix + tree; ~ marks the expected value of a "
             "drawn prefix distribution)\n",
             stdout);
  return kExitOk;
}

struct ListArgs {
  std::vector<std::string> files;
  ScenarioOptions scenario;
};

}  // namespace

CLI::App* add_list_command(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<ListArgs>();
  CLI::App* cmd = app.add_subcommand(
      "list", "Show the scenarios of each file and the cases their sweeps expand to.");
  cmd->add_option("FILE", args->files, "scenario YAML files")->required();
  add_limit_options(cmd, &args->scenario);
  cmd->callback([args, exit_code] { *exit_code = run_command([&] { return list_cases(args->files, args->scenario); }); });
  return cmd;
}

}  // namespace vb

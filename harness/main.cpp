// verifybench CLI: `list` shows what scenario files expand to, `run` checks every executor
// of every case against the CPU reference and writes the table and the JSON result file.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "harness/gpu_executor.h"
#include "harness/problem.h"
#include "harness/report_json.h"
#include "harness/report_table.h"
#include "harness/result.h"
#include "harness/runner.h"
#include "harness/scenario.h"

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

std::vector<vb::ScenarioFile> load_all(const std::vector<std::string>& files) {
  std::vector<vb::ScenarioFile> loaded;
  for (const std::string& f : files) loaded.push_back(vb::load_scenario_file(f));
  return loaded;
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
                        {false, false, true, true, true, true, false, true, false, false});
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

std::string default_json_path(const std::string& scenario_path) {
  return (std::filesystem::path("reports") / "local" /
          (std::filesystem::path(scenario_path).stem().string() + "-result.json"))
      .string();
}

void write_report(const std::string& path, const std::vector<std::string>& scenario_paths,
                  const std::vector<vb::CaseResult>& results, const std::string& cmdline,
                  const vb::GpuInfo& gpu) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec) throw vb::ReportError(fmt::format("cannot create {}: {}", parent.string(), ec.message()));
  }
  const vb::Provenance prov = vb::collect_provenance(scenario_paths, cmdline, gpu, kVersion);
  vb::write_result_json(path, prov, results);
  std::printf("wrote %s\n", path.c_str());
}

int cmd_run(const std::vector<std::string>& files, const std::vector<std::string>& wanted,
            const std::string& json_path, int threads, const std::string& cmdline) {
  const std::vector<vb::ScenarioFile> loaded = load_all(files);
  const std::vector<Selected> selected = select_cases(loaded, files, wanted);
  const vb::GpuInfo gpu = vb::query_gpu();
  const bool progress = ::isatty(STDERR_FILENO) != 0;

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
    std::vector<vb::CaseResult> results;
    for (const vb::CaseSpec* spec : s.cases) {
      ++index;
      const auto case_start = std::chrono::steady_clock::now();
      if (progress) {
        std::fprintf(stderr, "[%zu/%zu] %s ...", index, total, spec->name.c_str());
        std::fflush(stderr);
      }
      results.push_back(vb::run_case(*spec, gpu, options));
      if (progress) {
        std::fprintf(stderr, " %.1f s (elapsed %.1f s)\n", seconds(case_start), seconds(start));
      }
    }
    all_results.insert(all_results.end(), results.begin(), results.end());
    per_file.push_back(std::move(results));
  }

  std::fputs(vb::format_case_table(all_results).c_str(), stdout);
  std::fputs(vb::format_summary(all_results, gpu).c_str(), stdout);
  std::fflush(stdout);

  if (!json_path.empty()) {
    std::vector<std::string> paths;
    for (const Selected& s : selected) paths.push_back(s.path_as_given);
    write_report(json_path, paths, all_results, cmdline, gpu);
  } else {
    for (std::size_t i = 0; i < selected.size(); ++i) {
      write_report(default_json_path(selected[i].path_as_given), {selected[i].path_as_given},
                   per_file[i], cmdline, gpu);
    }
  }
  return vb::exit_code_for(all_results);
}

}  // namespace

int main(int argc, char** argv) {
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
                  "result file (default: reports/local/<file stem>-result.json per file; one "
                  "combined file when given)");
  run->add_option("--threads", threads, "CPU reference threads, 0..4096 (0: all hardware threads)")
      ->check(CLI::Range(0, 4096));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help, --version
    std::string message = e.what();
    if (message.find("subcommand") != std::string::npos) message += " (list or run; see --help)";
    return fail(vb::kExitBadInput, message);
  }

  try {
    if (list->parsed()) return cmd_list(list_files);
    return cmd_run(run_files, run_cases, json_path, threads, command_line(argc, argv));
  } catch (const vb::ScenarioError& e) {
    return fail(vb::kExitBadInput, e.what());
  } catch (const UsageError& e) {
    return fail(vb::kExitBadInput, e.what());
  } catch (const vb::ReportError& e) {
    return fail(vb::kExitRuntimeFailure, e.what());
  } catch (const std::exception& e) {
    return fail(vb::kExitRuntimeFailure, e.what());
  }
}

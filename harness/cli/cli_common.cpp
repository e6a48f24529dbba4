// Shared parts of the verifybench commands (harness/cli/cli_common.h).
#include "harness/cli/cli_common.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <cstdio>
#include <exception>
#include <limits>
#include <optional>
#include <map>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "harness/export/export_safetensors.h"
#include "harness/io/files.h"
#include "harness/report/report_json.h"
#include "harness/record/result.h"
#include "harness/run/runner.h"
#include "verifybench/decimal_text.h"

namespace vb {

Invocation invocation_of(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    const std::string arg = argv[i];
    const bool plain = !arg.empty() && arg.find_first_not_of(
                                           "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                           "0123456789_-./+=:,") == std::string::npos;
    if (i > 0) line += ' ';
    line += plain ? arg : shell_quote(arg);
  }
  return Invocation{line, argc > 0 ? argv[0] : "verifybench"};
}

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "verifybench: error: %s\n", message.c_str());
  return code;
}

int run_command(const std::function<int()>& body) {
  try {
    return body();
  } catch (const ScenarioError& e) {
    return fail(kExitBadInput, e.what());
  } catch (const UsageError& e) {
    return fail(kExitBadInput, e.what());
  } catch (const BadFileError& e) {
    return fail(kExitBadInput, e.what());
  } catch (const ExportError& e) {
    return fail(kExitRuntimeFailure, e.what());
  } catch (const ReportError& e) {
    return fail(kExitRuntimeFailure, e.what());
  } catch (const std::exception& e) {
    return fail(kExitRuntimeFailure, e.what());
  }
}

// ---------------------------------------------------------------- numeric options
CLI::Validator number_in(NumberBounds bounds) {
  const bool unbounded = bounds.hi == std::numeric_limits<double>::max();
  const std::string range =
      unbounded ? fmt::format("{} {:g}", bounds.lo_open ? ">" : ">=", bounds.lo)
                : fmt::format("in {}{:g}, {:g}{}", bounds.lo_open ? "(" : "[", bounds.lo, bounds.hi, bounds.hi_open ? ")" : "]");
  return CLI::Validator(
      [bounds, range](const std::string& text) -> std::string {
        const std::optional<double> v = parse_decimal_number(text);
        const bool above_lo = v && (bounds.lo_open ? *v > bounds.lo : *v >= bounds.lo);
        const bool below_hi = v && (bounds.hi_open ? *v < bounds.hi : *v <= bounds.hi);
        if (above_lo && below_hi) return "";
        return fmt::format("got {}; allowed: a finite decimal number {}", one_line_text(text), range);
      },
      "NUMBER " + range);
}

CLI::Validator integer_in(std::int64_t lo, std::int64_t hi) {
  const std::string range =
      hi == std::numeric_limits<std::int64_t>::max() ? fmt::format(">= {}", lo) : fmt::format("in {}..{}", lo, hi);
  return CLI::Validator(
      [lo, hi, range](const std::string& text) -> std::string {
        const std::optional<std::int64_t> v = parse_decimal_integer(text, true);
        if (v && *v >= lo && *v <= hi) return "";
        return fmt::format("got {}; allowed: a decimal integer {}", one_line_text(text), range);
      },
      "INT " + range);
}

void prepare_output_dir(const std::string& dir, const std::string& option) {
  std::error_code ec;
  const std::filesystem::path path(dir);
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_directory(path, ec)) {
    throw UsageError(fmt::format("{} {}: not a directory; allowed: a folder (created if missing)", option, dir));
  }
  std::filesystem::create_directories(path, ec);
  if (ec) throw UsageError(fmt::format("{} {}: cannot create it: {}", option, dir, ec.message()));
  const std::string probe = (path / fmt::format(".verifybench-probe-{}", ::getpid())).string();
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw UsageError(fmt::format("{} {}: not writable: {}", option, dir, std::strerror(errno)));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

void prepare_output_file(const std::string& path, const std::string& option) {
  check_destination(path, option);
  const std::string parent = std::filesystem::path(path).parent_path().string();
  if (!parent.empty()) prepare_output_dir(parent, option + "'s folder");
}

// ---------------------------------------------------------------- loading scenario files
void add_limit_options(CLI::App* cmd, ScenarioOptions* options) {
  ScenarioLimits& l = options->limits;
  constexpr std::int64_t kMaxInt = std::numeric_limits<std::int64_t>::max();
  cmd->add_option("--max-file-bytes", l.max_file_bytes, "largest scenario file read (default 1 MiB)")
      ->check(integer_in(1, kMaxInt));
  cmd->add_option("--max-cases", l.max_cases, "most cases one file may expand to (default 10000)")
      ->check(integer_in(1, kMaxInt));
  cmd->add_option("--max-host-bytes", l.max_host_bytes, "host memory one case may take (default 16 GiB)")
      ->check(integer_in(1, kMaxInt));
  cmd->add_option("--max-reference-flop", l.max_reference_flop, "CPU reference FLOP one case may take (default 1e12)")
      ->check(number_in({0, std::numeric_limits<double>::max(), true, false}));
  cmd->add_option("--max-reference-bytes", l.max_reference_bytes,
                  "K one request's CPU reference may gather, per thread (default 2 GiB)")
      ->check(integer_in(1, kMaxInt));
}

namespace {

std::string planner_help() {
  std::string out = "production planner setting, key=value, repeatable; applied after a scenario's planner: map. Keys:";
  for (const PlannerOptionInfo& o : planner_options()) out += "\n  " + o.key + ": " + o.meaning;
  return out;
}

void apply_planner_settings(const std::vector<std::string>& settings, CaseSpec* spec) {
  for (const std::string& setting : settings) {
    const std::size_t eq = setting.find('=');
    std::string error;
    // The setting and the error quote what the user typed: escaped, so a message stays one line.
    if (eq == std::string::npos) {
      throw UsageError(fmt::format("--planner {}: expected key=value (keys: verifybench plan --help)",
                                   one_line_text(setting)));
    }
    if (!set_planner_option(&spec->planner, setting.substr(0, eq), setting.substr(eq + 1), &error)) {
      throw UsageError(one_line_text("--planner " + setting + ": " + error));
    }
  }
}

}  // namespace

void add_launch_options(CLI::App* cmd, ScenarioOptions* options) {
  cmd->add_option("--planner", options->planner_settings, planner_help())->expected(1)->multi_option_policy(
      CLI::MultiOptionPolicy::TakeAll);
  cmd->add_option("--math", options->math,
                  "tensor math of every case with an fp8 KV pool, over its scenario's math: key: bf16 (the tile "
                  "widened, exact) or fp8 (e4m3 tensor math, tolerance from its rounding model); bf16 pools keep "
                  "bf16 math")
      ->check(CLI::IsMember({to_string(MathMode::kBf16), to_string(MathMode::kFp8)}))
      ->option_text("bf16|fp8");
}

void add_one_case_options(CLI::App* cmd, std::string* file, std::string* case_name) {
  cmd->add_option("FILE", *file, "scenario YAML file")->required();
  cmd->add_option("--case", *case_name, "the case (exact name as `list` prints it)")->required();
}

namespace {

// A file named twice (as `a.yaml a.yaml`, or `a.yaml ./a.yaml`) would run its cases twice
// under the same names, which result.json and compare cannot tell apart.
void refuse_repeated_files(const std::vector<std::string>& files) {
  std::map<std::pair<dev_t, ino_t>, std::string> seen;
  for (const std::string& f : files) {
    struct stat st {};
    if (::stat(f.c_str(), &st) != 0) continue;  // the loader names what is wrong with it
    const auto [at, added] = seen.emplace(std::make_pair(st.st_dev, st.st_ino), f);
    if (!added) {
      throw UsageError(fmt::format("FILE {}: the same file as {}, given earlier; allowed: each scenario file once",
                                   printable_text(f), printable_text(at->second)));
    }
  }
}

}  // namespace

std::vector<ScenarioFile> load_all(const std::vector<std::string>& files, const ScenarioOptions& options) {
  refuse_repeated_files(files);
  std::vector<ScenarioFile> loaded;
  for (const std::string& f : files) {
    loaded.push_back(load_scenario_file(f, options.limits));
    for (CaseSpec& spec : loaded.back().cases) {
      apply_planner_settings(options.planner_settings, &spec);
      if (!options.math.empty() && spec.kv_cache.dtype == KvDtype::kFp8E4m3) {
        spec.math = options.math == to_string(MathMode::kFp8) ? MathMode::kFp8 : MathMode::kBf16;
      }
    }
  }
  return loaded;
}

// ---------------------------------------------------------------- close names
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

std::string closest_name(const std::string& wanted, const std::vector<std::string>& names) {
  std::string best;
  std::size_t best_distance = std::max<std::size_t>(2, wanted.size() / 4) + 1;
  for (const std::string& n : names) {
    if (const std::size_t d = edit_distance(wanted, n); d < best_distance) {
      best_distance = d;
      best = n;
    }
  }
  return best;
}

// ---------------------------------------------------------------- selecting cases
namespace {

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
    out += shell_quote(scored[i].second);
  }
  return out;
}

}  // namespace

std::vector<Selected> select_cases(const std::vector<ScenarioFile>& loaded, const std::vector<std::string>& paths,
                                   const std::vector<std::string>& wanted) {
  std::vector<Selected> selected;
  std::vector<std::string> all_names;
  std::set<std::string> found;
  for (std::size_t i = 0; i < loaded.size(); ++i) {
    Selected s{&loaded[i], paths[i], {}};
    for (const CaseSpec& c : loaded[i].cases) {
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
      throw UsageError(fmt::format("unknown case {}; {}", shell_quote(w), close_names(w, all_names)));
    }
  }
  return selected;
}

const CaseSpec& select_one_case(const std::vector<ScenarioFile>& loaded, const std::string& file,
                                const std::string& name) {
  return *select_cases(loaded, {file}, {name}).front().cases.front();
}

const ExecutorInfo& executor_for_option(const std::string& option, const std::string& name) {
  try {
    return executor_named(name);
  } catch (const std::invalid_argument& e) {
    throw UsageError(fmt::format("{} {}: {}", option, name, e.what()));
  }
}

}  // namespace vb

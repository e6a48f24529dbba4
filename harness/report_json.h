// JSON result file: a versioned document over CaseResult records plus the provenance of the
// run. A writer only; it computes nothing about the results themselves.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/gpu_executor.h"
#include "harness/result.h"

namespace vb {

inline constexpr const char* kResultSchema = "verifybench.result/1";

// An I/O failure while reading inputs for provenance or writing a report (exit code 3).
class ReportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ScenarioFileInfo {
  std::string path;
  std::string sha256;  // of the file's bytes, lowercase hex
};

struct Provenance {
  std::string tool_version;
  std::string date_utc;      // ISO 8601, "2025-01-31T12:00:00Z"
  std::string host;
  std::string git_commit;    // "unknown" when VB_SOURCE_DIR is not a git checkout
  std::string git_state;     // "clean", "dirty" or "unknown"
  std::string command_line;  // shell-quoted argv
  std::vector<ScenarioFileInfo> scenario_files;
  GpuInfo gpu;               // gpu.available == false: "device": "none"
};

// Fills date, host, git commit/state (git -C VB_SOURCE_DIR; when that is not a checkout,
// the environment variables VB_GIT_COMMIT / VB_GIT_STATE set by the bundle's run.sh) and
// hashes the scenario files.
// Throws ReportError when a scenario file cannot be read.
Provenance collect_provenance(const std::vector<std::string>& scenario_files,
                              const std::string& command_line, const GpuInfo& gpu,
                              const std::string& tool_version);

std::string sha256_hex(const std::string& bytes);
// `git -C dir rev-parse HEAD`, or "unknown".
std::string git_commit_of(const std::string& dir);

// Doubles that are not finite are written as the strings "nan", "inf", "-inf" (JSON has
// no NaN); the readers below accept both forms.
nlohmann::ordered_json to_json(const ExecutorResult& result);
nlohmann::ordered_json to_json(const CaseResult& result);
nlohmann::ordered_json to_json(const Provenance& provenance);
ExecutorResult executor_result_from_json(const nlohmann::ordered_json& j);
CaseResult case_result_from_json(const nlohmann::ordered_json& j);

// {"schema": kResultSchema, "provenance": ..., "summary": ..., "cases": [...]}
nlohmann::ordered_json result_document(const Provenance& provenance, const std::vector<CaseResult>& cases);

// Writes <path>.tmp, flushes it to disk, renames it over `path`: the file is there whole or
// not at all, and the temporary is removed on failure. Does not create directories.
// Throws ReportError naming the path and the failing call.
void write_file_atomic(const std::string& path, const std::string& content);

// result_document(...) pretty-printed through write_file_atomic.
void write_result_json(const std::string& path, const Provenance& provenance,
                       const std::vector<CaseResult>& cases);

}  // namespace vb

// JSON result file: a versioned document over CaseResult records plus the provenance of the
// run. A writer only; it computes nothing about the results themselves.
#pragma once
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/run/gpu_executor.h"
#include "harness/run/result.h"

#include "harness/measure/timing_json.h"  // to_json(const TimingRecord&)

namespace vb {

inline constexpr const char* kResultSchema = "verifybench.result/2";

// An I/O failure while reading inputs for provenance or writing a report (exit code 3).
class ReportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ScenarioFileInfo {
  std::string path;
  std::string sha256;  // of the file's bytes, lowercase hex
};

// How the binary was built (CMake compile definitions on vb_harness).
struct BuildInfo {
  std::string type;                // CMAKE_BUILD_TYPE
  std::string cuda_architectures;  // CMAKE_CUDA_ARCHITECTURES, e.g. "90;120"
  std::string flags;               // CMAKE_CUDA_FLAGS + the build type's CUDA flags
};
// The values compiled into this binary.
BuildInfo compiled_build_info();

struct Provenance {
  std::string tool_version;
  std::string date_utc;      // ISO 8601, "2025-01-31T12:00:00Z"
  std::string host;
  std::string git_commit;    // "unknown" when VB_SOURCE_DIR is not a git checkout
  std::string git_state;     // "clean", "dirty" or "unknown"
  std::string command_line;  // shell-quoted argv
  std::vector<ScenarioFileInfo> scenario_files;
  GpuInfo gpu;               // gpu.available == false: "device": null (+ the reason)
  BuildInfo build;           // collect_provenance fills it with compiled_build_info()
  // NVML clocks when the run started (none: NVML unavailable or no device).
  std::optional<double> sm_clock_mhz_at_start, mem_clock_mhz_at_start;
  std::string nvml_status;   // "ok" or why not ("nvml unavailable: ...")
  std::string l2_flush;      // cold-L2 flush method when timed ("read", "write"), else ""
};

// Fills date, host, git commit/state (the environment variables VB_GIT_COMMIT /
// VB_GIT_STATE when set, as the bundle's run.sh does with the commit it was built from;
// otherwise git -C VB_SOURCE_DIR) and hashes the scenario files.
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
nlohmann::ordered_json to_json(const Achieved& achieved);
nlohmann::ordered_json to_json(const TrafficModel& traffic);
nlohmann::ordered_json to_json(const Ceilings& ceilings);
nlohmann::ordered_json to_json(const DevicePrediction& prediction);  // "kind": "prediction"
nlohmann::ordered_json to_json(const PdlGoal& goal);
ExecutorResult executor_result_from_json(const nlohmann::ordered_json& j);
CaseResult case_result_from_json(const nlohmann::ordered_json& j);
TimingRecord timing_record_from_json(const nlohmann::ordered_json& j);
Achieved achieved_from_json(const nlohmann::ordered_json& j);
TrafficModel traffic_from_json(const nlohmann::ordered_json& j);
Ceilings ceilings_from_json(const nlohmann::ordered_json& j);
DevicePrediction prediction_from_json(const nlohmann::ordered_json& j);
PdlGoal pdl_goal_from_json(const nlohmann::ordered_json& j);

// {"schema": kResultSchema, "provenance": ..., "ceilings": null|{...}, "summary": ...,
//  "cases": [...]}
nlohmann::ordered_json result_document(const Provenance& provenance,
                                       const std::vector<CaseResult>& cases,
                                       const std::optional<Ceilings>& ceilings = std::nullopt);

// A result document read back (for `verifybench compare` and tests). Accepts
// verifybench.result/1 (no timing fields) and /2; throws ReportError on anything else.
struct ResultDocument {
  std::string schema;
  nlohmann::ordered_json provenance;  // as written (see to_json(Provenance))
  std::optional<Ceilings> ceilings;
  std::vector<CaseResult> cases;
};
ResultDocument result_document_from_json(const nlohmann::ordered_json& j);
// Reads and parses a result file; throws ReportError naming the path.
ResultDocument read_result_file(const std::string& path);

// Writes <path>.tmp, flushes it to disk, renames it over `path`: the file is there whole or
// not at all, and the temporary is removed on failure. Does not create directories.
// Throws ReportError naming the path and the failing call.
void write_file_atomic(const std::string& path, const std::string& content);
// The same for a set of files (path, content): every temporary is written and flushed
// before any is renamed into place, so a failed write leaves the earlier set as it was
// and no temporaries behind.
void write_files_as_set(const std::vector<std::pair<std::string, std::string>>& files);
// result_document(...) as the text result.json holds (invalid UTF-8 replaced by U+FFFD).
std::string result_json_text(const Provenance& provenance, const std::vector<CaseResult>& cases,
                             const std::optional<Ceilings>& ceilings = std::nullopt);

// result_document(...) pretty-printed through write_file_atomic.
void write_result_json(const std::string& path, const Provenance& provenance,
                       const std::vector<CaseResult>& cases,
                       const std::optional<Ceilings>& ceilings = std::nullopt);

}  // namespace vb

// Provenance: what a report records about how its results came to be (tool, date, host,
// git commit and state, command line, scenario files, device, build, clocks at the start).
#pragma once
#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/record/gpu_info.h"

namespace vb {

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
  // A run a signal stopped: "SIGINT" or "SIGTERM", and how many of the cases selected for
  // this report set completed before it (the only ones the reports hold). "" for a whole run.
  std::string interrupted_by;
  std::size_t cases_completed = 0, cases_selected = 0;
};

// Fills date, host, git commit/state (the environment variables VB_GIT_COMMIT /
// VB_GIT_STATE when set, as the bundle's run.sh does with the commit it was built from;
// otherwise git -C VB_SOURCE_DIR) and hashes the scenario files.
// Throws ReportError when a scenario file cannot be read.
Provenance collect_provenance(const std::vector<std::string>& scenario_files,
                              const std::string& command_line, const GpuInfo& gpu,
                              const std::string& tool_version);

std::string sha256_hex(const std::string& bytes);
// The file's bytes; throws ReportError naming the path.
std::string read_file_bytes(const std::string& path);
// `git -C dir rev-parse HEAD`, or "unknown".
std::string git_commit_of(const std::string& dir);

}  // namespace vb

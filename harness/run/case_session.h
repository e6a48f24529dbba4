// One case's problem as every command that runs it needs it: materialized once, uploaded to
// the device on first use, the CPU reference computed on first use. `run` (the runner),
// `export`, `profile` and verifybench_bench all go through it, so the sequence
// materialize -> upload -> reference is written once.
#pragma once
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "harness/problem/problem.h"
#include "harness/run/gpu_executor.h"
#include "harness/scenario/scenario.h"
#include "verifybench/reference.h"

namespace vb {

// Which rows of the CPU reference: those the case's check mode names (all, or its seeded
// sample), or all of them whatever the check mode (an export carries the full answer).
enum class ReferenceRows { kAsChecked, kAll };

// Building a case's host buffers ran out of memory; the message names the case and its size.
struct CaseMemoryError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class CaseSession {
 public:
  // Materializes the problem inside the "materialize" NVTX range; throws ScenarioError when
  // the spec cannot be materialized, CaseMemoryError when its buffers do not fit in memory
  // (reference() too).
  explicit CaseSession(const CaseSpec& spec);
  CaseSession(const CaseSession&) = delete;
  CaseSession& operator=(const CaseSession&) = delete;

  const CaseSpec& spec() const { return spec_; }
  const Problem& problem() const { return problem_; }

  // The device copy, uploaded on the first call. nullptr, with the failing call in *error,
  // when the upload failed (later calls give the same answer).
  DeviceProblem* device(const GpuInfo& gpu, std::string* error);

  // The CPU reference over `rows`, computed on the first call for those rows.
  const ReferenceOutput& reference(ReferenceRows rows, const ReferenceOptions& options);

 private:
  CaseSpec spec_;
  Problem problem_;
  bool uploaded_ = false;
  std::unique_ptr<DeviceProblem> device_;
  std::string upload_error_;
  std::optional<ReferenceOutput> checked_rows_, all_rows_;
};

}  // namespace vb

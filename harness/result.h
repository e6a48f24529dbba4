// Result records: what one executor did on one case. Writers (table, JSON) format these;
// they never compute anything themselves.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "verifybench/reference.h"
#include "harness/scenario.h"

namespace vb {

// CUTLASS-profiler style outcome: "crashed" and "wrong" are never confused.
enum class Outcome {
  kPassed,        // ran, every checked element within tolerance
  kIncorrect,     // ran, some element out of tolerance or NaN/Inf mismatch
  kLaunchFailed,  // a CUDA call or launch returned an error
  kNotVerified,   // ran, nothing to compare against
  kNotSupported,  // the executor cannot take this case (says why in detail)
  kNotRun,        // this machine cannot run it (e.g. no CUDA device)
};
const char* to_string(Outcome);

// Where the worst element is, in problem coordinates.
struct ElementIndex {
  int request = -1, node = -1, head = -1, channel = -1;  // channel -1 for LSE
};

struct ErrorStats {
  std::int64_t elements_checked = 0;
  std::int64_t elements_failed = 0;     // out of tolerance
  std::int64_t nonfinite_mismatch = 0;  // NaN/Inf position or kind differs
  double max_abs_error = 0;
  double max_rel_error = 0;  // |got-ref| / max(|ref|, tiny)
  double mean_abs_error = 0;
  ElementIndex worst;          // largest |got-ref| - tolerance(ref)
  double worst_expected = 0, worst_got = 0;
};

struct ExecutorResult {
  std::string executor;  // "reference", "naive", "production", "sglang-adapter"
  Outcome outcome = Outcome::kNotRun;
  std::string detail;        // why not run / which call failed / what was compared
  std::string checked_against;  // "reference", "reference (sampled N rows)", "naive"
  std::int64_t rows_checked = 0;
  ErrorStats o, lse;
  std::optional<double> wall_ms;  // CPU time for the reference; GPU timing is issue 4's
};

struct CaseResult {
  std::string case_name;
  std::string scenario;
  std::string source;
  int batch = 0, tree_size = 0, heads = 0, page_size = 1;
  std::int64_t total_kv_tokens = 0;  // sum_b P_b + T
  std::string reproducer;            // command line that runs exactly this case
  std::vector<ExecutorResult> executors;
  // True when no record is kIncorrect or kLaunchFailed: executors that could not run on
  // this machine (kNotRun), were not verified or do not support the case do not fail it.
  bool all_passed() const;
};

// Compares got (bf16 O as float, fp32 LSE, all B*T*H rows, row-major) against the
// reference rows with the case tolerance. Fills o/lse stats and the outcome.
void compare_with_reference(const ReferenceOutput& ref, const std::vector<float>& got_o,
                            const std::vector<float>& got_lse, int tree_size, int num_heads,
                            const ToleranceSpec& tol, ExecutorResult* result);

// ---- added by the CLI/report owner ----
// Parses to_string(Outcome)'s text back; returns false for unknown text.
bool outcome_from_string(const std::string& text, Outcome* outcome);

// Wraps one executor's full GPU output (all B*T*H rows, as compare_with_reference takes
// it) as a ReferenceOutput, so another executor can be compared against it on every row
// (production vs naive when the CPU reference only sampled rows).
ReferenceOutput reference_from_full_output(const std::vector<float>& o,
                                           const std::vector<float>& lse, int batch,
                                           int tree_size, int num_heads);

// Outcome counts over the records of many cases. The "reference" record (the CPU oracle
// itself) is not counted: it is what the others are checked against.
struct OutcomeCounts {
  int cases = 0;
  int passed = 0, incorrect = 0, launch_failed = 0, not_verified = 0, not_supported = 0,
      not_run = 0;
};
OutcomeCounts count_outcomes(const std::vector<CaseResult>& cases);

}  // namespace vb

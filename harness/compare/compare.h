// Performance comparison of two result files (issue 6): per (case, executor) a verdict
// (faster, same, slower, ambiguous, missing, untimed) from both runs' timing samples, with
// correctness failures and cross-device comparisons called out. Records here; the text,
// Markdown and JSON writers below format them and compute nothing.
//
// The rule, for one (case, executor) and one timing mode (default cold-l2):
//   r        = median(current) / median(baseline)
//   [lo, hi] = seeded percentile-bootstrap 95% interval of that median ratio (2000
//              resamples of each side with replacement, independently; fewer, down to
//              100, when all records together exceed kMaxBootstrapWork; fixed seed mixed
//              with the case and executor names, so a report is reproducible; a side of
//              more than kMaxBootstrapSamples samples enters as that many evenly spaced
//              order statistics, which bounds the cost and never narrows the interval)
//   slower    if lo > 1 + tol      (even the most favourable reading is a regression)
//   faster    if hi < 1 - tol
//   same      if 1 - tol <= lo and hi <= 1 + tol
//   ambiguous otherwise: the noise is too large to decide at this tolerance. Never a
//             failure; the cure is more samples or a wider per-case gate.
// Fewer than kMinSamples samples on either side is also ambiguous. tol is the case's
// "gate_tolerance" from the current result file (scenario YAML `gate: {tolerance}`), else
// the baseline's, else CompareOptions::tolerance.
//
// Normalization (--normalize ceilings): current times are multiplied by
// (current ceiling / baseline ceiling) for the ceiling that bounds the case: mma_bf16_tflops
// for a compute-bound record, the row-read bandwidth (shuffled for page size 1, contiguous
// otherwise; d2d copy when those are absent) for a memory-bound one. The bound comes from
// the record's achieved.bound, else the case's tags (memory-bound / compute-bound). A
// machine that is uniformly 10% slower has 10% lower ceilings, so the factor cancels it.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/scenario/scenario.h"

namespace vb {

// Compare reads kResultSchema (harness/report/report_json.h) files and writes this.
inline constexpr const char* kCompareSchema = "verifybench.compare/1";

// Exit codes of `verifybench compare` (documented in its --help, README.md and docs/cli.md).
// Bad input (2) and a refusal (5) stop before any verdict; then a correctness failure (4)
// wins over an incomplete comparison (6), which wins over a regression (1).
inline constexpr int kCompareExitOk = 0;           // no regression, no correctness failure
inline constexpr int kCompareExitRegression = 1;   // some record is "slower"
inline constexpr int kCompareExitBadInput = 2;     // unreadable file, wrong schema, usage
inline constexpr int kCompareExitIo = 3;           // a report could not be written
inline constexpr int kCompareExitIncorrect = 4;    // current: incorrect or launch failed
inline constexpr int kCompareExitRefused = 5;      // different device/driver/build
inline constexpr int kCompareExitIncomplete = 6;   // nothing compared, or CURRENT lacks cases

inline constexpr int kMinSamples = 3;

// Unreadable or malformed input (exit code kCompareExitBadInput).
class CompareInputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---------------------------------------------------------------- input: what compare reads
// What compare needs of a verifybench.result/2 or /3 document: the document is read by the result
// reader (result_document_from_json, harness/report/report_json.h) and mapped to this view.
struct RunDevice {
  bool present = false;  // false: "device": null or absent (no GPU; nothing was timed)
  std::string name, cc, driver_version, runtime_version;
  int sm_count = 0;
};

struct RunBuild {
  std::string type, cuda_architectures, flags;  // flags as written (string or JSON text)
};

struct RunCeilings {
  bool present = false;  // "ceilings": null -> false
  double row_read_contiguous_gbps = 0, row_read_shuffled_gbps = 0, d2d_copy_gbps = 0;
  double row576_read_contiguous_gbps = 0, row576_read_shuffled_gbps = 0;  // 576-byte (fp8 KV) rows
  double mma_bf16_tflops = 0;
};

struct TimedRecord {
  std::string executor;
  std::string outcome;                                    // "passed", "incorrect", ...
  std::map<std::string, std::vector<double>> samples_ms;  // mode -> samples
  std::string bound;  // achieved.bound as written ("" when achieved is null)
};

struct TimedCase {
  std::string name;
  int page_size = 1;
  std::int64_t kv_row_bytes = kKvRowBytes;  // the traffic model's R: kKvRowBytesFp8 for an fp8 KV case
  std::vector<std::string> tags;
  std::optional<double> gate_tolerance;
  std::vector<TimedRecord> executors;
};

struct TimedRun {
  std::string path;  // for messages and reports
  std::string schema, git_commit, git_state, date_utc, command;
  RunDevice device;
  RunBuild build;
  RunCeilings ceilings;
  std::vector<TimedCase> cases;
};

// The oldest result schema with timings; compare reads it and kResultSchema (/3 adds the launch
// records, which compare does not read).
inline constexpr const char* kTimedResultSchemaV2 = "verifybench.result/2";
// Refuses a schema other than verifybench.result/2 and /3 (result/1 files hold no timings) and
// a provenance whose fields compare reads are of the wrong type, reads
// the document with result_document_from_json and maps it: an executor's records merged into
// one (the worse outcome, the samples of the one timed record), samples that are not finite
// and positive left out. Throws CompareInputError naming the path and the field.
TimedRun timed_run_from_json(const nlohmann::ordered_json& doc, const std::string& path);
// read_result_json(path) (harness/report/report_json.h), then timed_run_from_json.
TimedRun load_timed_run(const std::string& path);

// Appends `extra`'s samples to `into` for every (case, executor, mode) both hold; records
// only in `extra` are added. Used to pool the re-measurements of the confirmation step.
void pool_samples(TimedRun* into, const TimedRun& extra);

// What differs between two runs' device and build: "device name: A vs B", ... Empty when
// comparable. Compared: device presence and name, driver version, build type and flags.
std::vector<std::string> device_mismatches(const TimedRun& baseline, const TimedRun& current);

// ---------------------------------------------------------------- the comparison
enum class Normalize { kNone, kCeilings, kAuto };  // auto: ceilings when both runs have them
bool normalize_from_string(const std::string& text, Normalize* out);
const char* to_string(Normalize);

struct CompareOptions {
  std::string mode = "cold-l2";
  double tolerance = 0.05;  // default gate; a case's gate_tolerance wins
  Normalize normalize = Normalize::kNone;
  bool allow_cross_device = false;
  bool allow_missing = false;  // CURRENT may lack cases of BASELINE (a re-measured subset)
  int resamples = 2000;
  double confidence = 0.95;
  std::uint64_t seed = 0x5eed'c0de'2025'0006ULL;
};

enum class Verdict {
  kFaster,
  kSame,
  kSlower,
  kAmbiguous,
  kMissingInCurrent,   // in the baseline only
  kMissingInBaseline,  // in the current run only
  kUntimed,            // one side has no samples in this mode (not supported, not run, ...)
};
const char* to_string(Verdict);

struct CompareRow {
  std::string case_name, executor;
  Verdict verdict = Verdict::kUntimed;
  std::string baseline_outcome, current_outcome;  // "" when absent
  bool correctness_failure = false;  // current outcome "incorrect" or "launch failed"
  bool cross_device = false;
  int baseline_samples = 0, current_samples = 0;
  double baseline_median_ms = 0, current_median_ms = 0;  // current after normalization
  double ratio = 0, lo = 0, hi = 0;                      // 0 when not compared
  double tolerance = 0;
  std::string tolerance_source;  // "scenario" or "default"
  double normalization = 1;      // factor applied to the current times
  std::string note;              // why untimed / ambiguous / not normalized
};

struct RunIdentity {
  std::string path, device, driver_version, build_type, build_flags, git_commit, git_state,
      date_utc;
};

struct CompareReport {
  CompareOptions options;
  RunIdentity baseline, current;
  std::vector<std::string> mismatches;  // device_mismatches(); non-empty: cross-device
  bool refused = false;                 // cross-device without allow_cross_device: no rows
  bool normalized = false;              // ceilings normalization actually applied
  int resamples = 0;                    // the bootstrap's resamples per record (see below)
  // Why this comparison cannot pass a gate, "" when it can: the runs share no case, no
  // record was timed in the mode on both sides, or CURRENT lacks cases of BASELINE without
  // allow_missing (kCompareExitIncomplete).
  std::string incomplete;
  std::vector<CompareRow> rows;
  int count(Verdict v) const;
  int correctness_failures() const;
  std::vector<std::string> slower_cases() const;  // distinct case names, in row order
};

// Linear in the cases and records of both runs (hash lookups). Peer rows (`peer/...`, from
// run --peers) are not compared. Order: the baseline's cases and executors, then what only
// the current run has. Records
// without samples on either side are left out unless the current one failed correctness
// (so the CPU "reference" record does not clutter the report). Throws CompareInputError
// for --normalize ceilings when a run has no ceilings.
CompareReport compare_runs(const TimedRun& baseline, const TimedRun& current,
                           const CompareOptions& options);

// kCompareExitRefused, else kCompareExitIncorrect, else kCompareExitIncomplete, else
// kCompareExitRegression, else Ok.
int compare_exit_code(const CompareReport& report);

struct RatioInterval {
  double ratio = 0, lo = 0, hi = 0;
};
// Each side enters the bootstrap as at most this many samples (evenly spaced order
// statistics of all of them); the ratio itself uses every sample.
inline constexpr std::size_t kMaxBootstrapSamples = 1000;
// The bootstrap's work over all records, in sample draws: beyond it every record gets fewer
// resamples than asked (never fewer than kMinBootstrapResamples), so a file of 100k timed
// records takes seconds. A nightly file (hundreds of records of <= 1000 samples a side)
// stays far below it.
inline constexpr double kMaxBootstrapWork = 2e9;
inline constexpr int kMinBootstrapResamples = 100;
// median(cur)/median(base) and its percentile-bootstrap interval at `confidence`.
RatioInterval bootstrap_median_ratio(const std::vector<double>& base,
                                     const std::vector<double>& cur, int resamples,
                                     double confidence, std::uint64_t seed);

// ---------------------------------------------------------------- writers
std::string format_compare_table(const CompareReport& report);     // stdout, plain text
std::string format_compare_markdown(const CompareReport& report);  // --markdown
nlohmann::ordered_json compare_to_json(const CompareReport& report);  // --json

}  // namespace vb

// Result records and the element-wise check of an executor's output against the reference.
#include "harness/record/result.h"

#include <cmath>
#include <cstddef>
#include <limits>
#include <string>

#include "verifybench/verify_params.h"

namespace vb {

const char* to_string(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPassed: return "passed";
    case Outcome::kIncorrect: return "incorrect";
    case Outcome::kLaunchFailed: return "launch failed";
    case Outcome::kNotVerified: return "not verified";
    case Outcome::kNotSupported: return "not supported";
    case Outcome::kNotRun: return "not run";
  }
  return "unknown";
}

bool outcome_from_string(const std::string& text, Outcome* outcome) {
  for (Outcome o : {Outcome::kPassed, Outcome::kIncorrect, Outcome::kLaunchFailed,
                    Outcome::kNotVerified, Outcome::kNotSupported, Outcome::kNotRun}) {
    if (text == to_string(o)) {
      *outcome = o;
      return true;
    }
  }
  return false;
}

bool is_peer_executor(const std::string& executor) { return executor.rfind(kPeerExecutorPrefix, 0) == 0; }

bool valid_peer_executor_name(const std::string& executor) {
  constexpr std::size_t kMaxNameChars = 64;
  if (!is_peer_executor(executor)) return false;
  const std::string name = executor.substr(std::string(kPeerExecutorPrefix).size());
  return !name.empty() && name.size() <= kMaxNameChars &&
         name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-") ==
             std::string::npos;
}

bool kv_cache_is_fp8(const std::string& kv_cache_label) {
  const std::string fp8 = to_string(KvDtype::kFp8E4m3);
  return kv_cache_label.compare(0, fp8.size(), fp8) == 0 &&
         (kv_cache_label.size() == fp8.size() || kv_cache_label[fp8.size()] == ' ');
}

bool CaseResult::all_passed() const {
  for (const ExecutorResult& e : executors) {
    if (is_peer_executor(e.executor)) continue;
    if (e.outcome == Outcome::kIncorrect || e.outcome == Outcome::kLaunchFailed) return false;
  }
  return true;
}

OutcomeCounts count_outcomes(const std::vector<CaseResult>& cases) {
  OutcomeCounts counts;
  counts.cases = static_cast<int>(cases.size());
  for (const CaseResult& c : cases) {
    for (const ExecutorResult& e : c.executors) {
      if (e.executor == kReferenceExecutor || is_peer_executor(e.executor)) continue;
      switch (e.outcome) {
        case Outcome::kPassed: ++counts.passed; break;
        case Outcome::kIncorrect: ++counts.incorrect; break;
        case Outcome::kLaunchFailed: ++counts.launch_failed; break;
        case Outcome::kNotVerified: ++counts.not_verified; break;
        case Outcome::kNotSupported: ++counts.not_supported; break;
        case Outcome::kNotRun: ++counts.not_run; break;
      }
    }
  }
  return counts;
}

namespace {

// Denominator floor of the relative error: outputs near zero are common (O is a convex
// combination of values of both signs), so the relative error is informational only.
constexpr double kRelErrorFloor = 1e-6;

// Accumulates ErrorStats over (expected, got) pairs in the order they are fed.
class StatsAccumulator {
 public:
  StatsAccumulator(double atol, double rtol) : atol_(atol), rtol_(rtol) {}

  // atol_scale widens atol for one element (channels a distribution makes larger).
  void add(double expected, double got, const ElementIndex& where, double atol_scale = 1.0) {
    ++stats_.elements_checked;
    const bool exp_finite = std::isfinite(expected);
    const bool got_finite = std::isfinite(got);
    if (!exp_finite || !got_finite) {
      // NaN/Inf positions and kinds must match before any numeric comparison.
      const bool same = (std::isnan(expected) && std::isnan(got)) ||
                        (std::isinf(expected) && std::isinf(got) &&
                         std::signbit(expected) == std::signbit(got));
      if (!same) {
        ++stats_.nonfinite_mismatch;
        note_worst(std::numeric_limits<double>::infinity(), expected, got, where);
      }
      return;
    }
    const double err = std::fabs(got - expected);
    const double tol = atol_ * atol_scale + rtol_ * std::fabs(expected);
    if (!(err <= tol)) ++stats_.elements_failed;
    ++finite_pairs_;
    sum_abs_ += err;
    if (err > stats_.max_abs_error) stats_.max_abs_error = err;
    const double rel = err / std::fmax(std::fabs(expected), kRelErrorFloor);
    if (rel > stats_.max_rel_error) stats_.max_rel_error = rel;
    note_worst(err - tol, expected, got, where);
  }

  ErrorStats finish() {
    stats_.mean_abs_error = finite_pairs_ > 0 ? sum_abs_ / static_cast<double>(finite_pairs_) : 0;
    return stats_;
  }

 private:
  void note_worst(double excess, double expected, double got, const ElementIndex& where) {
    if (excess > worst_excess_) {  // strict: the first of equal excesses stays
      worst_excess_ = excess;
      stats_.worst = where;
      stats_.worst_expected = expected;
      stats_.worst_got = got;
    }
  }

  double atol_, rtol_;
  ErrorStats stats_;
  std::int64_t finite_pairs_ = 0;
  double sum_abs_ = 0;
  double worst_excess_ = -std::numeric_limits<double>::infinity();
};

}  // namespace

void compare_with_reference(const ReferenceOutput& ref, const std::vector<float>& got_o,
                            const std::vector<float>& got_lse, int tree_size, int num_heads,
                            const ToleranceSpec& tol, ExecutorResult* result) {
  constexpr int kDv = mla::kHeadDimV;
  const std::size_t rows = ref.rows.size();
  result->rows_checked = static_cast<std::int64_t>(rows);
  result->o = ErrorStats{};
  result->lse = ErrorStats{};

  const std::size_t got_rows = got_lse.size();
  if (ref.o.size() != rows * kDv || ref.lse.size() != rows || got_o.size() != got_rows * kDv) {
    result->outcome = Outcome::kIncorrect;
    result->detail = "output shape mismatch: reference " + std::to_string(rows) + " rows (" +
                     std::to_string(ref.o.size()) + " O values), got " +
                     std::to_string(got_rows) + " LSE values and " +
                     std::to_string(got_o.size()) + " O values";
    return;
  }

  std::vector<double> channel_atol_scale(kDv, 1.0);
  for (const int c : tol.o_wide_channels) {
    if (c >= 0 && c < kDv) channel_atol_scale[static_cast<std::size_t>(c)] = tol.o_wide_channel_scale;
  }
  StatsAccumulator o_acc(tol.o_atol, tol.o_rtol);
  StatsAccumulator lse_acc(tol.lse_atol, tol.lse_rtol);
  for (std::size_t i = 0; i < rows; ++i) {
    const QueryRow& q = ref.rows[i];
    const std::int64_t row =
        (static_cast<std::int64_t>(q.request) * tree_size + q.node) * num_heads + q.head;
    if (row < 0 || static_cast<std::size_t>(row) >= got_rows || q.node >= tree_size ||
        q.head >= num_heads) {
      result->outcome = Outcome::kIncorrect;
      result->detail = "reference row (request " + std::to_string(q.request) + ", node " +
                       std::to_string(q.node) + ", head " + std::to_string(q.head) +
                       ") is outside the output of " + std::to_string(got_rows) + " rows";
      return;
    }
    const double* ref_o = ref.o.data() + i * kDv;
    const float* out_o = got_o.data() + static_cast<std::size_t>(row) * kDv;
    for (int c = 0; c < kDv; ++c) {
      o_acc.add(ref_o[c], out_o[c], ElementIndex{q.request, q.node, q.head, c},
                channel_atol_scale[static_cast<std::size_t>(c)]);
    }
    lse_acc.add(ref.lse[i], got_lse[static_cast<std::size_t>(row)],
                ElementIndex{q.request, q.node, q.head, -1});
  }
  result->o = o_acc.finish();
  result->lse = lse_acc.finish();
  const bool bad = result->o.elements_failed + result->o.nonfinite_mismatch +
                       result->lse.elements_failed + result->lse.nonfinite_mismatch >
                   0;
  result->outcome = bad ? Outcome::kIncorrect : Outcome::kPassed;
}

ReferenceOutput reference_from_full_output(const std::vector<float>& o,
                                           const std::vector<float>& lse, int batch,
                                           int tree_size, int num_heads) {
  ReferenceOutput out;
  out.sampled = false;
  const std::size_t rows = static_cast<std::size_t>(batch) * tree_size * num_heads;
  out.rows.reserve(rows);
  for (int b = 0; b < batch; ++b) {
    for (int n = 0; n < tree_size; ++n) {
      for (int h = 0; h < num_heads; ++h) out.rows.push_back(QueryRow{b, n, h});
    }
  }
  // Shapes that do not match are kept as given: compare_with_reference reports them.
  out.o.assign(o.begin(), o.end());
  out.lse.assign(lse.begin(), lse.end());
  return out;
}

std::string shell_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

}  // namespace vb

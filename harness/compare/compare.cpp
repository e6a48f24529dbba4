// `verifybench compare`: the view of two result files (read by harness/report/report_json.h's
// reader), the bootstrap verdict per (case, executor) and the text / Markdown / JSON writers. The rule is documented in harness/compare/compare.h.
#include "harness/compare/compare.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "harness/io/files.h"
#include "harness/measure/statistics.h"
#include "harness/report/report_json.h"
#include "harness/report/report_table.h"
#include "harness/scenario/scenario.h"

namespace vb {
namespace {

using json = nlohmann::ordered_json;

// ---------------------------------------------------------------- reading
[[noreturn]] void bad(const std::string& path, const std::string& what) {
  throw CompareInputError(fmt::format("{}: {}", path, what));
}

// What a provenance field of a result file may be, and how compare reads it as text.
enum class Field {
  kString,          // a string
  kStringOrNumber,  // a string or a number as its JSON text (driver versions: both in use)
  kAnyJson,         // a string as written, anything else as its JSON text (build flags)
};

// `key` of `object` as text; "" for null or absent. A value of another type than `kind`
// allows is bad input naming `where`.`key` (a provenance of the wrong type must not turn
// into a device mismatch, exit 5).
std::string field_text(const json& object, const char* key, Field kind, const std::string& path,
                       const std::string& where) {
  if (!object.contains(key)) return "";
  const json& v = object.at(key);
  if (v.is_null()) return "";
  if (v.is_string()) return v.get<std::string>();
  if (kind == Field::kAnyJson || (kind == Field::kStringOrNumber && v.is_number())) return v.dump();
  bad(path, fmt::format("{}.{}: {} ({}); allowed: {}", where, key, printable_text(v.dump()), v.type_name(),
                        kind == Field::kString ? "a string or null" : "a string, a number or null"));
}

// `key` of `object`: absent, null or an object; anything else is bad input.
const json* object_field(const json& object, const char* key, const std::string& path, const std::string& where) {
  if (!object.contains(key) || object.at(key).is_null()) return nullptr;
  const json& v = object.at(key);
  if (!v.is_object()) {
    bad(path, fmt::format("{}.{}: {} ({}); allowed: an object or null", where, key, printable_text(v.dump()),
                          v.type_name()));
  }
  return &v;
}

// 0 stands for "not measured" in the ceiling factors.
double finite_or_zero(double v) { return std::isfinite(v) ? v : 0; }

// "launch failed" > "incorrect" > anything else > "passed": the outcome a merged record keeps.
int severity(const std::string& outcome) {
  if (outcome == "launch failed") return 3;
  if (outcome == "incorrect") return 2;
  if (outcome == "passed") return 0;
  return 1;
}

TimedRecord timed_record_of(const ExecutorResult& e) {
  TimedRecord r;
  r.executor = e.executor;
  r.outcome = to_string(e.outcome);
  for (const TimingRecord& t : e.timings) {
    std::vector<double>& into = r.samples_ms[t.mode];
    // A non-finite or non-positive time is not a measurement; the timing engine records
    // errors in stop_reason. Such samples are left out rather than skewing a median.
    for (double v : t.samples_ms) {
      if (std::isfinite(v) && v > 0) into.push_back(v);
    }
  }
  if (e.achieved) r.bound = e.achieved->bound;
  return r;
}

TimedCase timed_case_of(const CaseResult& c, const std::string& path, const std::string& where) {
  TimedCase out;
  out.name = c.case_name;
  const std::string at = where + " (" + out.name + ")";
  out.page_size = c.page_size;
  if (c.traffic) out.kv_row_bytes = c.traffic->kv_row_bytes;
  out.tags = c.tags;
  if (c.gate_tolerance) {
    const double t = *c.gate_tolerance;
    if (!(t > 0 && t < 1)) {
      bad(path, fmt::format("{}.gate_tolerance: got {}; allowed: a number in (0, 1)", at, t));
    }
    out.gate_tolerance = t;
  }
  // The runner writes one record per check: an executor checked against the sampled CPU
  // reference and again against naive on every row appears twice, with its timings on one
  // record only. Merge them: the worse outcome wins, the samples come from the one record
  // that has them (two timed records of one executor are refused).
  // Peer rows (run --peers) carry another process's times and verdicts: not compared.
  std::unordered_map<std::string, std::size_t> index;
  for (const ExecutorResult& e : c.executors) {
    if (is_peer_executor(e.executor)) continue;
    TimedRecord r = timed_record_of(e);
    const auto [slot, added] = index.emplace(r.executor, out.executors.size());
    if (added) {
      out.executors.push_back(std::move(r));
      continue;
    }
    TimedRecord* same = &out.executors[slot->second];
    if (!same->samples_ms.empty() && !r.samples_ms.empty()) {
      bad(path, fmt::format("{}: executor \"{}\" is timed twice", at, r.executor));
    }
    if (severity(r.outcome) > severity(same->outcome)) same->outcome = r.outcome;
    if (same->samples_ms.empty()) {
      same->samples_ms = std::move(r.samples_ms);
      same->bound = r.bound;
    }
  }
  return out;
}

// splitmix64: tiny, portable and fully specified, so the same seed gives the same interval
// with every standard library (std::uniform_int_distribution is implementation-defined).
struct SplitMix64 {
  std::uint64_t state;
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform in [0, n) (Lemire's multiply-shift; the bias is below 2^-40 for our n).
  std::size_t below(std::size_t n) {
    return static_cast<std::size_t>((static_cast<unsigned __int128>(next()) * n) >> 64);
  }
};

bool is_correctness_failure(const std::string& outcome) {
  return outcome == "incorrect" || outcome == "launch failed";
}

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

enum class Bound { kUnknown, kMemory, kCompute };

Bound bound_from_text(const std::string& text) {
  const std::string t = lower(text);
  if (t.find("compute") != std::string::npos || t.find("mma") != std::string::npos) {
    return Bound::kCompute;
  }
  if (t.find("memory") != std::string::npos || t.find("bandwidth") != std::string::npos) {
    return Bound::kMemory;
  }
  return Bound::kUnknown;
}

Bound bound_from_tags(const std::vector<std::string>& tags) {
  for (const std::string& t : tags) {
    if (t == "compute-bound") return Bound::kCompute;
    if (t == "memory-bound") return Bound::kMemory;
  }
  return Bound::kUnknown;
}

// current / baseline ceiling for `bound`, or nullopt (with `why`) when it cannot be formed.
// Memory-bound: the row reads of the case's row size (576-byte rows for fp8 KV) of its page
// size first, then that size's other order, then the other row size's, then the copy.
std::optional<double> ceiling_factor(Bound bound, int page_size, std::int64_t kv_row_bytes, const RunCeilings& base,
                                     const RunCeilings& cur, std::string* which) {
  struct Candidate {
    const char* name;
    double RunCeilings::*field;
  };
  std::vector<Candidate> order;
  if (bound == Bound::kCompute) {
    order = {{"mma_bf16_tflops", &RunCeilings::mma_bf16_tflops}};
  } else {
    const std::pair<Candidate, Candidate> bf16 = {
        {"row_read_shuffled_gbps", &RunCeilings::row_read_shuffled_gbps},
        {"row_read_contiguous_gbps", &RunCeilings::row_read_contiguous_gbps}};
    const std::pair<Candidate, Candidate> fp8 = {
        {"row576_read_shuffled_gbps", &RunCeilings::row576_read_shuffled_gbps},
        {"row576_read_contiguous_gbps", &RunCeilings::row576_read_contiguous_gbps}};
    const auto sizes = kv_row_bytes == kKvRowBytesFp8 ? std::vector{fp8, bf16} : std::vector{bf16, fp8};
    for (const auto& [shuffled, contiguous] : sizes) {
      if (page_size == 1) order.insert(order.end(), {shuffled, contiguous});
      else order.insert(order.end(), {contiguous, shuffled});
    }
    order.push_back({"d2d_copy_gbps", &RunCeilings::d2d_copy_gbps});
  }
  for (const Candidate& c : order) {
    if (base.*c.field > 0 && cur.*c.field > 0) {
      *which = c.name;
      return cur.*c.field / base.*c.field;
    }
  }
  *which = bound == Bound::kCompute ? "mma_bf16_tflops missing" : "no memory ceiling";
  return std::nullopt;
}

// Each run's cases by name and each case's records by executor: compare_runs looks every
// (case, executor) up once, so a file of many cases or a case of many executors costs
// linear time.
class RunIndex {
 public:
  explicit RunIndex(const TimedRun& run) {
    cases_.reserve(run.cases.size());
    for (const TimedCase& c : run.cases) {
      cases_.emplace(c.name, &c);
      auto& records = records_[&c];
      records.reserve(c.executors.size());
      for (const TimedRecord& r : c.executors) records.emplace(r.executor, &r);
    }
  }
  const TimedCase* find_case(const std::string& name) const {
    const auto it = cases_.find(name);
    return it == cases_.end() ? nullptr : it->second;
  }
  const TimedRecord* find_record(const TimedCase* c, const std::string& executor) const {
    if (c == nullptr) return nullptr;
    const auto& records = records_.at(c);
    const auto it = records.find(executor);
    return it == records.end() ? nullptr : it->second;
  }

 private:
  std::unordered_map<std::string, const TimedCase*> cases_;
  std::unordered_map<const TimedCase*, std::unordered_map<std::string, const TimedRecord*>> records_;
};

const std::vector<double>& samples_of(const TimedRecord* r, const std::string& mode) {
  static const std::vector<double> kNone;
  if (r == nullptr) return kNone;
  const auto it = r->samples_ms.find(mode);
  return it == r->samples_ms.end() ? kNone : it->second;
}

RunIdentity identity_of(const TimedRun& run) {
  RunIdentity id;
  id.path = run.path;
  id.device = run.device.present ? run.device.name : "none";
  id.driver_version = run.device.driver_version;
  id.build_type = run.build.type;
  id.build_flags = run.build.flags;
  id.git_commit = run.git_commit;
  id.git_state = run.git_state;
  id.date_utc = run.date_utc;
  return id;
}

}  // namespace

// ---------------------------------------------------------------- input
TimedRun timed_run_from_json(const json& doc, const std::string& path) {
  if (!doc.is_object()) bad(path, "not a verifybench result document (top level is not an object)");
  TimedRun run;
  run.path = path;
  run.schema = doc.contains("schema") && doc.at("schema").is_string()
                   ? doc.at("schema").get<std::string>()
                   : "";
  if (run.schema != kTimedResultSchemaV2 && run.schema != kResultSchema) {
    bad(path, fmt::format("schema is \"{}\"; compare reads \"{}\" and \"{}\" (a result of `verifybench run "
                          "--time`)",
                          run.schema, kTimedResultSchemaV2, kResultSchema));
  }
  ResultDocument document;
  try {
    document = result_document_from_json(doc);
  } catch (const ReportError& e) {
    bad(path, e.what());
  }
  const json& prov = document.provenance;
  if (!prov.is_object()) {
    bad(path, fmt::format("provenance: {} ({}); allowed: an object", printable_text(prov.dump()), prov.type_name()));
  }
  run.git_commit = field_text(prov, "git_commit", Field::kString, path, "provenance");
  run.git_state = field_text(prov, "git_state", Field::kString, path, "provenance");
  run.date_utc = field_text(prov, "date_utc", Field::kString, path, "provenance");
  run.command = field_text(prov, "command", Field::kString, path, "provenance");
  if (const json* d = object_field(prov, "device", path, "provenance")) {
    const std::string where = "provenance.device";
    run.device.present = true;
    run.device.name = field_text(*d, "name", Field::kString, path, where);
    run.device.cc = field_text(*d, "cc", Field::kStringOrNumber, path, where);
    run.device.driver_version = field_text(*d, "driver_version", Field::kStringOrNumber, path, where);
    run.device.runtime_version = field_text(*d, "runtime_version", Field::kStringOrNumber, path, where);
    if (d->contains("sm_count") && d->at("sm_count").is_number_integer()) {
      const auto sm_count = d->at("sm_count").get<json::number_integer_t>();
      if (sm_count > 0 && sm_count <= std::numeric_limits<int>::max()) {
        run.device.sm_count = static_cast<int>(sm_count);
      }
    }
  }
  if (const json* b = object_field(prov, "build", path, "provenance")) {
    const std::string where = "provenance.build";
    run.build.type = field_text(*b, "type", Field::kString, path, where);
    run.build.cuda_architectures = field_text(*b, "cuda_architectures", Field::kAnyJson, path, where);
    run.build.flags = field_text(*b, "flags", Field::kAnyJson, path, where);
  }
  if (document.ceilings) {
    const Ceilings& c = *document.ceilings;
    run.ceilings.present = true;
    run.ceilings.row_read_contiguous_gbps = finite_or_zero(c.row_read_contiguous_gbps);
    run.ceilings.row_read_shuffled_gbps = finite_or_zero(c.row_read_shuffled_gbps);
    run.ceilings.row576_read_contiguous_gbps = finite_or_zero(c.row576_read_contiguous_gbps);
    run.ceilings.row576_read_shuffled_gbps = finite_or_zero(c.row576_read_shuffled_gbps);
    run.ceilings.d2d_copy_gbps = finite_or_zero(c.d2d_copy_gbps);
    run.ceilings.mma_bf16_tflops = finite_or_zero(c.mma_bf16_tflops);
  }
  std::set<std::string> names;
  for (std::size_t i = 0; i < document.cases.size(); ++i) {
    TimedCase c = timed_case_of(document.cases[i], path, fmt::format("cases[{}]", i));
    if (!names.insert(c.name).second) {
      bad(path, fmt::format("case \"{}\" appears twice", c.name));
    }
    run.cases.push_back(std::move(c));
  }
  return run;
}

TimedRun load_timed_run(const std::string& path) {
  json doc;
  try {
    doc = read_result_json(path);
  } catch (const BadFileError& e) {
    throw CompareInputError(e.what());
  }
  return timed_run_from_json(doc, path);
}

void pool_samples(TimedRun* into, const TimedRun& extra) {
  std::unordered_map<std::string, std::size_t> cases;
  for (std::size_t i = 0; i < into->cases.size(); ++i) cases.emplace(into->cases[i].name, i);
  for (const TimedCase& ec : extra.cases) {
    const auto [at, added] = cases.emplace(ec.name, into->cases.size());
    if (added) {
      into->cases.push_back(ec);
      continue;
    }
    TimedCase& ic = into->cases[at->second];
    std::unordered_map<std::string, std::size_t> records;
    for (std::size_t i = 0; i < ic.executors.size(); ++i) records.emplace(ic.executors[i].executor, i);
    for (const TimedRecord& er : ec.executors) {
      const auto [rat, radded] = records.emplace(er.executor, ic.executors.size());
      if (radded) {
        ic.executors.push_back(er);
        continue;
      }
      TimedRecord& ir = ic.executors[rat->second];
      // A correctness failure in any pooled run stays visible.
      if (is_correctness_failure(er.outcome)) ir.outcome = er.outcome;
      for (const auto& [mode, samples] : er.samples_ms) {
        std::vector<double>& dst = ir.samples_ms[mode];
        dst.insert(dst.end(), samples.begin(), samples.end());
      }
    }
  }
}

std::vector<std::string> device_mismatches(const TimedRun& b, const TimedRun& c) {
  std::vector<std::string> out;
  auto differ = [&](const char* what, const std::string& x, const std::string& y) {
    if (x != y) {
      out.push_back(fmt::format("{}: \"{}\" ({}) vs \"{}\" ({})", what, x, b.path, y, c.path));
    }
  };
  differ("device", b.device.present ? b.device.name : "none",
         c.device.present ? c.device.name : "none");
  differ("driver version", b.device.driver_version, c.device.driver_version);
  differ("build type", b.build.type, c.build.type);
  differ("build flags", b.build.flags, c.build.flags);
  return out;
}

// ---------------------------------------------------------------- statistics
// At most kMaxBootstrapSamples evenly spaced order statistics of `samples`: the bootstrap
// costs resamples x samples per side, and a side of 200k samples took > 20 s per record.
// Thinning keeps the distribution's shape; the interval it gives is as wide as that of
// kMaxBootstrapSamples samples, so never narrower than the data supports.
std::vector<double> thinned_for_bootstrap(const std::vector<double>& samples) {
  if (samples.size() <= kMaxBootstrapSamples) return samples;
  std::vector<double> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> out(kMaxBootstrapSamples);
  for (std::size_t i = 0; i < kMaxBootstrapSamples; ++i) {
    out[i] = sorted[(2 * i + 1) * sorted.size() / (2 * kMaxBootstrapSamples)];
  }
  return out;
}

RatioInterval bootstrap_median_ratio(const std::vector<double>& all_base,
                                     const std::vector<double>& all_cur, int resamples,
                                     double confidence, std::uint64_t seed) {
  RatioInterval out;
  if (all_base.empty() || all_cur.empty()) return out;
  out.ratio = median_of(all_cur) / median_of(all_base);
  const std::vector<double> base = thinned_for_bootstrap(all_base);
  const std::vector<double> cur = thinned_for_bootstrap(all_cur);
  SplitMix64 rng{seed};
  std::vector<double> ratios(static_cast<std::size_t>(std::max(resamples, 1)));
  std::vector<double> rb(base.size()), rc(cur.size());
  for (double& r : ratios) {
    for (double& x : rb) x = base[rng.below(base.size())];
    for (double& x : rc) x = cur[rng.below(cur.size())];
    r = median_in_place(rc) / median_in_place(rb);
  }
  std::sort(ratios.begin(), ratios.end());
  const double alpha = 1.0 - confidence;
  out.lo = percentile_sorted(ratios, alpha / 2);
  out.hi = percentile_sorted(ratios, 1.0 - alpha / 2);
  return out;
}

// ---------------------------------------------------------------- the comparison
bool normalize_from_string(const std::string& text, Normalize* out) {
  if (text == "none") *out = Normalize::kNone;
  else if (text == "ceilings") *out = Normalize::kCeilings;
  else if (text == "auto") *out = Normalize::kAuto;
  else return false;
  return true;
}

const char* to_string(Normalize n) {
  switch (n) {
    case Normalize::kNone: return "none";
    case Normalize::kCeilings: return "ceilings";
    case Normalize::kAuto: return "auto";
  }
  return "unknown";
}

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::kFaster: return "faster";
    case Verdict::kSame: return "same";
    case Verdict::kSlower: return "slower";
    case Verdict::kAmbiguous: return "ambiguous";
    case Verdict::kMissingInCurrent: return "missing in current";
    case Verdict::kMissingInBaseline: return "missing in baseline";
    case Verdict::kUntimed: return "untimed";
  }
  return "unknown";
}

int CompareReport::count(Verdict v) const {
  return static_cast<int>(
      std::count_if(rows.begin(), rows.end(), [v](const CompareRow& r) { return r.verdict == v; }));
}

int CompareReport::correctness_failures() const {
  return static_cast<int>(std::count_if(rows.begin(), rows.end(),
                                        [](const CompareRow& r) { return r.correctness_failure; }));
}

std::vector<std::string> CompareReport::slower_cases() const {
  std::vector<std::string> out;
  std::unordered_set<std::string> seen;
  for (const CompareRow& r : rows) {
    if (r.verdict == Verdict::kSlower && seen.insert(r.case_name).second) out.push_back(r.case_name);
  }
  return out;
}

namespace {

struct Comparer {
  const TimedRun& base;
  const TimedRun& cur;
  const CompareOptions& opt;
  bool normalize;
  bool cross_device;
  int resamples;  // CompareReport::resamples

  // Either record may be absent (missing); at least one is present.
  std::optional<CompareRow> row(const std::string& case_name, const std::string& executor,
                                const TimedCase* bc, const TimedRecord* br, const TimedCase* cc,
                                const TimedRecord* cr) const {
    CompareRow row;
    row.case_name = case_name;
    row.executor = executor;
    row.cross_device = cross_device;
    row.baseline_outcome = br ? br->outcome : "";
    row.current_outcome = cr ? cr->outcome : "";
    row.correctness_failure = cr != nullptr && is_correctness_failure(cr->outcome);
    if (cc != nullptr && cc->gate_tolerance) {
      row.tolerance = *cc->gate_tolerance;
      row.tolerance_source = "scenario";
    } else if (bc != nullptr && bc->gate_tolerance) {
      row.tolerance = *bc->gate_tolerance;
      row.tolerance_source = "scenario";
    } else {
      row.tolerance = opt.tolerance;
      row.tolerance_source = "default";
    }
    const std::vector<double>& bs = samples_of(br, opt.mode);
    std::vector<double> cs = samples_of(cr, opt.mode);
    row.baseline_samples = static_cast<int>(bs.size());
    row.current_samples = static_cast<int>(cs.size());
    row.baseline_median_ms = median_of(bs);
    row.current_median_ms = median_of(cs);

    const bool has_missing_side = (bc == nullptr) != (cc == nullptr) || br == nullptr || cr == nullptr;
    if (bs.empty() && cs.empty() && !row.correctness_failure && !has_missing_side) {
      return std::nullopt;  // neither side timed (the CPU reference, not-run executors)
    }
    if (cc == nullptr || bc == nullptr) {
      row.verdict = cc == nullptr ? Verdict::kMissingInCurrent : Verdict::kMissingInBaseline;
      row.note = cc == nullptr ? "case not in the current run" : "case not in the baseline";
      return row;
    }
    if (cr == nullptr || br == nullptr) {
      row.verdict = cr == nullptr ? Verdict::kMissingInCurrent : Verdict::kMissingInBaseline;
      row.note = cr == nullptr ? "executor not in the current run" : "executor not in the baseline";
      return row;
    }
    if (bs.empty() || cs.empty()) {
      row.verdict = Verdict::kUntimed;
      const bool none_base = bs.empty();
      row.note = fmt::format("no {} samples in the {} (outcome {})", opt.mode,
                             none_base ? "baseline" : "current run",
                             none_base ? br->outcome : cr->outcome);
      return row;
    }

    if (normalize) {
      Bound bound = bound_from_text(cr->bound);
      if (bound == Bound::kUnknown) bound = bound_from_text(br->bound);
      if (bound == Bound::kUnknown) bound = bound_from_tags(cc->tags);
      if (bound == Bound::kUnknown) bound = bound_from_tags(bc->tags);
      std::string which;
      const std::optional<double> factor =
          bound == Bound::kUnknown
              ? std::nullopt
              : ceiling_factor(bound, cc->page_size, cc->kv_row_bytes, base.ceilings, cur.ceilings, &which);
      if (bound == Bound::kUnknown) {
        row.note = "not normalized: bound unknown (no achieved.bound, no memory-/compute-bound tag)";
      } else if (!factor) {
        row.note = "not normalized: " + which;
      } else {
        row.normalization = *factor;
        for (double& x : cs) x *= *factor;
        row.current_median_ms = median_of(cs);
        row.note = fmt::format("normalized by {} x{:.3f}", which, *factor);
      }
    }

    const RatioInterval ri = bootstrap_median_ratio(
        bs, cs, resamples, opt.confidence, opt.seed ^ fnv1a64(case_name + "\n" + executor));
    row.ratio = ri.ratio;
    row.lo = ri.lo;
    row.hi = ri.hi;
    const double tol = row.tolerance;
    if (static_cast<int>(bs.size()) < kMinSamples || static_cast<int>(cs.size()) < kMinSamples) {
      row.verdict = Verdict::kAmbiguous;
      row.note = fmt::format("fewer than {} samples on a side", kMinSamples) +
                 (row.note.empty() ? "" : "; " + row.note);
    } else if (ri.lo > 1 + tol) {
      row.verdict = Verdict::kSlower;
    } else if (ri.hi < 1 - tol) {
      row.verdict = Verdict::kFaster;
    } else if (ri.lo >= 1 - tol && ri.hi <= 1 + tol) {
      row.verdict = Verdict::kSame;
    } else {
      row.verdict = Verdict::kAmbiguous;
    }
    return row;
  }
};

}  // namespace

namespace {

// The bootstrap's resamples per record: opt.resamples, fewer (never below
// kMinBootstrapResamples) when every record's resamples x (samples of both sides + a fixed
// cost per resample) would exceed kMaxBootstrapWork, so a file of many timed records costs
// seconds, not minutes. Records beyond kMaxBootstrapSamples a side count as that many.
int bootstrap_resamples(const TimedRun& base, const RunIndex& cur_index, const CompareOptions& opt) {
  constexpr double kPerResampleCost = 50;  // the medians and ratio, in sample draws
  double per_resample = 0;
  for (const TimedCase& bc : base.cases) {
    const TimedCase* cc = cur_index.find_case(bc.name);
    for (const TimedRecord& br : bc.executors) {
      const std::size_t nb = samples_of(&br, opt.mode).size();
      const std::size_t nc = samples_of(cur_index.find_record(cc, br.executor), opt.mode).size();
      if (nb == 0 || nc == 0) continue;
      per_resample += static_cast<double>(std::min(nb, kMaxBootstrapSamples) + std::min(nc, kMaxBootstrapSamples)) +
                      kPerResampleCost;
    }
  }
  if (per_resample * opt.resamples <= kMaxBootstrapWork) return opt.resamples;
  return std::max(kMinBootstrapResamples, static_cast<int>(kMaxBootstrapWork / per_resample));
}

// Why the comparison cannot pass as a gate ("" when it can): the runs share no case, no
// record has samples of the mode on both sides, or CURRENT lacks cases BASELINE has (unless
// allowed).
std::string incompleteness(const CompareReport& report, int shared_cases, const std::vector<std::string>& missing_cases,
                           const CompareOptions& opt) {
  if (shared_cases == 0) return "the runs share no case: nothing was compared (is CURRENT the right file?)";
  const bool any_compared = std::any_of(report.rows.begin(), report.rows.end(), [](const CompareRow& r) {
    return r.baseline_samples > 0 && r.current_samples > 0;
  });
  if (!any_compared) {
    return fmt::format("no (case, executor) has {} samples in both runs: nothing was compared", opt.mode);
  }
  if (!missing_cases.empty() && !opt.allow_missing) {
    return fmt::format("CURRENT lacks {} case(s) of BASELINE (first: {}); --allow-missing accepts that",
                       missing_cases.size(), printable_text(missing_cases.front()));
  }
  return "";
}

}  // namespace

CompareReport compare_runs(const TimedRun& base, const TimedRun& cur, const CompareOptions& opt) {
  CompareReport report;
  report.options = opt;
  report.baseline = identity_of(base);
  report.current = identity_of(cur);
  report.mismatches = device_mismatches(base, cur);
  if (!report.mismatches.empty() && !opt.allow_cross_device) {
    report.refused = true;
    return report;
  }
  const bool both_ceilings = base.ceilings.present && cur.ceilings.present;
  if (opt.normalize == Normalize::kCeilings && !both_ceilings) {
    throw CompareInputError(fmt::format("--normalize ceilings: {} has no ceilings (\"ceilings\": "
                                        "null); use --normalize none or auto",
                                        base.ceilings.present ? cur.path : base.path));
  }
  report.normalized = opt.normalize != Normalize::kNone && both_ceilings;
  const RunIndex base_index(base), cur_index(cur);
  report.resamples = bootstrap_resamples(base, cur_index, opt);
  const Comparer cmp{base, cur, opt, report.normalized, !report.mismatches.empty(), report.resamples};

  auto add = [&](std::optional<CompareRow> r) {
    if (r) report.rows.push_back(std::move(*r));
  };
  int shared_cases = 0;
  std::vector<std::string> missing_cases;
  for (const TimedCase& bc : base.cases) {
    const TimedCase* cc = cur_index.find_case(bc.name);
    if (cc == nullptr) missing_cases.push_back(bc.name);
    else ++shared_cases;
    bool any = false;
    for (const TimedRecord& br : bc.executors) {
      const TimedRecord* cr = cur_index.find_record(cc, br.executor);
      if (cc == nullptr && samples_of(&br, opt.mode).empty()) continue;
      any = true;
      add(cmp.row(bc.name, br.executor, &bc, &br, cc, cr));
    }
    if (cc == nullptr) {
      if (!any) add(cmp.row(bc.name, "-", &bc, nullptr, nullptr, nullptr));
      continue;
    }
    for (const TimedRecord& cr : cc->executors) {
      if (base_index.find_record(&bc, cr.executor) == nullptr) {
        add(cmp.row(bc.name, cr.executor, &bc, nullptr, cc, &cr));
      }
    }
  }
  for (const TimedCase& cc : cur.cases) {
    if (base_index.find_case(cc.name) != nullptr) continue;
    bool any = false;
    for (const TimedRecord& cr : cc.executors) {
      if (samples_of(&cr, opt.mode).empty() && !is_correctness_failure(cr.outcome)) continue;
      any = true;
      add(cmp.row(cc.name, cr.executor, nullptr, nullptr, &cc, &cr));
    }
    if (!any) add(cmp.row(cc.name, "-", nullptr, nullptr, &cc, nullptr));
  }
  report.incomplete = incompleteness(report, shared_cases, missing_cases, opt);
  return report;
}

int compare_exit_code(const CompareReport& report) {
  if (report.refused) return kCompareExitRefused;
  if (report.correctness_failures() > 0) return kCompareExitIncorrect;
  if (!report.incomplete.empty()) return kCompareExitIncomplete;
  if (report.count(Verdict::kSlower) > 0) return kCompareExitRegression;
  return kCompareExitOk;
}

// ---------------------------------------------------------------- writers
namespace {

// Milliseconds to 0.1 us: the kernels here take 5 us .. a few ms.
std::string ms_text(double v, int n) { return n > 0 ? fmt::format("{:.4f}", v) : "-"; }

std::string ratio_text(const CompareRow& r) {
  return r.baseline_samples > 0 && r.current_samples > 0 ? fmt::format("{:.3f}", r.ratio) : "-";
}

std::string interval_text(const CompareRow& r) {
  return r.baseline_samples > 0 && r.current_samples > 0
             ? fmt::format("[{:.3f}, {:.3f}]", r.lo, r.hi)
             : "-";
}

std::string tol_text(const CompareRow& r) {
  return fmt::format("±{:g}%{}", r.tolerance * 100, r.tolerance_source == "scenario" ? " (yaml)" : "");
}

std::string verdict_text(const CompareRow& r) {
  std::string s = to_string(r.verdict);
  if (r.correctness_failure) s = fmt::format("FAILED: {} (timing: {})", r.current_outcome, s);
  if (r.cross_device) s += " [cross-device]";
  return s;
}

std::string describe(const RunIdentity& id) {
  return fmt::format("{} (device {}, driver {}, build {} {}, commit {} {}, {})", id.path,
                     id.device, id.driver_version.empty() ? "?" : id.driver_version,
                     id.build_type.empty() ? "?" : id.build_type,
                     id.build_flags.empty() ? "" : "[" + id.build_flags + "]",
                     id.git_commit.substr(0, 12), id.git_state, id.date_utc);
}

std::string settings_text(const CompareReport& r) {
  const CompareOptions& o = r.options;
  return fmt::format("mode {}, normalize {}{}, default tolerance ±{:g}%, median ratio with a {:g}% "
                     "bootstrap interval ({} resamples{}, seed {:#x})",
                     o.mode, to_string(o.normalize),
                     o.normalize == Normalize::kNone ? ""
                     : r.normalized                   ? " (applied)"
                                                      : " (not applied: a run has no ceilings)",
                     o.tolerance * 100, o.confidence * 100, r.resamples,
                     r.resamples < o.resamples ? fmt::format(" of the {} asked: the files hold many timed records", o.resamples)
                                               : std::string(),
                     o.seed);
}

std::string summary_text(const CompareReport& r) {
  return fmt::format(
      "compare: {} faster, {} same, {} slower, {} ambiguous, {} missing in current, {} missing in "
      "baseline, {} untimed; {} correctness failure(s)",
      r.count(Verdict::kFaster), r.count(Verdict::kSame), r.count(Verdict::kSlower),
      r.count(Verdict::kAmbiguous), r.count(Verdict::kMissingInCurrent),
      r.count(Verdict::kMissingInBaseline), r.count(Verdict::kUntimed), r.correctness_failures());
}

std::string md_cell(std::string s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|') out += "\\|";
    else if (ch == '\n') out += ' ';
    else out += ch;
  }
  return out;
}

}  // namespace

std::string format_compare_table(const CompareReport& r) {
  std::string out;
  out += "baseline: " + describe(r.baseline) + "\n";
  out += "current:  " + describe(r.current) + "\n";
  out += settings_text(r) + "\n";
  for (const std::string& m : r.mismatches) out += "cross-device: " + m + "\n";
  if (r.refused) {
    out += "refused: the runs differ in device, driver or build (above); --allow-cross-device "
           "compares anyway and marks every verdict cross-device\n";
    return out;
  }
  TextTable table({"case", "executor", "base ms", "cur ms", "ratio", "95% interval", "tol",
                   "verdict", "note"},
                  {false, false, true, true, true, false, false, false, false});
  for (const CompareRow& row : r.rows) {
    table.add_row({row.case_name, row.executor, ms_text(row.baseline_median_ms, row.baseline_samples),
                   ms_text(row.current_median_ms, row.current_samples), ratio_text(row),
                   interval_text(row), tol_text(row), verdict_text(row), row.note});
  }
  out += table.render();
  out += summary_text(r) + "\n";
  if (!r.incomplete.empty()) out += "incomplete: " + r.incomplete + "\n";
  return out;
}

std::string format_compare_markdown(const CompareReport& r) {
  std::string out = "# verifybench compare\n\n";
  out += "| | baseline | current |\n| --- | --- | --- |\n";
  auto line = [&](const char* what, const std::string& b, const std::string& c) {
    out += fmt::format("| {} | {} | {} |\n", what, md_cell(b), md_cell(c));
  };
  line("file", r.baseline.path, r.current.path);
  line("device", r.baseline.device, r.current.device);
  line("driver", r.baseline.driver_version, r.current.driver_version);
  line("build", r.baseline.build_type + " " + r.baseline.build_flags,
       r.current.build_type + " " + r.current.build_flags);
  line("commit", r.baseline.git_commit + " (" + r.baseline.git_state + ")",
       r.current.git_commit + " (" + r.current.git_state + ")");
  line("date", r.baseline.date_utc, r.current.date_utc);
  out += "\n" + settings_text(r) + ".\n\n";
  if (!r.mismatches.empty()) {
    out += r.refused ? "**Refused: cross-device comparison.**\n\n" : "**Cross-device comparison: "
                                                                     "every verdict is marked.**\n\n";
    for (const std::string& m : r.mismatches) out += "- " + md_cell(m) + "\n";
    out += "\n";
  }
  if (r.refused) return out;
  out += "**" + summary_text(r) + "**\n\n";
  if (!r.incomplete.empty()) out += "**Incomplete: " + md_cell(r.incomplete) + ".**\n\n";
  out += "| case | executor | base median (ms) | current median (ms) | ratio | 95% interval | "
         "tolerance | verdict | note |\n";
  out += "| --- | --- | ---: | ---: | ---: | --- | --- | --- | --- |\n";
  for (const CompareRow& row : r.rows) {
    std::string verdict = verdict_text(row);
    if (row.verdict == Verdict::kSlower || row.correctness_failure) verdict = "**" + verdict + "**";
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", md_cell(row.case_name),
                       md_cell(row.executor), ms_text(row.baseline_median_ms, row.baseline_samples),
                       ms_text(row.current_median_ms, row.current_samples), ratio_text(row),
                       interval_text(row), tol_text(row), md_cell(verdict), md_cell(row.note));
  }
  return out;
}

nlohmann::ordered_json compare_to_json(const CompareReport& r) {
  using ojson = nlohmann::ordered_json;
  auto id = [](const RunIdentity& i) {
    return ojson{{"path", i.path},           {"device", i.device},
                 {"driver_version", i.driver_version}, {"build_type", i.build_type},
                 {"build_flags", i.build_flags},       {"git_commit", i.git_commit},
                 {"git_state", i.git_state},           {"date_utc", i.date_utc}};
  };
  ojson rows = ojson::array();
  for (const CompareRow& row : r.rows) {
    const bool compared = row.baseline_samples > 0 && row.current_samples > 0;
    auto opt = [&](double v) { return compared ? ojson(v) : ojson(nullptr); };
    rows.push_back(ojson{{"case", row.case_name},
                         {"executor", row.executor},
                         {"verdict", to_string(row.verdict)},
                         {"correctness_failure", row.correctness_failure},
                         {"cross_device", row.cross_device},
                         {"baseline_outcome", row.baseline_outcome},
                         {"current_outcome", row.current_outcome},
                         {"baseline_samples", row.baseline_samples},
                         {"current_samples", row.current_samples},
                         {"baseline_median_ms", row.baseline_samples ? ojson(row.baseline_median_ms) : ojson(nullptr)},
                         {"current_median_ms", row.current_samples ? ojson(row.current_median_ms) : ojson(nullptr)},
                         {"ratio", opt(row.ratio)},
                         {"ci_lo", opt(row.lo)},
                         {"ci_hi", opt(row.hi)},
                         {"tolerance", row.tolerance},
                         {"tolerance_source", row.tolerance_source},
                         {"normalization", row.normalization},
                         {"note", row.note}});
  }
  const CompareOptions& o = r.options;
  return ojson{
      {"schema", kCompareSchema},
      {"baseline", id(r.baseline)},
      {"current", id(r.current)},
      {"options",
       {{"mode", o.mode},
        {"tolerance", o.tolerance},
        {"normalize", to_string(o.normalize)},
        {"normalized", r.normalized},
        {"allow_cross_device", o.allow_cross_device},
        {"allow_missing", o.allow_missing},
        {"bootstrap",
         {{"resamples", r.resamples}, {"resamples_asked", o.resamples}, {"confidence", o.confidence}, {"seed", o.seed}}}}},
      {"cross_device", !r.mismatches.empty()},
      {"mismatches", r.mismatches},
      {"refused", r.refused},
      {"incomplete", r.incomplete.empty() ? ojson(nullptr) : ojson(r.incomplete)},
      {"summary",
       {{"faster", r.count(Verdict::kFaster)},
        {"same", r.count(Verdict::kSame)},
        {"slower", r.count(Verdict::kSlower)},
        {"ambiguous", r.count(Verdict::kAmbiguous)},
        {"missing_in_current", r.count(Verdict::kMissingInCurrent)},
        {"missing_in_baseline", r.count(Verdict::kMissingInBaseline)},
        {"untimed", r.count(Verdict::kUntimed)},
        {"correctness_failures", r.correctness_failures()},
        {"slower_cases", r.slower_cases()}}},
      {"exit_code", compare_exit_code(r)},
      {"rows", rows}};
}

}  // namespace vb

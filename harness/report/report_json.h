// JSON result file: a versioned document over CaseResult records plus the provenance of the
// run. Its writer and its one reader; they compute nothing about the results themselves.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/record/provenance.h"
#include "harness/record/result.h"

#include "harness/measure/timing_json.h"  // to_json(const TimingRecord&)

namespace vb {

inline constexpr const char* kResultSchema = "verifybench.result/2";

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

// The one reader of result files: `verifybench compare` and the report tests read them back
// through it. Accepts verifybench.result/1 (no timing fields) and /2 as the writer above writes
// them, and what older writers left out (error statistics where nothing was compared, fields
// added since); throws ReportError naming the field on anything else.
struct ResultDocument {
  std::string schema;
  nlohmann::ordered_json provenance;  // as written (see to_json(Provenance))
  std::optional<Ceilings> ceilings;
  std::vector<CaseResult> cases;
};
ResultDocument result_document_from_json(const nlohmann::ordered_json& j);

// Result files are read only up to this size.
inline constexpr std::uintmax_t kMaxResultFileBytes = std::uintmax_t{256} << 20;
// A result file's text parsed as JSON, for result_document_from_json. Throws ReportError
// naming the path for a path that is not a regular file, a file over kMaxResultFileBytes and
// text that is not JSON (a number that overflows a double included).
nlohmann::ordered_json read_result_json(const std::string& path);

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

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

#include "harness/io/files.h"  // write_files_as_set, write_file_atomic
#include "harness/record/provenance.h"
#include "harness/record/result.h"

#include "harness/measure/timing_json.h"  // to_json(const TimingRecord&)

namespace vb {

// /3 (2026-12-06): each executor's "launch" record (LaunchRecord) and "production_speedup";
// "detail" no longer holds the plan's text or the peers' speedup.
inline constexpr const char* kResultSchema = "verifybench.result/3";

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
nlohmann::ordered_json to_json(const LaunchRecord& launch);
ExecutorResult executor_result_from_json(const nlohmann::ordered_json& j);
CaseResult case_result_from_json(const nlohmann::ordered_json& j);
TimingRecord timing_record_from_json(const nlohmann::ordered_json& j);
Achieved achieved_from_json(const nlohmann::ordered_json& j);
TrafficModel traffic_from_json(const nlohmann::ordered_json& j);
Ceilings ceilings_from_json(const nlohmann::ordered_json& j);
// None for a prediction of the two-way model of result files before 2026-12-06 (a
// roof-fraction estimate and an overlap bound, made from the proxy): its figures are not
// this model's.
std::optional<DevicePrediction> prediction_from_json(const nlohmann::ordered_json& j);
nlohmann::ordered_json to_json(const Sm120EmulatedFractions& fractions);
Sm120EmulatedFractions sm120_fractions_from_json(const nlohmann::ordered_json& j);
PdlGoal pdl_goal_from_json(const nlohmann::ordered_json& j);
LaunchRecord launch_record_from_json(const nlohmann::ordered_json& j);

// {"schema": kResultSchema, "provenance": ..., "ceilings": null|{...}, "summary": ...,
//  "cases": [...]}
nlohmann::ordered_json result_document(const Provenance& provenance,
                                       const std::vector<CaseResult>& cases,
                                       const std::optional<Ceilings>& ceilings = std::nullopt);

// The one reader of result files: `verifybench compare` and the report tests read them back
// through it. Accepts verifybench.result/1 (no timing fields), /2 (no launch records) and /3
// as the writer above writes them, and what older writers left out (error statistics where nothing was compared, fields
// added since); throws ReportError naming the field on anything else.
struct ResultDocument {
  std::string schema;
  nlohmann::ordered_json provenance;  // as written (see to_json(Provenance))
  std::optional<Ceilings> ceilings;
  std::vector<CaseResult> cases;
};
ResultDocument result_document_from_json(const nlohmann::ordered_json& j);

// Result files are read only up to this size, and parsed only while their document takes
// at most kMaxResultDocumentBytes (a file of many tiny values, `[[],[],...]`, would take ~30
// bytes of memory per byte of text).
inline constexpr std::uintmax_t kMaxResultFileBytes = std::uintmax_t{256} << 20;
inline constexpr std::uintmax_t kMaxResultDocumentBytes = 4 * kMaxResultFileBytes;
inline constexpr const char* kResultFileWhat = "a verifybench result JSON file";
// A result file's text parsed as JSON, for result_document_from_json, read and parsed within
// those bounds (harness/io/files.h). Throws BadFileError naming the path for a path that is
// not a regular file, a file over the caps and text that is not JSON (a number that overflows
// a double included).
nlohmann::ordered_json read_result_json(const std::string& path);

// result_document(...) as the text result.json holds (invalid UTF-8 replaced by U+FFFD).
std::string result_json_text(const Provenance& provenance, const std::vector<CaseResult>& cases,
                             const std::optional<Ceilings>& ceilings = std::nullopt);

// result_document(...) pretty-printed through write_file_atomic.
void write_result_json(const std::string& path, const Provenance& provenance,
                       const std::vector<CaseResult>& cases,
                       const std::optional<Ceilings>& ceilings = std::nullopt);

}  // namespace vb

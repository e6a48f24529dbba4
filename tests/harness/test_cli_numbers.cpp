// Number text on the command line (issue 48, items 8 and 11): the shared validators of every
// numeric option refuse NaN, infinities and malformed numbers, and --planner errors quote what
// was typed on one line. tests/cli/refuse_numbers.sh runs every option through the binary.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "harness/cli/cli_common.h"

namespace vb {
namespace {

using Catch::Contains;

}  // namespace

TEST_CASE("cli numbers: the validators refuse what CLI11's Range lets through", "[cli][numbers]") {
  const CLI::Validator noise = number_in({0, 1});
  const CLI::Validator positive = number_in({0, 1e308, true});
  const CLI::Validator open = number_in({0, 1, true, true});
  for (const char* text : {"nan", "NaN", "-nan", "inf", "-inf", "infinity", "1e999", "0x1p-2", "", " 0.5", "0.5 ",
                           "1,5", "--1"}) {
    INFO("'" << text << "'");
    CHECK_THAT(noise(text), Contains("allowed: a finite decimal number in [0, 1]"));
    CHECK_FALSE(positive(text).empty());
  }
  CHECK(noise("0").empty());
  CHECK(noise("1").empty());
  CHECK(noise(".5").empty());
  CHECK(noise("5e-1").empty());
  CHECK_FALSE(noise("1.0000001").empty());
  CHECK_FALSE(positive("0").empty());
  CHECK(positive("1e300").empty());
  CHECK_FALSE(open("1").empty());
  CHECK_THAT(open("0"), Contains("in (0, 1)"));

  const CLI::Validator threads = integer_in(0, 4096);
  for (const char* text : {"nan", "inf", "2e0", "1e2", "2.", "2.0", "010", "0x10", "-1", "4097", "", "+-1",
                           "99999999999999999999"}) {
    INFO("'" << text << "'");
    CHECK_THAT(threads(text), Contains("allowed: a decimal integer in 0..4096"));
  }
  CHECK(threads("0").empty());
  CHECK(threads("+8").empty());
  CHECK(threads("4096").empty());
}

TEST_CASE("cli numbers: a --planner error escapes control bytes and newlines", "[cli][numbers]") {
  char path[] = "/tmp/vb_cli_numbers_XXXXXX.yaml";
  const int fd = mkstemps(path, 5);
  REQUIRE(fd >= 0);
  const std::string text =
      "scenarios:\n  - name: a\n    heads: 8\n    sm_scale: kimi-k2\n    batch: {prefix_lens: [16]}\n"
      "    tree: {kind: chain, nodes: 2}\n";
  REQUIRE(write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
  close(fd);
  for (const std::string& setting : {std::string("max_splits=\x1b[31m2\n"), std::string("max\x1b]0;x\x07_splits=2"),
                                     std::string("no equals sign\r\n")}) {
    ScenarioOptions options;
    options.planner_settings = {setting};
    std::string message;
    try {
      load_all({path}, options);
    } catch (const UsageError& e) {
      message = e.what();
    }
    INFO(message);
    REQUIRE(message.rfind("--planner ", 0) == 0);
    CHECK(message.find_first_of("\x1b\x07\r\n") == std::string::npos);
    CHECK((message.find("\\x1b") != std::string::npos || message.find("\\x0d") != std::string::npos));
  }
  std::remove(path);
}

}  // namespace vb

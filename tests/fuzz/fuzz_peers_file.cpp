// libFuzzer target: a `run --peers` file on arbitrary bytes: the bounded parse
// (harness/io/files.cpp, parse_json_within) and peer_rows_from_json
// (harness/report/peers_merge.cpp). Bad input must end in a BadFileError or one
// std::runtime_error starting with the file name; rows that are read must all be in the peer
// namespace, each case and each row of a case once.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string>

#include "harness/io/files.h"
#include "harness/report/peers_merge.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  nlohmann::ordered_json j;
  try {
    j = vb::parse_json_within(std::string(reinterpret_cast<const char*>(data), size), "peers.json",
                              4 * std::uintmax_t{64 << 10}, "a peers file");
  } catch (const vb::BadFileError&) {
    return 0;
  }
  vb::PeerRows rows;
  try {
    rows = vb::peer_rows_from_json(j, "peers.json");
  } catch (const std::runtime_error& e) {
    if (std::string(e.what()).rfind("peers.json: ", 0) != 0) std::abort();
    return 0;
  }
  std::set<std::string> cases;
  for (const auto& [name, executors] : rows.cases) {
    if (!cases.insert(name).second) std::abort();
    std::set<std::string> names;
    for (const vb::ExecutorResult& e : executors) {
      if (!vb::valid_peer_executor_name(e.executor) || !names.insert(e.executor).second) std::abort();
    }
  }
  return 0;
}

// libFuzzer target: SafetensorsWriter (harness/export/export_safetensors.cpp) round trip. The
// input is decoded into a set of tensors (names, dtypes, shapes, bytes); the writer either
// refuses them with an ExportError (at add(), or at header() for names that are not UTF-8)
// or produces a header that a strict reader written here
// parses back to exactly the same tensors, tiling the data section without gaps.
#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "harness/export/export_safetensors.h"

namespace {

struct Reader {
  const std::uint8_t* p;
  std::size_t n;
  std::uint8_t byte() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
};

constexpr vb::StDtype kDtypes[] = {vb::StDtype::kBF16, vb::StDtype::kF32, vb::StDtype::kI32,
                                   vb::StDtype::kI64, vb::StDtype::kU8, vb::StDtype::kBool};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  Reader in{data, size};
  vb::SafetensorsWriter w;
  struct Want {
    std::string dtype;
    std::vector<std::int64_t> shape;
    std::size_t bytes;
  };
  std::map<std::string, Want> want;
  const int tensors = in.byte() % 6;
  try {
    for (int t = 0; t < tensors; ++t) {
      std::string name;
      const int len = in.byte() % 12;
      for (int i = 0; i < len; ++i) name += static_cast<char>(in.byte());
      const vb::StDtype dtype = kDtypes[in.byte() % 6];
      std::vector<std::int64_t> shape;
      const int rank = in.byte() % 4;
      std::int64_t elems = 1;
      for (int r = 0; r < rank; ++r) {
        shape.push_back(in.byte() % 9);
        elems *= shape.back();
      }
      std::vector<std::uint8_t> bytes(static_cast<std::size_t>(elems) * vb::element_bytes(dtype));
      for (auto& b : bytes) b = in.byte();
      if (in.byte() % 8 == 0 && !bytes.empty()) bytes.pop_back();  // a wrong size must be refused
      const std::size_t nbytes = bytes.size();
      w.add_owned(name, dtype, shape, std::move(bytes));
      want[name] = {vb::to_string(dtype), shape, nbytes};
    }
    if (in.byte() % 2) {
      std::string key, value;
      for (int i = in.byte() % 8; i > 0; --i) key += static_cast<char>(in.byte());
      for (int i = in.byte() % 8; i > 0; --i) value += static_cast<char>(in.byte());
      w.set_metadata(key, value);
    }
  } catch (const vb::ExportError&) {
    return 0;
  }
  std::string header;
  try {
    header = w.header();  // names and metadata that are not UTF-8 are refused here
  } catch (const vb::ExportError&) {
    return 0;
  }
  if (header.size() % 8 != 0) std::abort();
  nlohmann::json h;
  try {
    h = nlohmann::json::parse(header);
  } catch (const nlohmann::json::exception&) {
    std::abort();  // the writer produced a header that is not JSON
  }
  std::uint64_t end_max = 0, covered = 0;
  std::size_t seen = 0;
  for (auto it = h.begin(); it != h.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    const auto found = want.find(it.key());
    if (found == want.end()) std::abort();
    const nlohmann::json& e = it.value();
    if (e.at("dtype").get<std::string>() != found->second.dtype) std::abort();
    if (e.at("shape").get<std::vector<std::int64_t>>() != found->second.shape) std::abort();
    const auto off = e.at("data_offsets").get<std::vector<std::uint64_t>>();
    if (off.size() != 2 || off[1] < off[0] || off[1] - off[0] != found->second.bytes) std::abort();
    end_max = std::max<std::uint64_t>(end_max, off[1]);
    covered += off[1] - off[0];
    ++seen;
  }
  if (seen != want.size() || covered != end_max) std::abort();
  if (w.file_bytes() != 8 + header.size() + end_max) std::abort();
  return 0;
}

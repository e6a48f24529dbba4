#include "harness/measure/nvtx.h"

#include <filesystem>

namespace vb {

std::string nvtx_case_range_name(const std::string& scenario_path, const std::string& case_name) {
  // Only characters that Nsight Compute's --nvtx-include has been seen to match are kept;
  // any other becomes '_'. On the lab H200 (2026-11-29) a filter for the case
  // "kimi_k2_tp8_single_request/batch.prefix_lens=[4096]" matched no range, while names
  // made of letters, digits and "_.,=-/" did (e.g. "kimi_k2_tp8_mtp/tree.nodes=4,batch.size=64").
  std::string name = std::filesystem::path(scenario_path).stem().string() + "/" + case_name;
  for (char& c : name) {
    const bool kept = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '_' || c == '.' || c == ',' || c == '=' || c == '-' || c == '/';
    if (!kept) c = '_';
  }
  return name;
}

std::string nvtx_case_filter(const std::string& range_name) {
  return std::string(NvtxDomain::name) + "@" + range_name + "/";
}

CaseLaunchRange::CaseLaunchRange(const std::string& name) {
  const nvtxDomainHandle_t domain = nvtx3::domain::get<NvtxDomain>();
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find('/', start);
    if (end == std::string::npos) end = name.size();
    if (end > start) {
      const std::string part = name.substr(start, end - start);
      nvtxEventAttributes_t attr{};
      attr.version = NVTX_VERSION;
      attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
      attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
      attr.message.ascii = part.c_str();  // copied by the tool during the call
      nvtxDomainRangePushEx(domain, &attr);
      ++depth_;
    }
    start = end + 1;
  }
}

CaseLaunchRange::~CaseLaunchRange() {
  const nvtxDomainHandle_t domain = nvtx3::domain::get<NvtxDomain>();
  for (int i = 0; i < depth_; ++i) nvtxDomainRangePop(domain);
}

}  // namespace vb

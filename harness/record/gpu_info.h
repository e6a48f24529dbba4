// The CUDA device a run uses, as the records describe it: the provenance of every report, the
// run summary and the executors all read this one description.
#pragma once
#include <cstdint>
#include <string>

namespace vb {

struct GpuInfo {
  bool available = false;
  std::string reason;  // why not available ("no CUDA device: <cuda error>")
  std::string name;    // e.g. "NVIDIA H200"
  int device = 0;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t global_mem_bytes = 0;
  int driver_version = 0, runtime_version = 0;
};
// Never throws; on a machine without a device returns available == false with a reason.
GpuInfo query_gpu();

}  // namespace vb

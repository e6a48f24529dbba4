// libverifybench_timing.so: vb::GpuTimer (harness/measure/timing.cpp, compiled into this library
// as it is into the harness) for callers that launch through a C callback.
#include "verifybench_timing.h"

#include <cstdlib>
#include <cstring>
#include <exception>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include "harness/measure/timing.h"
#include "harness/measure/timing_json.h"

namespace {

thread_local std::string g_last_error;

// The GPU facts the timer needs (the flush buffer is 2x the L2; the read flush's blocks
// follow the SM count), read from the current device.
bool current_gpu(vb::GpuInfo* gpu) {
  cudaDeviceProp prop{};
  if (cudaGetDevice(&gpu->device) != cudaSuccess || cudaGetDeviceProperties(&prop, gpu->device) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  gpu->available = true;
  gpu->name = prop.name;
  gpu->sm_count = prop.multiProcessorCount;
  gpu->l2_bytes = prop.l2CacheSize;
  return true;
}

int fail(const std::string& message) {
  g_last_error = message;
  return 1;
}

}  // namespace

extern "C" {

int vbtiming_measure(const char* modes, double target_noise, int min_samples, int max_samples, double budget_s,
                     int warmup_launches, const char* l2_flush, vbtiming_launch_fn launch, void* context,
                     char** json_out) {
  if (json_out == nullptr || launch == nullptr || modes == nullptr || l2_flush == nullptr) {
    return fail("json_out, launch, modes and l2_flush are required");
  }
  *json_out = nullptr;
  try {
    vb::TimingOptions options;
    options.modes = vb::parse_timing_modes(modes);
    options.rule.target_noise = target_noise;
    options.rule.min_samples = min_samples;
    options.rule.max_samples = max_samples;
    options.rule.budget_s = budget_s;
    options.warmup_launches = warmup_launches;
    if (min_samples < 3 || max_samples < min_samples) {
      return fail("min_samples " + std::to_string(min_samples) + ", max_samples " + std::to_string(max_samples) +
                  ": allowed 3 <= min_samples <= max_samples");
    }
    const vb::L2Flush flush = vb::parse_l2_flush(l2_flush);
    vb::GpuInfo gpu;
    if (!current_gpu(&gpu)) return fail("no CUDA device");
    std::string error;
    const std::unique_ptr<vb::GpuTimer> timer = vb::GpuTimer::create(gpu, &error, flush);
    if (!timer) return fail("timer: " + error);
    const vb::LaunchFn fn = [&](cudaStream_t stream, bool overlap) {
      return static_cast<cudaError_t>(launch(stream, overlap ? 1 : 0, context));
    };
    nlohmann::ordered_json records = nlohmann::ordered_json::array();
    for (const vb::TimingRecord& r : timer->measure_interleaved(options.modes, fn, options)) {
      records.push_back(vb::to_json(r));
    }
    const std::string text = records.dump();
    *json_out = static_cast<char*>(std::malloc(text.size() + 1));
    if (*json_out == nullptr) return fail("out of host memory");
    std::memcpy(*json_out, text.c_str(), text.size() + 1);
    g_last_error.clear();
    return 0;
  } catch (const std::exception& e) {
    return fail(e.what());
  }
}

void vbtiming_free(char* json) { std::free(json); }

const char* vbtiming_last_error(void) { return g_last_error.c_str(); }

}  // extern "C"

// The measurement engine: CUDA-event timing of one executor launch on a dedicated stream,
// with warm-up outside the measurement, cold-L2 / hot-L2 / CUDA-graph modes, noise-driven
// stopping and NVML clock / temperature / throttle tracking.
//
// The samples' statistics (percentiles, relative noise) are in harness/measure/statistics.h.
//
// Stopping (stop_reason), after each sample, in this order:
//   n >= max_samples                               -> "max samples"
//   n >= min_samples and rel_noise <= target_noise -> "noise target"
//   n >= min_samples and elapsed >= budget_s       -> "time budget"
// (the budget never cuts a measurement below min_samples)
#pragma once
#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/measure/statistics.h"
#include "harness/record/gpu_info.h"
#include "harness/record/result.h"

namespace vb {

struct StopRule {
  double target_noise = 0.01;
  int min_samples = 10;
  int max_samples = 1000;
  double budget_s = 1.0;
};
// "" to keep sampling, else the stop reason.
std::string stop_reason(const StopRule& rule, const std::vector<double>& samples, double elapsed_s);

// kChain and kChainPdl: kChainLaunches (harness/record/result.h) launches back to back on the stream between the two
// events (after a hold), the sample being their time divided by kChainLaunches: what a launch
// costs in a serving loop, where kernels follow each other with nothing between them. The L2
// holds what the previous launch left. kChainPdl launches each one over the previous
// (programmatic dependent launch, FlashVerifyLaunchOptions); only executors that can are
// timed in it (DeviceProblem::executor_overlaps).
enum class TimingMode { kColdL2, kHotL2, kGraph, kChain, kChainPdl };
const char* to_string(TimingMode mode);  // "cold-l2", "hot-l2", "graph", "chain", "chain-pdl"
// "cold,hot,graph,chain,chain-pdl" (also accepts the full names); throws
// std::invalid_argument naming the bad entry.
std::vector<TimingMode> parse_timing_modes(const std::string& text);

// ---------------------------------------------------------------- NVML (dlopen at run time)
// Loads libnvidia-ml.so.1 on first use; everything returns nullopt when NVML is missing or
// a query fails, so a machine without NVML still times (it records "nvml unavailable").
class Nvml {
 public:
  static Nvml& instance();
  bool available() const { return available_; }
  const std::string& status() const { return status_; }  // "ok" or "nvml unavailable: ..."
  // Binds to the CUDA device (by PCI bus id, so CUDA_VISIBLE_DEVICES cannot mismatch).
  void bind(int cuda_device);
  std::optional<double> sm_clock_mhz();
  std::optional<double> mem_clock_mhz();
  std::optional<double> temperature_c();
  // The memory's (HBM) temperature, NVML field NVML_FI_DEV_MEMORY_TEMP; nullopt where the
  // device or driver does not report it.
  std::optional<double> memory_temperature_c();
  // Clock-event (throttle) reasons with idle (0x1) and application-clock setting (0x2)
  // masked out; nullopt when unknown.
  std::optional<unsigned long long> throttle_reasons();

  struct Api;

 private:
  Nvml();
  bool available_ = false;
  std::string status_;
  std::shared_ptr<Api> api_;
  void* device_ = nullptr;
};

// Names of the throttle reason bits, "sw-power-cap,hw-slowdown", for reports.
std::string throttle_reason_names(unsigned long long reasons);

// ---------------------------------------------------------------- the GPU timer
// One launch of the thing to time, asynchronous on the given stream; it must be capturable
// in a CUDA graph (no sync, no allocation), as every executor launcher is. overlap_previous:
// launch over the stream's previous kernel (programmatic dependent launch); set only for
// kChainPdl samples, and a launch that cannot overlap launches as usual.
using LaunchFn = std::function<cudaError_t(cudaStream_t stream, bool overlap_previous)>;

// How a cold-L2 sample empties the L2 before its launch (outside the timed range).
//   kRead:  one read pass over 2x the L2 size. The L2 is left holding clean lines of an
//           unrelated buffer, so the timed launch pays nothing but its own misses.
//   kWrite: a memset of 2x the L2 size (every report before 2026-11-29's wgmma run).
//           It leaves the L2 full of dirty lines whose write-back (up to the whole L2,
//           60 MiB on an H200) lands inside the timed launch. Measured on the H200 in one
//           run (2026-11-29: reports/h200/2026-11-29-wgmma/l2-flush-read-vs-write, in git
//           history at 93371d3): one 64k request
//           44.5 us (write) vs 37.3 us (read), mtp T4 B8 63.2 vs 52.5, decode B64 94.9 vs
//           86.9; compute-bound cases unchanged (ddtree-64 B8 1020.9 vs 1025.3).
enum class L2Flush { kRead, kWrite };
const char* to_string(L2Flush flush);  // "read", "write"
// "read" or "write"; throws std::invalid_argument otherwise.
L2Flush parse_l2_flush(const std::string& text);

struct TimingOptions {
  StopRule rule;
  int warmup_launches = 3;   // launches before the measurement, outside the timed range
  std::vector<TimingMode> modes = {TimingMode::kColdL2, TimingMode::kHotL2, TimingMode::kGraph};
};

class GpuTimer {
 public:
  // Creates the dedicated stream, events and the L2 flush buffer (2x the device's L2).
  // Returns nullptr and sets *error naming the failing call.
  static std::unique_ptr<GpuTimer> create(const GpuInfo& gpu, std::string* error,
                                          L2Flush flush = L2Flush::kRead);
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  cudaStream_t stream() const;
  std::size_t flush_bytes() const;

  // Warm-up, then samples until the stop rule says so. A CUDA failure ends the
  // measurement: stop_reason is "error: <call> failed: ..." and the samples so far stay.
  TimingRecord measure(TimingMode mode, const LaunchFn& launch, const TimingOptions& options);
  // The same for several modes at once, their samples taken in turn (one of each unfinished
  // mode per round), each mode with its own stop rule and budget: modes compared with each
  // other (chain, chain-pdl) then see the device in the same states. One record per mode, in
  // the order given.
  std::vector<TimingRecord> measure_interleaved(const std::vector<TimingMode>& modes, const LaunchFn& launch,
                                                const TimingOptions& options);

  // One sample (for Google Benchmark's manual time): optional flush outside the range,
  // then events around one launch. Returns the time in ms, or nullopt and *error.
  std::optional<double> time_once(const LaunchFn& launch, bool flush_l2, std::string* error);
  // The same around `launches` launches back to back (each with overlap_previous), returning
  // their time divided by `launches`: a chain sample.
  std::optional<double> time_launches(const LaunchFn& launch, bool flush_l2, int launches, bool overlap_previous,
                                      std::string* error);

  struct Impl;

 private:
  explicit GpuTimer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace vb

// Measurement engine: statistics, stopping rule, NVML via dlopen, and the CUDA-event timer.
#include "harness/measure/timing.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "harness/measure/ceilings_kernels.h"
#include "harness/measure/nvtx.h"

namespace vb {

// ---------------------------------------------------------------- stopping
std::string stop_reason(const StopRule& rule, const std::vector<double>& samples, double elapsed_s) {
  const int n = static_cast<int>(samples.size());
  if (n >= rule.max_samples) return "max samples";
  if (n < rule.min_samples) return "";
  if (summarize(samples).rel_noise <= rule.target_noise) return "noise target";
  if (elapsed_s >= rule.budget_s) return "time budget";
  return "";
}

const char* to_string(TimingMode mode) {
  switch (mode) {
    case TimingMode::kColdL2: return "cold-l2";
    case TimingMode::kHotL2: return "hot-l2";
    case TimingMode::kGraph: return "graph";
    case TimingMode::kChain: return "chain";
    case TimingMode::kChainPdl: return "chain-pdl";
  }
  return "unknown";
}

std::vector<TimingMode> parse_timing_modes(const std::string& text) {
  std::vector<TimingMode> modes;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    TimingMode m;
    if (item == "cold" || item == "cold-l2") m = TimingMode::kColdL2;
    else if (item == "hot" || item == "hot-l2") m = TimingMode::kHotL2;
    else if (item == "graph") m = TimingMode::kGraph;
    else if (item == "chain") m = TimingMode::kChain;
    else if (item == "chain-pdl") m = TimingMode::kChainPdl;
    else throw std::invalid_argument(fmt::format("unknown timing mode '{}' (cold, hot, graph, chain, chain-pdl)", item));
    if (std::find(modes.begin(), modes.end(), m) == modes.end()) modes.push_back(m);
  }
  if (modes.empty()) throw std::invalid_argument("no timing mode given (cold, hot, graph, chain, chain-pdl)");
  return modes;
}

// ---------------------------------------------------------------- NVML
// The few NVML entry points used, declared here (nvml.h is not needed to build).
struct Nvml::Api {
  using Ret = int;  // nvmlReturn_t; 0 is NVML_SUCCESS
  using Device = void*;
  void* lib = nullptr;
  Ret (*init)() = nullptr;
  Ret (*by_pci)(const char*, Device*) = nullptr;
  Ret (*by_index)(unsigned, Device*) = nullptr;
  Ret (*clock)(Device, int, unsigned*) = nullptr;        // nvmlDeviceGetClockInfo
  Ret (*temperature)(Device, int, unsigned*) = nullptr;  // nvmlDeviceGetTemperature
  Ret (*reasons)(Device, unsigned long long*) = nullptr; // ...ClocksEventReasons / Throttle
  // nvmlFieldValue_t as nvml.h lays it out (40 bytes).
  struct FieldValue {
    unsigned field_id;
    unsigned scope_id;
    long long timestamp_us;
    long long latency_us;
    int value_type;  // nvmlValueType_t: 0 double, 1 uint, 2 ulong, 3 ulonglong, 4 slonglong, 5 sint
    Ret result;
    union {
      double d;
      unsigned ui;
      unsigned long ul;
      unsigned long long ull;
      long long sll;
      int si;
    } value;
  };
  Ret (*field_values)(Device, int, FieldValue*) = nullptr;  // nvmlDeviceGetFieldValues
  ~Api() {
    if (lib) dlclose(lib);
  }
};

namespace {
constexpr int kNvmlClockSm = 1;   // NVML_CLOCK_SM
constexpr int kNvmlClockMem = 2;  // NVML_CLOCK_MEM
constexpr int kNvmlTemperatureGpu = 0;
constexpr unsigned kNvmlFieldMemoryTemperature = 82;  // NVML_FI_DEV_MEMORY_TEMP
static_assert(sizeof(Nvml::Api::FieldValue) == 40, "nvmlFieldValue_t is 40 bytes");
constexpr unsigned long long kReasonGpuIdle = 0x1;
constexpr unsigned long long kReasonAppClocks = 0x2;
}  // namespace

Nvml& Nvml::instance() {
  static Nvml nvml;
  return nvml;
}

Nvml::Nvml() : api_(std::make_shared<Api>()) {
  Api& a = *api_;
  a.lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (a.lib == nullptr) {
    const char* why = dlerror();
    status_ = fmt::format("nvml unavailable: {}", why ? why : "dlopen(libnvidia-ml.so.1) failed");
    return;
  }
  auto sym = [&](const char* name) { return dlsym(a.lib, name); };
  a.init = reinterpret_cast<Api::Ret (*)()>(sym("nvmlInit_v2"));
  a.by_pci = reinterpret_cast<Api::Ret (*)(const char*, Api::Device*)>(sym("nvmlDeviceGetHandleByPciBusId_v2"));
  a.by_index = reinterpret_cast<Api::Ret (*)(unsigned, Api::Device*)>(sym("nvmlDeviceGetHandleByIndex_v2"));
  a.clock = reinterpret_cast<Api::Ret (*)(Api::Device, int, unsigned*)>(sym("nvmlDeviceGetClockInfo"));
  a.temperature = reinterpret_cast<Api::Ret (*)(Api::Device, int, unsigned*)>(sym("nvmlDeviceGetTemperature"));
  void* reasons = sym("nvmlDeviceGetCurrentClocksEventReasons");
  if (reasons == nullptr) reasons = sym("nvmlDeviceGetCurrentClocksThrottleReasons");
  a.reasons = reinterpret_cast<Api::Ret (*)(Api::Device, unsigned long long*)>(reasons);
  a.field_values =
      reinterpret_cast<Api::Ret (*)(Api::Device, int, Api::FieldValue*)>(sym("nvmlDeviceGetFieldValues"));
  if (a.init == nullptr || a.clock == nullptr || (a.by_pci == nullptr && a.by_index == nullptr)) {
    status_ = "nvml unavailable: libnvidia-ml.so.1 lacks nvmlInit_v2 / nvmlDeviceGetClockInfo";
    return;
  }
  if (const Api::Ret r = a.init(); r != 0) {
    status_ = fmt::format("nvml unavailable: nvmlInit_v2 returned {}", r);
    return;
  }
  status_ = "ok (not bound to a device yet)";
}

void Nvml::bind(int cuda_device) {
  if (api_->init == nullptr || status_.rfind("nvml unavailable", 0) == 0) return;
  Api& a = *api_;
  char bus_id[64] = {};
  Api::Ret r = -1;
  if (a.by_pci != nullptr && cudaDeviceGetPCIBusId(bus_id, sizeof bus_id, cuda_device) == cudaSuccess) {
    r = a.by_pci(bus_id, &device_);
  }
  if (r != 0 && a.by_index != nullptr) r = a.by_index(static_cast<unsigned>(cuda_device), &device_);
  if (r != 0) {
    status_ = fmt::format("nvml unavailable: no NVML handle for CUDA device {} (bus {}, error {})",
                          cuda_device, bus_id, r);
    device_ = nullptr;
    return;
  }
  available_ = true;
  status_ = "ok";
}

std::optional<double> Nvml::sm_clock_mhz() {
  unsigned v = 0;
  if (!available_ || api_->clock(device_, kNvmlClockSm, &v) != 0) return std::nullopt;
  return v;
}

std::optional<double> Nvml::mem_clock_mhz() {
  unsigned v = 0;
  if (!available_ || api_->clock(device_, kNvmlClockMem, &v) != 0) return std::nullopt;
  return v;
}

std::optional<double> Nvml::temperature_c() {
  unsigned v = 0;
  if (!available_ || api_->temperature == nullptr ||
      api_->temperature(device_, kNvmlTemperatureGpu, &v) != 0) {
    return std::nullopt;
  }
  return v;
}

std::optional<double> Nvml::memory_temperature_c() {
  if (!available_ || api_->field_values == nullptr) return std::nullopt;
  Api::FieldValue f{};
  f.field_id = kNvmlFieldMemoryTemperature;
  if (api_->field_values(device_, 1, &f) != 0 || f.result != 0) return std::nullopt;
  switch (f.value_type) {
    case 0: return f.value.d;
    case 1: return f.value.ui;
    case 2: return static_cast<double>(f.value.ul);
    case 3: return static_cast<double>(f.value.ull);
    case 4: return static_cast<double>(f.value.sll);
    case 5: return f.value.si;
  }
  return std::nullopt;
}

std::optional<unsigned long long> Nvml::throttle_reasons() {
  unsigned long long v = 0;
  if (!available_ || api_->reasons == nullptr || api_->reasons(device_, &v) != 0) return std::nullopt;
  return v & ~(kReasonGpuIdle | kReasonAppClocks);
}

std::string throttle_reason_names(unsigned long long reasons) {
  static const std::pair<unsigned long long, const char*> kNames[] = {
      {0x4, "sw-power-cap"},          {0x8, "hw-slowdown"},
      {0x10, "sync-boost"},           {0x20, "sw-thermal"},
      {0x40, "hw-thermal"},           {0x80, "hw-power-brake"},
      {0x100, "display-clock"}};
  std::string out;
  for (const auto& [bit, name] : kNames) {
    if ((reasons & bit) == 0) continue;
    if (!out.empty()) out += ',';
    out += name;
  }
  return out;
}

// ---------------------------------------------------------------- the timer
struct GpuTimer::Impl {
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  void* flush = nullptr;
  std::size_t flush_bytes = 0;
  int flush_round = 0;
  L2Flush flush_method = L2Flush::kRead;
  unsigned* flush_sink = nullptr;
  int flush_blocks = 0;
  ~Impl() {
    if (flush) cudaFree(flush);
    if (flush_sink) cudaFree(flush_sink);
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    if (stream) cudaStreamDestroy(stream);
  }
};

namespace {

std::string cuda_failure(cudaError_t err, const char* call) {
  return fmt::format("{} failed: {} ({})", call, cudaGetErrorString(err), cudaGetErrorName(err));
}

// Records the first failing call.
struct Check {
  std::string error;
  bool operator()(cudaError_t err, const char* call) {
    if (err != cudaSuccess && error.empty()) error = cuda_failure(err, call);
    return err == cudaSuccess;
  }
};

// Samples NVML at most this many times per measurement (each query costs microseconds
// of host time between samples, never inside a timed range).
constexpr int kMaxNvmlReadings = 64;
// Hold in front of an unflushed sample: longer than the host takes to submit an event, a
// launch (or graph launch) and an event, short next to a sample's wall time.
constexpr std::uint64_t kHoldNanoseconds = 20000;
// The same in front of a chain sample, whose kChainLaunches launches (two kernels each) the
// host submits one after another.
constexpr std::uint64_t kChainHoldNanoseconds = 300000;

}  // namespace

GpuTimer::GpuTimer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
GpuTimer::~GpuTimer() = default;
cudaStream_t GpuTimer::stream() const { return impl_->stream; }
std::size_t GpuTimer::flush_bytes() const { return impl_->flush_bytes; }

const char* to_string(L2Flush flush) { return flush == L2Flush::kWrite ? "write" : "read"; }

L2Flush parse_l2_flush(const std::string& text) {
  if (text == "read") return L2Flush::kRead;
  if (text == "write") return L2Flush::kWrite;
  throw std::invalid_argument(fmt::format("'{}' is not an L2 flush method (allowed: read, write)", text));
}

// Empties the L2 before a cold sample, on the timer's stream (see L2Flush).
cudaError_t empty_l2(GpuTimer::Impl& d) {
  if (d.flush_method == L2Flush::kWrite) {
    return cudaMemsetAsync(d.flush, (++d.flush_round) & 0xFF, d.flush_bytes, d.stream);
  }
  return ceiling_kernels::launch_stream_read(d.flush, d.flush_bytes, d.flush_sink, d.flush_blocks, d.stream);
}

std::unique_ptr<GpuTimer> GpuTimer::create(const GpuInfo& gpu, std::string* error, L2Flush flush) {
  auto impl = std::make_unique<Impl>();
  Check check;
  check(cudaSetDevice(gpu.device), "cudaSetDevice");
  check(cudaStreamCreateWithFlags(&impl->stream, cudaStreamNonBlocking), "cudaStreamCreate (timer)");
  check(cudaEventCreate(&impl->start), "cudaEventCreate");
  check(cudaEventCreate(&impl->stop), "cudaEventCreate");
  // Cold L2: 2x the L2 size read from the device (a 64 MiB floor if the device reports 0).
  constexpr std::int64_t kFallbackL2 = 64ll << 20;
  impl->flush_bytes = static_cast<std::size_t>(2 * (gpu.l2_bytes > 0 ? gpu.l2_bytes : kFallbackL2));
  check(cudaMalloc(&impl->flush, impl->flush_bytes), "cudaMalloc L2 flush buffer");
  check(cudaMalloc(reinterpret_cast<void**>(&impl->flush_sink), ceiling_kernels::kStreamReadThreads * sizeof(unsigned)),
        "cudaMalloc flush sink");
  // Defined contents once (the read flush reads them), written back before any timing.
  check(cudaMemset(impl->flush, 0x5A, impl->flush_bytes), "L2 flush buffer init");
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after the flush buffer init");
  impl->flush_method = flush;
  impl->flush_blocks = 4 * std::max(1, gpu.sm_count);
  if (!check.error.empty()) {
    if (error) *error = check.error;
    return nullptr;
  }
  Nvml::instance().bind(gpu.device);
  return std::unique_ptr<GpuTimer>(new GpuTimer(std::move(impl)));
}

std::optional<double> GpuTimer::time_once(const LaunchFn& launch, bool flush_l2, std::string* error) {
  return time_launches(launch, flush_l2, 1, false, error);
}

std::optional<double> GpuTimer::time_launches(const LaunchFn& launch, bool flush_l2, int launches,
                                              bool overlap_previous, std::string* error) {
  Impl& d = *impl_;
  Check check;
  if (flush_l2) {
    // Outside the timed range, same stream: the flush completes before `start` records. It
    // also keeps the GPU busy while the start event and the launch are submitted.
    check(empty_l2(d), "L2 flush");
  } else {
    // Hot, graph and chain samples: a hold in front, so the sample does not include the host's
    // submission of the launches (see ceiling_kernels::launch_hold).
    check(ceiling_kernels::launch_hold(launches > 1 ? kChainHoldNanoseconds : kHoldNanoseconds, d.stream),
          "stream hold");
  }
  check(cudaEventRecord(d.start, d.stream), "cudaEventRecord start");
  for (int i = 0; i < launches && check.error.empty(); ++i) check(launch(d.stream, overlap_previous), "executor launch");
  check(cudaEventRecord(d.stop, d.stream), "cudaEventRecord stop");
  check(cudaEventSynchronize(d.stop), "cudaEventSynchronize");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, d.start, d.stop), "cudaEventElapsedTime");
  if (!check.error.empty()) {
    if (error) *error = check.error;
    return std::nullopt;
  }
  return static_cast<double>(ms) / launches;
}

TimingRecord GpuTimer::measure(TimingMode mode, const LaunchFn& launch, const TimingOptions& options) {
  return measure_interleaved({mode}, launch, options).front();
}

std::vector<TimingRecord> GpuTimer::measure_interleaved(const std::vector<TimingMode>& modes, const LaunchFn& launch,
                                                        const TimingOptions& options) {
  Impl& d = *impl_;
  Check check;
  Nvml& nvml = Nvml::instance();
  // Everything one mode needs; the modes take their samples in turn.
  struct ModeState {
    TimingMode mode;
    TimingRecord rec;
    LaunchFn timed;
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    bool flush = false, overlap = false;
    int launches = 1;
    std::vector<double> clocks;
    bool throttled = false;
    int stride = 1;
    double elapsed_s = 0;  // this mode's own sampling time (its budget)
    bool done = false;
  };
  std::vector<ModeState> states(modes.size());
  for (std::size_t i = 0; i < modes.size(); ++i) {
    ModeState& m = states[i];
    m.mode = modes[i];
    m.rec.mode = to_string(m.mode);
    m.timed = launch;
    m.flush = m.mode == TimingMode::kColdL2;
    m.overlap = m.mode == TimingMode::kChainPdl;
    m.launches = m.mode == TimingMode::kChain || m.mode == TimingMode::kChainPdl ? kChainLaunches : 1;
    if (m.mode == TimingMode::kGraph && check.error.empty()) {
      // Capture the executor's launch once; the timed range is around cudaGraphLaunch.
      check(cudaStreamBeginCapture(d.stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
      if (check.error.empty()) {
        const cudaError_t launched = launch(d.stream, false);
        const cudaError_t ended = cudaStreamEndCapture(d.stream, &m.graph);
        check(launched, "executor launch during graph capture");
        check(ended, "cudaStreamEndCapture");
      }
      if (check.error.empty()) check(cudaGraphInstantiate(&m.exec, m.graph, 0), "cudaGraphInstantiate");
      cudaGraphExec_t exec = m.exec;
      m.timed = [exec](cudaStream_t s, bool) { return cudaGraphLaunch(exec, s); };
    }
  }

  if (check.error.empty()) {
    NvtxRange range("warm-up");
    for (ModeState& m : states) {
      for (int i = 0; i < options.warmup_launches && check.error.empty(); ++i) {
        if (m.flush) check(empty_l2(d), "L2 flush (warm-up)");
        for (int k = 0; k < m.launches && check.error.empty(); ++k) {
          check(m.timed(d.stream, m.overlap), "executor launch (warm-up)");
        }
      }
    }
    check(cudaStreamSynchronize(d.stream), "cudaStreamSynchronize after warm-up");
  }

  auto read_nvml = [&](ModeState& m) {
    TimingRecord& rec = m.rec;
    if (const auto c = nvml.sm_clock_mhz()) m.clocks.push_back(*c);
    if (const auto t = nvml.temperature_c()) {
      rec.temperature_c_max = std::max(rec.temperature_c_max.value_or(*t), *t);
    }
    if (const auto mt = nvml.memory_temperature_c()) {
      rec.memory_temperature_c_min = std::min(rec.memory_temperature_c_min.value_or(*mt), *mt);
      rec.memory_temperature_c_max = std::max(rec.memory_temperature_c_max.value_or(*mt), *mt);
    }
    if (const auto r = nvml.throttle_reasons(); r && *r != 0) m.throttled = true;
  };
  if (check.error.empty()) {
    NvtxRange range("timed");
    for (ModeState& m : states) read_nvml(m);
    // One sample of each unfinished mode in turn, so that a state of the device that comes
    // and goes over seconds (H200, 2026-11-30: reports/h200/2026-11-30-pdl-chain call 9, in git history at 93371d3) reaches them alike.
    bool any_left = true;
    while (any_left && check.error.empty()) {
      any_left = false;
      for (ModeState& m : states) {
        if (m.done) continue;
        std::string error;
        const auto t0 = std::chrono::steady_clock::now();
        const std::optional<double> ms = time_launches(m.timed, m.flush, m.launches, m.overlap, &error);
        if (!ms) {
          check.error = error;
          break;
        }
        m.elapsed_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        m.rec.samples_ms.push_back(*ms);
        const int n = static_cast<int>(m.rec.samples_ms.size());
        // Clock right after a sample: the GPU is still at its working clock.
        if (n % m.stride == 0) read_nvml(m);
        if (n >= kMaxNvmlReadings * m.stride) m.stride *= 2;
        m.rec.stop_reason = stop_reason(options.rule, m.rec.samples_ms, m.elapsed_s);
        if (!m.rec.stop_reason.empty()) {
          m.done = true;
          read_nvml(m);
        } else {
          any_left = true;
        }
      }
    }
  }

  std::vector<TimingRecord> out;
  for (ModeState& m : states) {
    if (m.exec) cudaGraphExecDestroy(m.exec);
    if (m.graph) cudaGraphDestroy(m.graph);
    TimingRecord& rec = m.rec;
    fill_sample_stats(&rec);
    if (!m.clocks.empty()) {
      std::sort(m.clocks.begin(), m.clocks.end());
      rec.sm_clock_mhz_median = percentile_sorted(m.clocks, 0.5);
    }
    rec.throttled = m.throttled;
    if (!check.error.empty()) rec.stop_reason = "error: " + check.error;
    out.push_back(std::move(rec));
  }
  return out;
}

}  // namespace vb

// GPU executors against the CPU oracle, the SGLang adapter against the native interface,
// split schedules against each other, and CUDA-graph replay against direct launches.
// Every test here needs a CUDA device; without one the binary exits 77 (CTest: Skipped).
#include <catch2/catch.hpp>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <limits>
#include <vector>

#include "harness/measure/clock_rate.h"
#include "harness/run/gpu_executor.h"
#include "harness/problem/fp8_math_error.h"
#include "harness/problem/problem.h"
#include "harness/record/result.h"
#include "verifybench/kernels.h"
#include "verifybench/reference.h"
#include "overlap_probe.h"

namespace {

using vb::CaseSpec;
using vb::GpuExecutorKind;
using vb::PageTableKind;

CaseSpec make_case(const std::string& name, int heads, std::vector<int> prefixes, vb::TreeSpec tree,
                   int page_size, vb::PagePlacement placement, std::uint64_t seed) {
  CaseSpec spec;
  spec.name = name;
  spec.scenario = "gpu-test";
  spec.source = __FILE__;
  spec.heads = heads;
  spec.sm_scale = 0.135234;
  spec.seed = seed;
  spec.batch.dist = vb::PrefixDist::kList;
  spec.batch.prefix_lens = std::move(prefixes);
  spec.tree = std::move(tree);
  spec.pages.size = page_size;
  spec.pages.placement = placement;
  spec.pages.seed = seed + 1;
  return spec;
}

vb::TreeSpec chain(int n) {
  vb::TreeSpec t;
  t.kind = vb::TreeKind::kChain;
  t.nodes = n;
  return t;
}
vb::TreeSpec random_tree(int n, std::uint64_t seed) {
  vb::TreeSpec t;
  t.kind = vb::TreeKind::kRandom;
  t.nodes = n;
  t.seed = seed;
  return t;
}
vb::TreeSpec kary(int k, int depth) {
  vb::TreeSpec t;
  t.kind = vb::TreeKind::kKAry;
  t.branching = k;
  t.depth = depth;
  return t;
}

std::vector<CaseSpec> gpu_cases() {
  using P = vb::PagePlacement;
  return {
      make_case("chain4-p100-h16-page1-shuffled", 16, {100}, chain(4), 1, P::kShuffled, 11),
      make_case("decode-t1-h16", 16, {4097, 0, 31}, chain(1), 16, P::kInterleaved, 12),
      make_case("random37-unequal-page16", 8, {0, 1, 65, 700}, random_tree(37, 5), 16, P::kInterleaved, 13),
      make_case("kary-t15-h128-page64-fragmented", 128, {1000, 63}, kary(2, 3), 64, P::kFragmented, 14),
      make_case("random100-two-mask-words", 8, {33, 2}, random_tree(100, 9), 1, P::kReversed, 15),
      make_case("chain16-long-prefix", 8, {20000}, chain(16), 64, P::kShuffled, 16),
      // Not a scenario page size (YAML allows 1, 16, 64), but the kernel API takes any: the
      // production kernel's division path (powers of two use shifts).
      make_case("eagle-page24-not-power-of-two", 8, {1000, 47}, random_tree(8, 21), 24, P::kShuffled, 17),
  };
}

bool has_device() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

// The planner's completion of a schedule for these parameters on the current device (or on
// `target`, e.g. the sm_120 proxy's): the launcher takes only LaunchPlans, and a test that
// forces a schedule gets the rest decided exactly as production would.
vb::LaunchPlan complete_for(const vb::VerifyParams& p, const vb::SplitSchedule& schedule,
                            const vb::DeviceTarget* target = nullptr) {
  vb::PlanShape shape;
  shape.batch = p.batch;
  shape.tree_size = p.tree_size;
  shape.num_heads = p.num_heads;
  shape.page_kind = p.page_kind;
  shape.page_size = p.page_kind == vb::PageTableKind::kBlockTable ? p.page_size : 1;
  shape.pool_rows = p.pool_rows;
  shape.kv_dtype = p.kv_dtype;
  if (target != nullptr) return vb::complete_launch_plan(schedule, shape, *target);
  cudaError_t error = cudaSuccess;
  const vb::DeviceTarget current = vb::current_device_target(&error);
  REQUIRE(error == cudaSuccess);
  return vb::complete_launch_plan(schedule, shape, current);
}

}  // namespace

TEST_CASE("every GPU executor matches the CPU reference on random problems", "[gpu]") {
  REQUIRE(has_device());
  const vb::GpuInfo gpu = vb::query_gpu();
  REQUIRE(gpu.available);
  cudaError_t wgmma_error = cudaSuccess;
  const bool wgmma = vb::flash_verify_wgmma_supported(&wgmma_error);
  REQUIRE(wgmma_error == cudaSuccess);
  if (!wgmma) WARN("no wgmma path on this device (needs compute capability 9.0): only mma.sync is checked");
  for (const CaseSpec& spec : gpu_cases()) {
    INFO("case " << spec.name);
    const vb::Problem problem = vb::materialize(spec);
    const vb::VerifyParams host = vb::host_params(problem, PageTableKind::kTokenIndices, nullptr, nullptr);
    const vb::ReferenceOutput ref = vb::reference_verify(host);
    std::string error;
    auto device = vb::DeviceProblem::upload(problem, gpu, &error);
    REQUIRE(device != nullptr);
    const std::pair<GpuExecutorKind, PageTableKind> runs[] = {
        {GpuExecutorKind::kNaive, PageTableKind::kBlockTable},
        {GpuExecutorKind::kNaive, PageTableKind::kTokenIndices},
        {GpuExecutorKind::kProduction, PageTableKind::kTokenIndices},
        {GpuExecutorKind::kProduction, PageTableKind::kBlockTable},
        {GpuExecutorKind::kProductionMmaSync, PageTableKind::kTokenIndices},
        {GpuExecutorKind::kProductionMmaSync, PageTableKind::kBlockTable},
        {GpuExecutorKind::kProductionWgmma, PageTableKind::kTokenIndices},
        {GpuExecutorKind::kProductionWgmma, PageTableKind::kBlockTable},
        {GpuExecutorKind::kSglangAdapter, PageTableKind::kTokenIndices},
        {GpuExecutorKind::kProductionSm120Proxy, PageTableKind::kTokenIndices},
        {GpuExecutorKind::kProductionSm120Proxy, PageTableKind::kBlockTable},
        {GpuExecutorKind::kProductionSm120Emu, PageTableKind::kTokenIndices},
        {GpuExecutorKind::kSglangAdapterSm120Proxy, PageTableKind::kTokenIndices},
        {GpuExecutorKind::kProductionDenseTree, PageTableKind::kBlockTable},
        {GpuExecutorKind::kProductionDenseTreeSm120Proxy, PageTableKind::kBlockTable},
    };
    vb::GpuRunOutput proxy_out;  // production/sm120-proxy's, for its emulation's comparison
    for (const auto& [kind, page_kind] : runs) {
      // Both production paths run on every case (whatever the planner would pick), the
      // wgmma one only where the device has it (compute capability 9.0), the sm_120 proxy
      // only on a Hopper.
      if (kind == GpuExecutorKind::kProductionWgmma && !wgmma) continue;
      const bool proxy = kind == GpuExecutorKind::kProductionSm120Proxy ||
                         kind == GpuExecutorKind::kProductionSm120Emu ||
                         kind == GpuExecutorKind::kSglangAdapterSm120Proxy ||
                         kind == GpuExecutorKind::kProductionDenseTreeSm120Proxy;
      if (std::string why_not; proxy && !device->executor_applies(kind, &why_not)) {
        WARN(why_not);
        continue;
      }
      INFO("executor " << vb::executor_name(kind) << " page form " << static_cast<int>(page_kind));
      const vb::GpuRunOutput out = device->run(kind, page_kind);
      INFO("plan " << (out.launch ? out.launch->summary : std::string("-")) << " error " << out.error);
      REQUIRE(out.ok);
      // The launch record is the plan the executor ran, as fields (the naive kernel has none).
      if (kind == GpuExecutorKind::kNaive) {
        CHECK_FALSE(out.launch);
      } else {
        REQUIRE(out.launch);
        const PageTableKind read = vb::is_sglang_adapter(kind) ? PageTableKind::kTokenIndices : page_kind;
        CHECK(out.launch->page_table == vb::to_string(read));
        CHECK(out.launch->launch_blocks() > 0);
        CHECK(out.launch->summary.rfind(out.launch->instance, 0) == 0);
        if (kind == GpuExecutorKind::kProductionWgmma) CHECK(out.launch->engine == "wgmma");
        if (kind == GpuExecutorKind::kProductionMmaSync || proxy) CHECK(out.launch->engine == "mma.sync");
        CHECK((out.launch->blocks_per_sm > 0) == proxy);
      }
      vb::ExecutorResult result;
      vb::compare_with_reference(ref, out.o, out.lse, problem.tree_size, problem.num_heads,
                                 spec.tolerance, &result);
      INFO("O max abs " << result.o.max_abs_error << " LSE max abs " << result.lse.max_abs_error
                        << " worst (" << result.o.worst.request << "," << result.o.worst.node << ","
                        << result.o.worst.head << "," << result.o.worst.channel << ") "
                        << result.detail);
      CHECK(result.outcome == vb::Outcome::kPassed);
      CHECK(result.o.elements_checked == problem.query_rows() * vb::mla::kHeadDimV);
      // sm_120's emulation adds tensor work beside the math, never into it: the proxy's bits.
      if (kind == GpuExecutorKind::kProductionSm120Proxy && page_kind == PageTableKind::kTokenIndices) {
        proxy_out = out;
      }
      if (kind == GpuExecutorKind::kProductionSm120Emu) {
        REQUIRE(proxy_out.ok);
        CHECK(std::memcmp(out.o.data(), proxy_out.o.data(), out.o.size() * sizeof(float)) == 0);
        CHECK(std::memcmp(out.lse.data(), proxy_out.lse.data(), out.lse.size() * sizeof(float)) == 0);
      }
    }
  }
}

// Whether the device is a Hopper, where the sm_120 proxy and its emulation run; elsewhere a
// warning that `what`'s checks are skipped.
bool on_hopper(const char* what) {
  REQUIRE(has_device());
  const vb::GpuInfo gpu = vb::query_gpu();
  REQUIRE(gpu.available);
  if (gpu.cc_major == 9) return true;
  WARN(what << " runs on a Hopper only: its checks are skipped on this device");
  return false;
}

TEST_CASE("the sm_120 proxy launches sm_120's configuration, one block per SM", "[gpu]") {
  if (!on_hopper("the sm_120 proxy")) return;
  const vb::GpuInfo gpu = vb::query_gpu();
  using Limits = vb::Sm120Limits;
  // sm_120's resident blocks: the 2-stage variant (the deepest within 99 KB) and the
  // kernel's registers leave room for one 384-thread block in 100 KB and 64K registers.
  const int stages = vb::flash_verify_stages_for_smem_optin(Limits::kSmemPerBlockOptin);
  REQUIRE(stages == 2);
  REQUIRE(vb::flash_verify_smem_bytes(stages) <= Limits::kSmemPerBlockOptin);
  cudaError_t err = cudaSuccess;
  const int sm120_blocks = vb::flash_verify_sm120_blocks_per_sm(&err);
  REQUIRE(err == cudaSuccess);
  CHECK(sm120_blocks == 1);
  // Cases whose sm_120 plans differ: one long request (many splits, the combine's lanes for
  // 1536 threads per SM), a full batch (no split), decode rows (the token split), unequal
  // lengths (tile-balanced or length-aware), and H*T = 256 (8 row tiles).
  struct Shape {
    int batch, tree, heads, max_kv_len;
    std::vector<int> kv_lens;
  };
  const Shape shapes[] = {{1, 4, 8, 65540, {65540}},
                          {132, 4, 16, 4100, std::vector<int>(132, 4100)},
                          {8, 1, 16, 32769, std::vector<int>(8, 32769)},
                          {4, 16, 8, 20016, {20016, 1016, 116, 5016}},
                          {8, 16, 16, 8208, std::vector<int>(8, 8208)}};
  const vb::DeviceTarget target = vb::sm120_proxy_target(&err);
  REQUIRE(err == cudaSuccess);
  CHECK(target.num_sms == gpu.sm_count);  // only the SM count is the H200's
  CHECK(target.max_threads_per_sm == Limits::kThreadsPerSm);
  CHECK(target.smem_optin_bytes == Limits::kSmemPerBlockOptin);
  CHECK(target.main_blocks_per_sm == sm120_blocks);
  CHECK_FALSE(target.wgmma);
  // This device's shared memory alone allows no second block of the request, whatever the
  // registers.
  int smem_per_sm = 0, reserved = 0;
  REQUIRE(cudaDeviceGetAttribute(&smem_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, 0) == cudaSuccess);
  CHECK(smem_per_sm / (target.mma_smem_request_bytes + reserved) == sm120_blocks);
  for (const Shape& s : shapes) {
    INFO("B " << s.batch << " T " << s.tree << " H " << s.heads << " max kv " << s.max_kv_len);
    vb::PlanShape shape;
    shape.batch = s.batch;
    shape.tree_size = s.tree;
    shape.num_heads = s.heads;
    shape.max_kv_len = s.max_kv_len;
    shape.kv_lens = s.kv_lens.data();
    const vb::LaunchPlan proxy = vb::make_launch_plan(shape, target);
    INFO(vb::describe(proxy));
    REQUIRE(proxy.valid);
    CHECK(proxy.schedule.path == vb::FlashVerifyPath::kMmaSync);
    CHECK(proxy.pipeline_stages == stages);
    CHECK(proxy.smem_bytes == target.mma_smem_request_bytes);
    if (proxy.schedule.num_splits > 1) {
      const std::int64_t rows = static_cast<std::int64_t>(s.batch) * s.tree * s.heads;
      CHECK(proxy.combine_lanes == vb::flash_verify_combine_lanes(proxy.combine_splits, rows, gpu.sm_count,
                                                                  Limits::kThreadsPerSm,
                                                                  proxy.schedule.tile_balanced));
    }
    // This device's SMs hold as many of its blocks as sm_120's.
    CHECK(vb::flash_verify_plan_blocks_per_sm(proxy, &err) == sm120_blocks);
    REQUIRE(err == cudaSuccess);
  }
}

namespace {

// Raw device copies for tests that drive the launchers directly.
template <typename T>
T* to_device(const std::vector<T>& host, std::size_t min_count = 0) {
  const std::size_t count = std::max(host.size(), min_count);
  T* ptr = nullptr;
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&ptr), std::max<std::size_t>(count, 1) * sizeof(T)) == cudaSuccess);
  if (!host.empty()) {
    REQUIRE(cudaMemcpy(ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
  }
  return ptr;
}
template <typename T>
void overwrite(T* dst, const std::vector<T>& host) {
  REQUIRE(cudaMemcpy(dst, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
}
// The pool the problem's executors read (bf16, or the fp8 e4m3 bytes), in at least
// `min_bytes` of device memory.
void* pool_to_device(const vb::Problem& problem, std::size_t min_bytes) {
  void* ptr = nullptr;
  const std::size_t bytes = problem.executed_kv_pool_bytes();
  REQUIRE(cudaMalloc(&ptr, std::max<std::size_t>({bytes, min_bytes, 1})) == cudaSuccess);
  REQUIRE(cudaMemcpy(ptr, problem.executed_kv_pool(), bytes, cudaMemcpyHostToDevice) == cudaSuccess);
  return ptr;
}

struct DeviceOutputs {
  std::vector<vb::bf16_bits> o;
  std::vector<float> lse;
};

DeviceOutputs download(const vb::VerifyParams& p) {
  const std::size_t rows = static_cast<std::size_t>(p.batch) * p.tree_size * p.num_heads;
  DeviceOutputs out{std::vector<vb::bf16_bits>(rows * vb::mla::kHeadDimV), std::vector<float>(rows)};
  REQUIRE(cudaMemcpy(out.o.data(), p.o, out.o.size() * 2, cudaMemcpyDeviceToHost) == cudaSuccess);
  REQUIRE(cudaMemcpy(out.lse.data(), p.lse, out.lse.size() * 4, cudaMemcpyDeviceToHost) == cudaSuccess);
  return out;
}

void poison(const vb::VerifyParams& p) {
  const std::size_t rows = static_cast<std::size_t>(p.batch) * p.tree_size * p.num_heads;
  REQUIRE(cudaMemset(p.o, 0xFF, rows * vb::mla::kHeadDimV * 2) == cudaSuccess);
  REQUIRE(cudaMemset(p.lse, 0xFF, rows * 4) == cudaSuccess);
}

std::vector<float> widen(const std::vector<vb::bf16_bits>& bits) {
  std::vector<float> f(bits.size());
  for (std::size_t i = 0; i < bits.size(); ++i) f[i] = vb::bf16_to_float(bits[i]);
  return f;
}

// Device mirror of a problem's token-form inputs, sized for `capacity` so that a
// smaller problem can be copied into the same buffers (graph replay).
struct DeviceTokenProblem {
  vb::VerifyParams p;
  DeviceTokenProblem(const vb::Problem& problem, const vb::Problem& capacity) {
    p.batch = problem.batch;
    p.tree_size = problem.tree_size;
    p.num_heads = problem.num_heads;
    p.sm_scale = problem.sm_scale;
    p.q = to_device(problem.q);
    p.kv_pool = pool_to_device(problem, capacity.executed_kv_pool_bytes());
    p.kv_dtype = problem.kv_dtype();
    p.kv_scale = problem.kv_scale;
    p.pool_rows = capacity.pages.pool_rows();
    p.prefix_len = to_device(problem.prefix_len);
    p.page_kind = PageTableKind::kTokenIndices;
    p.kv_indptr = to_device(problem.pages.kv_indptr);
    p.kv_indices = to_device(problem.pages.kv_indices, capacity.pages.kv_indices.size());
    p.tree_mask = to_device(problem.tree_mask);
    p.mask_words = problem.mask_words;
    const std::size_t rows = problem.query_rows();
    REQUIRE(cudaMalloc(reinterpret_cast<void**>(&p.o), rows * vb::mla::kHeadDimV * 2) == cudaSuccess);
    REQUIRE(cudaMalloc(reinterpret_cast<void**>(&p.lse), rows * 4) == cudaSuccess);
  }
  void load(const vb::Problem& problem) {
    overwrite(const_cast<vb::bf16_bits*>(p.q), problem.q);
    REQUIRE(problem.kv_dtype() == p.kv_dtype);
    p.kv_scale = problem.kv_scale;
    REQUIRE(cudaMemcpy(const_cast<void*>(p.kv_pool), problem.executed_kv_pool(), problem.executed_kv_pool_bytes(),
                       cudaMemcpyHostToDevice) == cudaSuccess);
    overwrite(const_cast<std::int32_t*>(p.prefix_len), problem.prefix_len);
    overwrite(const_cast<std::int32_t*>(p.kv_indptr), problem.pages.kv_indptr);
    overwrite(const_cast<std::int64_t*>(p.kv_indices), problem.pages.kv_indices);
    overwrite(const_cast<std::uint64_t*>(p.tree_mask), problem.tree_mask);
  }
  ~DeviceTokenProblem() {
    cudaFree(const_cast<vb::bf16_bits*>(p.q));
    cudaFree(const_cast<void*>(p.kv_pool));
    cudaFree(const_cast<std::int32_t*>(p.prefix_len));
    cudaFree(const_cast<std::int32_t*>(p.kv_indptr));
    cudaFree(const_cast<std::int64_t*>(p.kv_indices));
    cudaFree(const_cast<std::uint64_t*>(p.tree_mask));
    cudaFree(p.o);
    cudaFree(p.lse);
  }
};

// A case materialized, its CPU reference (every row) and its token-form device copy: what
// most GPU tests check the production kernel against. Bind the members by name:
// `ReferencedProblem checked(spec); auto& [problem, ref, d] = checked;`.
struct ReferencedProblem {
  vb::Problem problem;
  vb::ReferenceOutput ref;
  DeviceTokenProblem d;
  explicit ReferencedProblem(const CaseSpec& spec)
      : problem(vb::materialize(spec)),
        ref(vb::reference_verify(vb::host_params(problem, PageTableKind::kTokenIndices, nullptr, nullptr))),
        d(problem, problem) {}
};

// Every element of d's outputs (after a synchronised launch) against the reference.
void check_outputs(const vb::Problem& problem, const vb::ReferenceOutput& ref, const CaseSpec& spec,
                   const DeviceTokenProblem& d) {
  const DeviceOutputs out = download(d.p);
  vb::ExecutorResult result;
  vb::compare_with_reference(ref, widen(out.o), out.lse, problem.tree_size, problem.num_heads, spec.tolerance, &result);
  INFO("O max abs " << result.o.max_abs_error << " LSE max abs " << result.lse.max_abs_error);
  CHECK(result.outcome == vb::Outcome::kPassed);
  CHECK(result.o.elements_checked == problem.query_rows() * vb::mla::kHeadDimV);
}

// The launcher ran exactly the plan it was given: the kernel the plan names, its grid, block
// and shared memory, and the combine's kernel, grid and block (none for one split).
void check_ran_plan(const vb::FlashVerifyLaunchRecord& record, const vb::LaunchPlan& plan,
                    vb::KvDtype kv_dtype = vb::KvDtype::kBf16) {
  INFO("plan " << vb::describe(plan));
  CHECK(record.main_kernel != nullptr);
  CHECK(record.main_kernel == vb::flash_verify_main_kernel_of(plan, false, kv_dtype));
  CHECK(record.main_grid.x == plan.main_grid.x);
  CHECK(record.main_grid.y == plan.main_grid.y);
  CHECK(record.main_grid.z == plan.main_grid.z);
  CHECK(record.main_threads == plan.main_threads);
  CHECK(record.main_smem_bytes == plan.smem_bytes);
  CHECK(record.combine_kernel == vb::flash_verify_combine_kernel_of(plan));
  CHECK((record.combine_kernel != nullptr) == (plan.schedule.num_splits > 1));
  if (plan.schedule.num_splits > 1) {
    CHECK(record.combine_grid.x == plan.combine_grid.x);
    CHECK(record.combine_grid.y == plan.combine_grid.y);
    CHECK(record.combine_block.x == plan.combine_block.x);
    CHECK(record.combine_block.y == plan.combine_block.y);
  }
}

// Runs one plan on poisoned outputs and a NaN-filled workspace and checks every element
// against the reference; returns the launch error without checking when it was refused.
cudaError_t run_plan_and_check(const vb::Problem& problem, const vb::ReferenceOutput& ref, const CaseSpec& spec,
                               DeviceTokenProblem& d, const vb::SplitSchedule& plan) {
  const std::size_t ws_bytes = vb::flash_verify_workspace_bytes(plan, problem.batch, problem.tree_size, problem.num_heads);
  void* ws = nullptr;
  if (ws_bytes) {
    REQUIRE(cudaMalloc(&ws, ws_bytes) == cudaSuccess);
    REQUIRE(cudaMemset(ws, 0xFF, ws_bytes) == cudaSuccess);  // splits nobody writes stay NaN
  }
  poison(d.p);
  const vb::LaunchPlan launch = complete_for(d.p, plan);
  vb::FlashVerifyLaunchRecord record;
  vb::FlashVerifyLaunchOptions options;
  options.record = &record;
  const cudaError_t launched = vb::flash_verify_launch(d.p, launch, ws, ws_bytes, nullptr, options);
  if (launched == cudaSuccess) {
    REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
    check_ran_plan(record, launch, d.p.kv_dtype);
    check_outputs(problem, ref, spec, d);
  }
  if (ws) cudaFree(ws);
  return launched;
}

// Prefix lengths of `count` requests from a 64-bit LCG seeded with `seed`: of `kinds` kinds,
// one empty, one below `short_max`, the others below `long_max`; the last request `last` long.
std::vector<int> unequal_prefixes(int count, std::uint64_t seed, int kinds, int short_max, int long_max, int last) {
  std::vector<int> prefixes;
  std::uint64_t x = seed;
  for (int r = 0; r < count; ++r) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const int kind = static_cast<int>((x >> 33) % kinds);
    prefixes.push_back(kind == 0   ? 0
                       : kind == 1 ? static_cast<int>((x >> 40) % short_max)
                                   : static_cast<int>((x >> 37) % long_max));
  }
  prefixes.back() = last;
  return prefixes;
}

// The production paths this device runs: mma.sync, and wgmma where it is supported.
std::vector<vb::FlashVerifyPath> device_paths() {
  cudaError_t error = cudaSuccess;
  std::vector<vb::FlashVerifyPath> paths = {vb::FlashVerifyPath::kMmaSync};
  const bool wgmma = vb::flash_verify_wgmma_supported(&error);
  REQUIRE(error == cudaSuccess);
  if (wgmma) paths.push_back(vb::FlashVerifyPath::kWgmma);
  return paths;
}

}  // namespace

TEST_CASE("production results agree across split counts, pipeline depths, paths and the reference", "[gpu]") {
  REQUIRE(has_device());
  const CaseSpec spec = make_case("splits", 16, {5000, 77, 0}, random_tree(24, 3), 1,
                                  vb::PagePlacement::kShuffled, 21);
  ReferencedProblem checked(spec);
  auto& [problem, ref, d] = checked;
  const int m_tiles = (problem.tree_size * problem.num_heads + vb::flash_verify_config().rows_per_tile - 1) /
                      vb::flash_verify_config().rows_per_tile;
  auto run_plan = [&](const vb::SplitSchedule& plan) { return run_plan_and_check(problem, ref, spec, d, plan); };
  // Split counts that reach every combine instance (1-16 loads per split lane over 8 lanes:
  // 1-8, 9-16, ..., 121-128 splits), and, with 128, splits left empty on both paths.
  const int max_splits = vb::flash_verify_config().max_splits;
  REQUIRE(max_splits == 128);
  const int split_counts[] = {1, 2, 7, 12, 20, 30, 40, 47, 60, 75, 90, 128};
  // One split more than the build takes is refused.
  CHECK(run_plan(vb::SplitSchedule{max_splits + 1, m_tiles}) == cudaErrorInvalidConfiguration);
  int variants[8];
  const int num_variants = vb::flash_verify_pipeline_variants(variants, 8);
  REQUIRE(num_variants >= 2);
  int device_optin = 0;
  REQUIRE(cudaDeviceGetAttribute(&device_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0) == cudaSuccess);
  for (int v = 0; v < num_variants; ++v) {
    for (int splits : split_counts) {
      INFO("stages " << variants[v] << " splits " << splits);
      const cudaError_t launched = run_plan(vb::SplitSchedule{splits, m_tiles, variants[v]});
      if (launched == cudaErrorInvalidConfiguration) {
        // A variant deeper than this device's shared memory allows is refused, not run.
        WARN("pipeline depth " << variants[v] << " does not fit this device (opt-in smem " << device_optin << " B)");
        continue;
      }
      REQUIRE(launched == cudaSuccess);
    }
  }
  // The combine with each split-lane count it accepts (1, 2, 4, 8 lanes, at most
  // max_splits / 8 splits per lane; the launcher's own choice above), and its refusal of the
  // others.
  for (int splits : split_counts) {
    if (splits == 1) continue;  // no combine
    for (int lanes : {1, 2, 4, 8, 3, 16}) {
      INFO("splits " << splits << " combine lanes " << lanes);
      vb::SplitSchedule plan{splits, m_tiles};
      plan.combine_split_lanes = lanes;
      const bool valid =
          (lanes == 1 || lanes == 2 || lanes == 4 || lanes == 8) && (splits + lanes - 1) / lanes <= max_splits / 8;
      CHECK(run_plan(plan) == (valid ? cudaSuccess : cudaErrorInvalidConfiguration));
    }
  }
  // An unknown depth is refused.
  const vb::SplitSchedule bogus{1, m_tiles, 3};
  CHECK(vb::flash_verify_launch(d.p, complete_for(d.p, bogus), nullptr, 0, nullptr) == cudaErrorInvalidConfiguration);

  // Length-aware plans: fixed split sizes (the request of 5024 tokens takes the most
  // splits, the short ones fewer), on both paths; and a split size too small for the
  // split count, which the kernels widen to an even division rather than drop tiles.
  auto check_sized = [&](vb::FlashVerifyPath path, int rows_per_tile, int tokens_per_tile, int tiles_per_split,
                         int splits) {
    INFO(vb::to_string(path) << " tiles_per_split " << tiles_per_split << " splits " << splits);
    vb::SplitSchedule plan;
    plan.path = path;
    plan.m_tiles = (problem.tree_size * problem.num_heads + rows_per_tile - 1) / rows_per_tile;
    plan.num_splits = splits > 0 ? splits : (5000 + 24 + tokens_per_tile - 1) / tokens_per_tile / tiles_per_split + 1;
    plan.tiles_per_split = tiles_per_split;
    REQUIRE(run_plan(plan) == cudaSuccess);
  };
  const vb::FlashVerifyConfigInfo mma_cfg = vb::flash_verify_path_config(vb::FlashVerifyPath::kMmaSync);
  for (int tps : {2, 7, 40}) check_sized(vb::FlashVerifyPath::kMmaSync, mma_cfg.rows_per_tile, mma_cfg.tokens_per_tile, tps, 0);
  check_sized(vb::FlashVerifyPath::kMmaSync, mma_cfg.rows_per_tile, mma_cfg.tokens_per_tile, 1, 2);

  // The wgmma path (H*T = 384 rows: six 64-row tiles) over the same split counts.
  cudaError_t wgmma_error = cudaSuccess;
  const bool wgmma = vb::flash_verify_wgmma_supported(&wgmma_error);
  REQUIRE(wgmma_error == cudaSuccess);
  const int wgmma_rows = vb::flash_verify_path_config(vb::FlashVerifyPath::kWgmma).rows_per_tile;
  const int wgmma_tiles = (problem.tree_size * problem.num_heads + wgmma_rows - 1) / wgmma_rows;
  if (!wgmma) {
    WARN("the wgmma path needs compute capability 9.0: its checks are skipped on this device");
    vb::SplitSchedule plan{1, wgmma_tiles, 0, vb::FlashVerifyPath::kWgmma};
    CHECK(vb::flash_verify_launch(d.p, complete_for(d.p, plan), nullptr, 0, nullptr) == cudaErrorInvalidConfiguration);
  }
  for (int splits : split_counts) {
    if (!wgmma) break;
    INFO("wgmma path, splits " << splits);
    REQUIRE(run_plan(vb::SplitSchedule{splits, wgmma_tiles, 0, vb::FlashVerifyPath::kWgmma}) == cudaSuccess);
  }
  if (wgmma) {
    const vb::FlashVerifyConfigInfo wg_cfg = vb::flash_verify_path_config(vb::FlashVerifyPath::kWgmma);
    for (int tps : {2, 7, 40}) check_sized(vb::FlashVerifyPath::kWgmma, wg_cfg.rows_per_tile, wg_cfg.tokens_per_tile, tps, 0);
    check_sized(vb::FlashVerifyPath::kWgmma, wg_cfg.rows_per_tile, wg_cfg.tokens_per_tile, 1, 2);
  }
}

TEST_CASE("the token split (H*T <= 16) agrees with the reference on both sides of its threshold", "[gpu]") {
  REQUIRE(has_device());
  const vb::FlashVerifyConfigInfo cfg = vb::flash_verify_path_config(vb::FlashVerifyPath::kMmaSync);
  const int min_tiles = cfg.token_split_min_tiles;
  if (min_tiles == 0) WARN("this build's planner never asks for the token split (VB_TOKEN_SPLIT=0); its kernel is tested all the same");
  const int threshold = std::max(min_tiles, 16);
  int variants[8];
  const int num_variants = vb::flash_verify_pipeline_variants(variants, 8);
  int device_optin = 0;
  REQUIRE(cudaDeviceGetAttribute(&device_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0) == cudaSuccess);
  // 8 heads x T = 2 (16 rows: one full row group), 16 heads x T = 1 (16 rows) and 8 heads x
  // T = 1 (8 real rows, 8 padding rows in the group that computes). One long request, one
  // mid-length and one empty prefix, so a single launch mixes splits above and below the
  // threshold (and splits with no tile at all).
  const std::vector<int> prefixes = {160 * cfg.tokens_per_tile + 7, 3 * threshold * cfg.tokens_per_tile / 2, 0};
  const CaseSpec specs[] = {
      make_case("token-split-h8-t2", 8, prefixes, chain(2), 1, vb::PagePlacement::kShuffled, 41),
      make_case("token-split-h16-t1", 16, prefixes, chain(1), 16, vb::PagePlacement::kInterleaved, 42),
      make_case("token-split-h8-t1", 8, prefixes, chain(1), 64, vb::PagePlacement::kFragmented, 43),
      // 3 heads x T = 5: 15 rows a request, 45 in all, so the combine's last block has row
      // slots past the end whatever its lanes (and the token split sees an odd row count).
      make_case("token-split-h3-t5", 3, prefixes, random_tree(5, 7), 16, vb::PagePlacement::kShuffled, 44),
  };
  for (const CaseSpec& spec : specs) {
    INFO("case " << spec.name << ", token split from " << threshold << " tiles per split");
    ReferencedProblem checked(spec);
    auto& [problem, ref, d] = checked;
    REQUIRE(problem.tree_size * problem.num_heads <= cfg.rows_per_tile / 2);
    const int longest_tiles = (prefixes[0] + problem.tree_size + cfg.tokens_per_tile - 1) / cfg.tokens_per_tile;
    // The planner asks for the token split on this shape once its splits are long enough.
    const int longest_kv = prefixes[0] + problem.tree_size;
    if (min_tiles > 0) {
      CHECK(vb::plan_split_schedule_for_path(vb::FlashVerifyPath::kMmaSync, problem.batch, problem.tree_size,
                                             problem.num_heads, longest_kv, 1, 1, nullptr)
                .token_split);
      CHECK_FALSE(vb::plan_split_schedule_for_path(vb::FlashVerifyPath::kMmaSync, problem.batch, problem.tree_size,
                                                   problem.num_heads, longest_kv, 1000, 1, nullptr)
                      .token_split);
    }
    // Even plans: one split (the whole request in one block, written without a combine),
    // then split counts whose longest request's splits are far above, just above, at, just
    // below and far below the threshold; each with and without the token-split instance.
    const std::vector<int> split_counts = {1, 4, longest_tiles / (threshold + 1), longest_tiles / threshold,
                                           longest_tiles / (threshold - 1) + 1, 40};
    for (int v = 0; v < num_variants; ++v) {
      INFO("stages " << variants[v]);
      if (vb::flash_verify_smem_bytes(variants[v]) > device_optin) continue;  // sm_120: 4 stages do not fit
      for (bool token_split : {true, false}) {
        INFO("token split " << token_split);
        for (int splits : split_counts) {
          INFO("even plan, splits " << splits);
          vb::SplitSchedule plan{splits, 1, variants[v]};
          plan.token_split = token_split;
          REQUIRE(run_plan_and_check(problem, ref, spec, d, plan) == cudaSuccess);
        }
        // Length-aware plans of exactly threshold - 1, threshold and threshold + 1 tiles: the
        // last split of each request is shorter, so these launches mix both kinds of block.
        for (int tps : {threshold - 1, threshold, threshold + 1}) {
          INFO("sized plan, tiles per split " << tps);
          vb::SplitSchedule plan{(longest_tiles + tps - 1) / tps, 1, variants[v], vb::FlashVerifyPath::kMmaSync};
          plan.tiles_per_split = tps;
          plan.token_split = token_split;
          REQUIRE(run_plan_and_check(problem, ref, spec, d, plan) == cudaSuccess);
        }
      }
    }
  }
}

// Length-aware plans over a batch of 70 requests of very unequal lengths (empty prefixes,
// requests that need no split, the longest request last), with grids just large enough and
// with spare splits, on both paths: every split that holds tiles is some block's, and the
// combine reads exactly those. A split computed twice or not at all leaves a poisoned or
// wrong row. (Kept from a measured-and-reverted variant that mapped blocks to splits by a
// scan over the batch, 32 requests a step: kernels/NOTES.md, v6.)
TEST_CASE("length-aware plans over batches of 70 unequal requests give every split one block", "[gpu]") {
  REQUIRE(has_device());
  // The longest request last: its splits are the grid's last working pairs.
  const std::vector<int> prefixes = unequal_prefixes(70, 0x9E3779B97F4A7C15ull, 5, 40, 2500, 6000);
  const CaseSpec spec = make_case("sized-70", 8, prefixes, random_tree(9, 4), 16, vb::PagePlacement::kShuffled, 31);
  ReferencedProblem checked(spec);
  auto& [problem, ref, d] = checked;
  for (vb::FlashVerifyPath path : device_paths()) {
    const vb::FlashVerifyConfigInfo cfg = vb::flash_verify_path_config(path);
    const int rows = problem.tree_size * problem.num_heads;
    const int longest_tiles = (6000 + problem.tree_size + cfg.tokens_per_tile - 1) / cfg.tokens_per_tile;
    for (int tps : {3, 16}) {
      for (int spare : {0, 5}) {
        INFO(vb::to_string(path) << " tiles per split " << tps << ", spare splits " << spare);
        vb::SplitSchedule plan;
        plan.path = path;
        plan.m_tiles = (rows + cfg.rows_per_tile - 1) / cfg.rows_per_tile;
        plan.num_splits = (longest_tiles + tps - 1) / tps + spare;
        plan.tiles_per_split = tps;
        REQUIRE(run_plan_and_check(problem, ref, spec, d, plan) == cudaSuccess);
      }
    }
  }
}

// The tile-balanced schedule (SplitSchedule::tile_balanced, mma.sync): blocks walk equal
// shares of the batch's tiles laid end to end, finishing one request and going on into the
// next without draining the KV ring. Batches of 40 unequal requests (empty prefixes, requests
// shorter than a share, one long request last), with 72 query rows (three row tiles, the
// last one's second group empty) and with 8 (decode: one group); block counts from 2 to 200;
// the combine sized for every slot and for one (the other slots then merged serially, as a
// replay with longer lengths would need); every pipeline depth that fits. A tile computed
// twice or not at all, or a partial in the wrong slot, leaves a poisoned or wrong row.
TEST_CASE("tile-balanced plans put every tile of unequal requests in exactly one block", "[gpu]") {
  REQUIRE(has_device());
  const std::vector<int> prefixes = unequal_prefixes(40, 0xD1B54A32D192ED03ull, 4, 64, 3000, 9000);
  int variants[8];
  const int num_variants = vb::flash_verify_pipeline_variants(variants, 8);
  int device_optin = 0;
  REQUIRE(cudaDeviceGetAttribute(&device_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0) == cudaSuccess);
  for (const auto& [heads, nodes] : {std::pair<int, int>{8, 9}, std::pair<int, int>{8, 1}}) {
    const CaseSpec spec =
        make_case("balanced-40", heads, prefixes, random_tree(nodes, 5), 16, vb::PagePlacement::kInterleaved, 37);
    ReferencedProblem checked(spec);
    auto& [problem, ref, d] = checked;
    const int rows = problem.tree_size * problem.num_heads;
    for (vb::FlashVerifyPath path : device_paths()) {
      const bool wgmma = path == vb::FlashVerifyPath::kWgmma;
      const vb::FlashVerifyConfigInfo cfg = vb::flash_verify_path_config(path);
      // The wgmma path has one depth (0: its own); mma.sync every depth that fits.
      for (int v = 0; v < (wgmma ? 1 : num_variants); ++v) {
        const int stages = wgmma ? 0 : variants[v];
        if (!wgmma && vb::flash_verify_smem_bytes(stages) > device_optin) continue;
        for (int blocks : {2, 7, 33, 128, 200}) {  // 200: past kMaxSplits, two waves
          for (bool all_slots : {true, false}) {
            INFO(vb::to_string(path) << ", rows " << rows << " stages " << stages << " blocks " << blocks
                                     << " combine holds " << (all_slots ? "every slot" : "one slot"));
            vb::SplitSchedule plan{blocks, (rows + cfg.rows_per_tile - 1) / cfg.rows_per_tile, stages, path};
            plan.tile_balanced = true;
            plan.balanced_slots = all_slots ? blocks : 1;
            REQUIRE(run_plan_and_check(problem, ref, spec, d, plan) == cudaSuccess);
          }
        }
      }
      // The planner's own choice for this batch on this path (the launcher picks the lanes).
      // mma.sync: tile-balanced for the 72-row batch (its fixed-size splits model more than
      // 15 % dearer), fixed-size splits for the 8-row one.
      std::vector<int> lens;
      for (int pfx : prefixes) lens.push_back(pfx + problem.tree_size);
      const vb::SplitSchedule planned = vb::plan_split_schedule_for_path(
          path, problem.batch, problem.tree_size, problem.num_heads, 9000 + problem.tree_size, 132, 1, lens.data());
      INFO(vb::to_string(path) << " planned: splits " << planned.num_splits << " balanced " << planned.tile_balanced
                               << " slots " << planned.balanced_slots);
      if (!wgmma) CHECK(planned.tile_balanced == (rows == 72));
      REQUIRE(run_plan_and_check(problem, ref, spec, d, planned) == cudaSuccess);
    }
  }
  // Refused: the tile-balanced schedule with the token split, with a split size, with a
  // combine that holds no slot or more slots than blocks, or with more than 1024 blocks.
  const CaseSpec spec = make_case("balanced-refused", 8, {100, 3000}, random_tree(4, 6), 16, vb::PagePlacement::kShuffled, 38);
  const vb::Problem problem = vb::materialize(spec);
  DeviceTokenProblem d(problem, problem);
  auto refused = [&](vb::SplitSchedule plan) {
    const std::size_t bytes = vb::flash_verify_workspace_bytes(plan, problem.batch, problem.tree_size, problem.num_heads);
    void* ws = nullptr;
    REQUIRE(cudaMalloc(&ws, bytes) == cudaSuccess);
    const cudaError_t err = vb::flash_verify_launch(d.p, complete_for(d.p, plan), ws, bytes, nullptr);
    cudaFree(ws);
    return err == cudaErrorInvalidConfiguration;
  };
  vb::SplitSchedule ok{8, 1};
  ok.tile_balanced = true;
  ok.balanced_slots = 2;
  vb::SplitSchedule bad = ok;
  bad.token_split = true;
  CHECK(refused(bad));
  bad = ok;
  bad.tiles_per_split = 4;
  CHECK(refused(bad));
  bad = ok;
  bad.balanced_slots = 0;
  CHECK(refused(bad));
  bad = ok;
  bad.balanced_slots = 9;
  CHECK(refused(bad));
  bad = ok;
  bad.num_splits = vb::kMaxBalancedBlocks + 1;  // past the grid bound the launcher checks
  CHECK(refused(bad));
}

// The phase timeline (verifybench profile --timeline): a default build records nothing and
// says so; a -DVB_DEBUG_TIMELINE=1 build records every block of both kernels once, with its
// stamps in order, and no combine block passes its grid wait before every main block ended.
TEST_CASE("the phase timeline records every block in timeline builds and nothing otherwise", "[gpu]") {
  REQUIRE(has_device());
  vb::FlashVerifyTimeline timeline;
  if (!vb::flash_verify_timeline_built()) {
    CHECK(vb::flash_verify_timeline_clear() == cudaErrorNotSupported);
    CHECK(vb::flash_verify_timeline_read(&timeline) == cudaErrorNotSupported);
    CHECK(timeline.main.empty());
    return;
  }
  const CaseSpec spec = make_case("timeline", 16, {5000, 77, 0}, random_tree(24, 3), 1,
                                  vb::PagePlacement::kShuffled, 22);
  ReferencedProblem checked(spec);
  auto& [problem, ref, d] = checked;
  for (vb::FlashVerifyPath path : device_paths()) {
    INFO("path " << vb::to_string(path));
    const int rows = problem.tree_size * problem.num_heads;
    const int rows_per_tile = vb::flash_verify_path_config(path).rows_per_tile;
    vb::SplitSchedule plan{5, (rows + rows_per_tile - 1) / rows_per_tile, 0, path};
    REQUIRE(vb::flash_verify_timeline_clear() == cudaSuccess);
    REQUIRE(run_plan_and_check(problem, ref, spec, d, plan) == cudaSuccess);
    REQUIRE(vb::flash_verify_timeline_read(&timeline) == cudaSuccess);
    // Every block of the grid (empty splits too: they stamp their entry), each once, in order.
    const std::size_t grid = static_cast<std::size_t>(plan.m_tiles) * plan.num_splits * problem.batch;
    REQUIRE(timeline.main.size() == grid);
    std::uint64_t last_main_end = 0;
    for (std::size_t i = 0; i < grid; ++i) {
      const vb::FlashVerifyTimelineBlock& b = timeline.main[i];
      INFO("main block " << i << " tiles " << b.tiles);
      CHECK(b.block == static_cast<int>(i));
      if (b.tiles <= 0) continue;
      const auto* t = b.t_ns;
      CHECK(t[vb::kTimelineEntry] <= t[vb::kTimelineWorkKnown]);
      CHECK(t[vb::kTimelineWorkKnown] <= t[vb::kTimelineFirstIssue]);
      CHECK(t[vb::kTimelineEntry] <= t[vb::kTimelineQReady]);
      // (No order between the producer's "issued" and the consumer's "landed": the stamp
      // follows the copy instruction, whose bytes may land before the stamp is taken.)
      CHECK(t[vb::kTimelineWorkKnown] <= t[vb::kTimelineFirstTile]);
      CHECK(t[vb::kTimelineWorkKnown] <= t[vb::kTimelineTableIn]);
      CHECK(t[vb::kTimelineTableIn] <= t[vb::kTimelineFirstIssue]);  // the same producer thread
      CHECK(t[vb::kTimelineFirstTile] <= t[vb::kTimelineTilesDone]);
      CHECK(t[vb::kTimelineTilesDone] <= t[vb::kTimelineEnd]);
      // The SM's cycle counter moved over the block's lifetime at a clock an SM can run at.
      REQUIRE(b.clock_end > b.clock_entry);
      const double mhz = vb::clock_mhz(b.clock_entry, b.clock_end, t[vb::kTimelineEntry], t[vb::kTimelineEnd]);
      CHECK(mhz > 100.0);
      CHECK(mhz < 4000.0);
      last_main_end = std::max(last_main_end, t[vb::kTimelineEnd]);
    }
    REQUIRE_FALSE(timeline.combine.empty());
    for (const vb::FlashVerifyTimelineBlock& b : timeline.combine) {
      INFO("combine block " << b.block);
      CHECK(b.t_ns[vb::kTimelineCombineEntry] <= b.t_ns[vb::kTimelineCombineGridDone]);
      CHECK(b.t_ns[vb::kTimelineCombineGridDone] >= last_main_end);
      CHECK(b.t_ns[vb::kTimelineCombineGridDone] <= b.t_ns[vb::kTimelineCombineLoadsIssued]);
      CHECK(b.t_ns[vb::kTimelineCombineLoadsIssued] <= b.t_ns[vb::kTimelineCombineMerged]);
      CHECK(b.t_ns[vb::kTimelineCombineMerged] <= b.t_ns[vb::kTimelineCombineEnd]);
    }
  }
}

TEST_CASE("launchers refuse inconsistent parameters instead of running", "[gpu]") {
  REQUIRE(has_device());
  const CaseSpec spec = make_case("bad-params", 8, {10}, chain(3), 1, vb::PagePlacement::kContiguous, 31);
  const vb::Problem problem = vb::materialize(spec);
  DeviceTokenProblem d(problem, problem);
  const vb::SplitSchedule plan = vb::plan_split_schedule(1, 3, 8, 13, 132, 1);
  vb::VerifyParams bad = d.p;
  bad.mask_words = 2;  // T = 3 needs exactly one word
  CHECK(vb::flash_verify_launch(bad, complete_for(bad, plan), nullptr, 0, nullptr) == cudaErrorInvalidValue);
  // The softmax takes row maxima before scaling: the scale must be positive and finite.
  for (const float scale : {0.f, -0.1f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
    vb::VerifyParams bad_scale = d.p;
    bad_scale.sm_scale = scale;
    CHECK(vb::flash_verify_launch(bad_scale, complete_for(bad_scale, plan), nullptr, 0, nullptr) == cudaErrorInvalidValue);
  }
  vb::SplitSchedule wrong_tiles = plan;
  wrong_tiles.m_tiles += 1;
  CHECK(vb::flash_verify_launch(d.p, complete_for(d.p, wrong_tiles), nullptr, 0, nullptr) == cudaErrorInvalidConfiguration);
  vb::SplitSchedule split_plan{4, plan.m_tiles};
  CHECK(vb::flash_verify_launch(d.p, complete_for(d.p, split_plan), nullptr, 0, nullptr) == cudaErrorInvalidValue);  // no workspace
  // More query rows than 32-bit row numbers hold (checked before anything is read).
  // Each request's rows and the plan are consistent (3 x 2^15 rows in 32-row tiles), so
  // only the total, 65535 requests of them (6.4e9 rows), can refuse it.
  vb::VerifyParams huge = d.p;
  huge.batch = 65535;
  huge.num_heads = 1 << 15;
  const vb::SplitSchedule huge_plan{1, 3 * (1 << 15) / vb::flash_verify_config().rows_per_tile};
  CHECK(vb::flash_verify_launch(huge, complete_for(huge, huge_plan), nullptr, 0, nullptr) == cudaErrorInvalidConfiguration);
  // The token split needs H*T <= 16 (here 24) and the mma.sync path.
  vb::SplitSchedule split_rows = plan;
  split_rows.token_split = true;
  CHECK(vb::flash_verify_launch(d.p, complete_for(d.p, split_rows), nullptr, 0, nullptr) == cudaErrorInvalidConfiguration);
  vb::SplitSchedule split_wgmma{1, 1, 0, vb::FlashVerifyPath::kWgmma};
  split_wgmma.token_split = true;
  CHECK(vb::flash_verify_launch(d.p, complete_for(d.p, split_wgmma), nullptr, 0, nullptr) == cudaErrorInvalidConfiguration);
}

TEST_CASE("a captured CUDA graph replays correctly with other prefix lengths and trees", "[gpu]") {
  REQUIRE(has_device());
  const vb::GpuInfo gpu = vb::query_gpu();
  // The graph is captured for the largest shape; later replays read other lengths, page
  // tables and masks from the same device buffers.
  const CaseSpec big = make_case("graph-max", 16, {3000, 2500}, random_tree(16, 1), 1, vb::PagePlacement::kShuffled, 41);
  const CaseSpec small_a = make_case("graph-a", 16, {1200, 7}, random_tree(16, 2), 1, vb::PagePlacement::kShuffled, 42);
  const CaseSpec small_b = make_case("graph-b", 16, {0, 2999}, random_tree(16, 3), 1, vb::PagePlacement::kInterleaved, 43);
  const vb::Problem max_problem = vb::materialize(big);
  DeviceTokenProblem d(max_problem, max_problem);

  cudaError_t occ = cudaSuccess;
  const int blocks_per_sm = vb::flash_verify_blocks_per_sm(&occ);
  REQUIRE(occ == cudaSuccess);
  // Two plans: the even split of the longest length, and one with fixed-size splits of 7
  // tiles (as a length-aware plan makes: the 3016-token request takes 14 splits, the
  // 2516-token one 12), both replayed with other lengths.
  const vb::SplitSchedule even_plan = vb::plan_split_schedule(2, 16, 16, 3000 + 16, gpu.sm_count, blocks_per_sm);
  vb::SplitSchedule sized_plan = even_plan;
  sized_plan.tiles_per_split = 7;
  sized_plan.num_splits = (3016 + vb::flash_verify_config().tokens_per_tile - 1) / vb::flash_verify_config().tokens_per_tile / 7 + 1;
  // And a tile-balanced plan of 13 blocks whose combine holds 2 slots: the replays' lengths
  // give a request more, merged serially.
  vb::SplitSchedule balanced_plan{13, even_plan.m_tiles};
  balanced_plan.tile_balanced = true;
  balanced_plan.balanced_slots = 2;
  std::vector<vb::SplitSchedule> plans = {even_plan, sized_plan, balanced_plan};
  cudaError_t wgmma_error = cudaSuccess;
  if (vb::flash_verify_wgmma_supported(&wgmma_error)) {  // the same on the wgmma path (256 rows: 4 row tiles)
    vb::SplitSchedule wgmma_balanced{13, 256 / vb::flash_verify_path_config(vb::FlashVerifyPath::kWgmma).rows_per_tile,
                                     0, vb::FlashVerifyPath::kWgmma};
    wgmma_balanced.tile_balanced = true;
    wgmma_balanced.balanced_slots = 2;
    plans.push_back(wgmma_balanced);
  }
  REQUIRE(wgmma_error == cudaSuccess);
  for (const vb::SplitSchedule& plan : plans) {
    INFO(vb::to_string(plan.path) << " plan splits " << plan.num_splits << " tiles_per_split " << plan.tiles_per_split
                                  << " balanced " << plan.tile_balanced);
    REQUIRE(plan.num_splits > 1);  // the replay must exercise the combine too
    const std::size_t ws_bytes = vb::flash_verify_workspace_bytes(plan, 2, 16, 16);
    void* ws = nullptr;
    REQUIRE(cudaMalloc(&ws, ws_bytes) == cudaSuccess);
    cudaStream_t stream;
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    cudaGraph_t graph;
    REQUIRE(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) == cudaSuccess);
    REQUIRE(vb::flash_verify_launch(d.p, complete_for(d.p, plan), ws, ws_bytes, stream) == cudaSuccess);
    REQUIRE(cudaStreamEndCapture(stream, &graph) == cudaSuccess);
    cudaGraphExec_t exec;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);

    for (const CaseSpec* spec : {&small_a, &small_b, &big}) {
      INFO("replay " << spec->name);
      const vb::Problem problem = vb::materialize(*spec);
      REQUIRE(problem.kv_pool.size() <= max_problem.kv_pool.size());
      REQUIRE(problem.pages.kv_indices.size() <= max_problem.pages.kv_indices.size());
      d.load(problem);

      poison(d.p);
      REQUIRE(cudaGraphLaunch(exec, stream) == cudaSuccess);
      REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
      const DeviceOutputs replayed = download(d.p);

      poison(d.p);
      REQUIRE(vb::flash_verify_launch(d.p, complete_for(d.p, plan), ws, ws_bytes, stream) == cudaSuccess);
      REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
      const DeviceOutputs direct = download(d.p);

      CHECK(std::memcmp(replayed.o.data(), direct.o.data(), direct.o.size() * 2) == 0);
      CHECK(std::memcmp(replayed.lse.data(), direct.lse.data(), direct.lse.size() * 4) == 0);

      const vb::ReferenceOutput ref =
          vb::reference_verify(vb::host_params(problem, PageTableKind::kTokenIndices, nullptr, nullptr));
      vb::ExecutorResult result;
      vb::compare_with_reference(ref, widen(replayed.o), replayed.lse, problem.tree_size, problem.num_heads,
                                 spec->tolerance, &result);
      INFO("O max abs " << result.o.max_abs_error);
      CHECK(result.outcome == vb::Outcome::kPassed);
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(stream);
    cudaFree(ws);
    d.load(max_problem);
  }
}

TEST_CASE("the SGLang adapter gives bit-identical output to the native interface", "[gpu]") {
  REQUIRE(has_device());
  const vb::GpuInfo gpu = vb::query_gpu();
  for (const CaseSpec& spec : gpu_cases()) {
    INFO("case " << spec.name);
    const vb::Problem problem = vb::materialize(spec);
    std::string error;
    auto device = vb::DeviceProblem::upload(problem, gpu, &error);
    REQUIRE(device != nullptr);
    const vb::GpuRunOutput native = device->run(GpuExecutorKind::kProduction, PageTableKind::kTokenIndices);
    const vb::GpuRunOutput adapted = device->run(GpuExecutorKind::kSglangAdapter, PageTableKind::kTokenIndices);
    REQUIRE(native.ok);
    REQUIRE(adapted.ok);
    CHECK(std::memcmp(native.o.data(), adapted.o.data(), native.o.size() * 4) == 0);
    CHECK(std::memcmp(native.lse.data(), adapted.lse.data(), native.lse.size() * 4) == 0);
  }
}

namespace {

// The production plans an overlapped launch is checked with on this device: one split, fixed
// splits (the combine), tile-balanced blocks, on each path it runs.
std::vector<vb::SplitSchedule> overlap_plans(const vb::Problem& problem) {
  std::vector<vb::SplitSchedule> plans;
  const int rows = problem.tree_size * problem.num_heads;
  for (vb::FlashVerifyPath path : device_paths()) {
    const int m_tiles = (rows + vb::flash_verify_path_config(path).rows_per_tile - 1) /
                        vb::flash_verify_path_config(path).rows_per_tile;
    plans.push_back(vb::SplitSchedule{1, m_tiles, 0, path});
    plans.push_back(vb::SplitSchedule{12, m_tiles, 0, path});
    vb::SplitSchedule balanced{7, m_tiles, 0, path};
    balanced.tile_balanced = true;
    balanced.balanced_slots = 7;
    plans.push_back(balanced);
  }
  return plans;
}

std::string describe(const vb::SplitSchedule& plan) {
  return std::string(vb::to_string(plan.path)) + " splits " + std::to_string(plan.num_splits) +
         (plan.tile_balanced ? " tile-balanced" : "");
}

// What the overlap tests rely on: a kernel launched over the delayed copy starts during its
// hold, and its griddepcontrol.wait returns only after the copy. The first round loads both
// kernels (lazy module loading: a kernel's first launch did not overlap on the H200).
void require_launch_overlaps_delayed_copy(std::uint64_t* stamps, std::uint64_t hold_ns, cudaStream_t stream) {
  for (int round = 0; round < 2; ++round) {
    REQUIRE(cudaMemset(stamps, 0, 3 * sizeof(std::uint64_t)) == cudaSuccess);
    REQUIRE(vb::test::launch_delayed_copy(stamps, stamps, 0, hold_ns, stamps, stream) == cudaSuccess);
    REQUIRE(vb::test::launch_overlapped_stamp(stamps, stream) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
  }
  std::uint64_t t[3] = {};
  REQUIRE(cudaMemcpy(t, stamps, sizeof(t), cudaMemcpyDeviceToHost) == cudaSuccess);
  INFO("copy began " << t[0] << " ns, dependent entered " << t[1] << ", its wait returned " << t[2]);
  REQUIRE(t[1] < t[0]);   // started during the hold
  REQUIRE(t[2] >= t[0]);  // waited for the copy's kernel
}

// A fresh workspace for a plan, NaN-filled (splits nobody writes stay NaN); nullptr if none.
void* nan_workspace(const vb::SplitSchedule& plan, const vb::Problem& problem, std::size_t* bytes) {
  *bytes = vb::flash_verify_workspace_bytes(plan, problem.batch, problem.tree_size, problem.num_heads);
  void* ws = nullptr;
  if (*bytes) {
    REQUIRE(cudaMalloc(&ws, *bytes) == cudaSuccess);
    REQUIRE(cudaMemset(ws, 0xFF, *bytes) == cudaSuccess);
  }
  return ws;
}

// The stream, the stamps and the hold of the delayed-copy tests, with the premise they rely
// on checked at construction.
struct DelayedCopyRig {
  static constexpr std::uint64_t kHoldNs = 200000;  // 200 µs: far longer than any launch here takes to its first read
  cudaStream_t stream = nullptr;
  std::uint64_t* stamps = nullptr;
  DelayedCopyRig() {
    REQUIRE(cudaMalloc(reinterpret_cast<void**>(&stamps), 3 * sizeof(std::uint64_t)) == cudaSuccess);
    REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
    require_launch_overlaps_delayed_copy(stamps, kHoldNs, stream);
  }
  ~DelayedCopyRig() {
    cudaStreamDestroy(stream);
    cudaFree(stamps);
  }
};

// For each overlap plan: a launch with `options` on complete inputs (it loads the plan's
// kernel instances, which then start early, and is checked), then the same launch over a
// kernel that holds the rig's hold before it copies `bytes` from `source` to `target`, whose
// bytes are 0xFF until then; its output checked too. p: d.p with the pointers the copy writes.
void check_plans_over_delayed_copy(const ReferencedProblem& checked, const CaseSpec& spec, const vb::VerifyParams& p,
                                   void* target, const void* source, std::size_t bytes,
                                   const vb::FlashVerifyLaunchOptions& options, const DelayedCopyRig& rig) {
  const cudaStream_t stream = rig.stream;
  for (const vb::SplitSchedule& plan : overlap_plans(checked.problem)) {
    INFO(describe(plan));
    std::size_t ws_bytes = 0;
    void* ws = nan_workspace(plan, checked.problem, &ws_bytes);
    REQUIRE(cudaMemcpy(target, source, bytes, cudaMemcpyDeviceToDevice) == cudaSuccess);
    poison(p);
    REQUIRE(vb::flash_verify_launch(p, complete_for(p, plan), ws, ws_bytes, stream, options) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    check_outputs(checked.problem, checked.ref, spec, checked.d);
    poison(p);
    REQUIRE(cudaMemset(target, 0xFF, bytes) == cudaSuccess);
    REQUIRE(vb::test::launch_delayed_copy(target, source, bytes, DelayedCopyRig::kHoldNs, rig.stamps, stream) ==
            cudaSuccess);
    REQUIRE(vb::flash_verify_launch(p, complete_for(p, plan), ws, ws_bytes, stream, options) == cudaSuccess);
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    check_outputs(checked.problem, checked.ref, spec, checked.d);
    if (ws) cudaFree(ws);
  }
}

}  // namespace

TEST_CASE("launched over a kernel still writing its Q, the production kernel waits for that kernel", "[gpu]") {
  REQUIRE(has_device());
  const CaseSpec spec = make_case("overlap", 8, {3000, 40, 9000}, random_tree(9, 4), 16, vb::PagePlacement::kShuffled, 41);
  ReferencedProblem checked(spec);
  auto& [problem, ref, d] = checked;
  const std::size_t q_bytes = problem.q.size() * sizeof(vb::bf16_bits);
  void* q_source = nullptr;
  REQUIRE(cudaMalloc(&q_source, q_bytes) == cudaSuccess);
  REQUIRE(cudaMemcpy(q_source, d.p.q, q_bytes, cudaMemcpyDeviceToDevice) == cudaSuccess);
  const DelayedCopyRig rig;

  // Q is NaN until the delayed copy writes it: a block that read it early would say so.
  vb::FlashVerifyLaunchOptions overlapped;
  overlapped.overlap_previous_kernel = true;
  check_plans_over_delayed_copy(checked, spec, d.p, const_cast<vb::bf16_bits*>(d.p.q), q_source, q_bytes, overlapped,
                                rig);
  cudaFree(q_source);
}

TEST_CASE("over a kernel still writing the mask and the lengths, the production kernel waits before the mask",
          "[gpu]") {
  REQUIRE(has_device());
  // previous_kernel_writes_only_mask_and_lengths (the SGLang adapter's launch): the main
  // kernel takes the lengths from kv_indptr and reads the page table, Q and KV before its
  // wait, the mask only after it. Here one delayed copy writes prefix_len and the mask.
  const CaseSpec spec = make_case("mask-wait", 8, {3000, 40, 9000}, random_tree(9, 4), 16, vb::PagePlacement::kShuffled, 45);
  ReferencedProblem checked(spec);
  auto& [problem, ref, d] = checked;
  const std::size_t lengths_bytes = 256;  // prefix_len, then the mask 256 bytes in
  REQUIRE(problem.prefix_len.size() * sizeof(std::int32_t) <= lengths_bytes);
  const std::size_t mask_bytes = problem.tree_mask.size() * sizeof(std::uint64_t);
  const std::size_t bytes = lengths_bytes + mask_bytes;
  unsigned char* written = nullptr;  // what the delayed copy writes
  unsigned char* source = nullptr;
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&written), bytes) == cudaSuccess);
  REQUIRE(cudaMalloc(reinterpret_cast<void**>(&source), bytes) == cudaSuccess);
  REQUIRE(cudaMemcpy(source, problem.prefix_len.data(), problem.prefix_len.size() * sizeof(std::int32_t),
                     cudaMemcpyHostToDevice) == cudaSuccess);
  REQUIRE(cudaMemcpy(source + lengths_bytes, problem.tree_mask.data(), mask_bytes, cudaMemcpyHostToDevice) ==
          cudaSuccess);
  vb::VerifyParams p = d.p;
  p.prefix_len = reinterpret_cast<const std::int32_t*>(written);
  p.tree_mask = reinterpret_cast<const std::uint64_t*>(written + lengths_bytes);
  const DelayedCopyRig rig;

  // Until the delayed copy: every prefix length -1 (a kernel that read one would run other
  // tiles) and every node seeing every node (the tree has siblings). The first launch of
  // each plan, on complete inputs, loads the over-writer instances: with an ordinary launch
  // there (the native instances) their first launch did not start early (lazy loading), and
  // the mutation without the wait failed only the plans whose instance had run before (H200,
  // mask-wait call 3).
  vb::FlashVerifyLaunchOptions over_writer;
  over_writer.overlap_previous_kernel = true;
  over_writer.previous_kernel_writes_only_mask_and_lengths = true;
  check_plans_over_delayed_copy(checked, spec, p, written, source, bytes, over_writer, rig);
  cudaFree(source);
  cudaFree(written);
}

TEST_CASE("two launches back to back over one workspace, the second over the first, both correct", "[gpu]") {
  REQUIRE(has_device());
  // Same shapes, other data: the second launch's partials differ from the first's, so a main
  // kernel that wrote them while the first launch's combine still read would show.
  const CaseSpec spec_a = make_case("overlap-a", 8, {3000, 40, 9000}, random_tree(9, 4), 16, vb::PagePlacement::kShuffled, 43);
  CaseSpec spec_b = spec_a;
  spec_b.name = "overlap-b";
  spec_b.seed = 44;
  ReferencedProblem a(spec_a), b(spec_b);
  cudaStream_t stream = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) == cudaSuccess);
  vb::FlashVerifyLaunchOptions overlapped;
  overlapped.overlap_previous_kernel = true;
  for (const vb::SplitSchedule& plan : overlap_plans(a.problem)) {
    INFO(describe(plan));
    std::size_t ws_bytes = 0;
    void* ws = nan_workspace(plan, a.problem, &ws_bytes);
    poison(a.d.p);
    poison(b.d.p);
    // Four in a row: a, b over a, a over b, b over a; the last two of each are checked.
    for (int round = 0; round < 2; ++round) {
      REQUIRE(vb::flash_verify_launch(a.d.p, complete_for(a.d.p, plan), ws, ws_bytes, stream, round == 0 ? vb::FlashVerifyLaunchOptions{}
                                                                                   : overlapped) == cudaSuccess);
      REQUIRE(vb::flash_verify_launch(b.d.p, complete_for(b.d.p, plan), ws, ws_bytes, stream, overlapped) == cudaSuccess);
    }
    REQUIRE(cudaStreamSynchronize(stream) == cudaSuccess);
    check_outputs(a.problem, a.ref, spec_a, a.d);
    check_outputs(b.problem, b.ref, spec_b, b.d);
    if (ws) cudaFree(ws);
  }
  cudaStreamDestroy(stream);
}

// ---- the fp8 e4m3 KV cache (issue 45, phase 1): naive and the mma.sync engine read the pool
// widened to bf16, with the scale folded into sm_scale and O.

namespace {

CaseSpec fp8_case(CaseSpec spec, double scale, bool amax = false) {
  spec.name += amax ? "-fp8-amax" : "-fp8";
  spec.kv_cache.dtype = vb::KvDtype::kFp8E4m3;
  spec.kv_cache.scale = scale;
  spec.kv_cache.scale_from_amax = amax;
  return spec;
}

CaseSpec with_data(CaseSpec spec, vb::DataDist dist) {
  spec.data.dist = dist;
  spec.tolerance = vb::default_tolerance(spec.data);
  return spec;
}

// Cases whose answer a wrong scale changes: non-unit scales, scores steered by the rope
// channels (rising, sink: a scale missing from the scores moves the softmax), saturated
// outliers, NaN in the pool, the token split's and the tile-balanced schedule's shapes.
std::vector<CaseSpec> fp8_cases() {
  using P = vb::PagePlacement;
  CaseSpec outliers = with_data(make_case("outliers-saturate", 8, {300, 40}, random_tree(9, 4), 16, P::kShuffled, 61),
                                vb::DataDist::kOutlierChannels);
  outliers.data.outlier_factor = 1000;  // above 448 x scale: the outlier channels saturate
  outliers.tolerance = vb::default_tolerance(outliers.data);
  CaseSpec poisoned = make_case("poison-nan-kv", 16, {100, 5}, chain(4), 1, P::kShuffled, 62);
  poisoned.data.poison = vb::PoisonValue::kNaN;
  return {
      fp8_case(make_case("chain4-p100-h16-page1", 16, {100}, chain(4), 1, P::kShuffled, 51), 0.37),
      fp8_case(with_data(make_case("rising-eagle", 8, {700, 33, 0}, random_tree(8, 21), 16, P::kInterleaved, 52),
                         vb::DataDist::kRising),
               0, /*amax=*/true),
      fp8_case(with_data(make_case("sink-kary", 16, {1000, 63}, kary(2, 2), 64, P::kFragmented, 53),
                         vb::DataDist::kSink),
               2.5),
      fp8_case(make_case("decode-t1-h16", 16, {4097, 0, 31}, chain(1), 16, P::kInterleaved, 54), 0.02),
      fp8_case(make_case("random37-h8-long", 8, {6000, 1, 65}, random_tree(37, 5), 1, P::kReversed, 55), 1.0),
      fp8_case(outliers, 1.0),
      fp8_case(poisoned, 0.5),
  };
}

}  // namespace

TEST_CASE("fp8 KV: naive and the mma.sync executors match the reference on the dequantized pool", "[gpu][fp8]") {
  REQUIRE(has_device());
  const vb::GpuInfo gpu = vb::query_gpu();
  REQUIRE(gpu.available);
  for (const CaseSpec& spec : fp8_cases()) {
    INFO("case " << spec.name);
    const vb::Problem problem = vb::materialize(spec);
    REQUIRE(problem.kv_dtype() == vb::KvDtype::kFp8E4m3);
    const vb::ReferenceOutput ref =
        vb::reference_verify(vb::host_params(problem, PageTableKind::kTokenIndices, nullptr, nullptr));
    std::string error;
    auto device = vb::DeviceProblem::upload(problem, gpu, &error);
    REQUIRE(device != nullptr);
    // The executor without an fp8 path says so and launches nothing.
    for (const GpuExecutorKind kind : {GpuExecutorKind::kProductionWgmma}) {
      std::string why_not;
      CHECK_FALSE(device->executor_applies(kind, &why_not));
      CHECK_THAT(why_not, Catch::Contains("has no fp8 KV path yet"));
      CHECK(device->launch(kind, PageTableKind::kTokenIndices, nullptr) == cudaErrorNotSupported);
    }
    const std::pair<GpuExecutorKind, PageTableKind> runs[] = {
        {GpuExecutorKind::kNaive, PageTableKind::kBlockTable},
        {GpuExecutorKind::kNaive, PageTableKind::kTokenIndices},
        {GpuExecutorKind::kProduction, PageTableKind::kTokenIndices},
        {GpuExecutorKind::kProduction, PageTableKind::kBlockTable},
        {GpuExecutorKind::kProductionMmaSync, PageTableKind::kBlockTable},
        {GpuExecutorKind::kProductionSm120Proxy, PageTableKind::kTokenIndices},
        {GpuExecutorKind::kProductionSm120Proxy, PageTableKind::kBlockTable},
        {GpuExecutorKind::kProductionSm120Emu, PageTableKind::kTokenIndices},
        // fp8 tree rows beside the pool: quantized from bf16 k_extend by the adapter, given
        // as fp8 tree_kv to the dense-tree executor.
        {GpuExecutorKind::kSglangAdapter, PageTableKind::kTokenIndices},
        {GpuExecutorKind::kProductionDenseTree, PageTableKind::kBlockTable},
        {GpuExecutorKind::kSglangAdapterSm120Proxy, PageTableKind::kTokenIndices},
    };
    for (const auto& [kind, page_kind] : runs) {
      if (std::string why_not; kind != GpuExecutorKind::kNaive && !device->executor_applies(kind, &why_not)) {
        WARN(why_not);
        continue;
      }
      INFO("executor " << vb::executor_name(kind) << " page form " << static_cast<int>(page_kind));
      const vb::GpuRunOutput out = device->run(kind, page_kind);  // outputs poisoned first
      INFO("plan " << (out.launch ? out.launch->summary : std::string("-")) << " error " << out.error);
      REQUIRE(out.ok);
      if (kind != GpuExecutorKind::kNaive) {
        REQUIRE(out.launch);
        CHECK(out.launch->engine == "mma.sync");
      }
      vb::ExecutorResult result;
      vb::compare_with_reference(ref, out.o, out.lse, problem.tree_size, problem.num_heads, spec.tolerance, &result);
      INFO("O max abs " << result.o.max_abs_error << " LSE max abs " << result.lse.max_abs_error << " " << result.detail);
      CHECK(result.outcome == vb::Outcome::kPassed);
      CHECK(result.o.elements_checked == problem.query_rows() * vb::mla::kHeadDimV);
    }
  }
}

TEST_CASE("fp8 KV: every mma.sync instance, depth and split count matches the reference", "[gpu][fp8]") {
  REQUIRE(has_device());
  int variants[8];
  const int num_variants = vb::flash_verify_pipeline_variants(variants, 8);
  int device_optin = 0;
  REQUIRE(cudaDeviceGetAttribute(&device_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0) == cudaSuccess);
  const vb::FlashVerifyConfigInfo cfg = vb::flash_verify_path_config(vb::FlashVerifyPath::kMmaSync);
  // 16 heads x random tree of 24 (12 row tiles), and 8 heads x T = 2 (16 rows: the token split's shape).
  const CaseSpec specs[] = {
      fp8_case(with_data(make_case("splits-sink", 16, {5000, 77, 0}, random_tree(24, 3), 1, vb::PagePlacement::kShuffled, 71),
                         vb::DataDist::kSink),
               0.37),
      fp8_case(with_data(make_case("token-split-rising", 8, {160 * 32 + 7, 24 * 32, 0}, chain(2), 1,
                                   vb::PagePlacement::kShuffled, 72),
                         vb::DataDist::kRising),
               0, /*amax=*/true),
  };
  for (const CaseSpec& spec : specs) {
    INFO("case " << spec.name);
    ReferencedProblem checked(spec);
    auto& [problem, ref, d] = checked;
    REQUIRE(d.p.kv_dtype == vb::KvDtype::kFp8E4m3);
    const int rows = problem.tree_size * problem.num_heads;
    const int m_tiles = (rows + cfg.rows_per_tile - 1) / cfg.rows_per_tile;
    for (int v = 0; v < num_variants; ++v) {
      if (vb::flash_verify_smem_bytes(variants[v], vb::KvDtype::kFp8E4m3) > device_optin) continue;
      for (int splits : {1, 2, 7, 30, 128}) {
        INFO("stages " << variants[v] << " splits " << splits);
        REQUIRE(run_plan_and_check(problem, ref, spec, d, vb::SplitSchedule{splits, m_tiles, variants[v]}) == cudaSuccess);
        if (rows <= cfg.rows_per_tile / 2) {  // the token split instance
          vb::SplitSchedule plan{splits, m_tiles, variants[v]};
          plan.token_split = true;
          REQUIRE(run_plan_and_check(problem, ref, spec, d, plan) == cudaSuccess);
        }
        if (splits > 1) {  // the tile-balanced instance, with every slot and with one
          for (bool all_slots : {true, false}) {
            vb::SplitSchedule plan{splits, m_tiles, variants[v]};
            plan.tile_balanced = true;
            plan.balanced_slots = all_slots ? splits : 1;
            REQUIRE(run_plan_and_check(problem, ref, spec, d, plan) == cudaSuccess);
          }
        }
      }
    }
    // Refused: the wgmma path (no fp8 path yet) and a scale that is not a positive finite number.
    vb::SplitSchedule wgmma_plan{1, (rows + 63) / 64, 0, vb::FlashVerifyPath::kWgmma};
    const vb::LaunchPlan wgmma_launch = complete_for(d.p, wgmma_plan);
    if (wgmma_launch.valid) {
      CHECK(vb::flash_verify_launch(d.p, wgmma_launch, nullptr, 0, nullptr) == cudaErrorNotSupported);
    }
    const vb::LaunchPlan one_split = complete_for(d.p, vb::SplitSchedule{1, m_tiles});
    for (const float scale : {0.f, -1.f, std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN()}) {
      vb::VerifyParams bad = d.p;
      bad.kv_scale = scale;
      CHECK(vb::flash_verify_launch(bad, one_split, nullptr, 0, nullptr) == cudaErrorInvalidValue);
      CHECK(vb::naive_verify_launch(bad, nullptr) == cudaErrorInvalidValue);
    }
  }
}

// ---- fp8 tensor math (issue 46, item 2): the tile stays e4m3, Q (per row) and P are quantized
// to e4m3. Checked against the exact reference with the tolerance the rounding model derives
// from each case's data (scenarios/README.md, "fp8 math"), which must also be tight enough to
// tell a wrong kernel.

namespace {

vb::LaunchPlan fp8_math_plan(const vb::VerifyParams& p, const vb::SplitSchedule& schedule,
                             const vb::DeviceTarget* target = nullptr) {
  vb::LaunchPlan plan = complete_for(p, schedule, target);
  plan.math = vb::MathMode::kFp8;
  return plan;
}

// One launch of `plan` on poisoned outputs and a NaN-filled workspace, synchronised; the launch
// record checked against the plan (under sm_120's emulation: the plan's grid and shared memory
// on the emulated twin of the plan's kernel). Returns the outputs.
DeviceOutputs run_fp8_plan(DeviceTokenProblem& d, const vb::Problem& problem, const vb::LaunchPlan& plan,
                           bool sm120_emulation = false) {
  INFO("plan " << vb::describe(plan));
  const std::size_t ws_bytes =
      vb::flash_verify_workspace_bytes(plan.schedule, problem.batch, problem.tree_size, problem.num_heads);
  void* ws = nullptr;
  if (ws_bytes) {
    REQUIRE(cudaMalloc(&ws, ws_bytes) == cudaSuccess);
    REQUIRE(cudaMemset(ws, 0xFF, ws_bytes) == cudaSuccess);
  }
  poison(d.p);
  vb::FlashVerifyLaunchRecord record;
  vb::FlashVerifyLaunchOptions options;
  options.record = &record;
  options.sm120_tensor_rate_emulation = sm120_emulation;
  REQUIRE(vb::flash_verify_launch(d.p, plan, ws, ws_bytes, nullptr, options) == cudaSuccess);
  REQUIRE(cudaDeviceSynchronize() == cudaSuccess);
  if (sm120_emulation) {
    CHECK(record.main_kernel != nullptr);
    CHECK(record.main_kernel != vb::flash_verify_main_kernel_of(plan, false, d.p.kv_dtype));
    CHECK(record.main_grid.x == plan.main_grid.x);
    CHECK(record.main_grid.y == plan.main_grid.y);
    CHECK(record.main_grid.z == plan.main_grid.z);
    CHECK(record.main_smem_bytes == plan.smem_bytes);
  } else {
    check_ran_plan(record, plan, d.p.kv_dtype);
  }
  if (ws) cudaFree(ws);
  return download(d.p);
}

vb::ExecutorResult compare_fp8(const vb::ReferenceOutput& ref, const DeviceOutputs& out, const vb::Problem& problem,
                               const vb::ToleranceSpec& tolerance) {
  vb::ExecutorResult result;
  vb::compare_with_reference(ref, widen(out.o), out.lse, problem.tree_size, problem.num_heads, tolerance, &result);
  return result;
}

// Decode (H*T = 16: the token split on long splits), MTP (8 heads x chain 4), EAGLE (8 heads x
// an 8-node tree: H*T = 64, the tree mask), a sink case (one token dominates: the least
// averaged, and scores a wrong scale moves) and a long uniform one with a non-unit scale.
// Every request has a long prefix: the tolerance follows the case's most concentrated row
// (scenarios/README.md), and a request of a few tokens would loosen it for all.
std::vector<CaseSpec> fp8_math_cases() {
  using P = vb::PagePlacement;
  return {
      fp8_case(make_case("math-decode-h16", 16, {160 * 32 + 7, 24 * 32, 300}, chain(1), 1, P::kShuffled, 81), 0.37),
      fp8_case(make_case("math-mtp-h8", 8, {2000, 333, 500}, chain(4), 16, P::kInterleaved, 82), 0, /*amax=*/true),
      fp8_case(with_data(make_case("math-eagle-sink-h8", 8, {700, 333}, random_tree(8, 21), 16, P::kInterleaved, 83),
                         vb::DataDist::kSink),
               2.5),
      fp8_case(make_case("math-eagle-h8", 8, {900, 400}, random_tree(8, 22), 1, P::kFragmented, 87), 0.5),
      fp8_case(make_case("math-random24-h16", 16, {5000, 777}, random_tree(24, 3), 1, P::kReversed, 84), 0.02),
  };
}

// A case of fp8_math_cases() on the device, with the tolerance its rounding model derives and
// its query-row tiles.
struct Fp8MathCase {
  ReferencedProblem checked;
  vb::ToleranceSpec tolerance;
  int m_tiles;
  explicit Fp8MathCase(const CaseSpec& spec)
      : checked(spec),
        tolerance(vb::fp8_math_tolerance_of(checked.problem, checked.ref.weight_square_sum, spec.tolerance).tolerance),
        m_tiles((checked.problem.tree_size * checked.problem.num_heads +
                 vb::flash_verify_path_config(vb::FlashVerifyPath::kMmaSync).rows_per_tile - 1) /
                vb::flash_verify_path_config(vb::FlashVerifyPath::kMmaSync).rows_per_tile) {}
};

}  // namespace

TEST_CASE("fp8 math: every mma.sync instance, depth and split count within the derived tolerance", "[gpu][fp8]") {
  REQUIRE(has_device());
  int variants[8];
  const int num_variants = vb::flash_verify_pipeline_variants(variants, 8);
  int device_optin = 0;
  REQUIRE(cudaDeviceGetAttribute(&device_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0) == cudaSuccess);
  const vb::FlashVerifyConfigInfo cfg = vb::flash_verify_path_config(vb::FlashVerifyPath::kMmaSync);
  for (const CaseSpec& spec : fp8_math_cases()) {
    INFO("case " << spec.name);
    Fp8MathCase c(spec);
    auto& [problem, ref, d] = c.checked;
    REQUIRE(d.p.kv_dtype == vb::KvDtype::kFp8E4m3);
    const vb::ToleranceSpec& tolerance = c.tolerance;
    INFO("tolerance O atol " << tolerance.o_atol << " LSE atol " << tolerance.lse_atol);
    const int rows = problem.tree_size * problem.num_heads;
    const int m_tiles = c.m_tiles;
    std::vector<vb::SplitSchedule> plans;
    for (int v = 0; v < num_variants; ++v) {
      if (vb::flash_verify_smem_bytes(variants[v], vb::KvDtype::kFp8E4m3) > device_optin) continue;
      for (int splits : {1, 2, 7, 30}) {
        plans.push_back(vb::SplitSchedule{splits, m_tiles, variants[v]});
        if (rows <= cfg.rows_per_tile / 2) {  // the token split instance
          plans.push_back(plans.back());
          plans.back().token_split = true;
        }
        if (splits > 1) {  // the tile-balanced instance, with every slot and with one
          for (bool all_slots : {true, false}) {
            vb::SplitSchedule plan{splits, m_tiles, variants[v]};
            plan.tile_balanced = true;
            plan.balanced_slots = all_slots ? splits : 1;
            plans.push_back(plan);
          }
        }
      }
    }
    REQUIRE(!plans.empty());
    for (const vb::SplitSchedule& schedule : plans) {
      const vb::LaunchPlan plan = fp8_math_plan(d.p, schedule);
      INFO("plan " << vb::describe(plan));
      REQUIRE(plan.valid);
      const vb::ExecutorResult result = compare_fp8(ref, run_fp8_plan(d, problem, plan), problem, tolerance);
      INFO("O max abs " << result.o.max_abs_error << " LSE max abs " << result.lse.max_abs_error << " " << result.detail);
      CHECK(result.outcome == vb::Outcome::kPassed);
      CHECK(result.o.elements_checked == problem.query_rows() * vb::mla::kHeadDimV);
    }
  }
}

TEST_CASE("fp8 math: the derived tolerance holds bf16 math's answer and refuses a wrong kernel", "[gpu][fp8]") {
  REQUIRE(has_device());
  for (const CaseSpec& spec : fp8_math_cases()) {
    INFO("case " << spec.name);
    Fp8MathCase c(spec);
    auto& [problem, ref, d] = c.checked;
    const vb::ToleranceSpec& tolerance = c.tolerance;
    const vb::SplitSchedule schedule{2, c.m_tiles};
    // bf16 math on the same fp8 pool passes the same check (it is closer to the reference).
    const vb::LaunchPlan bf16_plan = complete_for(d.p, schedule);
    REQUIRE(bf16_plan.math == vb::MathMode::kBf16);
    const DeviceOutputs bf16_out = run_fp8_plan(d, problem, bf16_plan);
    CHECK(compare_fp8(ref, bf16_out, problem, tolerance).outcome == vb::Outcome::kPassed);
    // fp8 math against bf16 math, as if bf16 math were the reference: within the tolerance too.
    const DeviceOutputs fp8_out = run_fp8_plan(d, problem, fp8_math_plan(d.p, schedule));
    vb::ReferenceOutput bf16_as_ref;
    bf16_as_ref.rows = ref.rows;
    bf16_as_ref.o.assign(bf16_out.o.size(), 0.0);
    for (std::size_t i = 0; i < bf16_out.o.size(); ++i) bf16_as_ref.o[i] = vb::bf16_to_float(bf16_out.o[i]);
    bf16_as_ref.lse.assign(bf16_out.lse.begin(), bf16_out.lse.end());
    const vb::ExecutorResult gap = compare_fp8(bf16_as_ref, fp8_out, problem, tolerance);
    INFO("fp8 vs bf16 math: O " << gap.o.max_abs_error << " LSE " << gap.lse.max_abs_error << " " << gap.detail);
    CHECK(gap.outcome == vb::Outcome::kPassed);
    CHECK(gap.o.max_abs_error > 0);  // the maths differ: two identical kernels would prove nothing
    // A deliberately wrong kernel: fp8 math with the pool's scale applied twice over (2x) fails.
    const vb::VerifyParams right = d.p;
    d.p.kv_scale *= 2.f;
    const DeviceOutputs wrong_out = run_fp8_plan(d, problem, fp8_math_plan(d.p, schedule));
    d.p = right;
    const vb::ExecutorResult wrong_result = compare_fp8(ref, wrong_out, problem, tolerance);
    INFO("wrong scale: O max abs " << wrong_result.o.max_abs_error << " LSE max abs " << wrong_result.lse.max_abs_error);
    CHECK(wrong_result.outcome == vb::Outcome::kIncorrect);
  }
}

TEST_CASE("fp8 math: refused without an fp8 pool or on the wgmma path", "[gpu][fp8]") {
  REQUIRE(has_device());
  // A bf16 pool: no e4m3 tile to multiply.
  ReferencedProblem bf16_case(make_case("math-bf16-pool", 8, {300}, chain(2), 1, vb::PagePlacement::kShuffled, 85));
  vb::LaunchPlan plan = fp8_math_plan(bf16_case.d.p, vb::SplitSchedule{1, 1});
  REQUIRE(plan.valid);
  CHECK(vb::flash_verify_launch(bf16_case.d.p, plan, nullptr, 0, nullptr) == cudaErrorNotSupported);
  CHECK(vb::flash_verify_main_kernel_of(plan) == nullptr);
  // An fp8 pool on a wgmma plan.
  ReferencedProblem fp8(fp8_case(make_case("math-wgmma", 16, {300}, chain(4), 1, vb::PagePlacement::kShuffled, 86), 0.5));
  const vb::LaunchPlan wgmma = fp8_math_plan(fp8.d.p, vb::SplitSchedule{1, 1, 0, vb::FlashVerifyPath::kWgmma});
  if (wgmma.valid) CHECK(vb::flash_verify_launch(fp8.d.p, wgmma, nullptr, 0, nullptr) == cudaErrorNotSupported);
  CHECK(vb::flash_verify_main_kernel_of(wgmma, false, vb::KvDtype::kFp8E4m3) == nullptr);
}

// sm_120's emulation adds tensor work beside fp8 math, never into it: each instance's emulated
// launch (production/sm120-emu with fp8 math) gives the proxy's fp8-math launch's bits.
TEST_CASE("fp8 math under sm_120's emulation: every instance the proxy's bits", "[gpu][fp8]") {
  if (!on_hopper("sm_120's emulation")) return;
  cudaError_t err = cudaSuccess;
  const vb::DeviceTarget proxy = vb::sm120_proxy_target(&err);
  REQUIRE(err == cudaSuccess);
  const int rows_per_tile = vb::flash_verify_path_config(vb::FlashVerifyPath::kMmaSync).rows_per_tile;
  for (const CaseSpec& spec : fp8_math_cases()) {
    INFO("case " << spec.name);
    Fp8MathCase c(spec);
    auto& [problem, ref, d] = c.checked;
    const int m_tiles = c.m_tiles;
    // The plain instance on one split and on several, the token split where the rows allow it,
    // and the tile-balanced schedule; sm_120's depth (the proxy target's).
    std::vector<vb::SplitSchedule> schedules = {{1, m_tiles}, {7, m_tiles}};
    if (problem.tree_size * problem.num_heads <= rows_per_tile / 2) {
      schedules.push_back({2, m_tiles});  // splits of 16 tiles or more: both groups run
      schedules.back().token_split = true;
    }
    schedules.push_back({7, m_tiles});
    schedules.back().tile_balanced = true;
    schedules.back().balanced_slots = 7;
    for (const vb::SplitSchedule& schedule : schedules) {
      const vb::LaunchPlan plan = fp8_math_plan(d.p, schedule, &proxy);
      INFO("plan " << vb::describe(plan));
      REQUIRE(plan.valid);
      const DeviceOutputs proxy_out = run_fp8_plan(d, problem, plan);
      const vb::ExecutorResult result = compare_fp8(ref, proxy_out, problem, c.tolerance);
      INFO("O max abs " << result.o.max_abs_error << " LSE max abs " << result.lse.max_abs_error << " " << result.detail);
      CHECK(result.outcome == vb::Outcome::kPassed);
      const DeviceOutputs emulated_out = run_fp8_plan(d, problem, plan, /*sm120_emulation=*/true);
      CHECK(std::memcmp(emulated_out.o.data(), proxy_out.o.data(), proxy_out.o.size() * sizeof(vb::bf16_bits)) == 0);
      CHECK(std::memcmp(emulated_out.lse.data(), proxy_out.lse.data(), proxy_out.lse.size() * sizeof(float)) == 0);
    }
  }
  // fp8 math on a bf16 pool stays refused under the emulation.
  ReferencedProblem bf16_case(make_case("math-emu-bf16-pool", 8, {300}, chain(2), 1, vb::PagePlacement::kShuffled, 88));
  const vb::LaunchPlan plan = fp8_math_plan(bf16_case.d.p, vb::SplitSchedule{1, 1}, &proxy);
  REQUIRE(plan.valid);
  vb::FlashVerifyLaunchOptions options;
  options.sm120_tensor_rate_emulation = true;
  CHECK(vb::flash_verify_launch(bf16_case.d.p, plan, nullptr, 0, nullptr, options) == cudaErrorNotSupported);
}

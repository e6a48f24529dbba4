// GPU executors over one uploaded problem. Every CUDA failure becomes an error string
// naming the call; nothing here exits or throws for a device error.
#include "harness/run/gpu_executor.h"

#include <cuda_runtime_api.h>

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace vb {

bool is_sglang_adapter(GpuExecutorKind kind) {
  return kind == GpuExecutorKind::kSglangAdapter || kind == GpuExecutorKind::kSglangAdapterSm120Proxy;
}

namespace {

bool is_sm120_proxy(GpuExecutorKind kind) {
  return kind == GpuExecutorKind::kProductionSm120Proxy || kind == GpuExecutorKind::kProductionSm120Emu ||
         kind == GpuExecutorKind::kSglangAdapterSm120Proxy || kind == GpuExecutorKind::kProductionDenseTreeSm120Proxy;
}

bool has_dense_tree_rows(GpuExecutorKind kind) {
  return is_sglang_adapter(kind) || kind == GpuExecutorKind::kProductionDenseTree ||
         kind == GpuExecutorKind::kProductionDenseTreeSm120Proxy;
}

}  // namespace

std::optional<ExecutorPlanRole> executor_plan_role(GpuExecutorKind kind, PageTableKind page_kind) {
  if (kind == GpuExecutorKind::kNaive) return std::nullopt;
  ExecutorPlanRole role;
  role.sm120_proxy = is_sm120_proxy(kind);
  role.force_path = kind == GpuExecutorKind::kProductionMmaSync || kind == GpuExecutorKind::kProductionWgmma;
  role.forced_path = kind == GpuExecutorKind::kProductionWgmma ? FlashVerifyPath::kWgmma : FlashVerifyPath::kMmaSync;
  role.table = is_sglang_adapter(kind) ? PageTableKind::kTokenIndices : page_kind;
  role.dense_tree_rows = has_dense_tree_rows(kind);
  return role;
}

std::string executor_not_run_reason(GpuExecutorKind kind, FlashVerifyPath planned_path, bool wgmma_supported,
                                    const std::string& sm120_proxy_not_run) {
  if (kind == GpuExecutorKind::kProductionMmaSync && planned_path == FlashVerifyPath::kMmaSync) {
    return "not run: production already runs the mma.sync path on this case and device";
  }
  if (kind == GpuExecutorKind::kProductionWgmma && !wgmma_supported) {
    return "not run: the wgmma path needs a compute capability 9.0 device (sm_90a machine code)";
  }
  if (is_sm120_proxy(kind) && !sm120_proxy_not_run.empty()) return sm120_proxy_not_run;
  if (kind == GpuExecutorKind::kProductionWgmma && planned_path == FlashVerifyPath::kWgmma) {
    return "not run: production already runs the wgmma path on this case and device";
  }
  return "";
}

namespace {

// Owning device allocation; empty when bytes == 0.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { release(); }
  void release() {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }
  cudaError_t allocate(std::size_t bytes) {
    release();
    if (bytes == 0) return cudaSuccess;
    const cudaError_t err = cudaMalloc(&ptr_, bytes);
    if (err == cudaSuccess) bytes_ = bytes;
    return err;
  }
  template <typename T>
  T* as() const { return static_cast<T*>(ptr_); }
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Records the first failing call, so a sequence of CUDA calls reads straight through.
struct CallChecker {
  std::string error;
  bool operator()(cudaError_t err, const char* call) {
    if (err != cudaSuccess && error.empty()) {
      error = fmt::format("{} failed: {} ({})", call, cudaGetErrorString(err), cudaGetErrorName(err));
    }
    return err == cudaSuccess;
  }
  bool ok() const { return error.empty(); }
};

void upload_bytes(CallChecker& check, DeviceBuffer& buffer, const void* host, std::size_t bytes, const char* what) {
  if (!check(buffer.allocate(bytes), what)) return;
  if (bytes > 0) check(cudaMemcpy(buffer.get(), host, bytes, cudaMemcpyHostToDevice), what);
}

template <typename T>
void upload_vector(CallChecker& check, DeviceBuffer& buffer, const std::vector<T>& host, const char* what) {
  upload_bytes(check, buffer, host.data(), host.size() * sizeof(T), what);
}

}  // namespace

struct DeviceProblem::Impl {
  const Problem* problem = nullptr;
  cudaStream_t stream = nullptr;
  // The planner's launches (executor_launch_plan), [engine choice][page-table form]: what
  // production runs (the wgmma path where the planner picks it), the mma.sync path forced
  // (production/mma.sync), the wgmma path forced (production/wgmma, where the device has it),
  // and sm_120's launch on this device's SMs (the sm120-proxy executors, on a Hopper). Dense
  // tree rows change no choice: those executors share their engine's launches.
  enum Engine { kPlanned = 0, kForcedMmaSync = 1, kForcedWgmma = 2, kSm120Proxy = 3 };
  static constexpr int kEngines = 4;
  LaunchPlan plans[kEngines][2];
  bool wgmma_supported = false;
  std::string proxy_not_run;    // why the sm120-proxy executors do not run here ("" where they do)
  int proxy_blocks_per_sm = 0;  // measured: this device's occupancy query on the proxy's launch
  // [engine][page-table form] of an executor's launch.
  static std::pair<int, int> plan_index(const ExecutorPlanRole& role) {
    const int engine = role.sm120_proxy                              ? kSm120Proxy
                       : !role.force_path                            ? kPlanned
                       : role.forced_path == FlashVerifyPath::kWgmma ? kForcedWgmma
                                                                     : kForcedMmaSync;
    return {engine, role.table == PageTableKind::kBlockTable ? 1 : 0};
  }
  LaunchPlan& plan_slot(const ExecutorPlanRole& role) {
    const auto [engine, table] = plan_index(role);
    return plans[engine][table];
  }
  // Every executor but naive (which runs no planned launch).
  const LaunchPlan& plan_for(GpuExecutorKind kind, PageTableKind page_kind) const {
    const auto [engine, table] = plan_index(*executor_plan_role(kind, page_kind));
    return plans[engine][table];
  }
  // native inputs
  DeviceBuffer q, kv_pool, prefix_len, kv_indptr, kv_indices, block_table, tree_mask;
  // The dense-tree executors' block table: the prefix's pages, every page of only tree rows
  // pointing at a page no request uses (NaN rows), so a tree row read from the pool shows.
  DeviceBuffer dense_tree_block_table;
  // SGLang-form inputs derived from the same problem
  DeviceBuffer sg_k_extend, sg_k_extend_fp8, sg_v_extend, sg_qo_indptr, sg_kv_indptr, sg_kv_indices, sg_custom_mask,
      sg_mask_indptr, sg_scratch;
  // outputs and workspace
  DeviceBuffer o, lse, workspace;

  ~Impl() {
    if (stream) cudaStreamDestroy(stream);
  }

  VerifyParams params(PageTableKind kind) const {
    return verify_params(*problem, kind,
                         ProblemBuffers{.q = q.as<bf16_bits>(),
                                        .kv_pool = kv_pool.get(),
                                        .prefix_len = prefix_len.as<std::int32_t>(),
                                        .kv_indptr = kv_indptr.as<std::int32_t>(),
                                        .kv_indices = kv_indices.as<std::int64_t>(),
                                        .block_table = block_table.as<std::int32_t>(),
                                        .tree_mask = tree_mask.as<std::uint64_t>(),
                                        .o = o.as<bf16_bits>(),
                                        .lse = lse.as<float>()});
  }

  // The block table with the tree rows dense (SGLang's k_extend).
  VerifyParams dense_tree_params() const {
    VerifyParams p = params(PageTableKind::kBlockTable);
    p.block_table = dense_tree_block_table.as<std::int32_t>();
    p.tree_kv = p.kv_is_fp8() ? sg_k_extend_fp8.get() : sg_k_extend.get();  // rows of the pool's dtype
    return p;
  }

  SglangVerifyInputs sglang_inputs() const {
    SglangVerifyInputs in;
    in.batch = problem->batch;
    in.tree_size = problem->tree_size;
    in.num_heads = problem->num_heads;
    in.sm_scale = problem->sm_scale;
    in.q = q.as<bf16_bits>();
    in.k_extend = sg_k_extend.as<bf16_bits>();
    in.v_extend = sg_v_extend.as<bf16_bits>();
    in.kv_buffer = kv_pool.get();
    in.kv_dtype = problem->kv_dtype();
    in.kv_scale = problem->kv_scale;
    in.pool_rows = problem->pages.pool_rows();
    in.qo_indptr = sg_qo_indptr.as<std::int32_t>();
    in.kv_indptr = sg_kv_indptr.as<std::int32_t>();
    in.kv_indices = sg_kv_indices.as<std::int64_t>();
    in.custom_mask = sg_custom_mask.as<std::uint8_t>();
    in.mask_indptr = sg_mask_indptr.as<std::int64_t>();
    in.o = o.as<bf16_bits>();
    in.lse = lse.as<float>();
    return in;
  }
};

namespace {

// The sm_120 proxy's target on this device, or why it does not run (*not_run). Only a Hopper
// stands in: on sm_120 itself production is that launch, and no other architecture is built.
DeviceTarget sm120_proxy_target_on(const GpuInfo& gpu, CallChecker& check, std::string* not_run) {
  if (gpu.cc_major != 9) {
    *not_run = fmt::format(
        "not run: the sm_120 proxy stands in for sm_120 on a Hopper (compute capability 9.x); this device is {}.{}",
        gpu.cc_major, gpu.cc_minor);
    return DeviceTarget{};
  }
  cudaError_t err = cudaSuccess;
  const DeviceTarget target = sm120_proxy_target(&err);
  check(err, "sm120_proxy_target");
  return target;
}

// Whether this device's SMs hold as many of the proxy's main blocks as sm_120's do (the
// occupancy query on the launch it makes); if not, why it does not run.
void check_sm120_proxy_occupancy(DeviceProblem::Impl& d, const DeviceTarget& target, CallChecker& check) {
  const LaunchPlan& plan = d.plans[DeviceProblem::Impl::kSm120Proxy][0];
  if (!plan.valid) {
    d.proxy_not_run = "not run: " + plan.why_invalid;
    return;
  }
  cudaError_t err = cudaSuccess;
  d.proxy_blocks_per_sm = flash_verify_plan_blocks_per_sm(plan, &err);
  if (!check(err, "flash_verify_plan_blocks_per_sm (sm120 proxy)")) return;
  if (d.proxy_blocks_per_sm != target.main_blocks_per_sm) {
    d.proxy_not_run = fmt::format(
        "not run: with {} B of shared memory per block this device holds {} blocks per SM, sm_120 holds {}",
        plan.smem_bytes, d.proxy_blocks_per_sm, target.main_blocks_per_sm);
  }
}

constexpr GpuExecutorKind kAllExecutorKinds[] = {
    GpuExecutorKind::kNaive,           GpuExecutorKind::kProduction,
    GpuExecutorKind::kProductionMmaSync, GpuExecutorKind::kProductionWgmma,
    GpuExecutorKind::kSglangAdapter,   GpuExecutorKind::kProductionSm120Proxy,
    GpuExecutorKind::kProductionSm120Emu, GpuExecutorKind::kSglangAdapterSm120Proxy, GpuExecutorKind::kProductionDenseTree,
    GpuExecutorKind::kProductionDenseTreeSm120Proxy,
};

}  // namespace

// The pool's slack pages are NaN (build_page_layout keeps at least two): the first one stands
// for every page of only tree rows.
std::vector<std::int32_t> dense_tree_block_table(const Problem& problem) {
  const PageLayout& pages = problem.pages;
  std::vector<bool> used(static_cast<std::size_t>(pages.num_pages), false);
  for (const std::int32_t page : pages.block_table) {
    if (page >= 0 && page < pages.num_pages) used[static_cast<std::size_t>(page)] = true;
  }
  const auto unused = std::find(used.begin(), used.end(), false);
  if (unused == used.end()) throw std::logic_error("dense_tree_block_table: the page layout has no slack page");
  const auto nan_page = static_cast<std::int32_t>(unused - used.begin());
  std::vector<std::int32_t> table = pages.block_table;
  for (int b = 0; b < problem.batch; ++b) {
    const int first_tree_only = (problem.prefix_len[b] + pages.page_size - 1) / pages.page_size;
    const int last = (problem.prefix_len[b] + problem.tree_size - 1) / pages.page_size;
    for (int page = first_tree_only; page <= last; ++page) {
      table[static_cast<std::size_t>(b) * pages.max_pages + page] = nan_page;
    }
  }
  return table;
}

DeviceProblem::DeviceProblem(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DeviceProblem::~DeviceProblem() = default;

std::unique_ptr<DeviceProblem> DeviceProblem::upload(const Problem& problem, const GpuInfo& gpu,
                                                     std::string* error) {
  auto impl = std::make_unique<Impl>();
  impl->problem = &problem;
  CallChecker check;
  check(cudaStreamCreateWithFlags(&impl->stream, cudaStreamNonBlocking), "cudaStreamCreate");

  upload_vector(check, impl->q, problem.q, "upload q");
  upload_bytes(check, impl->kv_pool, problem.executed_kv_pool(), problem.executed_kv_pool_bytes(), "upload kv_pool");
  upload_vector(check, impl->prefix_len, problem.prefix_len, "upload prefix_len");
  upload_vector(check, impl->kv_indptr, problem.pages.kv_indptr, "upload kv_indptr");
  upload_vector(check, impl->kv_indices, problem.pages.kv_indices, "upload kv_indices");
  upload_vector(check, impl->block_table, problem.pages.block_table, "upload block_table");
  upload_vector(check, impl->tree_mask, problem.tree_mask, "upload tree_mask");

  // SGLang form: tree rows as dense k_extend / v_extend, page table over the prefix only.
  const int B = problem.batch, T = problem.tree_size;
  SglangInputsHost sg = sglang_inputs_host(problem);
  if (sg.kv_indices.empty()) sg.kv_indices.push_back(0);  // keep a valid pointer for P = 0
  upload_vector(check, impl->sg_k_extend, sg.k_extend, "upload k_extend");
  if (!sg.k_extend_fp8.empty()) upload_vector(check, impl->sg_k_extend_fp8, sg.k_extend_fp8, "upload fp8 k_extend");
  upload_vector(check, impl->sg_v_extend, sg.v_extend, "upload v_extend");
  upload_vector(check, impl->sg_qo_indptr, sg.qo_indptr, "upload qo_indptr");
  upload_vector(check, impl->sg_kv_indptr, sg.kv_indptr, "upload sglang kv_indptr");
  upload_vector(check, impl->sg_kv_indices, sg.kv_indices, "upload sglang kv_indices");
  upload_vector(check, impl->sg_custom_mask, problem.sglang_custom_mask, "upload custom_mask");
  upload_vector(check, impl->sg_mask_indptr, problem.sglang_mask_indptr, "upload mask_indptr");
  check(impl->sg_scratch.allocate(sglang_adapter_scratch_bytes(B, T, problem.kv_dtype())), "cudaMalloc adapter scratch");
  upload_vector(check, impl->dense_tree_block_table, dense_tree_block_table(problem), "upload dense-tree block_table");

  const std::int64_t rows = problem.query_rows();
  check(impl->o.allocate(static_cast<std::size_t>(rows) * mla::kHeadDimV * sizeof(bf16_bits)), "cudaMalloc o");
  check(impl->lse.allocate(static_cast<std::size_t>(rows) * sizeof(float)), "cudaMalloc lse");

  cudaError_t target_error = cudaSuccess;
  const DeviceTarget target = current_device_target(&target_error);
  check(target_error, "current_device_target");
  impl->wgmma_supported = target.wgmma;
  PlanTargets targets;
  targets.device = target;
  targets.sm120_proxy = sm120_proxy_target_on(gpu, check, &impl->proxy_not_run);
  targets.has_sm120_proxy = impl->proxy_not_run.empty();
  CasePlanInputs inputs =
      case_plan_inputs(problem.prefix_len, T, problem.num_heads, problem.pages, problem.spec.planner);
  inputs.kv_dtype = problem.kv_dtype();
  inputs.math = problem.spec.math;
  std::size_t workspace_bytes = 0;
  for (const GpuExecutorKind kind : kAllExecutorKinds) {
    for (const PageTableKind table : {PageTableKind::kTokenIndices, PageTableKind::kBlockTable}) {
      const std::optional<ExecutorPlanRole> role = executor_plan_role(kind, table);
      if (!role || (role->sm120_proxy && !targets.has_sm120_proxy)) continue;
      LaunchPlan& plan = impl->plan_slot(*role);
      plan = executor_launch_plan(*role, inputs, targets);
      workspace_bytes = std::max(workspace_bytes, flash_verify_workspace_bytes(plan.schedule, B, T, problem.num_heads));
    }
  }
  check(impl->workspace.allocate(workspace_bytes), "cudaMalloc workspace");
  if (targets.has_sm120_proxy && check.ok()) check_sm120_proxy_occupancy(*impl, targets.sm120_proxy, check);

  if (!check.ok()) {
    if (error) *error = check.error;
    return nullptr;
  }
  return std::unique_ptr<DeviceProblem>(new DeviceProblem(std::move(impl)));
}

bool DeviceProblem::executor_overlaps(GpuExecutorKind kind) { return kind != GpuExecutorKind::kNaive; }

bool DeviceProblem::executor_takes_fp8_kv(GpuExecutorKind kind) {
  return kind != GpuExecutorKind::kProductionWgmma;
}

cudaError_t DeviceProblem::launch(GpuExecutorKind kind, PageTableKind page_kind, cudaStream_t stream,
                                  bool overlap_previous) {
  Impl& d = *impl_;
  if (d.problem->kv_dtype() == KvDtype::kFp8E4m3 && !executor_takes_fp8_kv(kind)) return cudaErrorNotSupported;
  FlashVerifyLaunchOptions options;
  options.overlap_previous_kernel = overlap_previous;
  switch (kind) {
    case GpuExecutorKind::kNaive:
      return naive_verify_launch(d.params(page_kind), stream);
    case GpuExecutorKind::kProduction:
    case GpuExecutorKind::kProductionMmaSync:
    case GpuExecutorKind::kProductionWgmma:
    case GpuExecutorKind::kProductionSm120Proxy:
    case GpuExecutorKind::kProductionSm120Emu:
      options.sm120_tensor_rate_emulation = kind == GpuExecutorKind::kProductionSm120Emu;
      return flash_verify_launch(d.params(page_kind), d.plan_for(kind, page_kind), d.workspace.get(),
                                 d.workspace.bytes(), stream, options);
    case GpuExecutorKind::kProductionDenseTree:
    case GpuExecutorKind::kProductionDenseTreeSm120Proxy:
      if (page_kind != PageTableKind::kBlockTable) return cudaErrorInvalidValue;  // its table is the block table's
      return flash_verify_launch(d.dense_tree_params(), d.plan_for(kind, page_kind), d.workspace.get(),
                                 d.workspace.bytes(), stream, options);
    case GpuExecutorKind::kSglangAdapter:
    case GpuExecutorKind::kSglangAdapterSm120Proxy:
      return sglang_verify_launch(d.sglang_inputs(), d.plan_for(kind, PageTableKind::kTokenIndices),
                                  d.sg_scratch.get(), d.sg_scratch.bytes(), d.workspace.get(), d.workspace.bytes(),
                                  stream, options);
  }
  return cudaErrorInvalidValue;
}

GpuRunOutput DeviceProblem::run(GpuExecutorKind kind, PageTableKind page_kind) {
  Impl& d = *impl_;
  GpuRunOutput out;
  if (const std::optional<ExecutorPlanRole> role = executor_plan_role(kind, page_kind)) {
    out.launch = launch_record(d.plan_for(kind, page_kind), role->table, d.problem->spec.planner);
    if (role->sm120_proxy) out.launch->blocks_per_sm = d.proxy_blocks_per_sm;
  }
  CallChecker check;
  // Poison: 0xFFFF is a bf16 NaN and 0xFFFFFFFF an fp32 NaN, so anything not written shows.
  check(cudaMemsetAsync(d.o.get(), 0xFF, d.o.bytes(), d.stream), "poison o");
  check(cudaMemsetAsync(d.lse.get(), 0xFF, d.lse.bytes(), d.stream), "poison lse");
  if (d.workspace.bytes() > 0) {
    check(cudaMemsetAsync(d.workspace.get(), 0xFF, d.workspace.bytes(), d.stream), "poison workspace");
  }
  if (is_sglang_adapter(kind)) {
    // The adapter's prefix lengths and masks too: the production kernel launches over the
    // kernel that writes them, and must not read them before it has.
    check(cudaMemsetAsync(d.sg_scratch.get(), 0xFF, d.sg_scratch.bytes(), d.stream), "poison adapter scratch");
  }
  check(launch(kind, page_kind, d.stream),
        kind == GpuExecutorKind::kNaive ? "naive_verify_launch"
        : is_sglang_adapter(kind)       ? "sglang_verify_launch"
                                        : "flash_verify_launch");
  check(cudaStreamSynchronize(d.stream), "cudaStreamSynchronize after the executor");
  std::vector<bf16_bits> o_bits(d.o.bytes() / sizeof(bf16_bits));
  out.lse.resize(d.lse.bytes() / sizeof(float));
  check(cudaMemcpy(o_bits.data(), d.o.get(), d.o.bytes(), cudaMemcpyDeviceToHost), "download o");
  check(cudaMemcpy(out.lse.data(), d.lse.get(), d.lse.bytes(), cudaMemcpyDeviceToHost), "download lse");
  if (!check.ok()) {
    out.error = check.error;
    out.o.clear();
    out.lse.clear();
    return out;
  }
  out.o.resize(o_bits.size());
  std::transform(o_bits.begin(), o_bits.end(), out.o.begin(), bf16_to_float);
  out.ok = true;
  return out;
}

bool DeviceProblem::executor_applies(GpuExecutorKind kind, std::string* why_not) const {
  if (impl_->problem->kv_dtype() == KvDtype::kFp8E4m3 && !executor_takes_fp8_kv(kind)) {
    if (why_not) *why_not = fmt::format("not run: {} has no fp8 KV path yet", executor_name(kind));
    return false;
  }
  const std::string reason = executor_not_run_reason(kind, impl_->plans[Impl::kPlanned][0].schedule.path,
                                                     impl_->wgmma_supported, impl_->proxy_not_run);
  if (why_not) *why_not = reason;
  return reason.empty();
}

}  // namespace vb

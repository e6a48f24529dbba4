// The C entry points of libverifybench_ops.so (ops/include/verifybench_ops.h): argument
// validation, the workspace's layout, and the two launches through kernel_bridge.
#include "verifybench_ops.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <tuple>
#include <utility>

#include <cuda_runtime_api.h>

#include "kernel_bridge.h"
#include "tensor_check.h"
#include "verifybench/planner_limits.h"

struct vbops_plan {
  vbops_shape shape;
  vbops_device_facts facts;
  int device;  // CUDA ordinal the plan was made for; -1 when made from given facts
  vbops::bridge::Planned planned;
  std::string description;
  // Workspace layout, each part 256-byte aligned: the kernel's split partials, then the
  // SGLang form's scratch, then the SGLang form's lse when the caller drops it.
  std::size_t verify_bytes, scratch_offset, scratch_bytes, lse_offset, lse_bytes, total_bytes;
};

namespace {

thread_local std::string g_last_error;

constexpr int kHeadDimQK = vb::mla::kHeadDimQK;
constexpr int kHeadDimV = vb::mla::kHeadDimV;
constexpr std::size_t kWorkspaceAlignment = 256;

std::size_t align_up(std::size_t x) { return (x + kWorkspaceAlignment - 1) / kWorkspaceAlignment * kWorkspaceAlignment; }

vbops_status finish(vbops_status status, std::string message) {
  g_last_error = status == VBOPS_OK ? std::string() : std::move(message);
  return status;
}
vbops_status finish(const vbops::ArgCheck& check) { return finish(check.status(), check.message()); }

vbops_status cuda_failure(const char* call, cudaError_t err) {
  return finish(VBOPS_ERROR_CUDA, std::string(call) + " failed: " + cudaGetErrorName(err) + " (" +
                                      cudaGetErrorString(err) + ")");
}

// A float as the caller would write it ("0.5", "0", "nan"), not std::to_string's "0.500000".
std::string float_text(float x) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", static_cast<double>(x));
  return text;
}

std::string shape_check_text(const vbops_shape& s) {
  if (s.max_batch < 1 || s.max_batch > 65535) return "max_batch " + std::to_string(s.max_batch) + "; allowed: 1 to 65535";
  if (s.tree_size < 1 || s.tree_size > vb::mla::kMaxTreeNodes) {
    return "tree_size " + std::to_string(s.tree_size) + "; allowed: 1 to " + std::to_string(vb::mla::kMaxTreeNodes);
  }
  if (s.num_heads < 1) return "num_heads " + std::to_string(s.num_heads) + "; allowed: 1 or more";
  if (s.max_kv_len < s.tree_size) {
    return "max_kv_len " + std::to_string(s.max_kv_len) + "; allowed: tree_size (" + std::to_string(s.tree_size) +
           ") or more (prefix + tree nodes of the longest request)";
  }
  // The planner's own bounds (query rows, KV length): its arithmetic is 32-bit.
  if (std::string why = vb::planner_shape_error(s.max_batch, s.tree_size, s.num_heads, s.max_kv_len, nullptr);
      !why.empty()) {
    return why;
  }
  if (s.page_size < 1) return "page_size " + std::to_string(s.page_size) + "; allowed: 1 or more";
  if (s.kv_dtype != VBOPS_DTYPE_INVALID && s.kv_dtype != VBOPS_DTYPE_BF16 && s.kv_dtype != VBOPS_DTYPE_FP8_E4M3) {
    return "kv_dtype " + std::to_string(s.kv_dtype) + " (" + vbops::dtype_name(s.kv_dtype) +
           "); allowed: VBOPS_DTYPE_BF16 (1, or 0) or VBOPS_DTYPE_FP8_E4M3 (9)";
  }
  if (s.math != VBOPS_MATH_BF16 && s.math != VBOPS_MATH_FP8) {
    return "math " + std::to_string(s.math) + "; allowed: VBOPS_MATH_BF16 (0) or VBOPS_MATH_FP8 (1)";
  }
  // fp8 math multiplies the pool's e4m3 tile: a bf16 pool has none.
  if (s.math == VBOPS_MATH_FP8 && s.kv_dtype != VBOPS_DTYPE_FP8_E4M3) {
    return "math 1 (VBOPS_MATH_FP8) with a bf16 pool (kv_dtype " + std::to_string(s.kv_dtype) +
           "); allowed: fp8 math with an fp8 pool only (kv_dtype VBOPS_DTYPE_FP8_E4M3, 9): a bf16 pool has no "
           "e4m3 tile to multiply";
  }
  return "";
}

std::string facts_check_text(const vbops_device_facts& f) {
  if (f.sm_count < 1) return "sm_count " + std::to_string(f.sm_count) + "; allowed: 1 or more";
  if (f.blocks_per_sm < 1) return "blocks_per_sm " + std::to_string(f.blocks_per_sm) + "; allowed: 1 or more";
  if (f.max_threads_per_sm < 32) {
    return "max_threads_per_sm " + std::to_string(f.max_threads_per_sm) + "; allowed: 32 or more";
  }
  if (f.smem_optin_bytes < 1) return "smem_optin_bytes " + std::to_string(f.smem_optin_bytes) + "; allowed: 1 or more";
  return "";
}

// The launch of `plan` for this call's batch, page table and pool (host arithmetic: no device
// call, so graph-capturable); refused when no built kernel serves it.
bool launch_plan_for(vbops::ArgCheck& check, const vbops_plan& plan, int batch, vb::PageTableKind kind,
                     int64_t pool_rows, vb::LaunchPlan* out) {
  if (!check.ok()) return false;
  *out = vbops::bridge::launch_plan(plan.planned, plan.shape, batch, kind, pool_rows);
  if (!out->valid) check.fail(VBOPS_ERROR_UNSUPPORTED, "plan: " + out->why_invalid);
  return check.ok();
}

// The batch a launch has (from `name`'s first extent less `minus`), checked against the plan.
int launch_batch(vbops::ArgCheck& check, const vbops_plan& plan, const char* name, const vbops_tensor& t,
                 int64_t minus) {
  if (!check.ok()) return 0;
  const int64_t batch = t.shape[0] - minus;
  if (batch < 1 || batch > plan.shape.max_batch) {
    check.fail(VBOPS_ERROR_SHAPE_EXCEEDS_PLAN,
               std::string(name) + ": shape " + vbops::shape_text(t) + " gives batch " + std::to_string(batch) +
                   "; the plan serves 1 to " + std::to_string(plan.shape.max_batch) + " requests");
    return 0;
  }
  return static_cast<int>(batch);
}

void check_heads(vbops::ArgCheck& check, const vbops_plan& plan, const char* name, const vbops_tensor& t) {
  if (check.ok() && t.ndim == 3 && t.shape[1] != plan.shape.num_heads) {
    check.fail(VBOPS_ERROR_SHAPE_EXCEEDS_PLAN, std::string(name) + ": " + std::to_string(t.shape[1]) +
                                                   " heads; the plan was made for num_heads " +
                                                   std::to_string(plan.shape.num_heads));
  }
}

void check_workspace(vbops::ArgCheck& check, const vbops_plan& plan, const void* workspace, std::size_t bytes) {
  if (!check.ok()) return;
  if (bytes < plan.total_bytes) {
    check.fail(VBOPS_ERROR_WORKSPACE_TOO_SMALL, "workspace: " + std::to_string(bytes) + " bytes; this plan needs " +
                                                    std::to_string(plan.total_bytes) +
                                                    " (vbops_plan_workspace_bytes)");
  } else if (plan.total_bytes > 0 && workspace == nullptr) {
    check.fail(VBOPS_ERROR_INVALID_ARGUMENT, "workspace: null; this plan needs " + std::to_string(plan.total_bytes) +
                                                 " bytes of device memory");
  } else if (reinterpret_cast<std::uintptr_t>(workspace) % kWorkspaceAlignment != 0) {
    check.fail(VBOPS_ERROR_INVALID_ARGUMENT, "workspace: not 256-byte aligned (cudaMalloc'd memory is)");
  }
}

// Device memory of the launch's device (or managed memory), for every given tensor: a host
// pointer carrying a device tag would otherwise fault on the GPU. A host-side query: no
// stream work, allowed inside a graph capture.
using Named = std::pair<const char*, const vbops_tensor*>;

vbops_status check_device_pointers(int device, std::initializer_list<Named> named) {
  for (const auto& [name, t] : named) {
    if (t->data == nullptr) continue;
    cudaPointerAttributes attributes{};
    if (cudaError_t err = cudaPointerGetAttributes(&attributes, t->data); err != cudaSuccess) {
      cudaGetLastError();
      return finish(VBOPS_ERROR_CUDA, std::string(name) + ": cudaPointerGetAttributes failed: " +
                                          cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
    }
    const bool device_memory = attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged;
    if (!device_memory || attributes.device != device) {
      return finish(VBOPS_ERROR_INVALID_ARGUMENT,
                    std::string(name) + ": not device memory of CUDA device " + std::to_string(device) +
                        (device_memory ? " (it is on device " + std::to_string(attributes.device) + ")"
                                       : " (host memory)"));
    }
  }
  return VBOPS_OK;
}

// The KV pool (kv_pool / k_buffer) in the plan's dtype: bf16, or fp8 e4m3 as itself or as its
// bytes (SGLang stores it as uint8 and views it as float8_e4m3fn). Returns its rows.
int64_t check_pool(vbops::ArgCheck& check, const vbops_plan& plan, const char* name, const vbops_tensor& t,
                   const std::string& meaning) {
  const bool fp8 = vbops::bridge::kv_dtype_of(plan.shape) == vb::KvDtype::kFp8E4m3;
  if (check.present(name, t) &&
      (fp8 ? t.dtype != VBOPS_DTYPE_FP8_E4M3 && t.dtype != VBOPS_DTYPE_U8 : t.dtype != VBOPS_DTYPE_BF16)) {
    check.fail(VBOPS_ERROR_INVALID_ARGUMENT,
               std::string(name) + ": dtype " + vbops::dtype_name(t.dtype) + "; allowed: " +
                   (fp8 ? "float8_e4m3 or uint8 (its bytes): the plan was made for an fp8 pool"
                        : "bfloat16: the plan was made for a bf16 pool (an fp8 pool needs a plan with kv_dtype "
                          "VBOPS_DTYPE_FP8_E4M3)"));
  }
  if (fp8) return check_row_table(check, name, t, kHeadDimQK, -1, meaning, {VBOPS_DTYPE_FP8_E4M3, VBOPS_DTYPE_U8});
  return check_row_table(check, name, t, kHeadDimQK, -1, meaning);
}

// The pool's dequantization scale the kernel gets: an fp8 pool's own (finite, above 0); 1 for
// a bf16 pool (which is not scaled: 0, a zero-initialised field, reads as 1).
float check_kv_scale(vbops::ArgCheck& check, const vbops_plan& plan, float kv_scale) {
  if (!check.ok()) return 1.f;
  if (vbops::bridge::kv_dtype_of(plan.shape) == vb::KvDtype::kFp8E4m3) {
    if (!vb::usable_fp8_kv_scale(kv_scale)) {
      check.fail(VBOPS_ERROR_INVALID_ARGUMENT, "kv_scale: " + float_text(kv_scale) +
                                                   "; an fp8 pool needs its dequantization scale: a finite value "
                                                   "above 0 (1 when the checkpoint ships none)");
    }
    return kv_scale;
  }
  if (kv_scale != 0.f && kv_scale != 1.f) {
    check.fail(VBOPS_ERROR_INVALID_ARGUMENT, "kv_scale: " + float_text(kv_scale) +
                                                 "; a bf16 pool is not scaled: allowed 1 (or 0, not given)");
  }
  return 1.f;
}

void check_sm_scale(vbops::ArgCheck& check, float sm_scale) {
  if (check.ok() && !(std::isfinite(sm_scale) && sm_scale > 0.f)) {
    check.fail(VBOPS_ERROR_INVALID_ARGUMENT,
               "sm_scale: " + float_text(sm_scale) + "; allowed: a finite value above 0");
  }
}

void check_outputs(vbops::ArgCheck& check, const vbops_tensor& o, const vbops_tensor& lse, int64_t rows, int heads,
                   const std::string& meaning, bool lse_optional) {
  const std::string o_meaning = "[B*T, H, 512] " + meaning;
  if (check.present("o", o) && check.dtype("o", o, {VBOPS_DTYPE_BF16}) &&
      check.shape("o", o, {rows, heads, kHeadDimV}, o_meaning) && check.contiguous("o", o)) {
    check.aligned("o", o, 4);
  }
  if (lse_optional && !check.given(lse)) return;
  if (check.present("lse", lse) && check.dtype("lse", lse, {VBOPS_DTYPE_F32}) &&
      check.shape("lse", lse, {rows, heads}, "[B*T, H] " + meaning) && check.contiguous("lse", lse)) {
    check.aligned("lse", lse, 4);
  }
}

// Native form: everything but the device pointers, into `p`.
void check_native(vbops::ArgCheck& check, const vbops_plan& plan, const vbops_native_args& a, vb::VerifyParams* p) {
  const int T = plan.shape.tree_size, H = plan.shape.num_heads;
  check_sm_scale(check, a.sm_scale);
  if (!(check.present("prefix_len", a.prefix_len) && check.dtype("prefix_len", a.prefix_len, {VBOPS_DTYPE_I32}) &&
        check.shape("prefix_len", a.prefix_len, {-1}, "[B]") && check.contiguous("prefix_len", a.prefix_len))) {
    return;
  }
  const int B = launch_batch(check, plan, "prefix_len", a.prefix_len, 0);
  const int64_t rows = static_cast<int64_t>(B) * T;
  const std::string meaning = "B=" + std::to_string(B) + " from prefix_len, T=" + std::to_string(T) +
                              " and H=" + std::to_string(H) + " from the plan";
  if (check.present("q", a.q) && check.dtype("q", a.q, {VBOPS_DTYPE_BF16})) {
    check_heads(check, plan, "q", a.q);
    check.shape("q", a.q, {rows, H, kHeadDimQK}, "[B*T, H, 576] " + meaning);
    check.contiguous("q", a.q);
    check.aligned("q", a.q, 16);
  }
  const int64_t pool_rows = check_pool(check, plan, "kv_pool", a.kv_pool, "[rows, 576] or [rows, 1, 576]");
  const float kv_scale = check_kv_scale(check, plan, a.kv_scale);
  if (check.given(a.tree_kv)) {
    // Tree rows have the pool's dtype (an fp8 pool's under its kv_scale).
    const std::string tree_meaning = "[B*T, 576] or [B*T, 1, 576] " + meaning;
    if (vbops::bridge::kv_dtype_of(plan.shape) == vb::KvDtype::kFp8E4m3) {
      check_row_table(check, "tree_kv", a.tree_kv, kHeadDimQK, rows, tree_meaning + ", fp8 like the pool",
                      {VBOPS_DTYPE_FP8_E4M3, VBOPS_DTYPE_U8});
    } else {
      check_row_table(check, "tree_kv", a.tree_kv, kHeadDimQK, rows, tree_meaning);
    }
  }
  const bool block_form = check.given(a.block_table);
  if (check.ok() && block_form && (check.given(a.kv_indptr) || check.given(a.kv_indices))) {
    check.fail(VBOPS_ERROR_INVALID_ARGUMENT,
               "block_table: given together with kv_indptr / kv_indices; pass one page-table form");
  }
  if (block_form) {
    if (check.present("block_table", a.block_table) && check.dtype("block_table", a.block_table, {VBOPS_DTYPE_I32}) &&
        check.shape("block_table", a.block_table, {B, -1}, "[B, max_pages] " + meaning)) {
      check.contiguous("block_table", a.block_table);
    }
  } else {
    if (check.present("kv_indptr", a.kv_indptr) && check.dtype("kv_indptr", a.kv_indptr, {VBOPS_DTYPE_I32})) {
      check.shape("kv_indptr", a.kv_indptr, {B + 1}, "[B+1] " + meaning);
      check.contiguous("kv_indptr", a.kv_indptr);
    }
    if (check.present("kv_indices", a.kv_indices) && check.dtype("kv_indices", a.kv_indices, {VBOPS_DTYPE_I64})) {
      check.shape("kv_indices", a.kv_indices, {-1}, "[n]");
      check.contiguous("kv_indices", a.kv_indices);
    }
  }
  const int mask_words = (T + vb::mla::kMaskWordBits - 1) / vb::mla::kMaskWordBits;
  if (check.present("tree_mask", a.tree_mask) &&
      check.dtype("tree_mask", a.tree_mask, {VBOPS_DTYPE_U64, VBOPS_DTYPE_I64}) &&
      check.shape("tree_mask", a.tree_mask, {B, T, mask_words}, "[B, T, ceil(T/64)] " + meaning)) {
    check.contiguous("tree_mask", a.tree_mask);
    check.aligned("tree_mask", a.tree_mask, 8);
  }
  check_outputs(check, a.o, a.lse, rows, H, meaning, false);
  int device = plan.device;
  for (const auto& [name, t] : {Named{"q", &a.q}, Named{"kv_pool", &a.kv_pool}, Named{"prefix_len", &a.prefix_len},
                                Named{"tree_kv", &a.tree_kv}, Named{"kv_indptr", &a.kv_indptr},
                                Named{"kv_indices", &a.kv_indices}, Named{"block_table", &a.block_table},
                                Named{"tree_mask", &a.tree_mask}, Named{"o", &a.o}, Named{"lse", &a.lse}}) {
    check.same_device(name, *t, &device);
  }
  if (!check.ok()) return;
  p->batch = B;
  p->tree_size = T;
  p->num_heads = H;
  p->sm_scale = a.sm_scale;
  p->q = static_cast<const vb::bf16_bits*>(a.q.data);
  p->kv_pool = a.kv_pool.data;
  p->kv_dtype = vbops::bridge::kv_dtype_of(plan.shape);
  p->kv_scale = kv_scale;
  p->pool_rows = pool_rows;
  p->prefix_len = static_cast<const std::int32_t*>(a.prefix_len.data);
  p->tree_kv = a.tree_kv.data;
  if (block_form) {
    p->page_kind = vb::PageTableKind::kBlockTable;
    p->block_table = static_cast<const std::int32_t*>(a.block_table.data);
    p->page_size = plan.shape.page_size;
    p->max_pages = static_cast<int>(a.block_table.shape[1]);
  } else {
    p->page_kind = vb::PageTableKind::kTokenIndices;
    p->kv_indptr = static_cast<const std::int32_t*>(a.kv_indptr.data);
    p->kv_indices = static_cast<const std::int64_t*>(a.kv_indices.data);
  }
  p->tree_mask = static_cast<const std::uint64_t*>(a.tree_mask.data);
  p->mask_words = mask_words;
  p->o = static_cast<vb::bf16_bits*>(const_cast<void*>(a.o.data));
  p->lse = static_cast<float*>(const_cast<void*>(a.lse.data));
}

// SGLang form: everything but the device pointers, into `in` (lse left null when dropped).
void check_sglang(vbops::ArgCheck& check, const vbops_plan& plan, const vbops_sglang_args& a,
                  vb::SglangVerifyInputs* in) {
  const int T = plan.shape.tree_size, H = plan.shape.num_heads;
  check_sm_scale(check, a.sm_scale);
  if (!(check.present("kv_indptr", a.kv_indptr) && check.dtype("kv_indptr", a.kv_indptr, {VBOPS_DTYPE_I32}) &&
        check.shape("kv_indptr", a.kv_indptr, {-1}, "[B+1]") && check.contiguous("kv_indptr", a.kv_indptr))) {
    return;
  }
  const int B = launch_batch(check, plan, "kv_indptr", a.kv_indptr, 1);
  const int64_t rows = static_cast<int64_t>(B) * T;
  const std::string meaning = "B=" + std::to_string(B) + " from kv_indptr, T=" + std::to_string(T) +
                              " and H=" + std::to_string(H) + " from the plan";
  if (check.present("q_extend", a.q_extend) && check.dtype("q_extend", a.q_extend, {VBOPS_DTYPE_BF16})) {
    check_heads(check, plan, "q_extend", a.q_extend);
    check.shape("q_extend", a.q_extend, {rows, H, kHeadDimQK}, "[B*T, H, 576] " + meaning);
    check.contiguous("q_extend", a.q_extend);
    check.aligned("q_extend", a.q_extend, 16);
  }
  check_row_table(check, "k_extend", a.k_extend, kHeadDimQK, rows, "[B*T, 1, 576] " + meaning);
  const int64_t pool_rows = check_pool(check, plan, "k_buffer", a.k_buffer, "[rows, 1, 576]");
  const float kv_scale = check_kv_scale(check, plan, a.kv_scale);
  for (const auto& [name, t, dtype] :
       {std::tuple{"qo_indptr", &a.qo_indptr, VBOPS_DTYPE_I32}, std::tuple{"mask_indptr", &a.mask_indptr, VBOPS_DTYPE_I64}}) {
    if (check.present(name, *t) && check.dtype(name, *t, {dtype})) {
      check.shape(name, *t, {B + 1}, "[B+1] " + meaning);
      check.contiguous(name, *t);
    }
  }
  if (check.present("kv_indices", a.kv_indices) && check.dtype("kv_indices", a.kv_indices, {VBOPS_DTYPE_I64})) {
    check.shape("kv_indices", a.kv_indices, {-1}, "[n]");
    check.contiguous("kv_indices", a.kv_indices);
  }
  if (check.present("custom_mask", a.custom_mask) &&
      check.dtype("custom_mask", a.custom_mask, {VBOPS_DTYPE_U8, VBOPS_DTYPE_BOOL})) {
    check.shape("custom_mask", a.custom_mask, {-1}, "[n], flat");
    check.contiguous("custom_mask", a.custom_mask);
  }
  check_outputs(check, a.o, a.lse, rows, H, meaning, true);
  int device = plan.device;
  for (const auto& [name, t] :
       {Named{"q_extend", &a.q_extend}, Named{"k_extend", &a.k_extend}, Named{"k_buffer", &a.k_buffer},
        Named{"qo_indptr", &a.qo_indptr}, Named{"kv_indptr", &a.kv_indptr}, Named{"kv_indices", &a.kv_indices},
        Named{"custom_mask", &a.custom_mask}, Named{"mask_indptr", &a.mask_indptr}, Named{"o", &a.o},
        Named{"lse", &a.lse}}) {
    check.same_device(name, *t, &device);
  }
  if (!check.ok()) return;
  in->batch = B;
  in->tree_size = T;
  in->num_heads = H;
  in->sm_scale = a.sm_scale;
  in->q = static_cast<const vb::bf16_bits*>(a.q_extend.data);
  in->k_extend = static_cast<const vb::bf16_bits*>(a.k_extend.data);
  in->v_extend = nullptr;  // not read: V is the first 512 values of the K row
  in->kv_buffer = a.k_buffer.data;
  in->kv_dtype = vbops::bridge::kv_dtype_of(plan.shape);
  in->kv_scale = kv_scale;
  in->pool_rows = pool_rows;
  in->qo_indptr = static_cast<const std::int32_t*>(a.qo_indptr.data);
  in->kv_indptr = static_cast<const std::int32_t*>(a.kv_indptr.data);
  in->kv_indices = static_cast<const std::int64_t*>(a.kv_indices.data);
  in->custom_mask = static_cast<const std::uint8_t*>(a.custom_mask.data);
  in->mask_indptr = static_cast<const std::int64_t*>(a.mask_indptr.data);
  in->o = static_cast<vb::bf16_bits*>(const_cast<void*>(a.o.data));
  in->lse = static_cast<float*>(const_cast<void*>(a.lse.data));
}

// The device every array is on (the plan's, or the first array's for a plan made from facts).
int launch_device(const vbops_plan& plan, const vbops_tensor& first) { return plan.device >= 0 ? plan.device : first.device; }

}  // namespace

extern "C" {

int vbops_abi_version(void) { return VBOPS_ABI_VERSION; }

const char* vbops_version(void) { return "verifybench-ops 0.3.0 (abi 3)"; }

const char* vbops_last_error(void) { return g_last_error.c_str(); }

vbops_status vbops_plan_create(const vbops_shape* shape, const vbops_device_facts* facts, const int32_t* kv_lens,
                               vbops_plan** out) {
  if (out == nullptr) return finish(VBOPS_ERROR_INVALID_ARGUMENT, "out: null; a vbops_plan* to write to is required");
  *out = nullptr;
  if (shape == nullptr) return finish(VBOPS_ERROR_INVALID_ARGUMENT, "shape: null");
  if (const std::string why = shape_check_text(*shape); !why.empty()) {
    return finish(VBOPS_ERROR_INVALID_ARGUMENT, "shape." + why);
  }
  for (int b = 0; kv_lens != nullptr && b < shape->max_batch; ++b) {
    if (kv_lens[b] < shape->tree_size || kv_lens[b] > shape->max_kv_len) {
      return finish(VBOPS_ERROR_INVALID_ARGUMENT, "kv_lens[" + std::to_string(b) + "]: " + std::to_string(kv_lens[b]) +
                                                      "; allowed: tree_size (" + std::to_string(shape->tree_size) +
                                                      ") to max_kv_len (" + std::to_string(shape->max_kv_len) + ")");
    }
  }
  vbops_device_facts queried{};
  int device = -1;
  if (facts == nullptr) {
    if (cudaError_t err = vbops::bridge::query_device(&device, &queried); err != cudaSuccess) {
      cudaGetLastError();
      return cuda_failure("device query (cudaGetDevice, occupancy)", err);
    }
    facts = &queried;
  } else if (const std::string why = facts_check_text(*facts); !why.empty()) {
    return finish(VBOPS_ERROR_INVALID_ARGUMENT, "facts." + why);
  }
  try {
    auto* plan = new vbops_plan{};
    plan->shape = *shape;
    plan->facts = *facts;
    plan->device = device;
    plan->planned = vbops::bridge::plan_for(*shape, *facts, kv_lens);
    const int B = shape->max_batch, T = shape->tree_size, H = shape->num_heads;
    const vb::PageTableKind kind = shape->page_size > 1 ? vb::PageTableKind::kBlockTable : vb::PageTableKind::kTokenIndices;
    const vb::LaunchPlan launch = vbops::bridge::launch_plan(plan->planned, *shape, B, kind, INT32_MAX);
    if (!launch.valid) {
      const std::string why = launch.why_invalid;
      delete plan;
      return finish(VBOPS_ERROR_UNSUPPORTED, "plan: " + why);
    }
    plan->description = vbops::bridge::describe(launch);
    plan->verify_bytes = align_up(vbops::bridge::verify_workspace_bytes(plan->planned, B, T, H));
    plan->scratch_offset = plan->verify_bytes;
    plan->scratch_bytes = align_up(vbops::bridge::sglang_scratch_bytes(B, T, vbops::bridge::kv_dtype_of(*shape)));
    plan->lse_offset = plan->scratch_offset + plan->scratch_bytes;
    plan->lse_bytes = align_up(static_cast<std::size_t>(B) * T * H * sizeof(float));
    plan->total_bytes = plan->lse_offset + plan->lse_bytes;
    *out = plan;
  } catch (const std::exception& e) {
    return finish(VBOPS_ERROR_INVALID_ARGUMENT, std::string("plan: ") + e.what());
  }
  return finish(VBOPS_OK, "");
}

void vbops_plan_destroy(vbops_plan* plan) { delete plan; }

size_t vbops_plan_workspace_bytes(const vbops_plan* plan) { return plan ? plan->total_bytes : 0; }

size_t vbops_plan_describe(const vbops_plan* plan, char* buffer, size_t capacity) {
  const std::string text = plan ? plan->description : std::string("no plan");
  if (buffer != nullptr && capacity > 0) {
    const std::size_t n = std::min(capacity - 1, text.size());
    std::memcpy(buffer, text.data(), n);
    buffer[n] = '\0';
  }
  return text.size();
}

vbops_shape vbops_plan_shape(const vbops_plan* plan) { return plan ? plan->shape : vbops_shape{}; }

vbops_status vbops_verify_native(const vbops_plan* plan, const vbops_native_args* args, void* workspace,
                                 size_t workspace_bytes, void* stream) {
  if (plan == nullptr) return finish(VBOPS_ERROR_INVALID_ARGUMENT, "plan: null (vbops_plan_create makes one)");
  if (args == nullptr) return finish(VBOPS_ERROR_INVALID_ARGUMENT, "args: null");
  vbops::ArgCheck check;
  vb::VerifyParams params;
  vb::LaunchPlan launch;
  check_native(check, *plan, *args, &params);
  check_workspace(check, *plan, workspace, workspace_bytes);
  launch_plan_for(check, *plan, params.batch, params.page_kind, params.pool_rows, &launch);
  if (!check.ok()) return finish(check);
  const vbops_native_args& a = *args;
  if (vbops_status s = check_device_pointers(launch_device(*plan, a.q), {Named{"q", &a.q}, Named{"kv_pool", &a.kv_pool},
                                             Named{"prefix_len", &a.prefix_len}, Named{"tree_kv", &a.tree_kv},
                                             Named{"kv_indptr", &a.kv_indptr}, Named{"kv_indices", &a.kv_indices},
                                             Named{"block_table", &a.block_table}, Named{"tree_mask", &a.tree_mask},
                                             Named{"o", &a.o}, Named{"lse", &a.lse}});
      s != VBOPS_OK) {
    return s;
  }
  if (cudaError_t err = vbops::bridge::launch_native(params, launch, workspace, plan->verify_bytes,
                                                     static_cast<cudaStream_t>(stream));
      err != cudaSuccess) {
    cudaGetLastError();
    return cuda_failure("flash_verify_launch", err);
  }
  return finish(VBOPS_OK, "");
}

vbops_status vbops_verify_sglang(const vbops_plan* plan, const vbops_sglang_args* args, void* workspace,
                                 size_t workspace_bytes, void* stream) {
  if (plan == nullptr) return finish(VBOPS_ERROR_INVALID_ARGUMENT, "plan: null (vbops_plan_create makes one)");
  if (args == nullptr) return finish(VBOPS_ERROR_INVALID_ARGUMENT, "args: null");
  vbops::ArgCheck check;
  vb::SglangVerifyInputs inputs;
  vb::LaunchPlan launch;
  check_sglang(check, *plan, *args, &inputs);
  check_workspace(check, *plan, workspace, workspace_bytes);
  launch_plan_for(check, *plan, inputs.batch, vb::PageTableKind::kTokenIndices, inputs.pool_rows, &launch);
  if (!check.ok()) return finish(check);
  const vbops_sglang_args& a = *args;
  if (vbops_status s = check_device_pointers(
          launch_device(*plan, a.q_extend), {Named{"q_extend", &a.q_extend}, Named{"k_extend", &a.k_extend},
          Named{"k_buffer", &a.k_buffer}, Named{"qo_indptr", &a.qo_indptr}, Named{"kv_indptr", &a.kv_indptr},
          Named{"kv_indices", &a.kv_indices}, Named{"custom_mask", &a.custom_mask},
          Named{"mask_indptr", &a.mask_indptr}, Named{"o", &a.o}, Named{"lse", &a.lse}});
      s != VBOPS_OK) {
    return s;
  }
  auto* base = static_cast<unsigned char*>(workspace);
  if (inputs.lse == nullptr) inputs.lse = reinterpret_cast<float*>(base + plan->lse_offset);
  if (cudaError_t err = vbops::bridge::launch_sglang(inputs, launch, base + plan->scratch_offset,
                                                     plan->scratch_bytes, workspace, plan->verify_bytes,
                                                     static_cast<cudaStream_t>(stream));
      err != cudaSuccess) {
    cudaGetLastError();
    return cuda_failure("sglang_verify_launch", err);
  }
  return finish(VBOPS_OK, "");
}

}  // extern "C"

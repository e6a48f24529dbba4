// SGLang Triton verify interface -> VerifyParams, converted on the device.
//
// SGLang hands tree verify to its extend-attention kernel (docs/background.md §2): prefix rows via
// kv_indptr / int64 kv_indices, tree rows as dense k_extend, visibility as a flat uint8
// custom mask with per-request mask_indptr. One small kernel derives what the production
// kernel reads instead: prefix_len[b] = kv_indptr[b+1] - kv_indptr[b] and the packed
// ancestor bitmask words of every node. The production kernel is launched over it and,
// where that pays, takes the lengths from kv_indptr itself and waits for it only before
// reading the mask (the combine reads the lengths it wrote). No host round trip, so the
// adapter is graph-capturable like the kernel itself. v_extend is not read: in absorbed MLA
// it equals k_extend[..., :512], and the kernel takes V from the K row. Over an fp8 pool the
// same kernel quantizes each node's k_extend row into fp8 tree rows (as SGLang writes it into
// the cache); the production kernel then waits for it at entry, since its producers read
// those rows before the mask.
#include <cuda_bf16.h>
#include <cuda_fp8.h>

#include <cstdint>

#include "common/launch_config.h"
#include "common/warp_ops.cuh"
#include "verifybench/kernels.h"

namespace vb {
namespace {

constexpr int kPackThreads = 32;

struct AdapterScratch {
  std::int32_t* prefix_len;    // [B]
  std::uint64_t* tree_mask;    // [B, T, mask_words]
  fp8_e4m3_bits* tree_rows;    // [B*T, 576] fp8 pool only: k_extend quantized
};

std::size_t align_up(std::size_t x, std::size_t a) { return (x + a - 1) / a * a; }
int mask_words_for(int tree_size) { return (tree_size + mla::kMaskWordBits - 1) / mla::kMaskWordBits; }

std::size_t mask_scratch_bytes(int batch, int tree_size) {
  return align_up(static_cast<std::size_t>(batch) * tree_size * mask_words_for(tree_size) * 8, 256);
}

AdapterScratch carve_scratch(void* base, int batch, int tree_size, KvDtype kv_dtype) {
  auto* bytes = static_cast<unsigned char*>(base);
  const std::size_t lengths = align_up(static_cast<std::size_t>(batch) * 4, 256);
  return {reinterpret_cast<std::int32_t*>(bytes), reinterpret_cast<std::uint64_t*>(bytes + lengths),
          kv_dtype == KvDtype::kFp8E4m3 ? bytes + lengths + mask_scratch_bytes(batch, tree_size) : nullptr};
}

// Node `row`'s k_extend row into fp8: x / kv_scale in fp32, then round to nearest even with
// saturation (the harness's quantize_kv_pool does the same arithmetic on the host).
__device__ void quantize_tree_row(const SglangVerifyInputs& in, fp8_e4m3_bits* out, std::int64_t row) {
  const __nv_bfloat16* src = reinterpret_cast<const __nv_bfloat16*>(in.k_extend) + row * mla::kHeadDimQK;
  for (int c = threadIdx.x; c < mla::kHeadDimQK; c += kPackThreads) {
    out[row * mla::kHeadDimQK + c] =
        __nv_cvt_float_to_fp8(__bfloat162float(src[c]) / in.kv_scale, __NV_SATFINITE, __NV_E4M3);
  }
}

// One block per (request, node); thread w packs mask word w of that node's row.
__global__ void __launch_bounds__(kPackThreads)
    pack_sglang_mask_kernel(const SglangVerifyInputs in, const AdapterScratch out, const int mask_words) {
  // The production kernel, launched over this one, may start now: it waits (griddepcontrol.wait)
  // for this grid to finish before it reads what this writes.
  warp::launch_dependents();
  // Launched over the caller's previous kernel (options.overlap_previous_kernel): read nothing
  // before it has finished. Returns at once in an ordinary launch.
  warp::wait_for_prerequisite_grid();
  const int b = blockIdx.x / in.tree_size;
  const int node = blockIdx.x % in.tree_size;
  const int prefix = in.kv_indptr[b + 1] - in.kv_indptr[b];
  if (node == 0 && threadIdx.x == 0) out.prefix_len[b] = prefix;
  if (out.tree_rows != nullptr) quantize_tree_row(in, out.tree_rows, blockIdx.x);
  const std::uint8_t* row = in.custom_mask + in.mask_indptr[b] +
                            static_cast<std::int64_t>(node) * (prefix + in.tree_size) + prefix;
  for (int w = threadIdx.x; w < mask_words; w += kPackThreads) {
    std::uint64_t word = 0;
    const int j_end = min(in.tree_size, (w + 1) * mla::kMaskWordBits);
    for (int j = w * mla::kMaskWordBits; j < j_end; ++j) {
      if (row[j] != 0) word |= std::uint64_t{1} << (j % mla::kMaskWordBits);
    }
    out.tree_mask[(static_cast<std::int64_t>(b) * in.tree_size + node) * mask_words + w] = word;
  }
}

}  // namespace

std::size_t sglang_adapter_scratch_bytes(int batch, int tree_size, KvDtype kv_dtype) {
  const std::size_t fp8_rows =
      kv_dtype == KvDtype::kFp8E4m3 ? static_cast<std::size_t>(batch) * tree_size * mla::kHeadDimQK : 0;
  return align_up(static_cast<std::size_t>(batch) * 4, 256) + mask_scratch_bytes(batch, tree_size) + fp8_rows;
}

cudaError_t sglang_verify_launch(const SglangVerifyInputs& in, const LaunchPlan& plan,
                                 void* scratch, std::size_t scratch_bytes, void* workspace,
                                 std::size_t workspace_bytes, cudaStream_t stream,
                                 const FlashVerifyLaunchOptions& options) {
  if (in.batch <= 0 || in.tree_size <= 0 || in.tree_size > mla::kMaxTreeNodes || in.num_heads <= 0) {
    return cudaErrorInvalidValue;
  }
  if (!in.q || !in.k_extend || !in.kv_buffer || !in.kv_indptr || !in.kv_indices || !in.custom_mask ||
      !in.mask_indptr || !in.o || !in.lse || !scratch ||
      scratch_bytes < sglang_adapter_scratch_bytes(in.batch, in.tree_size, in.kv_dtype)) {
    return cudaErrorInvalidValue;
  }
  const bool fp8 = in.kv_dtype == KvDtype::kFp8E4m3;
  if (fp8 && !usable_fp8_kv_scale(in.kv_scale)) return cudaErrorInvalidValue;
  const int mask_words = mask_words_for(in.tree_size);
  const AdapterScratch s = carve_scratch(scratch, in.batch, in.tree_size, in.kv_dtype);
  cudaLaunchAttribute attribute{};
  const cudaLaunchConfig_t config = detail::launch_config(dim3(static_cast<unsigned>(in.batch * in.tree_size)),
                                                          dim3(kPackThreads), 0, stream,
                                                          options.overlap_previous_kernel, &attribute);
  if (cudaError_t err = cudaLaunchKernelEx(&config, pack_sglang_mask_kernel, in, s, mask_words); err != cudaSuccess) {
    return err;
  }

  VerifyParams p;
  p.batch = in.batch;
  p.tree_size = in.tree_size;
  p.num_heads = in.num_heads;
  p.sm_scale = in.sm_scale;
  p.q = in.q;
  p.kv_pool = in.kv_buffer;
  p.kv_dtype = in.kv_dtype;
  p.kv_scale = fp8 ? in.kv_scale : 1.f;
  p.pool_rows = in.pool_rows;
  p.prefix_len = s.prefix_len;
  p.tree_kv = fp8 ? static_cast<const void*>(s.tree_rows) : in.k_extend;
  p.page_kind = PageTableKind::kTokenIndices;
  p.kv_indptr = in.kv_indptr;
  p.kv_indices = in.kv_indices;
  p.tree_mask = s.tree_mask;
  p.mask_words = mask_words;
  p.o = in.o;
  p.lse = in.lse;
  FlashVerifyLaunchOptions over_pack;
  over_pack.overlap_previous_kernel = true;
  // The production kernel takes the lengths from kv_indptr and waits for the packing kernel
  // only before reading the mask, where the plan says that pays. That needs every other input
  // complete before the packing kernel starts: not so when it was launched over the caller's
  // previous kernel, which lets the production kernel start before that one has finished.
  // Otherwise it waits at entry, as it does over an fp8 pool, whose tree rows the packing
  // kernel writes too.
  over_pack.previous_kernel_writes_only_mask_and_lengths =
      !options.overlap_previous_kernel && plan.adapter_waits_only_before_mask && !fp8;
  return flash_verify_launch(p, plan, workspace, workspace_bytes, stream, over_pack);
}

}  // namespace vb

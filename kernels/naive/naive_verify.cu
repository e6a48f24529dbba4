// Naive gather baseline: the second oracle, deliberately plain.
//
// One warp (one thread block of 32 threads) owns one query row (request b, node i,
// head h) and walks every logical token of the request in order: visible tokens get a
// full 576-wide dot product (lane l holds columns 2l+64k, 2l+64k+1), a warp-shuffle
// reduction and an fp32 online-softmax update of the 512 V channels (the first 8 of the
// 9 column pairs each lane already loaded). No tiling, no splitting, no length ceiling;
// every row re-reads the whole prefix. Writes O (bf16) and LSE (natural log) directly.
// An fp8 e4m3 pool (the kFp8Kv kernel) is read as its dequantized values: each e4m3 pair
// widened to float and multiplied by kv_scale; so are fp8 tree_kv rows.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cmath>

#include "verifybench/kernels.h"

namespace vb {
namespace {

constexpr int kLanes = 32;
constexpr int kPairsPerLaneK = mla::kHeadDimQK / (2 * kLanes);  // 9 bf16 pairs of K
constexpr int kPairsPerLaneV = mla::kHeadDimV / (2 * kLanes);   // 8 bf16 pairs of V
static_assert(kPairsPerLaneK * 2 * kLanes == mla::kHeadDimQK, "576 must split over a warp");
static_assert(kPairsPerLaneV * 2 * kLanes == mla::kHeadDimV, "512 must split over a warp");

// Pair k of this lane (columns 2(lane + 32k), +1) of logical token t's K row, as floats.
template <bool kFp8Kv>
__device__ __forceinline__ void load_kv_pairs(const VerifyParams& p, int b, int t, int lane,
                                              float2 (&kv)[kPairsPerLaneK]) {
  if (kFp8Kv) {
    const auto* k2 = reinterpret_cast<const __nv_fp8x2_storage_t*>(p.kv_row_fp8(b, t));
#pragma unroll
    for (int k = 0; k < kPairsPerLaneK; ++k) {
      const float2 v = __half22float2(__half2(__nv_cvt_fp8x2_to_halfraw2(k2[lane + k * kLanes], __NV_E4M3)));
      kv[k] = make_float2(v.x * p.kv_scale, v.y * p.kv_scale);
    }
    return;
  }
  const auto* k2 = reinterpret_cast<const __nv_bfloat162*>(p.kv_row_ptr(b, t));
#pragma unroll
  for (int k = 0; k < kPairsPerLaneK; ++k) kv[k] = __bfloat1622float2(k2[lane + k * kLanes]);
}

template <bool kFp8Kv>
__global__ void __launch_bounds__(kLanes) naive_verify_kernel(const VerifyParams p) {
  const std::int64_t row = blockIdx.x;  // (b*T + node)*H + head; the head only picks q
  const int node = static_cast<int>((row / p.num_heads) % p.tree_size);
  const int b = static_cast<int>(row / (static_cast<std::int64_t>(p.num_heads) * p.tree_size));
  const int lane = threadIdx.x;

  const auto* q2 = reinterpret_cast<const __nv_bfloat162*>(p.q + row * mla::kHeadDimQK);
  float2 q[kPairsPerLaneK];
#pragma unroll
  for (int k = 0; k < kPairsPerLaneK; ++k) q[k] = __bfloat1622float2(q2[lane + k * kLanes]);

  float running_max = -INFINITY;
  float running_sum = 0.f;
  float2 acc[kPairsPerLaneV];
#pragma unroll
  for (int k = 0; k < kPairsPerLaneV; ++k) acc[k] = make_float2(0.f, 0.f);

  const int kv_len = p.kv_len(b);
  for (int t = 0; t < kv_len; ++t) {
    if (!token_visible(p, b, node, t)) continue;
    float2 kv[kPairsPerLaneK];
    load_kv_pairs<kFp8Kv>(p, b, t, lane, kv);
    float dot = 0.f;
#pragma unroll
    for (int k = 0; k < kPairsPerLaneK; ++k) {
      dot = fmaf(q[k].x, kv[k].x, dot);
      dot = fmaf(q[k].y, kv[k].y, dot);
    }
#pragma unroll
    for (int offset = kLanes / 2; offset > 0; offset /= 2) {
      dot += __shfl_xor_sync(0xffffffffu, dot, offset);
    }
    const float score = dot * p.sm_scale;
    const float new_max = fmaxf(running_max, score);
    const float rescale = expf(running_max - new_max);  // 0 on the first visible token
    const float weight = expf(score - new_max);
    running_sum = running_sum * rescale + weight;
#pragma unroll
    for (int k = 0; k < kPairsPerLaneV; ++k) {
      acc[k].x = acc[k].x * rescale + weight * kv[k].x;
      acc[k].y = acc[k].y * rescale + weight * kv[k].y;
    }
    running_max = new_max;
  }

  // Every node sees itself, so running_sum > 0 for any valid problem.
  const float inv_sum = 1.f / running_sum;
  auto* o2 = reinterpret_cast<__nv_bfloat162*>(p.o + row * mla::kHeadDimV);
#pragma unroll
  for (int k = 0; k < kPairsPerLaneV; ++k) {
    o2[lane + k * kLanes] = __floats2bfloat162_rn(acc[k].x * inv_sum, acc[k].y * inv_sum);
  }
  if (lane == 0) p.lse[row] = running_max + logf(running_sum);
}

}  // namespace

cudaError_t naive_verify_launch(const VerifyParams& params, cudaStream_t stream) {
  const std::int64_t rows =
      static_cast<std::int64_t>(params.batch) * params.tree_size * params.num_heads;
  if (rows <= 0) return cudaErrorInvalidValue;
  if (rows > 0x7fffffffLL) return cudaErrorInvalidConfiguration;
  if (params.kv_is_fp8()) {
    if (!usable_fp8_kv_scale(params.kv_scale)) return cudaErrorInvalidValue;
    naive_verify_kernel<true><<<static_cast<unsigned>(rows), kLanes, 0, stream>>>(params);
  } else {
    naive_verify_kernel<false><<<static_cast<unsigned>(rows), kLanes, 0, stream>>>(params);
  }
  return cudaGetLastError();
}

}  // namespace vb

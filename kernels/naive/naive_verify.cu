// Naive gather baseline: the second oracle, deliberately plain.
//
// One warp (one thread block of 32 threads) owns one query row (request b, node i,
// head h) and walks every logical token of the request in order: visible tokens get a
// full 576-wide dot product (lane l holds columns 2l+64k, 2l+64k+1), a warp-shuffle
// reduction and an fp32 online-softmax update of the 512 V channels (the first 8 of the
// 9 column pairs each lane already loaded). No tiling, no splitting, no length ceiling;
// every row re-reads the whole prefix. Writes O (bf16) and LSE (natural log) directly.
#include <cuda_bf16.h>

#include <cmath>

#include "verifybench/kernels.h"

namespace vb {
namespace {

constexpr int kLanes = 32;
constexpr int kPairsPerLaneK = mla::kHeadDimQK / (2 * kLanes);  // 9 bf16 pairs of K
constexpr int kPairsPerLaneV = mla::kHeadDimV / (2 * kLanes);   // 8 bf16 pairs of V
static_assert(kPairsPerLaneK * 2 * kLanes == mla::kHeadDimQK, "576 must split over a warp");
static_assert(kPairsPerLaneV * 2 * kLanes == mla::kHeadDimV, "512 must split over a warp");

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
    const auto* k2 = reinterpret_cast<const __nv_bfloat162*>(p.kv_row_ptr(b, t));
    float2 kv[kPairsPerLaneK];
    float dot = 0.f;
#pragma unroll
    for (int k = 0; k < kPairsPerLaneK; ++k) {
      kv[k] = __bfloat1622float2(k2[lane + k * kLanes]);
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
  naive_verify_kernel<<<static_cast<unsigned>(rows), kLanes, 0, stream>>>(params);
  return cudaGetLastError();
}

}  // namespace vb

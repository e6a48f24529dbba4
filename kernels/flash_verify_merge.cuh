// The split merge inside the main kernel (the wgmma path, kernels/flash_verify_wgmma_sm90a.cu):
// the blocks that hold a request's last partials merge its rows themselves, so no combine
// kernel runs after the main one.
//
// Why: the separate combine cost the tile-balanced batches 7-11 us after the main kernel
// (H200, reports/h200/2026-11-30-prefetch): ~1.4 us before its blocks were past the grid
// wait, then the longest request's rows, whose few combine threads walked 16-49 partials
// 4 loads at a time. More combine blocks for those rows took a second wave (v9). Here the
// merge runs on blocks that are resident anyway, 256 threads each, with all of a thread's
// loads in flight at once.
//
// Protocol, per request and 64-row tile (one 32-bit counter in the workspace):
//  - every block that wrote a partial of the request arrives once per consumer warpgroup,
//    after its stores (release at GPU scope): 2 x slots arrivals;
//  - the request's mergers (launcher: every block is resident, cooperative launch) wait for
//    all arrivals (acquire), each merges an equal share of the rows' 16-byte chunks, and
//    departs; the last to depart sets the counter back to 0 for the next launch.
// A counter that reads more than the protocol can produce (a workspace whose counters were
// not zeroed before its first use) or that never completes traps (the launch fails) instead
// of merging garbage or hanging. (No printf: its argument buffer is local memory, which the
// build refuses.)
#pragma once
#include <cuda_bf16.h>

#include <cmath>
#include <cstdint>

#include "flash_verify_split.h"
#include "warp_mma.cuh"

namespace vb::detail {

constexpr int kMergeThreads = 256;  // the two consumer warpgroups
constexpr int kMergeChunks = mla::kHeadDimV / 4;  // 16-byte chunks (4 fp32 channels) of a partial row: 128
constexpr int kMergeMaxLoads = 16;  // a thread's partial loads in flight at once

__device__ __forceinline__ void red_release_add(unsigned* counter, unsigned v) {
  asm volatile("red.release.gpu.global.add.u32 [%0], %1;\n" ::"l"(counter), "r"(v) : "memory");
}
__device__ __forceinline__ unsigned ld_acquire(const unsigned* counter) {
  unsigned v;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n" : "=r"(v) : "l"(counter) : "memory");
  return v;
}
__device__ __forceinline__ std::uint64_t global_timer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;\n" : "=l"(t));
  return t;
}

// One warpgroup's arrival for the partial it has just stored (all its threads call it;
// `barrier_id` is the warpgroup's own named barrier).
__device__ __forceinline__ void merge_arrive(unsigned* counter, int barrier_id, int wg_tid) {
  warp::named_barrier_sync(barrier_id, 128);  // every thread's partial stores come first
  if (wg_tid == 0) red_release_add(counter, 1);
}

// Thread 0 of the mergers: waits for `arrivals`; anything above `ceiling` cannot come from
// the protocol. Traps after 10 s (a counter left nonzero would otherwise hang the launch).
__device__ __forceinline__ void merge_wait(const unsigned* counter, unsigned arrivals, unsigned ceiling) {
  const std::uint64_t start = global_timer_ns();
  for (unsigned spins = 0;; ++spins) {
    const unsigned v = ld_acquire(counter);
    if (v > ceiling) __trap();  // not from this launch: the counters were not zeroed before first use
    if (v >= arrivals) return;
    __nanosleep(64);
    if ((spins & 1023) == 1023 && global_timer_ns() - start > 10000000000ull) __trap();  // never completes
  }
}

// What a merger block merges: rows [0, rows) of one 64-row tile of request rows starting
// at out_row0, whose partial for (row r, slot s) is part_base + r * row_stride + s *
// slot_stride; this block's share is merger `merger` of `mergers`.
struct MergeJob {
  unsigned* counter;
  std::int64_t out_row0;
  std::int64_t part_base;
  int row_stride, slot_stride;
  int rows, slots;
  int merger, mergers;
};

// Phase 2 for a class of slot counts: kSlots slots (masked above job.slots) of kUnits
// chunks per thread per round, every load of the round in flight at once; `lanes` threads
// share one chunk's slots (kUnits == 1 only) and sum through shuffles.
template <int kSlots, int kUnits>
__device__ __forceinline__ void merge_chunks(const VerifyParams& p, const SplitWorkspace& ws, const MergeJob& job,
                                             const float* s_weight, int row_lo, int u_begin, int u_end, int lanes,
                                             int t) {
  static_assert(kSlots * kUnits <= kMergeMaxLoads, "loads in flight");
  const int units = u_end - u_begin;
  const int groups = kMergeThreads / lanes;
  const int g = t / lanes, sub = t % lanes;
  const int g_warp0 = (t & ~31) / lanes;  // the warp's first group runs the most rounds
  const int per_round = groups * kUnits;
  const int rounds = g_warp0 < units ? (units - g_warp0 + per_round - 1) / per_round : 0;
  for (int round = 0; round < rounds; ++round) {
    float4 acc[kUnits];
    int unit[kUnits];
#pragma unroll
    for (int q = 0; q < kUnits; ++q) {
      acc[q] = make_float4(0.f, 0.f, 0.f, 0.f);
      unit[q] = (round * kUnits + q) * groups + g;
    }
    for (int s0 = sub; s0 < job.slots; s0 += lanes * kSlots) {
      float4 v[kUnits][kSlots];
#pragma unroll
      for (int q = 0; q < kUnits; ++q) {
        const int u = u_begin + unit[q];
        const std::int64_t part = job.part_base + static_cast<std::int64_t>(u / kMergeChunks) * job.row_stride;
#pragma unroll
        for (int k = 0; k < kSlots; ++k) {
          const int s = s0 + k * lanes;
          v[q][k] = unit[q] < units && s < job.slots
                        ? __ldcg(reinterpret_cast<const float4*>(
                              ws.o_partial + (part + static_cast<std::int64_t>(s) * job.slot_stride) * mla::kHeadDimV) +
                                 u % kMergeChunks)
                        : make_float4(0.f, 0.f, 0.f, 0.f);
        }
      }
#pragma unroll
      for (int q = 0; q < kUnits; ++q) {
        const int r = (u_begin + unit[q]) / kMergeChunks - row_lo;
#pragma unroll
        for (int k = 0; k < kSlots; ++k) {
          const int s = s0 + k * lanes;
          const float w = unit[q] < units && s < job.slots ? s_weight[r * job.slots + s] : 0.f;
          acc[q].x += w * v[q][k].x; acc[q].y += w * v[q][k].y; acc[q].z += w * v[q][k].z; acc[q].w += w * v[q][k].w;
        }
      }
    }
#pragma unroll
    for (int q = 0; q < kUnits; ++q) {
      for (int offset = lanes / 2; offset > 0; offset /= 2) {  // lanes > 1 only with kUnits == 1
        acc[q].x += __shfl_xor_sync(0xffffffffu, acc[q].x, offset);
        acc[q].y += __shfl_xor_sync(0xffffffffu, acc[q].y, offset);
        acc[q].z += __shfl_xor_sync(0xffffffffu, acc[q].z, offset);
        acc[q].w += __shfl_xor_sync(0xffffffffu, acc[q].w, offset);
      }
      if (unit[q] < units && sub == 0) {
        const int u = u_begin + unit[q];
        auto* o2 = reinterpret_cast<__nv_bfloat162*>(p.o + (job.out_row0 + u / kMergeChunks) * mla::kHeadDimV +
                                                     (u % kMergeChunks) * 4);
        o2[0] = __floats2bfloat162_rn(acc[q].x, acc[q].y);
        o2[1] = __floats2bfloat162_rn(acc[q].z, acc[q].w);
      }
    }
  }
}

// The merge itself, by the kMergeThreads consumer threads (t = 0 ..) of a merger block;
// `s_scratch` is free shared memory for rows x slots floats (64 x kMaxSplits at most).
__device__ __forceinline__ void merge_request_rows(const VerifyParams& p, const SplitWorkspace& ws,
                                                   const MergeJob& job, float* s_scratch, int barrier_id, int t) {
  if (t == 0) merge_wait(job.counter, 2u * job.slots, 2u * job.slots + job.mergers - 1);
  warp::named_barrier_sync(barrier_id, kMergeThreads);
  if (t == 0) {  // every merger departs once it has seen all arrivals; the last one resets
    const unsigned seen = atomicAdd(job.counter, 1u);
    if (seen == 2u * job.slots + job.mergers - 1) atomicExch(job.counter, 0u);
  }
  // This block's chunks: an equal share of rows x 128.
  const int total = job.rows * kMergeChunks;
  const int u_begin = static_cast<int>(static_cast<std::int64_t>(job.merger) * total / job.mergers);
  const int u_end = static_cast<int>(static_cast<std::int64_t>(job.merger + 1) * total / job.mergers);
  if (u_begin >= u_end) return;
  const int row_lo = u_begin / kMergeChunks;
  const int nrows = (u_end - 1) / kMergeChunks - row_lo + 1;

  // Phase 1: the rows' split LSEs, then per row (a warp each) the normalised weights, and
  // the final LSE from the block that holds the row's first chunk.
  const int pairs = nrows * job.slots;
  for (int i0 = t; i0 < pairs; i0 += kMergeThreads * 8) {
    float l[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const int i = i0 + k * kMergeThreads;
      const int r = row_lo + i / job.slots;
      l[k] = i < pairs ? __ldcg(ws.lse_partial + job.part_base + static_cast<std::int64_t>(r) * job.row_stride +
                                static_cast<std::int64_t>(i % job.slots) * job.slot_stride)
                       : 0.f;
    }
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      if (i0 + k * kMergeThreads < pairs) s_scratch[i0 + k * kMergeThreads] = l[k];
    }
  }
  warp::named_barrier_sync(barrier_id, kMergeThreads);
  const int lane = t % 32;
  for (int r = t / 32; r < nrows; r += kMergeThreads / 32) {
    float* w = s_scratch + r * job.slots;
    float m = -INFINITY;
    for (int s = lane; s < job.slots; s += 32) m = fmaxf(m, w[s]);
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, offset));
    // A split whose tokens this row cannot see has LSE -inf (weight 0); every row sees
    // itself in one split, so m is finite.
    float sum = 0.f;
    for (int s = lane; s < job.slots; s += 32) sum += expf(w[s] - m);
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
    const float inv = 1.f / sum;
    for (int s = lane; s < job.slots; s += 32) w[s] = expf(w[s] - m) * inv;
    if (lane == 0 && (row_lo + r) * kMergeChunks >= u_begin) p.lse[job.out_row0 + row_lo + r] = m + logf(sum);
  }
  warp::named_barrier_sync(barrier_id, kMergeThreads);

  // Phase 2: the O chunks, every load of a round in flight; slot classes keep the register
  // arrays static. Many slots and few chunks: `lanes` threads per chunk split its slots.
  const int units = u_end - u_begin;
  if (job.slots <= 2) {
    merge_chunks<2, 8>(p, ws, job, s_scratch, row_lo, u_begin, u_end, 1, t);
  } else if (job.slots <= 4) {
    merge_chunks<4, 4>(p, ws, job, s_scratch, row_lo, u_begin, u_end, 1, t);
  } else if (job.slots <= 8) {
    merge_chunks<8, 2>(p, ws, job, s_scratch, row_lo, u_begin, u_end, 1, t);
  } else {
    int lanes = 1;
    while (lanes < 32 && lanes * 2 * units <= kMergeThreads && lanes * kMergeMaxLoads < job.slots) lanes *= 2;
    merge_chunks<kMergeMaxLoads, 1>(p, ws, job, s_scratch, row_lo, u_begin, u_end, lanes, t);
  }
}

}  // namespace vb::detail

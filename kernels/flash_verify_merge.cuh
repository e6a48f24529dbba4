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
//  - every block that wrote a partial of the request arrives once, after both consumer
//    warpgroups' stores (release at GPU scope): `slots` arrivals;
//  - the request's mergers (every block that wrote one of its partials; the launcher has made
//    every block resident, cooperative launch) wait for all arrivals (acquire), depart, and
//    each merges an equal share of the rows' 16-byte chunks; the last to depart sets the
//    counter back to 0 for the next launch.
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

// A block's arrival for the partial it has just stored, by the second PV warpgroup (all its
// threads call it): `barrier_id` is the one the softmax warpgroup arrives on after its stores.
__device__ __forceinline__ void merge_arrive(unsigned* counter, int barrier_id, int wg_tid) {
  warp::named_barrier_sync(barrier_id, kMergeThreads);  // every consumer thread's partial stores come first
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

// The kMergeThreads consumer threads (t = 0 ..) of a merger block: until every partial of the
// request is in (thread 0 waits, the barrier holds the others), then this block's departure.
__device__ __forceinline__ void merge_wait_all(const MergeJob& job, int barrier_id, int t) {
  if (t == 0) merge_wait(job.counter, job.slots, job.slots + job.mergers - 1);
  warp::named_barrier_sync(barrier_id, kMergeThreads);
  if (t == 0) {  // every merger departs once it has seen all arrivals; the last one resets
    const unsigned seen = atomicAdd(job.counter, 1u);
    if (seen == static_cast<unsigned>(job.slots + job.mergers - 1)) atomicExch(job.counter, 0u);
  }
}

// (max, sum, acc) of LSE-weighted partials, merged online: weights are exp(lse - max).
struct MergeState {
  float max = -INFINITY, sum = 0.f;
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  // Rescales to a new max m >= max (m == max: unchanged; max -inf: sum and acc are 0).
  __device__ __forceinline__ void rescale_to(float m) {
    const float scale = m == max ? 1.f : expf(max - m);
    sum *= scale;
    acc.x *= scale; acc.y *= scale; acc.z *= scale; acc.w *= scale;
    max = m;
  }
};

// This block's chunks, `lanes` threads per chunk (each a share of its slots, merged through
// shuffles at the end), kUnits chunks per thread per round with kLoads slots each: a
// round's LSE and O loads are all in flight at once (the combine kernel's one round trip;
// the first version waited for the LSEs before loading O and ran small batches 4-6 us slower).
template <int kLoads, int kUnits>
__device__ __forceinline__ void merge_chunks(const VerifyParams& p, const SplitWorkspace& ws, const MergeJob& job,
                                             int u_begin, int u_end, int lanes, int t) {
  static_assert(kLoads * kUnits <= kMergeMaxLoads, "loads in flight");
  const int units = u_end - u_begin;
  const int groups = kMergeThreads / lanes;
  const int g = t / lanes, sub = t % lanes;
  const int g_warp0 = (t & ~31) / lanes;  // the warp's first group runs the most rounds
  const int per_round = groups * kUnits;
  const int rounds = g_warp0 < units ? (units - g_warp0 + per_round - 1) / per_round : 0;
  for (int round = 0; round < rounds; ++round) {
    MergeState st[kUnits];
    int unit[kUnits];
#pragma unroll
    for (int q = 0; q < kUnits; ++q) unit[q] = (round * kUnits + q) * groups + g;
    for (int s0 = sub; s0 < job.slots; s0 += lanes * kLoads) {
      float l[kUnits][kLoads];
      float4 v[kUnits][kLoads];
#pragma unroll
      for (int q = 0; q < kUnits; ++q) {
        const int u = u_begin + unit[q];
        const std::int64_t row_part = job.part_base + static_cast<std::int64_t>(u / kMergeChunks) * job.row_stride;
#pragma unroll
        for (int k = 0; k < kLoads; ++k) {
          const int s = s0 + k * lanes;
          const bool used = unit[q] < units && s < job.slots;
          const std::int64_t part = row_part + static_cast<std::int64_t>(s) * job.slot_stride;
          // LSEs through L1 (a row's 128 chunks read the same ones); O once, from L2.
          l[q][k] = used ? ws.lse_partial[part] : -INFINITY;
          v[q][k] = used ? __ldcg(reinterpret_cast<const float4*>(ws.o_partial + part * mla::kHeadDimV) +
                                  u % kMergeChunks)
                         : make_float4(0.f, 0.f, 0.f, 0.f);
        }
      }
#pragma unroll
      for (int q = 0; q < kUnits; ++q) {
        float m = st[q].max;
#pragma unroll
        for (int k = 0; k < kLoads; ++k) m = fmaxf(m, l[q][k]);
        st[q].rescale_to(m);
#pragma unroll
        for (int k = 0; k < kLoads; ++k) {
          const float w = l[q][k] == -INFINITY ? 0.f : expf(l[q][k] - m);  // a split this row cannot see: 0
          st[q].sum += w;
          st[q].acc.x += w * v[q][k].x; st[q].acc.y += w * v[q][k].y;
          st[q].acc.z += w * v[q][k].z; st[q].acc.w += w * v[q][k].w;
        }
      }
    }
#pragma unroll
    for (int q = 0; q < kUnits; ++q) {
      for (int offset = lanes / 2; offset > 0; offset /= 2) {  // warp-uniform: every lane shuffles
        MergeState other;
        other.max = __shfl_xor_sync(0xffffffffu, st[q].max, offset);
        other.sum = __shfl_xor_sync(0xffffffffu, st[q].sum, offset);
        other.acc.x = __shfl_xor_sync(0xffffffffu, st[q].acc.x, offset);
        other.acc.y = __shfl_xor_sync(0xffffffffu, st[q].acc.y, offset);
        other.acc.z = __shfl_xor_sync(0xffffffffu, st[q].acc.z, offset);
        other.acc.w = __shfl_xor_sync(0xffffffffu, st[q].acc.w, offset);
        const float m = fmaxf(st[q].max, other.max);
        st[q].rescale_to(m);
        other.rescale_to(m);
        st[q].sum += other.sum;
        st[q].acc.x += other.acc.x; st[q].acc.y += other.acc.y;
        st[q].acc.z += other.acc.z; st[q].acc.w += other.acc.w;
      }
      if (unit[q] < units && sub == 0) {
        // sum > 0: every row sees itself in exactly one split.
        const int u = u_begin + unit[q];
        const std::int64_t qrow = job.out_row0 + u / kMergeChunks;
        const float inv = 1.f / st[q].sum;
        auto* o2 = reinterpret_cast<__nv_bfloat162*>(p.o + qrow * mla::kHeadDimV + (u % kMergeChunks) * 4);
        o2[0] = __floats2bfloat162_rn(st[q].acc.x * inv, st[q].acc.y * inv);
        o2[1] = __floats2bfloat162_rn(st[q].acc.z * inv, st[q].acc.w * inv);
        if (u % kMergeChunks == 0) p.lse[qrow] = st[q].max + logf(st[q].sum);
      }
    }
  }
}

// The merge itself, after merge_wait_all: this block's equal share of the tile's rows x 128
// chunks. Slot classes keep the register arrays static; many slots and few chunks per
// block: `lanes` threads per chunk split its slots.
__device__ __forceinline__ void merge_rows(const VerifyParams& p, const SplitWorkspace& ws, const MergeJob& job,
                                           int t) {
  const int total = job.rows * kMergeChunks;
  const int u_begin = static_cast<int>(static_cast<std::int64_t>(job.merger) * total / job.mergers);
  const int u_end = static_cast<int>(static_cast<std::int64_t>(job.merger + 1) * total / job.mergers);
  if (u_begin >= u_end) return;
  // (<2, 8>, 16 loads for two slots, spilled in both instances: 68 and 56 bytes.)
  if (job.slots <= 2) {
    merge_chunks<2, 4>(p, ws, job, u_begin, u_end, 1, t);
  } else if (job.slots <= 4) {
    merge_chunks<4, 4>(p, ws, job, u_begin, u_end, 1, t);
  } else if (job.slots <= 8) {
    merge_chunks<8, 2>(p, ws, job, u_begin, u_end, 1, t);
  } else {
    // Enough lanes for one round of slots, while the block's threads still cover its chunks.
    const int units = u_end - u_begin;
    int lanes = 1;
    while (lanes < 32 && lanes * kMergeMaxLoads < job.slots && lanes * 2 * units <= kMergeThreads) lanes *= 2;
    merge_chunks<kMergeMaxLoads, 1>(p, ws, job, u_begin, u_end, lanes, t);
  }
}

}  // namespace vb::detail

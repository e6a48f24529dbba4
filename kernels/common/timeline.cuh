// Phase timeline of the production kernels (debug builds only: -DVB_DEBUG_TIMELINE=1).
// Each block writes the GPU's global timer into its own slot of a __device__ array at the
// points listed by FlashVerifyTimelineStamp (verifybench/kernels.h): where a launch's fixed
// cost goes (block dispatch, the prologue's dependent loads, the first tile, the epilogue,
// the combine's wait) is then read off one cold launch instead of inferred from fits over
// whole-launch times. One 64-bit store per stamp, by one thread; the entry and end stamps
// also store the SM's cycle counter, so that the clock a block ran at is measured inside
// the launch. Default builds compile every stamp away (their PTX does not change). Internal
// to kernels/.
#pragma once
#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "verifybench/kernels.h"

#ifndef VB_DEBUG_TIMELINE
#define VB_DEBUG_TIMELINE 0
#endif

namespace vb::detail {

constexpr int kTimelineMainSlots = 4096;      // main kernel blocks recorded per launch
constexpr int kTimelineCombineSlots = 32768;  // combine blocks

#if VB_DEBUG_TIMELINE
__device__ __forceinline__ std::uint64_t globaltimer_ns() {
  std::uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}
__device__ __forceinline__ int linear_block_index() {
  return static_cast<int>(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
}
// Called by one thread of the block, first.
template <int kSlots>
__device__ __forceinline__ void timeline_begin(FlashVerifyTimelineBlock (&slots)[kSlots]) {
  const int blk = linear_block_index();
  if (blk >= kSlots) return;
  std::uint32_t sm;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
  slots[blk].block = blk;
  slots[blk].sm = static_cast<std::int32_t>(sm);
  slots[blk].t_ns[kTimelineEntry] = globaltimer_ns();
  slots[blk].clock_entry = clock64();
}
template <int kSlots>
__device__ __forceinline__ void timeline_stamp(FlashVerifyTimelineBlock (&slots)[kSlots], int stamp) {
  const int blk = linear_block_index();
  if (blk >= kSlots) return;
  slots[blk].t_ns[stamp] = globaltimer_ns();
  if (stamp == kTimelineEnd) slots[blk].clock_end = clock64();
}
// The block's split range is known (its request length loaded): its tile count and the stamp.
template <int kSlots>
__device__ __forceinline__ void timeline_work_known(FlashVerifyTimelineBlock (&slots)[kSlots], int tiles) {
  const int blk = linear_block_index();
  if (blk >= kSlots) return;
  slots[blk].tiles = tiles;
  slots[blk].t_ns[kTimelineWorkKnown] = globaltimer_ns();
}
#define VB_TIMELINE_SLOTS(name, count) __device__ ::vb::FlashVerifyTimelineBlock name[count]
#define VB_TIMELINE_BEGIN(slots) ::vb::detail::timeline_begin(slots)
#define VB_TIMELINE_STAMP(slots, stamp) ::vb::detail::timeline_stamp(slots, stamp)
#define VB_TIMELINE_WORK_KNOWN(slots, tiles) ::vb::detail::timeline_work_known(slots, tiles)
#else
#define VB_TIMELINE_SLOTS(name, count) static_assert(true, "no timeline in this build")
#define VB_TIMELINE_BEGIN(slots) ((void)0)
#define VB_TIMELINE_STAMP(slots, stamp) ((void)0)
#define VB_TIMELINE_WORK_KNOWN(slots, tiles) ((void)0)
#endif

// Host side of one slot array: zero it (a slot whose entry stamp is 0 was not written), and
// append the written slots to *out in block order.
template <typename Slots>
cudaError_t timeline_clear_slots(const Slots& slots) {
  void* address = nullptr;
  if (cudaError_t err = cudaGetSymbolAddress(&address, slots); err != cudaSuccess) return err;
  return cudaMemset(address, 0, sizeof(Slots));
}
template <typename Slots>
cudaError_t timeline_read_slots(const Slots& slots, std::vector<FlashVerifyTimelineBlock>* out) {
  constexpr std::size_t kCount = sizeof(Slots) / sizeof(FlashVerifyTimelineBlock);
  std::vector<FlashVerifyTimelineBlock> all(kCount);
  if (cudaError_t err = cudaMemcpyFromSymbol(all.data(), slots, sizeof(Slots)); err != cudaSuccess) return err;
  for (const FlashVerifyTimelineBlock& b : all) {
    if (b.t_ns[kTimelineEntry] != 0) out->push_back(b);
  }
  return cudaSuccess;
}

// The wgmma path's slots live in its instance files (wgmma/wgmma_launch_sm90a.cu reads them).
cudaError_t wgmma_timeline_clear();
cudaError_t wgmma_timeline_read(std::vector<FlashVerifyTimelineBlock>* out);

}  // namespace vb::detail

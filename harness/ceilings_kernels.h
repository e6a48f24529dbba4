// Launchers of the ceiling micro-kernels (harness/ceilings_kernels.cu), used by
// harness/ceilings.cpp only. Asynchronous on `stream`; return the launch error.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace vb::ceiling_kernels {

inline constexpr int kRowBytes = 1152;        // one MLA KV row: 576 bf16
inline constexpr int kRowChunks = kRowBytes / 16;  // 16-byte loads per row (72)
inline constexpr int kRowReadThreads = 256;
inline constexpr int kRowsPerWarpIteration = 4;  // rows a warp has in flight at once

// Every warp reads whole rows (lane l loads chunks l, l+32, l+64 < 72 with 16-byte loads),
// rows named by `row_index` ([rows] int64, like kv_indices), grid-stride over rows; the
// loaded words are XOR-folded and stored only on an impossible value, so no load is dead.
cudaError_t launch_row_read(const void* pool, const std::int64_t* row_index, std::int64_t rows,
                            unsigned* sink, int blocks, cudaStream_t stream);
// Resident blocks of the row-read kernel per SM (occupancy query).
cudaError_t row_read_blocks_per_sm(int* blocks);

// Reads `bytes` (a multiple of 16) of `buf` once, grid-stride, and discards them: the
// timer's cold-L2 flush (harness/timing.cpp).
inline constexpr int kStreamReadThreads = 256;
cudaError_t launch_stream_read(const void* buf, std::size_t bytes, unsigned* sink, int blocks,
                               cudaStream_t stream);

// Keeps the stream busy for `nanoseconds` (one warp spinning on the global timer) so that a
// timed sample's start event, launch and stop event are all submitted before the GPU reaches
// them: without it, a hot or graph sample of a tiny launch includes the host's submission
// (H200 probe: one empty kernel 5.8 us unheld, 2.9 us behind a busy stream).
cudaError_t launch_hold(std::uint64_t nanoseconds, cudaStream_t stream);
// One block of one warp that does nothing: the launch floor (harness/ceilings.cpp).
cudaError_t launch_empty(cudaStream_t stream);

inline constexpr int kMmaThreads = 256;
inline constexpr int kMmaChains = 8;  // independent accumulator chains per warp
inline constexpr double kFlopsPerMma = 2.0 * 16 * 8 * 16;  // m16n8k16
// Each warp issues `iterations` x kMmaChains mma.sync.m16n8k16 bf16 -> fp32.
cudaError_t launch_mma_bf16(int iterations, float* sink, int blocks, cudaStream_t stream);
cudaError_t mma_blocks_per_sm(int* blocks);

}  // namespace vb::ceiling_kernels

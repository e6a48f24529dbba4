// SM-to-SM bulk copies on sm_90a, as the row-pair variant uses them: what one block of a
// 2-block cluster moves into its peer's shared memory per clock (both blocks sending at once,
// or one), and how long one 4 KB copy takes to land (a ping-pong). One block per SM (the
// shared memory asks for it), every cluster of the grid at once.
// Build: nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a dsmem_probe.cu -o dsmem_probe
// Run:   ./dsmem_probe   (prints one line per measurement)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

namespace {

constexpr int kCopyBytes = 4096;       // one column block of a half tile
constexpr int kCopiesPerRound = 9;     // a half tile: 36,864 bytes
constexpr int kRounds = 28;            // 28 x 36,864 B < 2^20: one expect_tx covers them
constexpr int kBufferBytes = kCopiesPerRound * kCopyBytes;
constexpr int kPingPongs = 16;
constexpr int kSmemBytes = 2 * kBufferBytes + 1024;  // plus enough to keep one block per SM
constexpr int kPadSmem = 90 * 1024;  // 166 KB in all: one block per SM

__device__ std::uint32_t smem_u32(const void* p) { return static_cast<std::uint32_t>(__cvta_generic_to_shared(p)); }
__device__ std::uint32_t peer_addr(std::uint32_t a, std::uint32_t rank) {
  std::uint32_t out;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(out) : "r"(a), "r"(rank));
  return out;
}
__device__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ void arrive_expect(std::uint64_t* bar, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_u32(bar)), "r"(bytes) : "memory");
}
__device__ void wait_parity(std::uint64_t* bar, std::uint32_t parity) {
  std::uint32_t done = 0;
  do {
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done)
                 : "r"(smem_u32(bar)), "r"(parity)
                 : "memory");
  } while (!done);
}
__device__ void copy_to_peer(std::uint32_t dst, std::uint32_t src, std::uint32_t bytes, std::uint32_t bar) {
  asm volatile("cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   dst),
               "r"(src), "r"(bytes), "r"(bar)
               : "memory");
}

// mode 0: both blocks send kRounds half tiles to each other; mode 1: rank 0 sends, rank 1
// receives. out[block] = cycles from the first copy to the last byte received (receivers).
// mode 2: ping-pong of one 4 KB copy; out[block] = cycles per one-way copy (rank 0).
__global__ void __cluster_dims__(2, 1, 1) probe(int mode, long long* out) {
  extern __shared__ __align__(1024) unsigned char smem[];
  __shared__ std::uint64_t bar;
  std::uint32_t rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  const std::uint32_t peer = rank ^ 1u;
  unsigned char* send = smem;
  unsigned char* recv = smem + kBufferBytes;
  for (int i = threadIdx.x; i < kBufferBytes; i += blockDim.x) send[i] = static_cast<unsigned char>(i);
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_u32(&bar)) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  cluster_sync();
  if (threadIdx.x == 0) {
    const std::uint32_t remote_bar = peer_addr(smem_u32(&bar), peer);
    const std::uint32_t remote_recv = peer_addr(smem_u32(recv), peer);
    if (mode <= 1) {
      const bool sends = mode == 0 || rank == 0;
      const bool receives = mode == 0 || rank == 1;
      if (receives) arrive_expect(&bar, kRounds * kBufferBytes);
      const long long t0 = clock64();
      if (sends) {
        for (int r = 0; r < kRounds; ++r) {
          for (int c = 0; c < kCopiesPerRound; ++c) {
            copy_to_peer(remote_recv + c * kCopyBytes, smem_u32(send + c * kCopyBytes), kCopyBytes, remote_bar);
          }
        }
      }
      if (receives) wait_parity(&bar, 0);
      out[blockIdx.x] = receives ? clock64() - t0 : -1;
    } else {
      long long total = 0;
      for (int i = 0; i < kPingPongs; ++i) {
        arrive_expect(&bar, kCopyBytes);
        const long long t0 = clock64();
        if (rank == 0) {
          copy_to_peer(remote_recv, smem_u32(send), kCopyBytes, remote_bar);
          wait_parity(&bar, i & 1);
        } else {
          wait_parity(&bar, i & 1);
          copy_to_peer(remote_recv, smem_u32(send), kCopyBytes, remote_bar);
        }
        total += clock64() - t0;
      }
      out[blockIdx.x] = rank == 0 ? total / (2 * kPingPongs) : -1;
    }
  }
  cluster_sync();  // no block leaves while its peer may still reach it
}

}  // namespace

int main() {
  int sms = 0, clock_khz = 0;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  const int smem = kSmemBytes + kPadSmem;
  if (cudaFuncSetAttribute(probe, cudaFuncAttributeMaxDynamicSharedMemorySize, smem) != cudaSuccess) return 1;
  for (int blocks : {2, sms - sms % 2}) {
    for (int mode = 0; mode < 3; ++mode) {
      long long* d_out = nullptr;
      cudaMalloc(&d_out, blocks * sizeof(long long));
      std::vector<long long> best(blocks, -1);
      for (int rep = 0; rep < 5; ++rep) {
        probe<<<blocks, 128, smem>>>(mode, d_out);
        if (cudaError_t e = cudaDeviceSynchronize(); e != cudaSuccess) {
          std::printf("mode %d blocks %d: %s\n", mode, blocks, cudaGetErrorString(e));
          return 1;
        }
        std::vector<long long> h(blocks);
        cudaMemcpy(h.data(), d_out, blocks * sizeof(long long), cudaMemcpyDeviceToHost);
        for (int b = 0; b < blocks; ++b) {
          if (h[b] >= 0 && (best[b] < 0 || h[b] < best[b])) best[b] = h[b];
        }
      }
      std::vector<long long> v;
      for (long long x : best) {
        if (x >= 0) v.push_back(x);
      }
      std::sort(v.begin(), v.end());
      const long long med = v[v.size() / 2], worst = v.back();
      if (mode <= 1) {
        const double bytes = double(kRounds) * kBufferBytes;
        std::printf("%s, %d blocks: %.1f B/clk per receiving SM (median block, best of 5), %.1f slowest; %lld cycles for %d B\n",
                    mode == 0 ? "both blocks send" : "one block sends", blocks, bytes / med, bytes / worst, med,
                    int(bytes));
      } else {
        std::printf("ping-pong, %d blocks: %lld cycles per one-way 4 KB copy (median block, best of 5), %lld slowest\n",
                    blocks, med, worst);
      }
      cudaFree(d_out);
    }
  }
  std::printf("device: %d SMs, max clock %d MHz\n", sms, clock_khz / 1000);
  return 0;
}

// Launch-floor probe: what an (almost) empty launch costs when timed the way verifybench
// times a case (read pass over 2x L2, then events around the launch). Not committed code.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
__global__ void empty_kernel(int* sink) { if (threadIdx.x == 1023 && blockIdx.x == 1u << 30) *sink = 1; }
__global__ void dependent_kernel(int* sink) {
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
  if (threadIdx.x == 1023 && blockIdx.x == 1u << 30) *sink = 2;
}
__global__ void trigger_kernel(int* sink) {
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
  if (threadIdx.x == 1023 && blockIdx.x == 1u << 30) *sink = 1;
}
__global__ void read_flush(const int4* p, size_t n, int* sink) {
  int4 acc{0, 0, 0, 0};
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    int4 v = p[i]; acc.x ^= v.x; acc.y ^= v.y;
  }
  if (acc.x == 0x7fffffff && acc.y == 3) *sink = acc.x;
}
int main() {
  int* sink; cudaMalloc(&sink, 4);
  int dev = 0; cudaDeviceProp prop; cudaGetDeviceProperties(&prop, dev);
  size_t flush_bytes = 2 * (size_t)prop.l2CacheSize;
  int4* flush; cudaMalloc(&flush, flush_bytes); cudaMemset(flush, 1, flush_bytes);
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  auto pdl_launch = [&](int blocks) {
    cudaLaunchConfig_t cfg{}; cfg.gridDim = blocks; cfg.blockDim = 256; cfg.stream = s;
    cudaLaunchAttribute at{}; at.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    at.val.programmaticStreamSerializationAllowed = 1; cfg.attrs = &at; cfg.numAttrs = 1;
    cudaLaunchKernelEx(&cfg, dependent_kernel, sink);
  };
  struct Variant { const char* name; int kind; int blocks; };
  Variant vs[] = {{"one empty kernel, 1 block", 0, 1}, {"one empty kernel, 132 blocks", 0, 132},
                  {"two kernels, plain stream order, 132 blocks each", 1, 132},
                  {"two kernels, second programmatic dependent (PDL), 132 blocks", 2, 132}};
  for (bool cold : {true, false}) {
    for (auto& v : vs) {
      std::vector<float> t;
      for (int i = 0; i < 200; ++i) {
        if (cold) read_flush<<<prop.multiProcessorCount * 4, 512, 0, s>>>(flush, flush_bytes / 16, sink);
        cudaEventRecord(a, s);
        if (v.kind == 0) empty_kernel<<<v.blocks, 256, 0, s>>>(sink);
        if (v.kind == 1) { empty_kernel<<<v.blocks, 256, 0, s>>>(sink); empty_kernel<<<v.blocks, 256, 0, s>>>(sink); }
        if (v.kind == 2) { trigger_kernel<<<v.blocks, 256, 0, s>>>(sink); pdl_launch(v.blocks); }
        cudaEventRecord(b, s);
        cudaEventSynchronize(b);
        float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms * 1000.f);
      }
      std::sort(t.begin(), t.end());
      printf("%-4s %-62s median %6.2f us  p10 %6.2f  p90 %6.2f\n", cold ? "cold" : "hot", v.name, t[100], t[20], t[180]);
    }
  }
  printf("cuda error: %s\n", cudaGetErrorString(cudaGetLastError()));
}

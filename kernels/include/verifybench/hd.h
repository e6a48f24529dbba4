#pragma once
// __host__ __device__ when compiled by nvcc, nothing for the host compiler: the params
// struct and its accessors are shared by CUDA kernels and the CPU reference.
#if defined(__CUDACC__)
#define VB_HD __host__ __device__ __forceinline__
#else
#define VB_HD inline
#endif

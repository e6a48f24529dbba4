// sm_120's tensor rate on a Hopper SM: the load the production/sm120-emu kernels (the mma.sync
// kernel's kSm120Emu instances) and the run's emulated-rate probes (harness/measure) put on
// the tensor pipe. Device code; compiled for sm_90 (the lab's Hopper), where it runs.
//
// An H100/H200 SM issues mma.sync at about 2,724 bf16 FLOP a clock (the run's mma.sync probe);
// an RTX PRO 6000 (sm_120) SM at 1,024, and fp8 e4m3 at 2,048. The emulation keeps the
// kernel's own mma.sync as they are and makes the SM's tensor pipe do a fraction more of the
// instruction the math meets it as beside each one, so the pipe is busy about 2.67 times as
// long per real bf16 instruction (2,724 / 2.67 = 1,021 real FLOP a clock and SM). The extra
// instructions are issued by warps that do not do the math (the kernel's producer warps, one on
// each SM sub-partition), on kChains
// accumulators of their own, so no accumulator chain of the math gets longer and the math
// warps keep every register: the pipe is shared, not the dependencies. What a real
// instruction meets is the queue of the pipe it shares, as on sm_120 it meets a slower pipe.
// The probes measure the rate this gives (Ceilings::sm120_emulated_bf16_tflops, ..._fp8_):
// within 5 % of sm_120's is the emulation's test.
#pragma once
#include <cstdint>

namespace vb::sm120_emulation {

// Which instruction an mma.sync issues: bf16 or f16 m16n8k16, or e4m3 m16n8k32 (fp32 accumulate).
enum class MmaShape { kBf16M16N8K16, kF16M16N8K16, kFp8E4m3M16N8K32 };

// bf16 math: extra bf16 m16n8k16 per real one, as a fraction num / den (a running remainder
// keeps it exact over tiles), calibrated on an H100 with the run's emulated probe, which owes a
// tile's load at a time as the kernel does. The pipe alone asks for 5/3 (2,712 FLOP a clock and
// SM plain, 1,024 on sm_120); the load's chains drain at the end of each tile's burst, which
// costs the pipe, so less than the pipe's share holds it to sm_120's rate: 14/9 measured 987
// FLOP a clock and SM (-3.6 %; 3/2 +6.3 %, 8/5 -6.5 %; kernels/NOTES-sm120.md, "The emulation's
// calibration"; every run's probes say what it gives).
inline constexpr MmaShape kBf16MathExtraShape = MmaShape::kBf16M16N8K16;
inline constexpr int kBf16ExtraNum = 14, kBf16ExtraDen = 9;
// fp8 math, per real e4m3 m16n8k32 of the kernel. sm_90 runs it as two f16 m16n8k16 on
// widened operands (warp::mma_e4m3_16832; ptxas has no e4m3 tensor instruction there either), so
// the real instruction takes the f16 pipe's time for 8,192 FLOP, about 3 pipe-clocks an SM
// (2 x 4,096 / ~2,720) where sm_120's 2,048 e4m3 FLOP a clock ask for 4 (8,192 / 2,048): the
// load issues f16 m16n8k16, the pipe's share 2/3 (1/3 per real f16 mma); 3/5 measured 1,978
// FLOP a clock and SM (-3.4 %; 1/2 +6.3 %, 2/3 -5.4 %, 3/4 -3.4 %: kernels/NOTES-sm120.md).
inline constexpr MmaShape kFp8MathExtraShape = MmaShape::kF16M16N8K16;
inline constexpr int kFp8MathExtraNum = 3, kFp8MathExtraDen = 5;
// Independent accumulators of the extra instructions. One warp on 4 chains nearly fills an
// H100 sub-partition's pipe alone; beside two compute warps, 16 load chains bring the
// emulated bf16 rate to 1,008 FLOP a clock and SM where 8 gave 972 and 32 gave 1,023 (H100
// microbenchmark, 2026-12-06): the load keeps up where the pipe is shared. Fewer chains make
// the emulation slower than sm_120, not faster (the load's issue trails the pipe).
inline constexpr int kChains = 16;

// FLOP of one instruction of each shape.
template <MmaShape kShape>
inline constexpr double kFlopsPerMma = kShape == MmaShape::kFp8E4m3M16N8K32 ? 2.0 * 16 * 8 * 32 : 2.0 * 16 * 8 * 16;

// An operand register for the load and the probes: positive values with mantissa bits drawn
// per lane and `salt`, as busy as real data (the tensor cores' power, and the clock they hold,
// depends on the bits they multiply). bf16 and f16 pairs in [2^-7, 2^-6); e4m3 bytes in [2^-3, 2^-2).
template <MmaShape kShape>
__device__ __forceinline__ std::uint32_t busy_operand(unsigned salt) {
  unsigned h = (threadIdx.x + 1u) * 0x9E3779B1u + salt * 0x85EBCA77u;
  h ^= h >> 15;
  h *= 0x2C1B3C6Du;
  h ^= h >> 13;
  if constexpr (kShape == MmaShape::kBf16M16N8K16) return 0x3C003C00u | (h & 0x007F007Fu);
  if constexpr (kShape == MmaShape::kF16M16N8K16) return 0x20002000u | (h & 0x03FF03FFu);
  return 0x20202020u | (h & 0x07070707u);
}

// d += a b, one mma.sync of the shape (fp32 accumulate).
template <MmaShape kShape>
__device__ __forceinline__ void mma_into(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
  if constexpr (kShape == MmaShape::kBf16M16N8K16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else if constexpr (kShape == MmaShape::kF16M16N8K16) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
  }
}

// The instruction of a chain: mma_into of its shape. The emulated fp8 probe's compute warps
// issue the kernel's e4m3 instruction instead (harness/measure/mma_probe.cuh).
template <MmaShape kShape>
struct ShapeMma {
  __device__ __forceinline__ static void issue(float (&d)[4], const std::uint32_t (&a)[4], const std::uint32_t (&b)[2]) {
    mma_into<kShape>(d, a, b);
  }
};

// kChainCount accumulators and their operands (of kShape): a warp's independent mma.sync
// chains, each issuing Mma.
template <MmaShape kShape, int kChainCount, class Mma = ShapeMma<kShape>>
class MmaChains {
 public:
  __device__ __forceinline__ explicit MmaChains(unsigned salt) {
    for (int i = 0; i < 4; ++i) a_[i] = busy_operand<kShape>(salt * 8u + i);
    for (int i = 0; i < 2; ++i) b_[i] = busy_operand<kShape>(salt * 8u + 4 + i);
#pragma unroll
    for (int k = 0; k < kChainCount; ++k) acc_[k][0] = acc_[k][1] = acc_[k][2] = acc_[k][3] = 0.f;
  }
  // One instruction on every chain. Never a predicated mma.sync: a warp-wide instruction
  // under a condition the compiler cannot prove uniform gets a convergence barrier each.
  __device__ __forceinline__ void issue_round() {
#pragma unroll
    for (int k = 0; k < kChainCount; ++k) Mma::issue(acc_[k], a_, b_);
  }
  // Keeps every instruction live (ptxas drops an mma.sync whose result nobody reads): the sum
  // of positive products is never -1, so nothing is stored.
  __device__ __forceinline__ void keep_live(float* never_written) const {
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < kChainCount; ++k) s += acc_[k][0] + acc_[k][1] + acc_[k][2] + acc_[k][3];
    if (s == -1.f) *never_written = s;
  }

 private:
  std::uint32_t a_[4], b_[2];
  float acc_[kChainCount][4];
};

// The extra load one warp issues: kExtraNum / kExtraDen instructions of the shape per real
// instruction of the math owed (bf16 math: a bf16 m16n8k16; fp8 math: an e4m3 m16n8k32), on
// kChainCount chains. All 32 lanes call every member together (mma.sync is warp-wide).
template <MmaShape kShape, int kExtraNum, int kExtraDen, int kChainCount = kChains>
class TensorLoad {
 public:
  __device__ __forceinline__ explicit TensorLoad(unsigned salt) : chains_(salt) {}

  // The extra instructions owed for `real` instructions of the math: the whole rounds of
  // kChainCount issued now, the rest carried to the next call.
  __device__ __forceinline__ void owe(int real) {
    owed_ += real * kExtraNum;
    const int rounds = owed_ / (kExtraDen * kChainCount);
    owed_ -= rounds * kExtraDen * kChainCount;
    for (int r = 0; r < rounds; ++r) chains_.issue_round();
  }
  __device__ __forceinline__ void keep_live(float* never_written) const { chains_.keep_live(never_written); }

 private:
  MmaChains<kShape, kChainCount> chains_;
  int owed_ = 0;  // extra instructions owed, times kExtraDen
};

}  // namespace vb::sm120_emulation

// The dynamic shared memory each kernel family of kernels/ asks for at launch on sm_120,
// from the launchers' own host functions: what scripts/check_sm120_kernels.py adds to the
// ptxas report's static bytes. One line per kernel family:
//   <regex searched in the mangled entry name> <dynamic bytes | not-launched> <mma | mma-e4m3 | no-mma>
// "not-launched": built for sm_120, never launched there (a pipeline depth whose shared
// memory exceeds the per-block limit); "mma": the kernel computes attention, so its sm_120
// PTX must hold mma.sync; "mma-e4m3": the fp8-math instances, whose PTX must hold the
// m16n8k32 e4m3 mma. The first line that matches a kernel applies. A kernel of kernels/ that
// no line names fails the check: a new kernel adds its line here.
#include <cstdio>

#include "verifybench/planner.h"

int main() {
  constexpr int kSm120OptinBytes = 101376;  // 99 KB per block (compute capability 12.0)
  const int launched_stages = vb::flash_verify_stages_for_smem_optin(kSm120OptinBytes);
  int stages[8] = {};
  const int variants = vb::flash_verify_pipeline_variants(stages, 8);
  for (int i = 0; i < variants; ++i) {
    // Itanium mangling of flash_verify_mma_kernel<kStages, ...>: "flash_verify_mma_kernelILi<kStages>E";
    // the fp8-math instances have kFp8Kv and kFp8Math set after the Params type.
    const int fp8_bytes = vb::flash_verify_smem_bytes(stages[i], vb::KvDtype::kFp8E4m3);
    if (stages[i] == launched_stages) {
      std::printf("flash_verify_mma_kernelILi%dE.*VerifyParamsELb1ELb1E %d mma-e4m3\n", stages[i], fp8_bytes);
    } else {
      std::printf("flash_verify_mma_kernelILi%dE.*VerifyParamsELb1ELb1E not-launched mma-e4m3\n", stages[i]);
    }
    if (stages[i] == launched_stages) {
      std::printf("flash_verify_mma_kernelILi%dE %d mma\n", stages[i], vb::flash_verify_smem_bytes(stages[i]));
    } else {
      std::printf("flash_verify_mma_kernelILi%dE not-launched mma\n", stages[i]);
    }
  }
  // Launched with no dynamic shared memory (kernels/combine/split_combine.cu, naive/naive_verify.cu,
  // sglang/sglang_adapter.cu).
  std::printf("flash_verify_combine_kernel 0 no-mma\n");
  std::printf("naive_verify_kernel 0 no-mma\n");
  std::printf("pack_sglang_mask_kernel 0 no-mma\n");
  return launched_stages > 0 ? 0 : 1;
}

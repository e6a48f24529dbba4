// The in-run ceilings on a device (harness/measure/ceilings.cpp): both KV row sizes are
// measured, each with its method. Needs a CUDA device (the binary exits 77 without one).
#include <catch2/catch.hpp>

#include <cuda_runtime_api.h>

#include <string>

#include "harness/measure/ceilings.h"
#include "harness/measure/ceilings_kernels.h"
#include "harness/record/gpu_info.h"

namespace {

// The method text of `name`, "" when the run recorded none.
std::string method_of(const vb::Ceilings& c, const std::string& name) {
  for (const auto& [key, text] : c.method) {
    if (key == name) return text;
  }
  return "";
}

}  // namespace

TEST_CASE("the ceilings measure 1152- and 576-byte rows, in order and shuffled, each with its method", "[gpu][fp8]") {
  const vb::GpuInfo gpu = vb::query_gpu();
  REQUIRE(gpu.available);
  vb::CeilingOptions options;  // small passes: this checks what is measured, not how fast
  options.row_read_bytes = 256.0 * (1 << 20);
  options.copy_bytes = 64.0 * (1 << 20);
  options.repetitions = 3;
  options.mma_iterations = 256;
  options.wgmma_iterations = 256;
  options.mla_tiles = 64;
  const vb::CeilingsRun run = vb::measure_ceilings(gpu, options);
  INFO(run.error);
  REQUIRE(run.ceilings);
  const vb::Ceilings& c = *run.ceilings;
  for (double gbps : {c.row_read_contiguous_gbps, c.row_read_shuffled_gbps, c.row576_read_contiguous_gbps,
                      c.row576_read_shuffled_gbps}) {
    CHECK(gbps > 10);       // a pass that read nothing or failed would be 0
    CHECK(gbps < 100'000);  // above any device's memory: a pass that read nothing in no time
  }
  CHECK_THAT(method_of(c, "row_read_contiguous"), Catch::Matchers::Contains("of 1152-byte rows"));
  CHECK_THAT(method_of(c, "row_read_shuffled"), Catch::Matchers::Contains("of 1152-byte rows"));
  CHECK_THAT(method_of(c, "row576_read_contiguous"), Catch::Matchers::Contains("of 576-byte rows") &&
                                                         Catch::Matchers::Contains("in order"));
  CHECK_THAT(method_of(c, "row576_read_shuffled"), Catch::Matchers::Contains("of 576-byte rows") &&
                                                       Catch::Matchers::Contains("page size 1 shuffled"));
}

TEST_CASE("the row-read kernel refuses a row size it has no instance for", "[gpu]") {
  int blocks = -1;
  CHECK(vb::ceiling_kernels::row_read_blocks_per_sm(1000, &blocks) == cudaErrorInvalidValue);
  CHECK(vb::ceiling_kernels::launch_row_read(1000, nullptr, nullptr, 0, nullptr, 1, nullptr) == cudaErrorInvalidValue);
  for (int row_bytes : {vb::ceiling_kernels::kBf16RowBytes, vb::ceiling_kernels::kFp8RowBytes}) {
    CHECK(vb::ceiling_kernels::row_read_blocks_per_sm(row_bytes, &blocks) == cudaSuccess);
    CHECK(blocks >= 1);
  }
}

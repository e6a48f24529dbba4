// The C ABI's refusals (ops/include/verifybench_ops.h): every wrong argument comes back as
// a status and a message naming it, before any CUDA call, so these run without a GPU. The
// arrays are descriptors over made-up, aligned addresses: nothing here is dereferenced.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <string>

#include "verifybench_ops.h"

namespace {

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

constexpr int B = 3, T = 4, H = 8;

// A row-major descriptor on device 0 at a fake 256-byte aligned address.
vbops_tensor tensor(std::uintptr_t address, vbops_dtype dtype, std::initializer_list<int64_t> shape) {
  vbops_tensor t{};
  t.data = reinterpret_cast<const void*>(address);
  t.dtype = dtype;
  t.ndim = static_cast<int32_t>(shape.size());
  int i = 0;
  for (int64_t s : shape) t.shape[i++] = s;
  int64_t stride = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    t.strides[d] = stride;
    stride *= t.shape[d];
  }
  t.device = 0;
  return t;
}

std::uintptr_t fake(int n) { return 0x7f0000000000u + static_cast<std::uintptr_t>(n) * 0x1000000u; }

struct Fixture {
  vbops_plan* plan = nullptr;
  std::size_t workspace_bytes = 0;
  void* workspace = reinterpret_cast<void*>(fake(99));
  explicit Fixture(int page_size = 1, vbops_dtype kv_dtype = VBOPS_DTYPE_BF16) {
    const vbops_shape shape{B, T, H, 4096, page_size, kv_dtype, VBOPS_MATH_BF16};
    const vbops_device_facts h200{132, 1, 1, 2048, 232448};
    REQUIRE(vbops_plan_create(&shape, &h200, nullptr, &plan) == VBOPS_OK);
    workspace_bytes = vbops_plan_workspace_bytes(plan);
  }
  ~Fixture() { vbops_plan_destroy(plan); }
};

vbops_native_args native_args() {
  vbops_native_args a{};
  a.sm_scale = 0.1308608f;
  a.q = tensor(fake(1), VBOPS_DTYPE_BF16, {B * T, H, 576});
  a.kv_pool = tensor(fake(2), VBOPS_DTYPE_BF16, {1000, 576});
  a.prefix_len = tensor(fake(3), VBOPS_DTYPE_I32, {B});
  a.kv_indptr = tensor(fake(4), VBOPS_DTYPE_I32, {B + 1});
  a.kv_indices = tensor(fake(5), VBOPS_DTYPE_I64, {900});
  a.tree_mask = tensor(fake(6), VBOPS_DTYPE_U64, {B, T, 1});
  a.o = tensor(fake(7), VBOPS_DTYPE_BF16, {B * T, H, 512});
  a.lse = tensor(fake(8), VBOPS_DTYPE_F32, {B * T, H});
  return a;
}

vbops_sglang_args sglang_args() {
  vbops_sglang_args a{};
  a.sm_scale = 0.1308608f;
  a.q_extend = tensor(fake(1), VBOPS_DTYPE_BF16, {B * T, H, 576});
  a.k_extend = tensor(fake(2), VBOPS_DTYPE_BF16, {B * T, 1, 576});
  a.k_buffer = tensor(fake(3), VBOPS_DTYPE_BF16, {1000, 1, 576});
  a.qo_indptr = tensor(fake(4), VBOPS_DTYPE_I32, {B + 1});
  a.kv_indptr = tensor(fake(5), VBOPS_DTYPE_I32, {B + 1});
  a.kv_indices = tensor(fake(6), VBOPS_DTYPE_I64, {900});
  a.custom_mask = tensor(fake(7), VBOPS_DTYPE_U8, {5000});
  a.mask_indptr = tensor(fake(8), VBOPS_DTYPE_I64, {B + 1});
  a.o = tensor(fake(9), VBOPS_DTYPE_BF16, {B * T, H, 512});
  return a;
}

// A refusal: the status, and a message that names the argument and what is wrong.
void require_refused(vbops_status got, vbops_status expected, const std::string& starts_with,
                     const std::string& contains) {
  INFO("message: " << vbops_last_error());
  CHECK(got == expected);
  CHECK_THAT(std::string(vbops_last_error()), Catch::Matchers::StartsWith(starts_with));
  CHECK_THAT(std::string(vbops_last_error()), Contains(contains));
}

}  // namespace

TEST_CASE("version and ABI", "[ops]") {
  CHECK(vbops_abi_version() == VBOPS_ABI_VERSION);
  CHECK_THAT(std::string(vbops_version()), Contains("abi 3"));
}

TEST_CASE("a plan for given device facts says what it chose", "[ops]") {
  Fixture f;
  char text[256];
  const std::size_t n = vbops_plan_describe(f.plan, text, sizeof text);
  CHECK(n > 0);
  CHECK_THAT(std::string(text), Contains("splits="));
  // Room for the dropped lse of the SGLang form at least.
  CHECK(f.workspace_bytes >= static_cast<std::size_t>(B) * T * H * sizeof(float));
  CHECK(vbops_plan_shape(f.plan).num_heads == H);
  char tiny[6];
  CHECK(vbops_plan_describe(f.plan, tiny, sizeof tiny) == n);
  CHECK(std::string(tiny).size() == 5);
}

TEST_CASE("plan refusals name the field", "[ops]") {
  const vbops_device_facts facts{132, 1, 1, 2048, 232448};
  vbops_plan* plan = nullptr;
  vbops_shape shape{0, T, H, 4096, 1, VBOPS_DTYPE_BF16, VBOPS_MATH_BF16};
  require_refused(vbops_plan_create(&shape, &facts, nullptr, &plan), VBOPS_ERROR_INVALID_ARGUMENT, "shape.max_batch 0",
                  "allowed: 1 to 65535");
  CHECK(plan == nullptr);
  shape = {B, 2000, H, 4096, 1, VBOPS_DTYPE_BF16, VBOPS_MATH_BF16};
  require_refused(vbops_plan_create(&shape, &facts, nullptr, &plan), VBOPS_ERROR_INVALID_ARGUMENT, "shape.tree_size 2000",
                  "1 to 1024");
  shape = {B, T, H, 2, 1, VBOPS_DTYPE_BF16, VBOPS_MATH_BF16};
  require_refused(vbops_plan_create(&shape, &facts, nullptr, &plan), VBOPS_ERROR_INVALID_ARGUMENT, "shape.max_kv_len 2",
                  "tree_size (4) or more");
  shape = {B, T, H, 4096, 1, VBOPS_DTYPE_FP8_E4M3 + 1, VBOPS_MATH_BF16};
  require_refused(vbops_plan_create(&shape, &facts, nullptr, &plan), VBOPS_ERROR_INVALID_ARGUMENT,
                  "shape.kv_dtype 10 (unsupported dtype)", "VBOPS_DTYPE_FP8_E4M3 (9)");
  shape = {B, T, H, 4096, 1, VBOPS_DTYPE_F32, VBOPS_MATH_BF16};
  require_refused(vbops_plan_create(&shape, &facts, nullptr, &plan), VBOPS_ERROR_INVALID_ARGUMENT,
                  "shape.kv_dtype 3 (float32)", "VBOPS_DTYPE_BF16 (1, or 0)");
  shape = {B, T, H, 4096, 1, VBOPS_DTYPE_BF16, VBOPS_MATH_BF16};
  const vbops_device_facts no_sms{0, 1, 0, 2048, 232448};
  require_refused(vbops_plan_create(&shape, &no_sms, nullptr, &plan), VBOPS_ERROR_INVALID_ARGUMENT, "facts.sm_count 0", "");
  const vbops_device_facts tiny_smem{132, 1, 0, 2048, 1000};
  require_refused(vbops_plan_create(&shape, &tiny_smem, nullptr, &plan), VBOPS_ERROR_UNSUPPORTED, "plan: ", "");
  CHECK(plan == nullptr);
  const int32_t kv_lens[B] = {100, 5000, 8};
  require_refused(vbops_plan_create(&shape, &facts, kv_lens, &plan), VBOPS_ERROR_INVALID_ARGUMENT, "kv_lens[1]: 5000",
                  "max_kv_len (4096)");
  const int32_t fitting[B] = {100, 4096, 8};
  REQUIRE(vbops_plan_create(&shape, &facts, fitting, &plan) == VBOPS_OK);
  vbops_plan_destroy(plan);
}

TEST_CASE("native launch refusals name the argument, before any CUDA call", "[ops]") {
  Fixture f;
  vbops_native_args a = native_args();
  auto run = [&](void* ws = nullptr, std::size_t bytes = 0) {
    return vbops_verify_native(f.plan, &a, ws ? ws : f.workspace, ws ? bytes : f.workspace_bytes, nullptr);
  };
  SECTION("wrong dtype") {
    a.q.dtype = VBOPS_DTYPE_F16;
    require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "q: dtype float16", "allowed: bfloat16");
  }
  SECTION("fp8 KV") {
    a.kv_pool.dtype = VBOPS_DTYPE_FP8_E4M3;
    require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "kv_pool: dtype float8_e4m3", "allowed: bfloat16");
  }
  SECTION("host memory") {
    a.lse.device = -1;
    require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "lse: host memory", "CUDA device array");
  }
  SECTION("missing") {
    a.tree_mask = vbops_tensor{};
    require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "tree_mask: missing", "");
  }
  SECTION("non-contiguous view") {
    a.q.strides[1] = 1152;  // every other head of a wider array
    require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "q: strides [", "contiguous");
  }
  SECTION("mismatched shapes") {
    a.o.shape[2] = 576;
    require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "o: shape [12, 8, 576]", "expected [12, 8, 512]");
  }
  SECTION("q rows that do not match prefix_len's batch") {
    a.q.shape[0] = 8;
    require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "q: shape [8, 8, 576]", "B=3 from prefix_len");
  }
  SECTION("misaligned") {
    a.q.data = reinterpret_cast<const void*>(fake(1) + 8);
    require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "q: data pointer not 16-byte aligned", "");
  }
  SECTION("more requests than planned") {
    a.prefix_len.shape[0] = B + 1;
    require_refused(run(), VBOPS_ERROR_SHAPE_EXCEEDS_PLAN, "prefix_len: shape [4] gives batch 4", "1 to 3");
  }
  SECTION("other head count than planned") {
    a.q.shape[1] = 16;
    require_refused(run(), VBOPS_ERROR_SHAPE_EXCEEDS_PLAN, "q: 16 heads", "num_heads 8");
  }
  SECTION("tree mask for another tree size") {
    a.tree_mask.shape[1] = 5;
    require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "tree_mask: shape [3, 5, 1]", "[B, T, ceil(T/64)]");
  }
  SECTION("two page-table forms") {
    a.block_table = tensor(fake(10), VBOPS_DTYPE_I32, {B, 64});
    require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "block_table: given together with kv_indptr", "");
  }
  SECTION("arrays on two devices") {
    a.kv_indices.device = 1;
    require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "kv_indices: on CUDA device 1", "device 0");
  }
  SECTION("bad sm_scale") {
    a.sm_scale = -1.f;
    require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "sm_scale: ", "above 0");
  }
  SECTION("workspace too small") {
    require_refused(run(f.workspace, f.workspace_bytes - 1), VBOPS_ERROR_WORKSPACE_TOO_SMALL, "workspace: ",
                    "vbops_plan_workspace_bytes");
  }
  SECTION("valid arguments reach the device check, which refuses made-up addresses") {
    // Without a GPU the pointer query fails (a CUDA error); with one, the addresses are not
    // device memory. Either way nothing is launched and the first array is named.
    const vbops_status s = run();
    INFO("message: " << vbops_last_error());
    CHECK((s == VBOPS_ERROR_CUDA || s == VBOPS_ERROR_INVALID_ARGUMENT));
    CHECK_THAT(std::string(vbops_last_error()), StartsWith("q: "));
  }
}

TEST_CASE("block tables are checked like every array", "[ops]") {
  Fixture f(/*page_size=*/1);
  vbops_native_args a = native_args();
  a.kv_indptr = vbops_tensor{};
  a.kv_indices = vbops_tensor{};
  a.block_table = tensor(fake(10), VBOPS_DTYPE_I32, {B, 64});
  a.block_table.strides[0] = 128;  // a view of every other page column
  require_refused(vbops_verify_native(f.plan, &a, f.workspace, f.workspace_bytes, nullptr),
                  VBOPS_ERROR_INVALID_ARGUMENT, "block_table: strides [128, 1]", "contiguous");
}

TEST_CASE("SGLang-form refusals name SGLang's argument", "[ops]") {
  Fixture f;
  vbops_sglang_args a = sglang_args();
  auto run = [&] { return vbops_verify_sglang(f.plan, &a, f.workspace, f.workspace_bytes, nullptr); };
  SECTION("custom_mask of int32") {
    a.custom_mask.dtype = VBOPS_DTYPE_I32;
    require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "custom_mask: dtype int32", "uint8 or bool");
  }
  SECTION("mask_indptr of int32") {
    a.mask_indptr.dtype = VBOPS_DTYPE_I32;
    require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "mask_indptr: dtype int32", "allowed: int64");
  }
  SECTION("a KV pool of two heads (not MLA)") {
    a.k_buffer.shape[1] = 2;
    require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "k_buffer: shape [1000, 2, 576]", "[*, 1, 576]");
  }
  SECTION("qo_indptr of another batch") {
    a.qo_indptr.shape[0] = B;
    require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "qo_indptr: shape [3]", "expected [4]");
  }
  SECTION("k_extend of another head dim") {
    a.k_extend.shape[2] = 512;
    require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "k_extend: shape [12, 1, 512]", "[12, 1, 576]");
  }
  SECTION("lse, when given, is checked") {
    a.lse = tensor(fake(11), VBOPS_DTYPE_BF16, {B * T, H});
    require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "lse: dtype bfloat16", "allowed: float32");
  }
  SECTION("without lse the arguments are complete: the device check comes next") {
    const vbops_status s = run();
    INFO("message: " << vbops_last_error());
    CHECK((s == VBOPS_ERROR_CUDA || s == VBOPS_ERROR_INVALID_ARGUMENT));
    CHECK_THAT(std::string(vbops_last_error()), StartsWith("q_extend: "));
  }
}

// The device check comes after every argument check: reaching it means the arguments passed.
void require_arguments_accepted(vbops_status s, const std::string& first_array) {
  INFO("message: " << vbops_last_error());
  CHECK((s == VBOPS_ERROR_CUDA || s == VBOPS_ERROR_INVALID_ARGUMENT));
  CHECK_THAT(std::string(vbops_last_error()), StartsWith(first_array + ": "));
}

TEST_CASE("a zero kv_dtype plans a bf16 pool, as callers of abi 1 did", "[ops][fp8]") {
  const vbops_device_facts h200{132, 1, 1, 2048, 232448};
  vbops_plan* plan = nullptr;
  const vbops_shape shape{B, T, H, 4096, 1, 0, VBOPS_MATH_BF16};
  REQUIRE(vbops_plan_create(&shape, &h200, nullptr, &plan) == VBOPS_OK);
  vbops_native_args a = native_args();
  a.kv_pool.dtype = VBOPS_DTYPE_U8;
  a.kv_pool.shape[1] = 1152;  // a bf16 pool's bytes
  std::size_t bytes = vbops_plan_workspace_bytes(plan);
  require_refused(vbops_verify_native(plan, &a, reinterpret_cast<void*>(fake(99)), bytes, nullptr),
                  VBOPS_ERROR_INVALID_ARGUMENT, "kv_pool: dtype uint8", "allowed: bfloat16");
  vbops_plan_destroy(plan);
}

TEST_CASE("an fp8 plan runs the mma.sync engine where bf16 takes wgmma", "[ops][fp8]") {
  // 64 requests of 8 nodes x 16 heads on an H200: the bf16 plan is a wgmma one.
  const vbops_device_facts h200{132, 1, 1, 2048, 232448};
  auto description = [&](vbops_dtype kv_dtype) {
    const vbops_shape shape{64, 8, 16, 32768, 1, kv_dtype, VBOPS_MATH_BF16};
    vbops_plan* plan = nullptr;
    REQUIRE(vbops_plan_create(&shape, &h200, nullptr, &plan) == VBOPS_OK);
    char text[256];
    vbops_plan_describe(plan, text, sizeof text);
    vbops_plan_destroy(plan);
    return std::string(text);
  };
  CHECK_THAT(description(VBOPS_DTYPE_BF16), StartsWith("wgmma"));
  CHECK_THAT(description(VBOPS_DTYPE_FP8_E4M3), StartsWith("mma"));
}

TEST_CASE("fp8 math: a plan over an fp8 pool only, on the mma.sync engine, named in its description",
          "[ops][fp8]") {
  const vbops_device_facts h200{132, 1, 1, 2048, 232448};
  vbops_plan* plan = nullptr;
  SECTION("an fp8 pool with fp8 math") {
    // 64 requests of 8 nodes x 16 heads: a bf16 pool's plan there is a wgmma one.
    const vbops_shape shape{64, 8, 16, 32768, 1, VBOPS_DTYPE_FP8_E4M3, VBOPS_MATH_FP8};
    REQUIRE(vbops_plan_create(&shape, &h200, nullptr, &plan) == VBOPS_OK);
    char text[256];
    vbops_plan_describe(plan, text, sizeof text);
    CHECK_THAT(std::string(text), StartsWith("mma"));
    CHECK_THAT(std::string(text), Contains(" math=fp8"));
    CHECK(vbops_plan_shape(plan).math == VBOPS_MATH_FP8);
    vbops_plan_destroy(plan);
  }
  SECTION("an fp8 pool with bf16 math (the default) says no math") {
    const vbops_shape shape{64, 8, 16, 32768, 1, VBOPS_DTYPE_FP8_E4M3, VBOPS_MATH_BF16};
    REQUIRE(vbops_plan_create(&shape, &h200, nullptr, &plan) == VBOPS_OK);
    char text[256];
    vbops_plan_describe(plan, text, sizeof text);
    CHECK_THAT(std::string(text), !Contains("math="));
    vbops_plan_destroy(plan);
  }
  SECTION("a bf16 pool with fp8 math is refused") {
    for (const int32_t kv_dtype : {int32_t{VBOPS_DTYPE_BF16}, int32_t{0}}) {
      const vbops_shape shape{B, T, H, 4096, 1, kv_dtype, VBOPS_MATH_FP8};
      require_refused(vbops_plan_create(&shape, &h200, nullptr, &plan), VBOPS_ERROR_INVALID_ARGUMENT,
                      "shape.math 1 (VBOPS_MATH_FP8) with a bf16 pool (kv_dtype " + std::to_string(kv_dtype) + ")",
                      "fp8 math with an fp8 pool only (kv_dtype VBOPS_DTYPE_FP8_E4M3, 9)");
      CHECK(plan == nullptr);
    }
  }
  SECTION("a math that does not exist is refused") {
    const vbops_shape shape{B, T, H, 4096, 1, VBOPS_DTYPE_FP8_E4M3, 2};
    require_refused(vbops_plan_create(&shape, &h200, nullptr, &plan), VBOPS_ERROR_INVALID_ARGUMENT, "shape.math 2",
                    "allowed: VBOPS_MATH_BF16 (0) or VBOPS_MATH_FP8 (1)");
    CHECK(plan == nullptr);
  }
}

TEST_CASE("fp8 pools: the dtype the plan names, and a scale", "[ops][fp8]") {
  SECTION("native form") {
    Fixture f(1, VBOPS_DTYPE_FP8_E4M3);
    vbops_native_args a = native_args();
    a.kv_pool.dtype = VBOPS_DTYPE_FP8_E4M3;
    a.kv_scale = 0.25f;
    auto run = [&] { return vbops_verify_native(f.plan, &a, f.workspace, f.workspace_bytes, nullptr); };
    SECTION("float8_e4m3 with a scale") { require_arguments_accepted(run(), "q"); }
    SECTION("its bytes as uint8, [rows, 1, 576]") {
      a.kv_pool = tensor(fake(2), VBOPS_DTYPE_U8, {1000, 1, 576});
      require_arguments_accepted(run(), "q");
    }
    SECTION("a bf16 pool under an fp8 plan") {
      a.kv_pool.dtype = VBOPS_DTYPE_BF16;
      require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "kv_pool: dtype bfloat16",
                      "allowed: float8_e4m3 or uint8 (its bytes): the plan was made for an fp8 pool");
    }
    SECTION("a bf16 pool's bytes (1152 a row)") {
      a.kv_pool = tensor(fake(2), VBOPS_DTYPE_U8, {1000, 1152});
      require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "kv_pool: shape [1000, 1152]", "expected [*, 576]");
    }
    SECTION("no scale (0)") {
      a.kv_scale = 0.f;
      require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "kv_scale: 0", "an fp8 pool needs its dequantization scale");
    }
    SECTION("a NaN scale") {
      a.kv_scale = std::nanf("");
      require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "kv_scale: ", "a finite value above 0");
    }
    SECTION("a negative scale") {
      a.kv_scale = -0.5f;
      require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "kv_scale: -0.5", "above 0");
    }
    SECTION("tree rows beside the pool in its dtype") {
      a.tree_kv = tensor(fake(9), VBOPS_DTYPE_U8, {B * T, 576});
      require_arguments_accepted(run(), "q");
    }
    SECTION("bf16 tree rows beside an fp8 pool") {
      a.tree_kv = tensor(fake(9), VBOPS_DTYPE_BF16, {B * T, 576});
      require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "tree_kv: dtype bfloat16", "float8_e4m3");
    }
  }
  SECTION("SGLang form: SGLang's float8_e4m3fn k_buffer and bf16 k_extend") {
    Fixture f(1, VBOPS_DTYPE_FP8_E4M3);
    vbops_sglang_args a = sglang_args();
    a.k_buffer.dtype = VBOPS_DTYPE_FP8_E4M3;
    a.kv_scale = 2.f;
    auto run = [&] { return vbops_verify_sglang(f.plan, &a, f.workspace, f.workspace_bytes, nullptr); };
    SECTION("accepted") { require_arguments_accepted(run(), "q_extend"); }
    SECTION("k_extend stays bf16") {
      a.k_extend.dtype = VBOPS_DTYPE_FP8_E4M3;
      require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "k_extend: dtype float8_e4m3", "allowed: bfloat16");
    }
    SECTION("no scale") {
      a.kv_scale = 0.f;
      require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "kv_scale: 0", "fp8 pool");
    }
  }
  SECTION("a bf16 pool is not scaled") {
    Fixture f;
    vbops_sglang_args a = sglang_args();
    auto run = [&] { return vbops_verify_sglang(f.plan, &a, f.workspace, f.workspace_bytes, nullptr); };
    SECTION("1 and 0 (not given) are accepted") {
      a.kv_scale = 1.f;
      require_arguments_accepted(run(), "q_extend");
      a.kv_scale = 0.f;
      require_arguments_accepted(run(), "q_extend");
    }
    SECTION("another scale is refused") {
      a.kv_scale = 0.5f;
      require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "kv_scale: 0.5", "a bf16 pool is not scaled");
    }
    SECTION("an fp8 k_buffer under a bf16 plan") {
      a.k_buffer.dtype = VBOPS_DTYPE_FP8_E4M3;
      require_refused(run(), VBOPS_ERROR_INVALID_ARGUMENT, "k_buffer: dtype float8_e4m3",
                      "an fp8 pool needs a plan with kv_dtype VBOPS_DTYPE_FP8_E4M3");
    }
  }
}

/* verifybench_ops.h: the C ABI of libverifybench_ops.so, the production MLA tree-verify
 * attention kernel for callers outside C++ (the Python package, serving engines).
 *
 * The operation (docs/background.md section 1): for every request b, tree node i and head h,
 * attention of q[b*T+i, h, 0:576] over the request's prefix rows and the tree nodes that are
 * i or its ancestors; V is the first 512 values of each 576-wide K row; o is bf16
 * [B*T, H, 512], lse fp32 [B*T, H] (natural log).
 *
 * Use:
 *   1. vbops_plan_create() once per captured shape (maximum batch, tree size, heads, the
 *      longest expected request), outside any CUDA-graph capture: it queries the device.
 *   2. vbops_plan_workspace_bytes(): allocate that much device memory once.
 *   3. vbops_verify_native() / vbops_verify_sglang() per call, on the caller's stream. They
 *      validate every argument first and launch nothing when one is wrong; they never
 *      synchronise, allocate or read device memory on the host, so they can be captured in a
 *      CUDA graph and replayed with new lengths, page tables and masks (lengths are read on
 *      the device).
 *
 * fp8 KV cache: a plan made with shape.kv_dtype = VBOPS_DTYPE_FP8_E4M3 takes a pool of 576
 * e4m3 values a row (one byte each) holding each value divided by one scale, kv_scale in the
 * launch's arguments; the kernel multiplies it back. Native tree rows (tree_kv) have the pool's
 * dtype and scale; SGLang's bf16 k_extend is quantized on the device with kv_scale as SGLang
 * stores it. The math is the bf16 pool's by default (every e4m3 value is exact in bf16); a
 * plan made with shape.math = VBOPS_MATH_FP8 multiplies the e4m3 tile itself (fp8 tensor math,
 * opt-in: Q quantized to e4m3 per query row and the softmax weights P to e4m3, fp32
 * accumulation), whose error bound is scenarios/README.md's "fp8 math". Only over an fp8 pool.
 *
 * Every function returns a vbops_status; on anything but VBOPS_OK, vbops_last_error() (per
 * thread) says which argument was wrong, what it was, and what is allowed.
 * Thread safety: a plan is read-only after creation and may be shared between threads. */
#ifndef VERIFYBENCH_OPS_H
#define VERIFYBENCH_OPS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define VBOPS_ABI_VERSION 3
#define VBOPS_MAX_DIMS 4

typedef enum vbops_status {
  VBOPS_OK = 0,
  VBOPS_ERROR_INVALID_ARGUMENT = 1,  /* dtype, shape, stride, alignment, device, null pointer */
  VBOPS_ERROR_UNSUPPORTED = 2,       /* valid, but no built kernel serves it on this device (the message says why) */
  VBOPS_ERROR_WORKSPACE_TOO_SMALL = 3,
  VBOPS_ERROR_SHAPE_EXCEEDS_PLAN = 4, /* batch above the plan's, or another T / H than planned */
  VBOPS_ERROR_CUDA = 5               /* a CUDA call failed (the message names it) */
} vbops_status;

typedef enum vbops_dtype {
  VBOPS_DTYPE_INVALID = 0,
  VBOPS_DTYPE_BF16 = 1,
  VBOPS_DTYPE_F16 = 2,
  VBOPS_DTYPE_F32 = 3,
  VBOPS_DTYPE_I32 = 4,
  VBOPS_DTYPE_I64 = 5,
  VBOPS_DTYPE_U8 = 6,
  VBOPS_DTYPE_BOOL = 7,
  VBOPS_DTYPE_U64 = 8,
  VBOPS_DTYPE_FP8_E4M3 = 9,
  VBOPS_DTYPE_OTHER = 10 /* anything else: always refused, named in the message */
} vbops_dtype;

/* The tensor math of a plan over an fp8 e4m3 pool (vbops_shape.math). */
typedef enum vbops_math {
  VBOPS_MATH_BF16 = 0, /* the e4m3 tile widened to bf16, exact (the default; the only math of a bf16 pool) */
  VBOPS_MATH_FP8 = 1   /* e4m3 tensor math: Q per row and P quantized to e4m3 (an fp8 pool only) */
} vbops_math;

/* A borrowed view of a device array. strides are in elements (not bytes). device: the CUDA
 * ordinal, or -1 for host memory (always refused). data == NULL with ndim == 0 means "not
 * given" for the optional arguments. Every given array needs at least one element (when every
 * prefix is empty, pass a one-element kv_indices: it is not read). */
typedef struct vbops_tensor {
  const void* data;
  int32_t dtype; /* vbops_dtype */
  int32_t ndim;
  int64_t shape[VBOPS_MAX_DIMS];
  int64_t strides[VBOPS_MAX_DIMS];
  int32_t device;
} vbops_tensor;

/* The largest launch a plan serves. The kernel's split count and row tiling are fixed by it
 * (a CUDA graph captures them); a launch may have fewer requests, never another tree size
 * or head count. max_kv_len (prefix + tree nodes of the longest request) sizes the KV
 * splits: a longer request is still computed correctly, only with fewer splits per token. */
typedef struct vbops_shape {
  int32_t max_batch;   /* B, 1 .. 65535 */
  int32_t tree_size;   /* T, 1 .. 1024 */
  int32_t num_heads;   /* H, >= 1; B * T * H at most 2^30 query rows (the planner's 32-bit arithmetic) */
  int32_t max_kv_len;  /* T to 2^30 */
  int32_t page_size;   /* the block table's rows per page (1 for token-table callers such as SGLang);
                          token-table launches run with any plan */
  int32_t kv_dtype;    /* the KV pool's element type, fixed per plan (it picks the engine):
                          VBOPS_DTYPE_BF16 (0 reads as bf16), or VBOPS_DTYPE_FP8_E4M3 for an fp8
                          e4m3 pool, whose launches take the pool as FP8_E4M3 or as its bytes (U8) */
  int32_t math;        /* vbops_math, fixed per plan: VBOPS_MATH_BF16 (0), or VBOPS_MATH_FP8 with
                          kv_dtype VBOPS_DTYPE_FP8_E4M3 (refused with a bf16 pool) */
} vbops_shape;

/* What the planner needs to know about a GPU. vbops_plan_create(..., NULL, ...) reads it
 * from the current device; a caller may give it to plan for another device (tests, tools). */
typedef struct vbops_device_facts {
  int32_t sm_count;
  int32_t blocks_per_sm;      /* resident blocks of the mma.sync kernel per SM */
  int32_t wgmma_supported;    /* 1 on compute capability 9.0 (sm_90a machine code) */
  int32_t max_threads_per_sm; /* 2048 on sm_90, 1536 on sm_120 */
  int32_t smem_optin_bytes;   /* per-block opt-in shared memory (232448 on the H200) */
} vbops_device_facts;

typedef struct vbops_plan vbops_plan;

/* kv_scale (both forms): an fp8 pool's dequantization scale, finite and above 0 (1.0 when the
 * checkpoint ships none); for a bf16 pool 1 (0, as in a zero-initialised struct, reads as 1).
 *
 * Native form (kernels/include/verifybench/verify_params.h):
 *   q          [B*T, H, 576] bf16         kv_pool    [rows, 576] or [rows, 1, 576] of the plan's
 *                                                    kv_dtype (bf16; fp8 e4m3 or its bytes, u8)
 *   prefix_len [B] i32                    tree_kv    optional [B*T, 576] / [B*T, 1, 576] bf16:
 *                                                    the tree rows; absent: tokens P_b..P_b+T-1
 *                                                    of the page table
 *   page table, one of: kv_indptr [B+1] i32 + kv_indices [n] i64 (one row per token),
 *               or block_table [B, max_pages] i32 (page ids, the plan's page_size rows each)
 *   tree_mask  [B, T, ceil(T/64)] u64 (or i64): bit j of node i = node j is i or an ancestor
 *   o          [B*T, H, 512] bf16         lse        [B*T, H] f32 */
typedef struct vbops_native_args {
  float sm_scale;
  float kv_scale;
  vbops_tensor q, kv_pool, prefix_len, tree_kv;
  vbops_tensor kv_indptr, kv_indices, block_table;
  vbops_tensor tree_mask;
  vbops_tensor o, lse;
} vbops_native_args;

/* SGLang's form (its Triton backend's extend_attention_fwd for MLA target verify):
 *   q_extend   [B*T, H, 576] bf16         k_extend   [B*T, 1, 576] bf16 (the tree rows)
 *   k_buffer   [rows, 1, 576] of the plan's kv_dtype (the KV pool; V is its first 512 values):
 *              bf16, or SGLang's fp8 MLA pool (float8_e4m3fn, or its uint8 storage)
 *   qo_indptr  [B+1] i32, arange(0, (B+1)*T, T) (shape checked; the values are not read)
 *   kv_indptr  [B+1] i32 (prefix only)    kv_indices [n] i64
 *   custom_mask [n] u8 or bool, flat: request b at mask_indptr[b], T rows of P_b+T columns
 *   mask_indptr [B+1] i64                 o [B*T, H, 512] bf16
 *   lse        optional [B*T, H] f32 (absent: written into the workspace and dropped) */
typedef struct vbops_sglang_args {
  float sm_scale;
  float kv_scale; /* SGLang's k_scale (== v_scale: K and V are the same row in MLA) */
  vbops_tensor q_extend, k_extend, k_buffer;
  vbops_tensor qo_indptr, kv_indptr, kv_indices;
  vbops_tensor custom_mask, mask_indptr;
  vbops_tensor o, lse;
} vbops_sglang_args;

int vbops_abi_version(void);         /* VBOPS_ABI_VERSION of the library */
const char* vbops_version(void);     /* "verifybench-ops <version> (abi N)" */
const char* vbops_last_error(void);  /* this thread's last message, "" after VBOPS_OK */

/* facts: NULL reads the current device. kv_lens: NULL, or max_batch host entries (prefix + T
 * of each request) for a plan sized by these lengths (a long request gets more splits than a
 * short one); the plan still computes any lengths correctly. */
vbops_status vbops_plan_create(const vbops_shape* shape, const vbops_device_facts* facts, const int32_t* kv_lens,
                               vbops_plan** out);
void vbops_plan_destroy(vbops_plan* plan);
/* Device bytes a launch of this plan needs (split partials, the SGLang form's scratch and
 * dropped lse), for any batch up to the plan's. */
size_t vbops_plan_workspace_bytes(const vbops_plan* plan);
/* The launch the plan chose for its maximum batch, one line (the kernels' planner's words, e.g.
 * "wgmma/page-boxes stages=2 smem=224256 m_tiles=2 splits=4 ..."), over its page table (a block
 * table when page_size > 1, else the token table) and a pool TMA can address. Writes at most
 * `capacity` bytes (NUL included); returns the full length. */
size_t vbops_plan_describe(const vbops_plan* plan, char* buffer, size_t capacity);
vbops_shape vbops_plan_shape(const vbops_plan* plan);

/* stream: a cudaStream_t (NULL: the legacy default stream). */
vbops_status vbops_verify_native(const vbops_plan* plan, const vbops_native_args* args, void* workspace,
                                 size_t workspace_bytes, void* stream);
vbops_status vbops_verify_sglang(const vbops_plan* plan, const vbops_sglang_args* args, void* workspace,
                                 size_t workspace_bytes, void* stream);

#ifdef __cplusplus
}
#endif
#endif /* VERIFYBENCH_OPS_H */

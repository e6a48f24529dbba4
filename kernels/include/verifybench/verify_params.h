// The one parameter struct every executor of MLA tree-verify attention reads: the
// production kernel, the naive GPU baseline and the CPU reference (which gets host
// pointers). Shapes, page lookups and tree visibility are accessors here so nobody
// recomputes them. docs/background.md §1-2 gives the math and layouts.
#pragma once
#include <cstdint>

#include "verifybench/bf16.h"
#include "verifybench/fp8.h"
#include "verifybench/hd.h"

namespace vb {

// Fixed by the model family (DeepSeek-V3 / Kimi K2 absorbed MLA): one latent KV head.
namespace mla {
inline constexpr int kHeadDimQK = 576;  // c_kv (512) + k_pe (64): width of q and of a K row
inline constexpr int kHeadDimV = 512;   // V = first 512 values of the same cache row
inline constexpr int kMaxTreeNodes = 1024;
inline constexpr int kMaskWordBits = 64;
}  // namespace mla

// The element type of the KV pool's rows (scenarios/README.md, `kv_cache`).
enum class KvDtype : int {
  kBf16 = 0,     // 576 bf16 values a row (1,152 bytes)
  kFp8E4m3 = 1,  // 576 e4m3 values a row (576 bytes), stored divided by kv_scale
};

enum class PageTableKind : int {
  kTokenIndices = 0,  // kv_indptr[B+1] + int64 kv_indices: one physical row per token
  kBlockTable = 1,    // block_table[B, max_pages] of page ids, page_size rows per page
};

struct VerifyParams {
  // ---- shapes ----
  int batch = 0;      // B requests
  int tree_size = 0;  // T draft-tree nodes per request (same for all, as engines pad)
  int num_heads = 0;  // H query heads sharing the one latent KV head
  float sm_scale = 0.f;

  // ---- inputs ----
  const bf16_bits* q = nullptr;        // [B*T, H, 576]
  // [pool_rows, 576] of kv_dtype; K = row[0:576], V = row[0:512]. Untyped so that no code
  // reads it without naming the dtype: kv_pool_bf16() / kv_pool_fp8().
  const void* kv_pool = nullptr;
  std::int64_t pool_rows = 0;
  const std::int32_t* prefix_len = nullptr;  // [B] committed prefix P_b (may be 0)

  // Tree node KV rows. nullptr: the T node rows are logical tokens P_b..P_b+T-1 of the
  // page table (the serving engine wrote them into the cache). Non-null (SGLang's
  // k_extend): dense [B*T, 576] rows of the pool's dtype (and, for fp8, its scale), and the
  // page table covers only the prefix. Untyped like kv_pool: tree_kv_bf16() / tree_kv_fp8().
  const void* tree_kv = nullptr;

  // ---- page table: exactly one form is read, chosen by page_kind ----
  PageTableKind page_kind = PageTableKind::kTokenIndices;
  // The pool's element type. fp8: a pool value v stands for v * kv_scale (K and V alike).
  // Tree rows from tree_kv have the pool's dtype and scale. kv_dtype and kv_scale sit
  // in the struct's alignment gaps (after page_kind, after mask_words), so the fields the
  // kernels read keep their offsets.
  KvDtype kv_dtype = KvDtype::kBf16;
  const std::int32_t* kv_indptr = nullptr;   // [B+1] token form: offsets into kv_indices
  const std::int64_t* kv_indices = nullptr;  // [kv_indptr[B]] token form: physical rows
  const std::int32_t* block_table = nullptr;  // [B, max_pages] block form: page ids
  int page_size = 1;                          // block form: rows per page (1, 16, 64)
  int max_pages = 0;                          // block form: row stride of block_table

  // ---- tree visibility ----
  // [B, T, mask_words] bit j of node i's words: tree node j is i itself or an ancestor.
  const std::uint64_t* tree_mask = nullptr;
  int mask_words = 0;  // ceil(T / 64)
  float kv_scale = 1.f;  // fp8 pool: the per-layer dequantization scale; bf16: 1

  // ---- outputs ----
  bf16_bits* o = nullptr;  // [B*T, H, 512]
  float* lse = nullptr;    // [B*T, H], natural log

  // ---- accessors (host and device) ----
  VB_HD int query_rows_per_request() const { return tree_size * num_heads; }
  // Logical tokens request b attends over: prefix then its T tree nodes.
  VB_HD int request_prefix(int b) const { return prefix_len[b]; }
  VB_HD int kv_len(int b) const { return prefix_len[b] + tree_size; }

  // Physical pool row of logical prefix-or-tree token t of request b (t < kv_len(b)),
  // only meaningful when the row lives in the pool (see kv_row_ptr).
  VB_HD std::int64_t pool_row(int b, int t) const {
    if (page_kind == PageTableKind::kTokenIndices) {
      return kv_indices[kv_indptr[b] + t];
    }
    const std::int64_t page = block_table[static_cast<std::int64_t>(b) * max_pages + t / page_size];
    return page * page_size + t % page_size;
  }

  // The pool under its dtype: only the accessor of kv_dtype may be called.
  VB_HD const bf16_bits* kv_pool_bf16() const { return static_cast<const bf16_bits*>(kv_pool); }
  VB_HD const fp8_e4m3_bits* kv_pool_fp8() const { return static_cast<const fp8_e4m3_bits*>(kv_pool); }
  VB_HD bool kv_is_fp8() const { return kv_dtype == KvDtype::kFp8E4m3; }

  VB_HD const bf16_bits* tree_kv_bf16() const { return static_cast<const bf16_bits*>(tree_kv); }
  VB_HD const fp8_e4m3_bits* tree_kv_fp8() const { return static_cast<const fp8_e4m3_bits*>(tree_kv); }

  // Whether logical token t of request b is read from tree_kv rather than the pool.
  VB_HD bool token_in_tree_kv(int b, int t) const { return tree_kv != nullptr && t >= prefix_len[b]; }
  // Row index in tree_kv of tree token t of request b.
  VB_HD std::int64_t tree_kv_row(int b, int t) const {
    return static_cast<std::int64_t>(b) * tree_size + (t - prefix_len[b]);
  }

  // Address of the 576-wide K row (whose first 512 values are V) of logical token t, for a
  // bf16 pool.
  VB_HD const bf16_bits* kv_row_ptr(int b, int t) const {
    if (token_in_tree_kv(b, t)) return tree_kv_bf16() + tree_kv_row(b, t) * mla::kHeadDimQK;
    return kv_pool_bf16() + pool_row(b, t) * mla::kHeadDimQK;
  }
  // The same row of an fp8 pool (and fp8 tree_kv).
  VB_HD const fp8_e4m3_bits* kv_row_fp8(int b, int t) const {
    if (token_in_tree_kv(b, t)) return tree_kv_fp8() + tree_kv_row(b, t) * mla::kHeadDimQK;
    return kv_pool_fp8() + pool_row(b, t) * mla::kHeadDimQK;
  }

  VB_HD const std::uint64_t* node_mask(int b, int node) const {
    return tree_mask + (static_cast<std::int64_t>(b) * tree_size + node) * mask_words;
  }

  // Offset of query row (request b, node, head) in q (elements / 576) and lse.
  VB_HD std::int64_t query_row(int b, int node, int head) const {
    return (static_cast<std::int64_t>(b) * tree_size + node) * num_heads + head;
  }
};

// The main kernels' view of the parameters when they are launched over a kernel that is
// still writing prefix_len and the tree mask (the SGLang adapter's packing kernel;
// FlashVerifyLaunchOptions::previous_kernel_writes_only_mask_and_lengths): the same fields,
// but each request's lengths taken from the token table's kv_indptr, which is complete
// before that kernel starts. The kernels, the tile-balanced walk and its helpers are
// templates over the parameter type, so these two members hide VerifyParams' own. The
// accessors that read prefix_len themselves (kv_row_ptr, token_visible) are not for it.
struct IndptrLengthParams : VerifyParams {
  VB_HD explicit IndptrLengthParams(const VerifyParams& p) : VerifyParams(p) {}
  // The table holds the prefix rows, and the tree rows too where tree_kv is null.
  VB_HD int request_prefix(int b) const {
    return kv_indptr[b + 1] - kv_indptr[b] - (tree_kv != nullptr ? 0 : tree_size);
  }
  VB_HD int kv_len(int b) const { return request_prefix(b) + tree_size; }
};

// Tree visibility: is tree node j visible to the node whose ancestor mask is `mask`?
// The single definition every executor and the SGLang mask conversion use.
VB_HD bool tree_node_visible(const std::uint64_t* mask, int j) {
  return ((mask[j / mla::kMaskWordBits] >> (j % mla::kMaskWordBits)) & 1u) != 0;
}

// Is logical token t (prefix or tree) visible to tree node `node` of request b?
VB_HD bool token_visible(const VerifyParams& p, int b, int node, int t) {
  const int prefix = p.prefix_len[b];
  if (t < prefix) return true;
  return tree_node_visible(p.node_mask(b, node), t - prefix);
}

}  // namespace vb

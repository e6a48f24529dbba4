// A materialized problem: the host bytes every executor reads, built deterministically
// from a CaseSpec (same spec -> same bytes on any machine and thread count).
#pragma once
#include <cstdint>
#include <vector>

#include "harness/scenario/scenario.h"
#include "verifybench/verify_params.h"

namespace vb {

// ---- trees (harness/problem/tree.cpp) ----
// parents[0] = -1, 0 <= parents[i] < i for i > 0 (topological order).
struct Tree {
  std::vector<int> parents;
  int size() const { return static_cast<int>(parents.size()); }
};

// Builds the tree a spec describes. `request` varies the seed of random trees so every
// request of a batch can get its own tree; other kinds ignore it. Throws ScenarioError
// when the spec cannot produce a valid tree.
Tree build_tree(const TreeSpec& spec, int request);
// Node count the spec produces, without building it.
int tree_size(const TreeSpec& spec);
std::vector<int> tree_depths(const Tree& tree);
int mask_words_for(int tree_size);
// [T, mask_words]: bit j of node i set iff j == i or j is an ancestor of i.
std::vector<std::uint64_t> ancestor_masks(const Tree& tree);

// ---- page layout (harness/problem/page_layout.cpp) ----
struct PageLayout {
  int page_size = 1;
  std::int64_t num_pages = 0;  // pool pages (>= pages in use; the rest stay NaN)
  int max_pages = 0;           // block_table row stride
  std::vector<std::int32_t> block_table;  // [B, max_pages]; unused entries out of range
  std::vector<std::int32_t> kv_indptr;    // [B+1] token form, covers P_b + T tokens
  std::vector<std::int64_t> kv_indices;   // token form, same mapping as block_table
  std::int64_t pool_rows() const { return num_pages * page_size; }
};

// Pool pages a layout allocates for this many pages in use: those and 1/8 more, at least two
// of them slack (unreferenced, NaN rows).
std::int64_t pool_pages_for(std::int64_t pages_used);

// Assigns pool pages to the logical tokens (prefix + tree) of every request following the
// spec's placement and shared-prefix groups. kv_lens[b] = P_b + T.
PageLayout build_page_layout(const PageSpec& spec, const std::vector<int>& prefix_lens,
                             int tree_size);

// ---- the problem ----
struct Problem {
  CaseSpec spec;
  int batch = 0;
  int tree_size = 0;
  int num_heads = 0;
  float sm_scale = 0.f;
  std::vector<std::int32_t> prefix_len;  // [B]
  std::vector<Tree> trees;               // [B]
  int mask_words = 0;
  std::vector<std::uint64_t> tree_mask;  // [B, T, mask_words]
  std::vector<bf16_bits> q;              // [B*T, H, 576], random, no zeros pattern
  PageLayout pages;
  // [pool_rows, 576]: the generated values; rows nobody may read are NaN. What a bf16 case's
  // executors read; for an fp8 case, the unquantized data its quantization note compares with.
  std::vector<bf16_bits> kv_pool;
  // fp8 cases (spec.kv_cache): the pool the executors read, kv_pool / kv_scale rounded to
  // e4m3 (quantize_kv_pool); empty for bf16 cases.
  std::vector<fp8_e4m3_bits> kv_pool_fp8;
  float kv_scale = 1.f;  // the dequantization scale the executors get (1 for bf16)
  // SGLang flat custom mask (docs/background.md §2) derived from the same trees.
  std::vector<std::uint8_t> sglang_custom_mask;
  std::vector<std::int64_t> sglang_mask_indptr;  // [B+1]

  KvDtype kv_dtype() const { return spec.kv_cache.dtype; }
  // The pool the executors read, as raw bytes (kv_pool or kv_pool_fp8).
  const void* executed_kv_pool() const;
  std::size_t executed_kv_pool_bytes() const;

  std::int64_t query_rows() const {
    return static_cast<std::int64_t>(batch) * tree_size * num_heads;
  }
};

// ---- data distributions (harness/problem/problem_data.cpp) ----
// Fills q and every pool row the page table maps per spec.data; unmapped rows are NaN.
// Needs batch, tree_size, num_heads, sm_scale, prefix_len and pages set.
void fill_problem_data(Problem* problem);
// Whether logical token t of a request with this prefix is a sink row under `data`.
bool is_sink_position(const DataSpec& data, int prefix_len, int tree_size, int t);
// fp8 cases: kv_scale (the spec's, or max |finite kv_pool value| / 448 for `amax`) and
// kv_pool_fp8 from kv_pool (each value / kv_scale, round to nearest even, saturating at
// +-448; NaN rows and poison stay NaN). Nothing for bf16 cases. Called by fill_problem_data.
void quantize_kv_pool(Problem* problem);
// The largest |value| of the finite entries of a bf16 pool (0 when there is none).
double kv_pool_amax(const std::vector<bf16_bits>& pool);

// Builds the problem a spec describes. Throws ScenarioError on impossible specs (e.g. a
// shared prefix longer than a request's prefix).
Problem materialize(const CaseSpec& spec);
// The prefix lengths materialize() draws for a case (same seeds), without building anything.
std::vector<std::int32_t> case_prefix_lengths(const CaseSpec& spec);
// The page layout materialize() builds for those lengths (shared-prefix groups checked);
// throws ScenarioError naming the case where materialize() would.
PageLayout case_page_layout(const CaseSpec& spec, const std::vector<std::int32_t>& prefix_len, int tree_size);

// Where one copy of a problem's buffers lives: the problem's own host vectors or their
// device copies. The outputs, [B*T, H, 512] and [B*T, H], are the caller's.
struct ProblemBuffers {
  const bf16_bits* q = nullptr;
  const void* kv_pool = nullptr;  // of the problem's kv_dtype()
  const std::int32_t* prefix_len = nullptr;
  const std::int32_t* kv_indptr = nullptr;
  const std::int64_t* kv_indices = nullptr;
  const std::int32_t* block_table = nullptr;
  const std::uint64_t* tree_mask = nullptr;
  bf16_bits* o = nullptr;
  float* lse = nullptr;
};
// The one VerifyParams filler, for the CPU reference and the GPU executors alike: the
// problem's shapes and page-table form `kind` over `buffers`.
VerifyParams verify_params(const Problem& problem, PageTableKind kind, const ProblemBuffers& buffers);
// verify_params over the problem's host buffers (for the CPU reference): the pool the
// executors read (kExecuted), or the generated values before an fp8 case's quantization
// (kUnquantized: a bf16 pool, scale 1; the same as kExecuted for a bf16 case).
enum class HostPool { kExecuted, kUnquantized };
VerifyParams host_params(const Problem& problem, PageTableKind kind, bf16_bits* o, float* lse,
                         HostPool pool = HostPool::kExecuted);

// Builds SGLang's flat custom mask for the trees: request b starts at
// sum_{c<b} T*(P_c+T); T rows of P_b+T bytes, prefix columns all 1.
void build_sglang_mask(const std::vector<std::int32_t>& prefix_len, const std::vector<Tree>& trees,
                       std::vector<std::uint8_t>* custom_mask,
                       std::vector<std::int64_t>* mask_indptr);

// ---- SGLang's Triton extend-attention inputs (harness/problem/problem_sglang.cpp) ----
// The verify call's tree-token K/V and index tensors, derived from a Problem (docs/background.md §2).
// The flat custom mask and its indptr are already Problem::sglang_custom_mask /
// sglang_mask_indptr; q_extend is Problem::q and k_buffer the pool the executors read
// (Problem::executed_kv_pool) as they are.
struct SglangInputsHost {
  std::vector<bf16_bits> k_extend;        // [B*T, 576]: node i of request b at row b*T + i
  std::vector<bf16_bits> v_extend;        // [B*T, 512]: first 512 values of the k_extend row
  // fp8 pool only: the same tree rows as the pool holds them (what the adapter's own
  // quantization of k_extend gives), the dense-tree executors' tree_kv.
  std::vector<fp8_e4m3_bits> k_extend_fp8;
  std::vector<std::int32_t> qo_indptr;    // [B+1] = arange(0, (B+1)*T, T)
  std::vector<std::int32_t> kv_indptr;    // [B+1] prefix only: kv_indptr[b+1]-kv_indptr[b] = P_b
  std::vector<std::int64_t> kv_indices;   // [sum_b P_b] prefix rows only; empty when all P_b = 0
};
// Gathers the tree rows (logical tokens P_b..P_b+T-1 of the page table) into dense
// k_extend / v_extend and cuts the token page table down to the prefix. An fp8 case's tree
// rows are the pool's values (e4m3 x kv_scale) rounded to bf16 once: SGLang keeps k_extend in
// bf16 beside its fp8 pool.
SglangInputsHost sglang_inputs_host(const Problem& problem);

}  // namespace vb

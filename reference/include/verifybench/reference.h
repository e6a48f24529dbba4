// CPU oracle for MLA tree-verify attention: double-precision accumulation from the same
// bf16 inputs the GPU executors read, through the same VerifyParams (host pointers).
#pragma once
#include <cstdint>
#include <vector>

#include "verifybench/verify_params.h"

namespace vb {

// One (request, node, head) query row.
struct QueryRow {
  int request = 0;
  int node = 0;
  int head = 0;
};

// Reference outputs in double, for the rows that were computed.
struct ReferenceOutput {
  std::vector<QueryRow> rows;  // rows computed, in order
  std::vector<double> o;       // [rows.size(), 512]
  std::vector<double> lse;     // [rows.size()]
  // [rows.size()]: sum over tokens of the softmax weight squared, the row's concentration (1
  // for one visible token, 1/n for n equal ones; NaN where the weights are): the fp8-math
  // error model's input (harness/problem/fp8_math_error.h).
  std::vector<double> weight_square_sum;
  bool sampled = false;        // true when rows is a subset of all B*T*H rows
};

struct ReferenceOptions {
  int threads = 0;  // 0: std::thread::hardware_concurrency()
};

// All B*T*H rows. Reads params.q, kv pool / tree_kv, page table, masks, prefix_len
// (host pointers); ignores params.o / params.lse.
ReferenceOutput reference_verify(const VerifyParams& params, const ReferenceOptions& options = {});

// Only the given rows (the seeded row-sampling mode for cases too large for the CPU).
ReferenceOutput reference_verify_rows(const VerifyParams& params, const std::vector<QueryRow>& rows,
                                      const ReferenceOptions& options = {});

// `count` distinct rows drawn with `seed` (all rows if count >= B*T*H), sorted.
std::vector<QueryRow> sample_query_rows(const VerifyParams& params, int count, std::uint64_t seed);

}  // namespace vb

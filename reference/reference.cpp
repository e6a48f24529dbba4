// CPU oracle for MLA tree-verify attention (docs/background.md §1), double precision from bf16
// inputs (an fp8 KV pool: its dequantized values, e4m3 x kv_scale, exact in double).
//
// Work split: the requested query rows are grouped by request and cut into row blocks;
// one block is one work item. Threads take items in request order from an atomic counter.
// The first thread to touch a request gathers its P_b + T candidate K rows (through
// VerifyParams' row accessors only, so every page-table form, KV dtype and the SGLang tree_kv form
// work) into a double matrix; the last thread to finish a block of that request frees it.
// Items are handed out in request order, so at most `threads` gathered requests are alive
// at once; a gathered K costs 4.6 KB per token (~150 MB at 32k, ~600 MB at 128k).
//
// Per block (m query rows of one request, n = P_b + T candidate tokens):
//   S = sm_scale * Q · Kᵀ        [m, n]    (Eigen GEMM, double)
//   S[r, t] = -inf where !token_visible(b, node(r), t)
//   lse[r] = max + log(sum exp(S[r,:] - max))
//   O = softmax(S) · K[:, 0:512] [m, 512]
// The score block is bounded by kMaxBlockScoreBytes per thread, so a 32k-prefix request
// needs ~150 MB of K plus 32 MB per thread. Masked scores become exact zeros in the
// softmax, so an invisible row's values cannot reach the output (bit for bit, as long as
// they are finite; rows nobody maps are never read at all).
#define EIGEN_DONT_PARALLELIZE  // threads are ours; Eigen stays single-threaded
#include "verifybench/reference.h"

#include <Eigen/Dense>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <unordered_set>

namespace vb {
namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

constexpr int kQK = mla::kHeadDimQK;
constexpr int kV = mla::kHeadDimV;
// Score block [m, n] doubles per thread: large enough for GEMM efficiency, small enough
// that two threads on a 32k prefix stay well under a gigabyte.
constexpr std::size_t kMaxBlockScoreBytes = std::size_t{32} << 20;
constexpr int kMaxBlockRows = 256;
constexpr double kNegInf = -std::numeric_limits<double>::infinity();

void check_params(const VerifyParams& p) {
  auto fail = [](const std::string& what) {
    throw std::invalid_argument("reference_verify: " + what);
  };
  if (p.batch < 0 || p.tree_size <= 0 || p.num_heads <= 0) {
    fail("bad shape (batch " + std::to_string(p.batch) + ", tree_size " +
         std::to_string(p.tree_size) + ", num_heads " + std::to_string(p.num_heads) + ")");
  }
  if (p.batch == 0) return;
  if (p.q == nullptr) fail("q is null");
  if (p.prefix_len == nullptr) fail("prefix_len is null");
  if (p.tree_mask == nullptr) fail("tree_mask is null");
  if (p.mask_words * mla::kMaskWordBits < p.tree_size) {
    fail("mask_words " + std::to_string(p.mask_words) + " too small for tree_size " +
         std::to_string(p.tree_size));
  }
  bool any_pool_row = p.tree_kv == nullptr;
  for (int b = 0; b < p.batch; ++b) {
    if (p.prefix_len[b] < 0) fail("negative prefix_len for request " + std::to_string(b));
    if (p.prefix_len[b] > 0) any_pool_row = true;
  }
  if (any_pool_row) {
    if (p.kv_pool == nullptr) fail("kv_pool is null");
    if (p.kv_is_fp8() && !usable_fp8_kv_scale(p.kv_scale)) fail("kv_scale must be finite and > 0");
    if (p.page_kind == PageTableKind::kTokenIndices) {
      if (p.kv_indptr == nullptr || p.kv_indices == nullptr) fail("token page table is null");
    } else {
      if (p.block_table == nullptr) fail("block_table is null");
      if (p.page_size <= 0 || p.max_pages <= 0) fail("bad page_size / max_pages");
    }
  }
}

// Gathered candidate rows of one request: K[t, 0:576] for logical tokens t < kv_len(b).
struct RequestState {
  std::once_flag gathered;
  RowMatrix k;
  std::atomic<int> blocks_left{0};
};

struct WorkItem {
  int request = 0;
  int first = 0;  // index into the request's slice of `order`
  int count = 0;
};

void gather_request_k(const VerifyParams& p, int b, RowMatrix* k) {
  const int n = p.kv_len(b);
  k->resize(n, kQK);
  for (int t = 0; t < n; ++t) {
    const bool in_pool = p.tree_kv == nullptr || t < p.prefix_len[b];
    const std::int64_t row = in_pool ? p.pool_row(b, t) : 0;
    if (in_pool && (row < 0 || (p.pool_rows > 0 && row >= p.pool_rows))) {
      throw std::out_of_range("reference_verify: request " + std::to_string(b) + " token " +
                              std::to_string(t) + " maps to pool row " + std::to_string(row) +
                              " outside [0, pool_rows " + std::to_string(p.pool_rows) + ")");
    }
    double* dst = k->data() + static_cast<std::ptrdiff_t>(t) * kQK;
    if (p.kv_is_fp8()) {
      // The dequantized value, e4m3 (4 significant bits) times a float scale: exact in double.
      const fp8_e4m3_bits* src = p.kv_row_fp8(b, t);
      const double scale = p.kv_scale;
      for (int c = 0; c < kQK; ++c) dst[c] = static_cast<double>(fp8_e4m3_to_float(src[c])) * scale;
    } else {
      const bf16_bits* src = p.kv_row_ptr(b, t);
      for (int c = 0; c < kQK; ++c) dst[c] = static_cast<double>(bf16_to_float(src[c]));
    }
  }
}

// Computes `count` rows of one request; writes o/lse at the rows' output positions.
void compute_block(const VerifyParams& p, const RowMatrix& k, int b, const QueryRow* rows,
                   const std::size_t* out_index, int count, ReferenceOutput* out) {
  const int n = p.kv_len(b);
  RowMatrix q(count, kQK);
  for (int r = 0; r < count; ++r) {
    const bf16_bits* src = p.q + p.query_row(b, rows[r].node, rows[r].head) * kQK;
    for (int c = 0; c < kQK; ++c) q(r, c) = static_cast<double>(bf16_to_float(src[c]));
  }
  RowMatrix s(count, n);
  s.noalias() = q * k.transpose();

  const double scale = static_cast<double>(p.sm_scale);
  std::vector<double> lse(count), weight_square_sum(count);
  for (int r = 0; r < count; ++r) {
    double* srow = s.data() + static_cast<std::ptrdiff_t>(r) * n;
    const int node = rows[r].node;
    double mx = kNegInf;
    bool undefined = false;  // a visible NaN or +inf score (scenarios/README.md, non-finite inputs)
    for (int t = 0; t < n; ++t) {
      if (token_visible(p, b, node, t)) {
        srow[t] *= scale;
        undefined = undefined || std::isnan(srow[t]) || srow[t] == -kNegInf;
        mx = std::max(mx, srow[t]);
      } else {
        srow[t] = kNegInf;
      }
    }
    if (undefined) {
      // The softmax of a NaN or +inf score has no value: every weight, O and LSE are NaN.
      std::fill(srow, srow + n, std::numeric_limits<double>::quiet_NaN());
      lse[r] = std::numeric_limits<double>::quiet_NaN();
      weight_square_sum[r] = std::numeric_limits<double>::quiet_NaN();
      continue;
    }
    double sum = 0.0;
    if (mx != kNegInf) {
      for (int t = 0; t < n; ++t) {
        const double e = srow[t] == kNegInf ? 0.0 : std::exp(srow[t] - mx);
        srow[t] = e;
        sum += e;
      }
    }
    if (sum > 0.0) {
      const double inv = 1.0 / sum;
      double squares = 0.0;
      for (int t = 0; t < n; ++t) {
        srow[t] *= inv;
        squares += srow[t] * srow[t];
      }
      lse[r] = mx + std::log(sum);
      weight_square_sum[r] = squares;
    } else {
      // Nothing visible (cannot happen in verify: a node sees itself): o = 0, lse = -inf.
      for (int t = 0; t < n; ++t) srow[t] = 0.0;
      lse[r] = kNegInf;
      weight_square_sum[r] = 0.0;
    }
  }

  RowMatrix o(count, kV);
  o.noalias() = s * k.leftCols(kV);
  for (int r = 0; r < count; ++r) {
    const std::size_t at = out_index[r];
    std::copy_n(o.data() + static_cast<std::ptrdiff_t>(r) * kV, kV,
                out->o.data() + at * kV);
    out->lse[at] = lse[r];
    out->weight_square_sum[at] = weight_square_sum[r];
  }
}

int resolve_threads(const ReferenceOptions& options) {
  int t = options.threads;
  if (t <= 0) t = static_cast<int>(std::thread::hardware_concurrency());
  return std::max(1, t);
}

ReferenceOutput run_rows(const VerifyParams& p, std::vector<QueryRow> rows,
                         const ReferenceOptions& options) {
  check_params(p);
  const std::int64_t total = static_cast<std::int64_t>(p.batch) * p.query_rows_per_request();
  for (const QueryRow& r : rows) {
    if (r.request < 0 || r.request >= p.batch || r.node < 0 || r.node >= p.tree_size ||
        r.head < 0 || r.head >= p.num_heads) {
      throw std::out_of_range("reference_verify_rows: row (request " + std::to_string(r.request) +
                              ", node " + std::to_string(r.node) + ", head " +
                              std::to_string(r.head) + ") outside B=" + std::to_string(p.batch) +
                              " T=" + std::to_string(p.tree_size) +
                              " H=" + std::to_string(p.num_heads));
    }
  }

  ReferenceOutput out;
  out.o.assign(rows.size() * kV, 0.0);
  out.lse.assign(rows.size(), 0.0);
  out.weight_square_sum.assign(rows.size(), 0.0);
  {
    std::vector<char> seen(static_cast<std::size_t>(total), 0);
    std::int64_t distinct = 0;
    for (const QueryRow& r : rows) {
      char& s = seen[static_cast<std::size_t>(p.query_row(r.request, r.node, r.head))];
      distinct += s == 0;
      s = 1;
    }
    out.sampled = distinct < total;
  }
  if (rows.empty()) return out;

  // Stable order by request; `order[i]` is the output position of the i-th sorted row.
  std::vector<std::size_t> order(rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t c) {
    return rows[a].request < rows[c].request;
  });
  std::vector<QueryRow> sorted(rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) sorted[i] = rows[order[i]];

  const int threads = resolve_threads(options);
  std::vector<std::unique_ptr<RequestState>> state(p.batch);
  std::vector<WorkItem> items;
  std::size_t begin = 0;
  while (begin < sorted.size()) {
    const int b = sorted[begin].request;
    std::size_t end = begin;
    while (end < sorted.size() && sorted[end].request == b) ++end;
    const int m = static_cast<int>(end - begin);
    const std::size_t n = static_cast<std::size_t>(p.kv_len(b));
    const int mem_rows =
        static_cast<int>(std::max<std::size_t>(1, kMaxBlockScoreBytes / (n * sizeof(double))));
    const int even_rows = (m + threads - 1) / threads;  // one request alone still uses all threads
    const int block = std::max(1, std::min({mem_rows, kMaxBlockRows, even_rows}));
    state[b] = std::make_unique<RequestState>();
    for (int f = 0; f < m; f += block) {
      items.push_back({b, static_cast<int>(begin) + f, std::min(block, m - f)});
      state[b]->blocks_left.fetch_add(1, std::memory_order_relaxed);
    }
    begin = end;
  }

  std::atomic<std::size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr error;
  auto worker = [&]() {
    for (;;) {
      const std::size_t i = next.fetch_add(1);
      if (i >= items.size()) return;
      const WorkItem& item = items[i];
      RequestState& rs = *state[item.request];
      try {
        {
          std::lock_guard<std::mutex> lock(error_mutex);
          if (error) return;
        }
        std::call_once(rs.gathered, [&] { gather_request_k(p, item.request, &rs.k); });
        compute_block(p, rs.k, item.request, sorted.data() + item.first,
                      order.data() + item.first, item.count, &out);
      } catch (...) {
        std::lock_guard<std::mutex> lock(error_mutex);
        if (!error) error = std::current_exception();
      }
      if (rs.blocks_left.fetch_sub(1) == 1) rs.k = RowMatrix();  // last block frees K
    }
  };
  const int spawn = static_cast<int>(std::min<std::size_t>(threads, items.size()));
  std::vector<std::thread> pool;
  pool.reserve(spawn > 0 ? spawn - 1 : 0);
  for (int t = 1; t < spawn; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);

  out.rows = std::move(rows);
  return out;
}

// SplitMix64: a fixed, portable generator (std distributions differ between libraries,
// and sampled rows must be the same on every machine).
std::uint64_t splitmix64(std::uint64_t* state) {
  std::uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Uniform in [0, bound] by rejection (no modulo bias).
std::uint64_t uniform_upto(std::uint64_t* state, std::uint64_t bound) {
  if (bound == ~std::uint64_t{0}) return splitmix64(state);
  const std::uint64_t range = bound + 1;
  const std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % range);
  for (;;) {
    const std::uint64_t x = splitmix64(state);
    if (x < limit) return x % range;
  }
}

QueryRow row_at(const VerifyParams& p, std::int64_t index) {
  QueryRow r;
  r.head = static_cast<int>(index % p.num_heads);
  index /= p.num_heads;
  r.node = static_cast<int>(index % p.tree_size);
  r.request = static_cast<int>(index / p.tree_size);
  return r;
}

}  // namespace

ReferenceOutput reference_verify(const VerifyParams& params, const ReferenceOptions& options) {
  check_params(params);
  const std::int64_t total =
      static_cast<std::int64_t>(params.batch) * params.query_rows_per_request();
  std::vector<QueryRow> rows(static_cast<std::size_t>(total));
  for (std::int64_t i = 0; i < total; ++i) rows[static_cast<std::size_t>(i)] = row_at(params, i);
  ReferenceOutput out = run_rows(params, std::move(rows), options);
  out.sampled = false;
  return out;
}

ReferenceOutput reference_verify_rows(const VerifyParams& params,
                                      const std::vector<QueryRow>& rows,
                                      const ReferenceOptions& options) {
  return run_rows(params, rows, options);
}

std::vector<QueryRow> sample_query_rows(const VerifyParams& params, int count,
                                        std::uint64_t seed) {
  const std::int64_t total = static_cast<std::int64_t>(params.batch) * params.tree_size *
                             params.num_heads;
  std::vector<std::int64_t> picked;
  if (count >= total) {
    picked.resize(static_cast<std::size_t>(std::max<std::int64_t>(total, 0)));
    for (std::int64_t i = 0; i < total; ++i) picked[static_cast<std::size_t>(i)] = i;
  } else if (count > 0) {
    // Floyd's algorithm: exactly `count` distinct indices, `count` draws.
    std::uint64_t state = seed;
    std::unordered_set<std::int64_t> chosen;
    chosen.reserve(static_cast<std::size_t>(count) * 2);
    for (std::int64_t j = total - count; j < total; ++j) {
      const auto t = static_cast<std::int64_t>(uniform_upto(&state, static_cast<std::uint64_t>(j)));
      chosen.insert(chosen.count(t) ? j : t);
    }
    picked.assign(chosen.begin(), chosen.end());
    std::sort(picked.begin(), picked.end());
  }
  std::vector<QueryRow> rows;
  rows.reserve(picked.size());
  for (std::int64_t i : picked) rows.push_back(row_at(params, i));
  return rows;
}

}  // namespace vb

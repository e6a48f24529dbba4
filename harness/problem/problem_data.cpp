// Data distributions of a materialized problem (scenarios/README.md, `data`): how q, the
// prefix rows and the tree rows of the KV pool are filled. Every value is a pure function
// of (case seed, stream, index), so the bytes do not depend on thread count or order.
//
// Distributions that shape the scores (sink, rising, large) steer them through the 64 rope
// channels 512..575, which are part of K but not of V: the values the softmax averages stay
// uniform, only the logits move. q holds 1.0 in those channels and a KV row holds a designed
// value v split in two bf16 halves (channels 512..543: bf16(v), 544..575: bf16(v - bf16(v))),
// so sm_scale * q.K carries the wanted offset to about 2^-17 of its size; the other 512
// channels add noise of a known size (q amplitude a: score noise std ~ sm_scale * a * 7.5).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "harness/problem/problem.h"
#include "harness/problem/seeded_hash.h"

namespace vb {
namespace {

constexpr std::uint64_t kStreamQ = 0x7100'0000'0000'0001ull;
constexpr std::uint64_t kStreamKv = 0x6b76'0000'0000'0002ull;
constexpr std::uint64_t kStreamLarge = 0x6c67'0000'0000'0005ull;

constexpr int kQK = mla::kHeadDimQK;
constexpr int kV = mla::kHeadDimV;
constexpr int kSteerChannels = (kQK - kV) / 2;  // channels per half of the steering value: 32
constexpr float kSteerQ = 1.0f;                 // q's value in the steering channels
// q amplitude in the 512 value channels for `rising`: score noise std ~ 0.25 * sm_scale * 7.5,
// well below the per-tile rise the distribution exists to show.
constexpr float kRisingQNoise = 0.25f;

// Below this many elements a buffer is generated on the calling thread.
constexpr std::int64_t kParallelThreshold = std::int64_t{1} << 22;

template <typename Body>
void parallel_for(std::int64_t n, const Body& body) {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  if (n < kParallelThreshold || hw == 1) {
    body(std::int64_t{0}, n);
    return;
  }
  const std::int64_t workers = std::min<std::int64_t>(hw, n / (kParallelThreshold / 4) + 1);
  const std::int64_t chunk = (n + workers - 1) / workers;
  std::vector<std::thread> threads;
  threads.reserve(static_cast<std::size_t>(workers));
  for (std::int64_t w = 0; w < workers; ++w) {
    const std::int64_t begin = w * chunk, end = std::min(n, begin + chunk);
    if (begin >= end) break;
    threads.emplace_back([&body, begin, end] { body(begin, end); });
  }
  for (auto& t : threads) t.join();
}

// Uniform in [-1, 1) from 24 hash bits: exact in fp32.
float uniform_pm1(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  const std::uint64_t h = hash3(seed, stream, index);
  return static_cast<float>(static_cast<std::int64_t>(h >> 40) - (std::int64_t{1} << 23)) * 0x1.0p-23f;
}

// Standard normal from one hash: Box-Muller on its two 32-bit halves (u1 in (0, 1]).
float standard_normal(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  const std::uint64_t h = hash3(seed, stream, index);
  const double u1 = (static_cast<double>(h >> 32) + 1.0) * 0x1.0p-32;
  const double u2 = static_cast<double>(h & 0xffffffffu) * 0x1.0p-32;
  return static_cast<float>(std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * std::numbers::pi * u2));
}

bool steers_scores(DataDist d) {
  return d == DataDist::kSink || d == DataDist::kRising || d == DataDist::kLarge;
}

// Logical position of every pool row (-1: nobody maps it) and whether some request has it
// at a sink position. Shared-prefix rows sit at the same position in every request.
struct RowRoles {
  std::vector<std::int32_t> position;
  std::vector<std::uint8_t> sink;
};

RowRoles row_roles(const Problem& pr) {
  RowRoles roles;
  const std::int64_t rows = pr.pages.pool_rows();
  roles.position.assign(static_cast<std::size_t>(rows), -1);
  roles.sink.assign(static_cast<std::size_t>(rows), 0);
  for (int b = 0; b < pr.batch; ++b) {
    const int kv_len = pr.prefix_len[b] + pr.tree_size;
    for (int t = 0; t < kv_len; ++t) {
      const std::int64_t r = pr.pages.kv_indices[static_cast<std::size_t>(pr.pages.kv_indptr[b] + t)];
      roles.position[static_cast<std::size_t>(r)] = t;
      if (pr.spec.data.dist == DataDist::kSink && is_sink_position(pr.spec.data, pr.prefix_len[b], pr.tree_size, t)) {
        roles.sink[static_cast<std::size_t>(r)] = 1;
      }
    }
  }
  return roles;
}

// The score offset (nats) a steering distribution gives pool row r at logical position t.
double steer_nats(const Problem& pr, std::int64_t r, std::int32_t t, bool sink) {
  const DataSpec& d = pr.spec.data;
  switch (d.dist) {
    case DataDist::kSink: return sink ? d.sink_nats : 0.0;
    case DataDist::kRising: return d.rise_nats * t;
    case DataDist::kLarge:
      return d.large_nats * static_cast<double>(uniform_pm1(pr.spec.seed, kStreamLarge, static_cast<std::uint64_t>(r)));
    default: return 0.0;
  }
}

void fill_kv_row(const Problem& pr, std::int64_t r, std::int32_t t, bool sink, bf16_bits* row) {
  const DataSpec& d = pr.spec.data;
  const std::uint64_t seed = pr.spec.seed;
  const std::uint64_t base = static_cast<std::uint64_t>(r) * kQK;
  switch (d.dist) {
    case DataDist::kUniform:
      for (int c = 0; c < kQK; ++c) row[c] = float_to_bf16(uniform_pm1(seed, kStreamKv, base + c));
      return;
    case DataDist::kNormal:
      for (int c = 0; c < kQK; ++c) {
        row[c] = float_to_bf16(static_cast<float>(d.scale) * standard_normal(seed, kStreamKv, base + c));
      }
      return;
    case DataDist::kTies: {
      const std::uint64_t pattern = static_cast<std::uint64_t>(t % d.distinct_rows) * kQK;
      for (int c = 0; c < kQK; ++c) row[c] = float_to_bf16(uniform_pm1(seed, kStreamKv, pattern + c));
      return;
    }
    case DataDist::kOutlierChannels:
      for (int c = 0; c < kQK; ++c) row[c] = float_to_bf16(uniform_pm1(seed, kStreamKv, base + c));
      for (const int c : d.outlier_channels) {
        row[c] = float_to_bf16(bf16_to_float(row[c]) * static_cast<float>(d.outlier_factor));
      }
      return;
    case DataDist::kSink:
    case DataDist::kRising:
    case DataDist::kLarge: {
      for (int c = 0; c < kV; ++c) row[c] = float_to_bf16(uniform_pm1(seed, kStreamKv, base + c));
      const double v = steer_nats(pr, r, t, sink) /
                       (static_cast<double>(pr.sm_scale) * kSteerQ * kSteerChannels);
      const bf16_bits coarse = float_to_bf16(static_cast<float>(v));
      const bf16_bits fine = float_to_bf16(static_cast<float>(v - bf16_to_float(coarse)));
      std::fill(row + kV, row + kV + kSteerChannels, coarse);
      std::fill(row + kV + kSteerChannels, row + kQK, fine);
      return;
    }
  }
}

}  // namespace

namespace {
void apply_poison(Problem* pr);
}  // namespace

bool is_sink_position(const DataSpec& d, int prefix_len, int tree_size, int t) {
  switch (d.sink_at) {
    case SinkAt::kFirst: return t < d.sink_count;
    case SinkAt::kLast: return t < prefix_len && t >= prefix_len - d.sink_count;
    case SinkAt::kRoot: return t == prefix_len;
    case SinkAt::kTree: return t >= prefix_len && t < prefix_len + tree_size;
    case SinkAt::kIndex: return t < prefix_len && t >= d.sink_index && t < d.sink_index + d.sink_count;
  }
  return false;
}

void fill_problem_data(Problem* pr) {
  const DataSpec& d = pr->spec.data;
  const std::uint64_t seed = pr->spec.seed;
  const int heads = pr->num_heads;

  // q: [B*T, H, 576], no padding.
  const std::int64_t q_rows = static_cast<std::int64_t>(pr->batch) * pr->tree_size * heads;
  pr->q.resize(static_cast<std::size_t>(q_rows * kQK));
  const bool steer = steers_scores(d.dist);
  const float noise = d.dist == DataDist::kRising ? kRisingQNoise : 1.0f;
  parallel_for(q_rows, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t qr = begin; qr < end; ++qr) {
      bf16_bits* row = pr->q.data() + qr * kQK;
      // ties: every head of a token gets the same q, so equal scores repeat across heads too.
      const std::uint64_t base =
          static_cast<std::uint64_t>(d.dist == DataDist::kTies ? qr / heads : qr) * kQK;
      for (int c = 0; c < kQK; ++c) {
        float x;
        if (steer && c >= kV) {
          x = kSteerQ;
        } else if (d.dist == DataDist::kNormal) {
          x = static_cast<float>(d.scale) * standard_normal(seed, kStreamQ, base + c);
        } else {
          x = noise * uniform_pm1(seed, kStreamQ, base + c);
        }
        row[c] = float_to_bf16(x);
      }
    }
  });

  // KV pool: referenced rows per the distribution, every other row NaN so a stray read shows.
  const RowRoles roles = row_roles(*pr);
  const std::int64_t rows = pr->pages.pool_rows();
  pr->kv_pool.resize(static_cast<std::size_t>(rows * kQK));
  parallel_for(rows, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t r = begin; r < end; ++r) {
      bf16_bits* row = pr->kv_pool.data() + r * kQK;
      const std::int32_t t = roles.position[static_cast<std::size_t>(r)];
      if (t < 0) {
        std::fill(row, row + kQK, kBf16QuietNaN);
      } else {
        fill_kv_row(*pr, r, t, roles.sink[static_cast<std::size_t>(r)] != 0, row);
      }
    }
  });
  apply_poison(pr);
  quantize_kv_pool(pr);
}

double kv_pool_amax(const std::vector<bf16_bits>& pool) {
  double amax = 0;
  for (const bf16_bits v : pool) {
    const double x = std::fabs(static_cast<double>(bf16_to_float(v)));
    if (std::isfinite(x)) amax = std::max(amax, x);
  }
  return amax;
}

void quantize_kv_pool(Problem* pr) {
  const KvCacheSpec& kv = pr->spec.kv_cache;
  pr->kv_pool_fp8.clear();
  pr->kv_scale = 1.f;
  if (kv.dtype != KvDtype::kFp8E4m3) return;
  double scale = kv.scale;
  if (kv.scale_from_amax) {
    const double amax = kv_pool_amax(pr->kv_pool);
    scale = amax > 0 ? amax / kFp8E4m3Max : 1.0;
  }
  // The executors get the scale as a float: quantize with exactly that value, dividing in
  // fp32 as the SGLang adapter quantizes k_extend on the device (IEEE division, then round to
  // nearest even with saturation), so that its tree rows are these bytes.
  pr->kv_scale = static_cast<float>(scale);
  const float divisor = pr->kv_scale;
  pr->kv_pool_fp8.resize(pr->kv_pool.size());
  parallel_for(static_cast<std::int64_t>(pr->kv_pool.size()), [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      const auto k = static_cast<std::size_t>(i);
      pr->kv_pool_fp8[k] = fp8_e4m3_from_double(static_cast<double>(bf16_to_float(pr->kv_pool[k]) / divisor));
    }
  });
}

namespace {

// scenarios/README.md, "Non-finite inputs": q of (node 0, head 0) channel 3, or K channel
// 520 (a rope channel: in K, not in V) of the prefix row at position P_b / 2, of every
// request with at least kPoisonMinPrefix prefix tokens (harness/scenario/scenario.h).
constexpr int kPoisonQChannel = 3;
constexpr int kPoisonKChannel = 520;

void apply_poison(Problem* pr) {
  const DataSpec& d = pr->spec.data;
  if (d.poison == PoisonValue::kNone) return;
  const bf16_bits value = d.poison == PoisonValue::kNaN ? kBf16QuietNaN : bf16_bits{0x7f80};
  for (int b = 0; b < pr->batch; ++b) {
    if (pr->prefix_len[b] < kPoisonMinPrefix) continue;
    if (d.poison_in == PoisonIn::kQ) {
      const std::int64_t row = static_cast<std::int64_t>(b) * pr->tree_size * pr->num_heads;
      pr->q[static_cast<std::size_t>(row * kQK + kPoisonQChannel)] = value;
    } else {
      const int t = pr->prefix_len[b] / 2;
      const std::int64_t r = pr->pages.kv_indices[static_cast<std::size_t>(pr->pages.kv_indptr[b] + t)];
      pr->kv_pool[static_cast<std::size_t>(r * kQK + kPoisonKChannel)] = value;
    }
  }
}

}  // namespace

const char* to_string(DataDist d) {
  switch (d) {
    case DataDist::kUniform: return "uniform";
    case DataDist::kNormal: return "normal";
    case DataDist::kSink: return "sink";
    case DataDist::kRising: return "rising";
    case DataDist::kLarge: return "large";
    case DataDist::kTies: return "ties";
    case DataDist::kOutlierChannels: return "outlier_channels";
  }
  return "unknown-data-dist";
}

const char* to_string(KvDtype d) {
  switch (d) {
    case KvDtype::kBf16: return "bf16";
    case KvDtype::kFp8E4m3: return "fp8_e4m3";
  }
  return "unknown-kv-dtype";
}

std::string kv_cache_label(const KvCacheSpec& kv) {
  if (kv.dtype == KvDtype::kBf16) return to_string(kv.dtype);
  return std::string(to_string(kv.dtype)) + " scale " + (kv.scale_from_amax ? std::string("amax") : fmt::format("{:g}", kv.scale));
}

std::string kv_cache_and_math_label(const CaseSpec& spec) {
  const std::string kv = kv_cache_label(spec.kv_cache);
  return spec.math == MathMode::kFp8 ? kv + ", fp8 math" : kv;
}

const char* to_string(SinkAt s) {
  switch (s) {
    case SinkAt::kFirst: return "first";
    case SinkAt::kLast: return "last";
    case SinkAt::kRoot: return "root";
    case SinkAt::kTree: return "tree";
    case SinkAt::kIndex: return "index";
  }
  return "unknown-sink-position";
}

}  // namespace vb

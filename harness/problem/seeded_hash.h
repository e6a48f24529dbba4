// Counter-based hashing behind every seeded quantity the harness generates (trees, page
// placement, prefix lengths, q/KV data): value i of stream s under seed k is a pure
// function of (k, s, i), so results do not depend on thread count or generation order.
#pragma once
#include <cstdint>

namespace vb {

// splitmix64 finalizer.
inline std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

inline std::uint64_t hash3(std::uint64_t seed, std::uint64_t stream, std::uint64_t index) {
  return mix64(mix64(mix64(seed) ^ stream) ^ index);
}

// Uniform in [0, 1) from the top 53 bits.
inline double unit_interval(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

}  // namespace vb

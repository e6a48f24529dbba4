// Provenance collection: the date, host, git commit and state, build, device and the
// scenario files' hashes every report carries.
#include "harness/record/provenance.h"

#include <unistd.h>

#include <array>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <iterator>

#include <fmt/format.h>

#include "harness/record/result.h"
#include "vb_build_info.h"

namespace vb {

// ---------------------------------------------------------------- SHA-256 (FIPS 180-4)
namespace {

constexpr std::array<std::uint32_t, 64> kSha256K = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2};

std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void sha256_block(const unsigned char* block, std::array<std::uint32_t, 8>& h) {
  std::array<std::uint32_t, 64> w{};
  for (int i = 0; i < 16; ++i) {
    w[i] = (std::uint32_t{block[4 * i]} << 24) | (std::uint32_t{block[4 * i + 1]} << 16) |
           (std::uint32_t{block[4 * i + 2]} << 8) | std::uint32_t{block[4 * i + 3]};
  }
  for (int i = 16; i < 64; ++i) {
    const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
    const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
    w[i] = w[i - 16] + s0 + w[i - 7] + s1;
  }
  std::uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
  for (int i = 0; i < 64; ++i) {
    const std::uint32_t s1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
    const std::uint32_t ch = (e & f) ^ (~e & g);
    const std::uint32_t t1 = k + s1 + ch + kSha256K[i] + w[i];
    const std::uint32_t s0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
    const std::uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
    const std::uint32_t t2 = s0 + maj;
    k = g;
    g = f;
    f = e;
    e = d + t1;
    d = c;
    c = b;
    b = a;
    a = t1 + t2;
  }
  h[0] += a; h[1] += b; h[2] += c; h[3] += d;
  h[4] += e; h[5] += f; h[6] += g; h[7] += k;
}

}  // namespace

std::string sha256_hex(const std::string& bytes) {
  std::array<std::uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                    0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  constexpr std::size_t kBlock = 64;
  const auto* data = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::size_t full = bytes.size() / kBlock * kBlock;
  for (std::size_t off = 0; off < full; off += kBlock) sha256_block(data + off, h);
  // Padding: 0x80, zeros, then the bit length big-endian in the last 8 bytes.
  std::array<unsigned char, 2 * kBlock> tail{};
  const std::size_t rest = bytes.size() - full;
  std::memcpy(tail.data(), data + full, rest);
  tail[rest] = 0x80;
  const std::size_t tail_len = rest + 1 + 8 <= kBlock ? kBlock : 2 * kBlock;
  const std::uint64_t bits = static_cast<std::uint64_t>(bytes.size()) * 8;
  for (int i = 0; i < 8; ++i) tail[tail_len - 1 - i] = static_cast<unsigned char>(bits >> (8 * i));
  for (std::size_t off = 0; off < tail_len; off += kBlock) sha256_block(tail.data() + off, h);
  std::string out;
  for (std::uint32_t v : h) out += fmt::format("{:08x}", v);
  return out;
}

std::string read_file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ReportError(fmt::format("cannot read {}: {}", path, std::strerror(errno)));
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// ---------------------------------------------------------------- provenance
namespace {

// Runs a command and returns its stdout with trailing whitespace removed; "" on failure.
std::string capture(const std::string& command) {
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return "";
  std::string out;
  char buf[256];
  while (std::fgets(buf, sizeof buf, pipe) != nullptr) out += buf;
  const int status = ::pclose(pipe);
  if (status != 0) return "";
  while (!out.empty() && std::isspace(static_cast<unsigned char>(out.back()))) out.pop_back();
  return out;
}

std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  return buf;
}

}  // namespace

BuildInfo compiled_build_info() {
  BuildInfo b;
#ifdef VB_BUILD_TYPE
  b.type = VB_BUILD_TYPE;
#else
  b.type = "unknown";
#endif
#ifdef VB_CUDA_ARCHITECTURES
  b.cuda_architectures = VB_CUDA_ARCHITECTURES;
#else
  b.cuda_architectures = "unknown";
#endif
#ifdef VB_CUDA_FLAGS
  b.flags = VB_CUDA_FLAGS;
  if (b.flags.empty()) b.flags = "(none)";
  b.flags += std::string(" | nvcc ") + VB_CUDA_COMPILER_VERSION;
#endif
  return b;
}

std::string git_commit_of(const std::string& dir) {
  const std::string commit =
      capture("git -C " + shell_quote(dir) + " rev-parse HEAD 2>/dev/null");
  return commit.empty() ? "unknown" : commit;
}

Provenance collect_provenance(const std::vector<std::string>& scenario_files,
                              const std::string& command_line, const GpuInfo& gpu,
                              const std::string& tool_version) {
  Provenance p;
  p.tool_version = tool_version;
  p.date_utc = utc_now();
  p.host = host_name();
#ifdef VB_SOURCE_DIR
  const std::string source_dir = VB_SOURCE_DIR;
#else
  const std::string source_dir = ".";
#endif
  // A bundle's run.sh names the commit its binaries were built from (VB_GIT_COMMIT /
  // VB_GIT_STATE); that wins over whatever checkout happens to sit at the compiled-in source
  // path on the machine that runs it (on the lab machine that copy's git state was stale:
  // it named an older commit for a run of a newer bundle).
  const char* env_commit = std::getenv("VB_GIT_COMMIT");
  const char* env_state = std::getenv("VB_GIT_STATE");
  if (env_commit != nullptr && *env_commit != '\0') {
    p.git_commit = env_commit;
    p.git_state = env_state != nullptr && *env_state != '\0' ? env_state : "unknown";
  } else {
    p.git_commit = git_commit_of(source_dir);
    if (p.git_commit == "unknown") {
      p.git_state = "unknown";
    } else {
      // --untracked-files=no: build folders and local reports do not make a tree dirty.
      const std::string status = capture("git -C " + shell_quote(source_dir) +
                                         " status --porcelain --untracked-files=no 2>/dev/null");
      p.git_state = status.empty() ? "clean" : "dirty";
    }
  }
  p.command_line = command_line;
  for (const std::string& path : scenario_files) {
    p.scenario_files.push_back(ScenarioFileInfo{path, sha256_hex(read_file_bytes(path))});
  }
  p.gpu = gpu;
  p.build = compiled_build_info();
  return p;
}

}  // namespace vb

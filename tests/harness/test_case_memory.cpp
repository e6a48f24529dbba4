// A case whose buffers do not fit in memory (issue 48, item 11): building them ends in one
// CaseMemoryError naming the case and the bytes it takes, not a bare std::bad_alloc. The case
// is built in a child process under an address-space limit (RLIMIT_AS) well below its size.
#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <new>
#include <string>

#include "harness/run/case_session.h"
#include "harness/scenario/scenario.h"

namespace vb {
namespace {

// Bytes of address space the process holds now (/proc/self/statm, in pages).
long long address_space_bytes() {
  std::ifstream statm("/proc/self/statm");
  long long pages = 0;
  statm >> pages;
  return pages * sysconf(_SC_PAGESIZE);
}

// Builds `spec` in a child limited to its current address space plus `headroom` bytes; returns
// what the child saw: the CaseMemoryError's message, or a line saying what happened instead.
std::string build_in_limited_child(const CaseSpec& spec, long long headroom) {
  int fds[2];
  REQUIRE(pipe(fds) == 0);
  const pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    std::string seen;
    const rlim_t limit = static_cast<rlim_t>(address_space_bytes() + headroom);
    const rlimit cap{limit, limit};
    if (setrlimit(RLIMIT_AS, &cap) != 0) {
      seen = "setrlimit failed";
    } else {
      try {
        CaseSession session(spec);
        seen = "built: the limit did not bind";
      } catch (const CaseMemoryError& e) {
        seen = e.what();
      } catch (const std::bad_alloc&) {
        seen = "a bare std::bad_alloc";
      } catch (const std::exception& e) {
        seen = std::string("another exception: ") + e.what();
      }
    }
    const ssize_t written = write(fds[1], seen.data(), seen.size());
    _exit(written == static_cast<ssize_t>(seen.size()) ? 0 : 1);
  }
  close(fds[1]);
  std::string seen;
  char buf[4096];
  for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) seen.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFEXITED(status));
  return seen;
}

}  // namespace

TEST_CASE("case memory: running out of memory names the case and its size", "[case][memory]") {
  // Three 2^20-token requests: a 3.4 GB KV pool, inside the loader's limits (raised for the
  // reference's gather) but far beyond the child's 512 MiB of headroom.
  ScenarioLimits limits;
  limits.max_reference_bytes = std::int64_t{8} << 30;
  const ScenarioFile f = parse_scenario_text(
      "scenarios:\n  - name: big\n    heads: 1\n    sm_scale: kimi-k2\n"
      "    batch: {prefix_lens: [1048576, 1048576, 1048576]}\n    tree: {kind: chain, nodes: 1}\n",
      "t.yaml", limits);
  REQUIRE(f.cases.size() == 1);
  const CaseSpec& spec = f.cases[0];
  REQUIRE(spec.host_bytes > (std::int64_t{3} << 30));
  const std::string seen = build_in_limited_child(spec, std::int64_t{512} << 20);
  INFO(seen);
  CHECK(seen.rfind("case big: out of host memory building its inputs: the case takes about 3.", 0) == 0);
  CHECK(seen.find(std::to_string(spec.host_bytes) + " bytes") != std::string::npos);
  CHECK(seen.find("--max-host-bytes") != std::string::npos);
  CHECK(seen.find('\n') == std::string::npos);
}

}  // namespace vb

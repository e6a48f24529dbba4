// harness/io/files.h (issue 48): bounded reads, checked destinations, whole-or-nothing
// writes through fresh temporaries. Only paths a non-root user has too: /dev/null, a FIFO
// and a socket made in a temporary folder, symlinks.
#include <catch2/catch.hpp>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "harness/io/files.h"
#include "temp_dir.h"

namespace vb {
namespace {

namespace fs = std::filesystem;
using Catch::Contains;

using vb::test::TempDir;
using vb::test::read_file;

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

fs::path make_fifo(const fs::path& dir) {
  const fs::path p = dir / "fifo";
  REQUIRE(::mkfifo(p.c_str(), 0600) == 0);
  return p;
}

// A listening-capable AF_UNIX socket file (bound, never listened on).
fs::path make_socket(const fs::path& dir) {
  const fs::path p = dir / "sock";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  REQUIRE(p.string().size() < sizeof addr.sun_path);
  std::strcpy(addr.sun_path, p.c_str());
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  ::close(fd);
  return p;
}

}  // namespace

TEST_CASE("files: an input must be a regular file and a FIFO is refused without waiting for a writer", "[files][hostile]") {
  TempDir dir;
  const fs::path fifo = make_fifo(dir.path);
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(read_input_file(fifo.string(), 1 << 20, "a test file"),
                    Contains(fifo.string() + ": a FIFO, not a regular file; allowed: a test file"));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  CHECK_THROWS_WITH(read_input_file("/dev/null", 1 << 20, "a test file"), Contains("/dev/null: a character device"));
  CHECK_THROWS_WITH(read_input_file(dir.path.string(), 1 << 20, "a test file"), Contains(": a directory"));
  CHECK_THROWS_WITH(read_input_file((dir.path / "absent").string(), 1 << 20, "a test file"),
                    Contains("cannot open: No such file or directory"));
  // A symlink to a regular file is read: inputs are often links.
  write(dir.path / "real", "12345");
  fs::create_symlink(dir.path / "real", dir.path / "link");
  CHECK(read_input_file((dir.path / "link").string(), 5, "a test file") == "12345");
  CHECK_THROWS_WITH(read_input_file((dir.path / "real").string(), 4, "a test file"),
                    Contains("5 bytes; allowed: a test file of at most 4 bytes"));
}

TEST_CASE("files: a JSON document is parsed within its memory budget and errors drop the parser prefix", "[files][hostile]") {
  // 100k empty arrays: ~200 KB of text, ~10 MB as a document.
  std::string many = "[";
  for (int i = 0; i < 100000; ++i) many += i ? ",[]" : "[]";
  many += "]";
  CHECK_THROWS_WITH(parse_json_within(many, "many.json", std::uintmax_t{1} << 20, "a test file"),
                    Contains("many.json: its JSON document would take more than 1 MiB of memory"));
  CHECK(parse_json_within(many, "many.json", std::uintmax_t{64} << 20, "a test file").size() == 100000);
  try {
    parse_json_within("{\n  \"a\": x\x01}", "bad.json", 1 << 20, "a test file");
    FAIL("accepted");
  } catch (const BadFileError& e) {
    const std::string m = e.what();
    CHECK_THAT(m, Contains("bad.json:2:8: not JSON: syntax error") && Contains("allowed: a test file"));
    CHECK(m.find("json.exception") == std::string::npos);
    CHECK(m.find('\x01') == std::string::npos);
  }
  CHECK_THROWS_WITH(parse_json_within("[1e400]", "big.json", 1 << 20, "a test file"),
                    Contains("big.json:1:6: not JSON: number overflow parsing"));
}

TEST_CASE("files: a destination is a regular file or absent, anything else is named and refused", "[files][hostile]") {
  TempDir dir;
  CHECK_NOTHROW(check_destination((dir.path / "absent").string(), "--json"));
  write(dir.path / "plain", "x");
  CHECK_NOTHROW(check_destination((dir.path / "plain").string(), "--json"));
  CHECK_THROWS_WITH(check_destination("/dev/null", "--json"), Contains("--json /dev/null: a character device"));
  const fs::path fifo = make_fifo(dir.path);
  CHECK_THROWS_WITH(check_destination(fifo.string(), "--json"), Contains(fifo.string() + ": a FIFO"));
  const fs::path sock = make_socket(dir.path);
  CHECK_THROWS_WITH(check_destination(sock.string(), "--json"), Contains(sock.string() + ": a socket"));
  CHECK_THROWS_WITH(check_destination(dir.path.string(), "--json"), Contains(": a directory"));
  fs::create_symlink(dir.path / "plain", dir.path / "link");  // even to a regular file
  CHECK_THROWS_WITH(check_destination((dir.path / "link").string(), "--json"), Contains("link: a symbolic link"));
  fs::create_symlink("/dev/null", dir.path / "to-device");
  CHECK_THROWS_WITH(check_destination((dir.path / "to-device").string(), "--json"), Contains("a symbolic link"));
}

TEST_CASE("files: temporaries are new files, never opened through a symlink", "[files][hostile]") {
  TempDir dir;
  const fs::path victim = dir.path / "victim";
  write(victim, "precious");
  const fs::path out = dir.path / "result.json";
  // The names the writers used before: a link there must not be followed.
  fs::create_symlink(victim, dir.path / "result.json.tmp");
  FileSet set;
  std::FILE* f = set.stage(out.string());
  std::vector<std::string> during = names_in(dir.path);
  CHECK(during.size() == 3);  // victim, the old-style link and one new temporary
  CHECK(std::any_of(during.begin(), during.end(), [](const std::string& n) {
    return n.rfind("result.json.", 0) == 0 && n != "result.json.tmp" && n.size() > 20;
  }));
  set.write(f, "new", 3);
  set.commit();
  CHECK(read_file(out) == "new");
  CHECK(read_file(victim) == "precious");
  CHECK(names_in(dir.path) == std::vector<std::string>{"result.json", "result.json.tmp", "victim"});
}

TEST_CASE("files: a failed set leaves every earlier file as it was and removes only its temporaries", "[files][hostile]") {
  TempDir dir;
  const fs::path a = dir.path / "a.json", b = dir.path / "b.csv";
  write_files_as_set({{a.string(), "old a"}, {b.string(), "old b"}});
  write(dir.path / "unrelated.tmp", "not ours");

  SECTION("a temporary cannot be created (its folder is gone)") {
    CHECK_THROWS_AS(write_files_as_set({{a.string(), "new a"}, {(dir.path / "gone" / "c").string(), "new c"}}),
                    FileWriteError);
  }
  SECTION("a destination became a FIFO while the set was written") {
    FileSet set;
    set.write(set.stage(a.string()), "new a", 5);
    set.write(set.stage(b.string()), "new b", 5);
    fs::remove(b);
    REQUIRE(::mkfifo(b.c_str(), 0600) == 0);
    CHECK_THROWS_WITH(set.commit(), Contains("a FIFO") && Contains("changed while verifybench ran"));
  }
  CHECK(read_file(a) == "old a");
  CHECK(read_file(dir.path / "unrelated.tmp") == "not ours");
  const std::vector<std::string> left = names_in(dir.path);
  CHECK(std::count_if(left.begin(), left.end(), [](const std::string& n) { return n.find(".tmp") != std::string::npos; }) == 1);
}

}  // namespace vb

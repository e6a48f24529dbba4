// Bounded reads, checked destinations and whole-or-nothing writes (harness/io/files.h).
#include "harness/io/files.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <new>

#include <fmt/format.h>

namespace vb {

std::string printable_text(const std::string& text) {
  constexpr std::size_t kMaxShownBytes = 200;
  std::string shown;
  for (std::size_t i = 0; i < text.size() && i < kMaxShownBytes; ++i) {
    const auto ch = static_cast<unsigned char>(text[i]);
    if (ch >= 0x20 && ch < 0x7f) shown += static_cast<char>(ch);
    else shown += fmt::format("\\x{:02x}", ch);
  }
  return text.size() > kMaxShownBytes ? shown + "..." : shown;
}

std::string file_kind(unsigned mode) {
  switch (mode & S_IFMT) {
    case S_IFREG: return "a regular file";
    case S_IFDIR: return "a directory";
    case S_IFLNK: return "a symbolic link";
    case S_IFCHR: return "a character device";
    case S_IFBLK: return "a block device";
    case S_IFIFO: return "a FIFO";
    case S_IFSOCK: return "a socket";
    default: return "not a regular file";
  }
}

// ---------------------------------------------------------------- reading
namespace {

// Closes a descriptor on every path out of the reader.
struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string read_input_file(const std::string& path, std::uintmax_t max_bytes, const std::string& what) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer. The type is
  // checked on the open descriptor, so the file cannot be swapped after the check.
  Descriptor in{::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)};
  if (in.fd < 0) throw BadFileError(fmt::format("{}: cannot open: {}; allowed: {}", path, std::strerror(errno), what));
  struct stat st {};
  if (::fstat(in.fd, &st) != 0) {
    throw BadFileError(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    throw BadFileError(fmt::format("{}: {}, not a regular file; allowed: {}", path, file_kind(st.st_mode), what));
  }
  const auto too_large = [&](std::uintmax_t bytes) {
    return BadFileError(fmt::format("{}: {} bytes; allowed: {} of at most {} bytes ({} MiB)", path, bytes, what,
                                    max_bytes, max_bytes >> 20));
  };
  if (static_cast<std::uintmax_t>(st.st_size) > max_bytes) throw too_large(static_cast<std::uintmax_t>(st.st_size));
  std::string text;
  try {
    text.resize(static_cast<std::size_t>(st.st_size) + 1);  // one byte more: a file that grew is seen
  } catch (const std::bad_alloc&) {
    throw BadFileError(fmt::format("{}: no memory for its {} bytes", path, st.st_size));
  }
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::read(in.fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw BadFileError(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
    if (n == 0) break;
    done += static_cast<std::size_t>(n);
  }
  if (done > static_cast<std::size_t>(st.st_size)) {
    throw BadFileError(fmt::format("{}: the file grew while it was read; allowed: {} that stays as it is", path, what));
  }
  text.resize(done);
  return text;
}

namespace {

using json = nlohmann::ordered_json;

// Thrown out of the counting pass: the document outgrows its budget, or the text is not JSON
// (nlohmann's message, and the byte where it stopped).
struct DocumentTooLarge {};
struct NotJson {
  std::string message;
  std::size_t byte;
};

// What nlohmann's types take per event, with a vector's growth slack (up to twice the
// elements) and the allocator's header counted: an element of an array or object, a
// container's own allocation, a key (std::string in ordered_map's pair), a string's heap
// object and its characters beyond the small-string buffer.
constexpr std::uintmax_t kElementBytes = 2 * sizeof(json);
constexpr std::uintmax_t kContainerBytes = 48;
constexpr std::uintmax_t kKeyBytes = 2 * sizeof(std::string);
constexpr std::uintmax_t kStringBytes = sizeof(std::string) + 16;

std::uintmax_t heap_chars(std::size_t length) { return length > 15 ? length + 1 + 16 : 0; }

// Line and column (1-based) of byte `offset` of `text`.
std::pair<std::size_t, std::size_t> line_and_column(const std::string& text, std::size_t offset) {
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return {line, column};
}

// nlohmann's message without its "[json.exception.parse_error.101] parse error at line 1,
// column 2: " prefix, made printable.
std::string parse_reason(const std::string& message) {
  std::string reason = message;
  const std::size_t bracket = reason.find("] ");
  if (reason.rfind("[json.exception.", 0) == 0 && bracket != std::string::npos) reason = reason.substr(bracket + 2);
  const std::size_t column = reason.find("column ");
  const std::size_t colon = column == std::string::npos ? std::string::npos : reason.find(": ", column);
  if (colon != std::string::npos) reason = reason.substr(colon + 2);
  return printable_text(reason);
}


// A SAX pass that builds nothing and only adds up what the document would take, throwing
// DocumentTooLarge past the budget and NotJson for text that is not JSON (a syntax error, or
// a number that overflows a double).
// (nlohmann's parse callback cannot do this: its DOM parser scans the parent container each
// time an object ends, quadratic in a list of many objects.)
class DocumentCost : public nlohmann::json_sax<json> {
 public:
  explicit DocumentCost(std::uintmax_t budget) : budget_(budget) {}
  bool null() override { return add(kElementBytes); }
  bool boolean(bool) override { return add(kElementBytes); }
  bool number_integer(number_integer_t) override { return add(kElementBytes); }
  bool number_unsigned(number_unsigned_t) override { return add(kElementBytes); }
  bool number_float(number_float_t, const string_t&) override { return add(kElementBytes); }
  bool string(string_t& s) override { return add(kElementBytes + kStringBytes + heap_chars(s.size())); }
  bool binary(binary_t& b) override { return add(kElementBytes + kStringBytes + b.size()); }
  bool start_object(std::size_t) override { return add(kElementBytes + kContainerBytes); }
  bool key(string_t& k) override { return add(kKeyBytes + heap_chars(k.size())); }
  bool end_object() override { return true; }
  bool start_array(std::size_t) override { return add(kElementBytes + kContainerBytes); }
  bool end_array() override { return true; }
  bool parse_error(std::size_t byte, const std::string&, const nlohmann::detail::exception& e) override {
    throw NotJson{e.what(), byte};
  }

 private:
  bool add(std::uintmax_t bytes) {
    used_ += bytes;
    if (used_ > budget_) throw DocumentTooLarge{};
    return true;
  }
  std::uintmax_t budget_, used_ = 0;
};

}  // namespace

nlohmann::ordered_json parse_json_within(const std::string& text, const std::string& path,
                                         std::uintmax_t max_document_bytes, const std::string& what) {
  try {
    DocumentCost cost(max_document_bytes);
    json::sax_parse(text, &cost);
    return json::parse(text);
  } catch (const DocumentTooLarge&) {
    throw BadFileError(fmt::format("{}: its JSON document would take more than {} MiB of memory; allowed: {} "
                                   "whose parsed form fits that",
                                   path, max_document_bytes >> 20, what));
  } catch (const NotJson& e) {
    const auto [line, column] = line_and_column(text, e.byte == 0 ? 0 : e.byte - 1);
    throw BadFileError(fmt::format("{}:{}:{}: not JSON: {}; allowed: {}", path, line, column, parse_reason(e.message), what));
  } catch (const std::bad_alloc&) {
    throw BadFileError(fmt::format("{}: no memory to parse it", path));
  }
}

// ---------------------------------------------------------------- destinations
void check_destination(const std::string& path, const std::string& option) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT || errno == ENOTDIR) return;  // absent: creating its folder names what is wrong
    throw BadFileError(fmt::format("{} {}: cannot check it: {}", option, path, std::strerror(errno)));
  }
  if (!S_ISREG(st.st_mode)) {
    throw BadFileError(fmt::format("{} {}: {}; allowed: a regular file or a path that does not exist yet "
                                   "(it is written there, never through a link or into a device)",
                                   option, path, file_kind(st.st_mode)));
  }
}

// ---------------------------------------------------------------- writing
namespace {

std::string random_suffix() {
  std::uint64_t bits = 0;
  if (::getrandom(&bits, sizeof bits, 0) != static_cast<ssize_t>(sizeof bits)) {
    bits = static_cast<std::uint64_t>(::getpid()) * 0x9e3779b97f4a7c15ULL ^
           static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(&bits));
  }
  return fmt::format("{:016x}", bits);
}

// A new file beside `path`, created by this call: O_EXCL fails on any name that exists
// (a symlink included) and O_NOFOLLOW refuses to open through a link.
int create_temporary(const std::string& path, std::string* temporary) {
  constexpr int kAttempts = 16;
  for (int attempt = 0; attempt < kAttempts; ++attempt) {
    *temporary = path + "." + random_suffix() + ".tmp";
    const int fd = ::open(temporary->c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

void sync_directory_of(const std::string& path) {
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = std::filesystem::path(".");
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // the renames happened; durability of the folder entry is best effort
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

FileSet::~FileSet() {
  close_all();
  if (committed_) return;
  for (const Staged& s : staged_) ::unlink(s.temporary.c_str());
}

void FileSet::close_all() noexcept {
  for (Staged& s : staged_) {
    if (s.file != nullptr) std::fclose(s.file);
    s.file = nullptr;
  }
}

void FileSet::fail(const Staged& s, const char* call, int err) const {
  throw FileWriteError(fmt::format("cannot write {}: {} of {} failed: {}", s.path, call, s.temporary, std::strerror(err)));
}

std::FILE* FileSet::stage(const std::string& path) {
  Staged s;
  s.path = path;
  const int fd = create_temporary(path, &s.temporary);
  if (fd < 0) {
    throw FileWriteError(fmt::format("cannot write {}: cannot create a temporary beside it ({}): {}", path,
                                     s.temporary, std::strerror(errno)));
  }
  s.file = ::fdopen(fd, "wb");
  if (s.file == nullptr) {
    const int err = errno;
    ::close(fd);
    ::unlink(s.temporary.c_str());
    fail(s, "fdopen", err);
  }
  staged_.push_back(s);
  return s.file;
}

void FileSet::write(std::FILE* file, const void* data, std::size_t bytes) {
  for (const Staged& s : staged_) {
    if (s.file != file) continue;
    if (bytes != 0 && std::fwrite(data, 1, bytes, file) != bytes) fail(s, "write", errno);
    return;
  }
  throw std::logic_error("FileSet::write: a FILE this set did not stage");
}

void FileSet::commit() {
  for (Staged& s : staged_) {
    std::FILE* f = s.file;
    s.file = nullptr;
    const bool flushed = std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
    const int flush_error = errno;
    const bool closed = std::fclose(f) == 0;
    if (!flushed) fail(s, "flush", flush_error);
    if (!closed) fail(s, "close", errno);
  }
  // A destination that became a directory, device or link while this run worked is left
  // alone: rename() would replace the link or fail on the directory.
  for (const Staged& s : staged_) {
    try {
      check_destination(s.path, "destination");
    } catch (const BadFileError& e) {
      throw FileWriteError(std::string(e.what()) + " (it changed while verifybench ran)");
    }
  }
  for (std::size_t i = 0; i < staged_.size(); ++i) {
    if (::rename(staged_[i].temporary.c_str(), staged_[i].path.c_str()) != 0) {
      const int err = errno;
      // The ones renamed are in place; the rest are removed by the destructor.
      staged_.erase(staged_.begin(), staged_.begin() + static_cast<std::ptrdiff_t>(i));
      throw FileWriteError(fmt::format("cannot write {}: rename({}, {}) failed: {}", staged_.front().path,
                                       staged_.front().temporary, staged_.front().path, std::strerror(err)));
    }
  }
  committed_ = true;
  for (const Staged& s : staged_) sync_directory_of(s.path);
}

void write_files_as_set(const std::vector<std::pair<std::string, std::string>>& files) {
  FileSet set;
  for (const auto& [path, content] : files) set.write(set.stage(path), content.data(), content.size());
  set.commit();
}

void write_file_atomic(const std::string& path, const std::string& content) {
  write_files_as_set({{path, content}});
}

}  // namespace vb

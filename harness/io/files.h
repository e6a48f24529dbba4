// Every file verifybench reads from a user or writes for one goes through here, so each
// rule holds in one place (docs/hostile-inputs.md):
//   - an input is a regular file (symlinks to one are followed), opened without blocking (a
//     FIFO cannot hang the read), no larger than its cap, read with at most one byte past it;
//   - JSON input is parsed within a memory budget: the parse stops, naming the file, before
//     its document would take more than the budget;
//   - a destination is a regular file or absent: a directory, device, FIFO, socket or
//     symbolic link is refused before any work, naming the path and what it is;
//   - a destination is written through a new temporary in its own folder (a unique name,
//     O_CREAT|O_EXCL|O_NOFOLLOW, so never through a symlink and never over another file),
//     flushed to disk and renamed into place with the rest of its set.
#pragma once
#include <cstdint>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace vb {

// A path the user gave that cannot be used as asked (not a regular file, too large, not
// JSON, a destination that is a device, ...): bad input. The message names the path.
class BadFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A write that failed while writing (disk full, permissions, a destination replaced during
// the run): a runtime failure. The message names the path and the failing call.
class FileWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `text` for a one-line message: bytes outside printable ASCII as \xNN, cut after 200 bytes.
std::string printable_text(const std::string& text);

// "a directory", "a symbolic link", "a character device", "a FIFO", ... for st_mode.
std::string file_kind(unsigned mode);

// The whole of a regular file of at most `max_bytes` bytes. Throws BadFileError naming
// `path` and `what` it should be (e.g. "a result JSON file") for a path that cannot be opened,
// is not a regular file or holds more than `max_bytes` bytes.
std::string read_input_file(const std::string& path, std::uintmax_t max_bytes, const std::string& what);

// `text` parsed as JSON, refused (BadFileError naming `path`, line and column) when it is not
// JSON or its parsed document would take more than `max_document_bytes` of memory (an
// estimate: every value, container, key and string counted at what nlohmann's types take).
nlohmann::ordered_json parse_json_within(const std::string& text, const std::string& path,
                                         std::uintmax_t max_document_bytes, const std::string& what);

// Throws BadFileError naming `option` and `path` unless `path` is absent or a regular file
// (lstat: a symlink is refused, even to a regular file).
void check_destination(const std::string& path, const std::string& option);

// A set of files written whole or not at all. Each stage() makes a new temporary beside
// its destination; commit() flushes each to disk, checks every destination is still a
// regular file or absent, and renames the temporaries into place. A FileSet destroyed
// before commit() removes its temporaries and nothing else: files already at the
// destinations stay as they were. Throws FileWriteError naming the destination.
class FileSet {
 public:
  FileSet() = default;
  FileSet(const FileSet&) = delete;
  FileSet& operator=(const FileSet&) = delete;
  ~FileSet();

  // The temporary for `path` (a FILE* this set owns, open for writing). Its folder must exist.
  std::FILE* stage(const std::string& path);
  // Writes `bytes` to the temporary of `path`; throws FileWriteError naming `path`.
  void write(std::FILE* file, const void* data, std::size_t bytes);
  void commit();

 private:
  struct Staged {
    std::string path, temporary;
    std::FILE* file = nullptr;
  };
  [[noreturn]] void fail(const Staged& s, const char* call, int err) const;
  void close_all() noexcept;
  std::vector<Staged> staged_;
  bool committed_ = false;
};

// Every (path, content) written as one FileSet.
void write_files_as_set(const std::vector<std::pair<std::string, std::string>>& files);
void write_file_atomic(const std::string& path, const std::string& content);

}  // namespace vb

// `verifybench export`: one case's inputs and outputs as safetensors files under SGLang's
// tensor names and dtypes, plus a case.json that says what every tensor is, so a case can
// be handed to SGLang's Triton extend-attention kernel (or any other implementation) and
// checked against the CPU reference outside this harness.
//
//   <dir>/inputs.safetensors   q_extend, k_extend, v_extend, k_buffer, [v_buffer], qo_indptr,
//                              kv_indptr, kv_indices, custom_mask, mask_indptr, prefix_len,
//                              tree_parents, block_table; an fp8 case's k_buffer (and v_buffer)
//                              in F8_E4M3 as SGLang's MLA pool holds it, plus k_scale, v_scale
//   <dir>/outputs.safetensors  o_reference, lse_reference, o_<executor>, lse_<executor>
//   <dir>/case.json            the case, every tensor's dtype/shape/meaning, the reproducer
//
// The three files are staged as new temporaries (harness/io/files.h's FileSet) and renamed
// into place only after all three were written: an export is there whole or not at all, and
// a failed one leaves an earlier export in the folder as it was. Nothing here prints; notes for the user
// come back in ExportResult::warnings (and through ExportOptions::on_note while running).
#pragma once
#include <cstdint>
#include <cstdio>
#include <functional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "harness/io/files.h"
#include "harness/run/gpu_executor.h"
#include "harness/problem/problem.h"
#include "harness/scenario/scenario.h"
#include "verifybench/reference.h"

namespace vb {

// An export that could not be written or whose inputs are unusable (a sampled reference,
// outputs of the wrong size, an unwritable directory). The message names the file or the
// tensor. The CLI maps it to kExitRuntimeFailure (I/O) or kExitBadInput as it sees fit.
class ExportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// ---- a minimal safetensors writer ----
enum class StDtype { kBF16, kF32, kI32, kI64, kU8, kBool, kF8E4M3 };
const char* to_string(StDtype dtype);  // "BF16", "F32", "I32", "I64", "U8", "BOOL", "F8_E4M3"
std::size_t element_bytes(StDtype dtype);

// Collects tensors, then writes one file:
//   u64 little-endian N | N bytes of JSON header, space-padded to a multiple of 8 | data
// Header: {"<name>": {"dtype", "shape", "data_offsets": [begin, end]}, ...,
//          "__metadata__": {string: string}}; offsets are relative to the data section and
// tile it without gaps. Tensors are laid out widest element first (stable in insertion
// order otherwise), so every tensor starts aligned to its element size in the file.
class SafetensorsWriter {
 public:
  // Borrows `data` (`bytes` bytes, little-endian); it must stay alive until write().
  // Throws ExportError when bytes != prod(shape) * element_bytes(dtype), the name is
  // empty, repeated, or "__metadata__".
  void add(const std::string& name, StDtype dtype, std::vector<std::int64_t> shape,
           const void* data, std::size_t bytes);
  // Same, taking ownership of the bytes (for converted tensors).
  void add_owned(const std::string& name, StDtype dtype, std::vector<std::int64_t> shape,
                 std::vector<std::uint8_t> bytes);
  template <typename T>
  void add(const std::string& name, StDtype dtype, std::vector<std::int64_t> shape,
           const std::vector<T>& values) {
    add(name, dtype, std::move(shape), values.data(), values.size() * sizeof(T));
  }
  void set_metadata(const std::string& key, const std::string& value);

  // The exact header bytes write() puts after the 8-byte length (padded).
  std::string header() const;
  // Total file size write() produces.
  std::uint64_t file_bytes() const;
  // Writes the file into `file`, a temporary of `set` (FileSet::stage); throws
  // FileWriteError naming its destination.
  void write_into(FileSet* set, std::FILE* file) const;
  // Atomic write of one file through a FileSet; on failure `path` is untouched. Throws
  // ExportError.
  void write(const std::string& path) const;

  struct Entry {
    std::string name;
    StDtype dtype;
    std::vector<std::int64_t> shape;
    const void* data = nullptr;  // borrowed, or owned.data()
    std::size_t bytes = 0;
    std::vector<std::uint8_t> owned;
    const void* bytes_ptr() const { return owned.empty() ? data : owned.data(); }
  };

 private:
  std::vector<const Entry*> file_order() const;
  std::vector<Entry> entries_;
  std::vector<std::pair<std::string, std::string>> metadata_;
};

// ---- the case export ----
struct ExportOptions {
  // The scenario file as the user named it, for the reproducer. Empty: the file part of
  // the spec's source ("<file>:<line>").
  std::string scenario_path;
  // The command line that produced this export (recorded verbatim in case.json). Empty:
  // not recorded.
  std::string command;
  // v_buffer is written only while k_buffer (pool_rows * 1152 bytes, 576 for fp8) is below this.
  std::int64_t v_buffer_limit_bytes = std::int64_t{256} << 20;
  int reference_threads = 0;  // export_case_from_spec: CPU reference threads, 0: all
  // Called with progress notes and warnings as they happen (e.g. before a long full
  // reference); the same warnings also come back in ExportResult::warnings.
  std::function<void(const std::string&)> on_note;
};

struct ExportResult {
  std::string dir;
  std::vector<std::string> files;  // the three paths written
  std::uint64_t bytes_written = 0;
  bool v_buffer_written = false;
  std::vector<std::string> gpu_outputs_written;  // executor names with o_/lse_ tensors
  std::vector<std::string> warnings;             // omitted tensors, sampled-mode note, ...
};

// The three files of an export into `dir`: inputs.safetensors, outputs.safetensors, case.json.
std::vector<std::string> export_file_paths(const std::string& dir);

// Writes the three files of one case into `dir` (created with its parents if missing;
// existing export files there are replaced; each must be a regular file or absent, else
// BadFileError before anything is written). `reference` must cover all B*T*H rows
// (reference_verify, not the sampled form): an export carries the full answer, so a
// sampled reference is refused with an ExportError that says so. `gpu_outputs` is
// optional: (executor name, its run); runs that are not ok are omitted with a warning.
// Throws ExportError. Everything is validated before `dir` is touched; on a failure while
// writing, every temporary this export made and every directory it created (if still empty)
// are removed, and files of an earlier export in `dir` stay as they were. Only a failing
// rename inside `dir` (after all three were written) could leave a mixed set.
ExportResult export_case(const Problem& problem, const ReferenceOutput& reference,
                         const std::vector<std::pair<std::string, GpuRunOutput>>& gpu_outputs,
                         const std::string& dir, const ExportOptions& options = {});

// What `verifybench export` calls: materializes the spec, computes the FULL CPU reference
// even when the case's check mode is sampled (warning first, through on_note, with the
// work it implies: the CPU time grows with sum_b (P_b+T) * T * H), runs every GPU executor
// of executor_registry() when `gpu.available` (failures become warnings, not errors), and
// calls export_case. Throws ScenarioError (bad spec) or ExportError (I/O).
ExportResult export_case_from_spec(const CaseSpec& spec, const GpuInfo& gpu, const std::string& dir,
                                   const ExportOptions& options = {});

}  // namespace vb

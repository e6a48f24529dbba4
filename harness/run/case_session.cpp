// One case's problem, its device copy and its CPU reference (harness/run/case_session.h).
#include "harness/run/case_session.h"

#include <new>

#include <fmt/format.h>

#include "harness/measure/nvtx.h"

namespace vb {
namespace {

// What std::bad_alloc while building a case's host buffers (its problem, its CPU reference)
// becomes: one line naming the case and what it needs.
CaseMemoryError out_of_memory(const CaseSpec& spec, const char* building) {
  return CaseMemoryError(fmt::format(
      "case {}: out of host memory building {}: the case takes about {:.2f} GiB of host memory (q, outputs, KV "
      "pool, page tables, masks; {} bytes); free memory, or lower --max-host-bytes to refuse such cases when the "
      "file is loaded",
      one_line_text(spec.name), building, static_cast<double>(spec.host_bytes) / static_cast<double>(1 << 30),
      spec.host_bytes));
}

Problem materialize_in_range(const CaseSpec& spec) {
  NvtxRange range("materialize");
  try {
    return materialize(spec);
  } catch (const std::bad_alloc&) {
    throw out_of_memory(spec, "its inputs");
  }
}

}  // namespace

CaseSession::CaseSession(const CaseSpec& spec) : spec_(spec), problem_(materialize_in_range(spec)) {}

DeviceProblem* CaseSession::device(const GpuInfo& gpu, std::string* error) {
  if (!uploaded_) {
    device_ = DeviceProblem::upload(problem_, gpu, &upload_error_);
    uploaded_ = true;
  }
  if (!device_ && error) *error = upload_error_;
  return device_.get();
}

const ReferenceOutput& CaseSession::reference(ReferenceRows rows, const ReferenceOptions& options) {
  const bool all = rows == ReferenceRows::kAll || spec_.check.mode == CheckMode::kFull;
  std::optional<ReferenceOutput>& cached = all ? all_rows_ : checked_rows_;
  if (!cached) {
    const VerifyParams host = host_params(problem_, PageTableKind::kTokenIndices, nullptr, nullptr);
    try {
      cached = all ? reference_verify(host, options)
                   : reference_verify_rows(host, sample_query_rows(host, spec_.check.sampled_rows, spec_.check.seed),
                                           options);
    } catch (const std::bad_alloc&) {
      throw out_of_memory(spec_, "its CPU reference");
    }
  }
  return *cached;
}

}  // namespace vb

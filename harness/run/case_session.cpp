// One case's problem, its device copy and its CPU reference (harness/run/case_session.h).
#include "harness/run/case_session.h"

#include "harness/measure/nvtx.h"

namespace vb {
namespace {

Problem materialize_in_range(const CaseSpec& spec) {
  NvtxRange range("materialize");
  return materialize(spec);
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
    cached = all ? reference_verify(host, options)
                 : reference_verify_rows(host, sample_query_rows(host, spec_.check.sampled_rows, spec_.check.seed),
                                         options);
  }
  return *cached;
}

}  // namespace vb

// Argument checks of the C ABI: each names the argument, says what it was and what is
// allowed. Host-only arithmetic over the tensor descriptors (no CUDA call), so every refusal
// can be tested on a machine without a GPU.
#pragma once
#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "verifybench_ops.h"

namespace vbops {

const char* dtype_name(int32_t dtype);
std::string shape_text(const vbops_tensor& t);

// Collects the first failure; later checks are skipped once one failed.
class ArgCheck {
 public:
  bool ok() const { return status_ == VBOPS_OK; }
  vbops_status status() const { return status_; }
  const std::string& message() const { return message_; }
  void fail(vbops_status status, std::string message);

  bool given(const vbops_tensor& t) const { return t.data != nullptr || t.ndim != 0; }
  // Present, on a CUDA device, not null.
  bool present(const char* name, const vbops_tensor& t);
  bool dtype(const char* name, const vbops_tensor& t, std::initializer_list<vbops_dtype> allowed);
  // Exactly this shape (-1 in `expected` accepts any extent there); `meaning` explains the
  // expected shape, e.g. "[B*T, H, 576] with B=3 from prefix_len".
  bool shape(const char* name, const vbops_tensor& t, const std::vector<int64_t>& expected, const std::string& meaning);
  // Row-major contiguous (extents of 1 may have any stride).
  bool contiguous(const char* name, const vbops_tensor& t);
  bool aligned(const char* name, const vbops_tensor& t, int bytes);
  // Every given tensor on `device` (the first present tensor's when device < 0).
  bool same_device(const char* name, const vbops_tensor& t, int* device);

 private:
  vbops_status status_ = VBOPS_OK;
  std::string message_;
};

// A 576-wide row table of one of `dtypes` (the first names the element): [rows, 576] or
// [rows, 1, 576], rows contiguous. Returns rows (0 on failure).
int64_t check_row_table(ArgCheck& check, const char* name, const vbops_tensor& t, int width,
                        int64_t expected_rows, const std::string& meaning,
                        std::initializer_list<vbops_dtype> dtypes = {VBOPS_DTYPE_BF16});

}  // namespace vbops

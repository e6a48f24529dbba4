#include "tensor_check.h"

#include <cstdint>
#include <string>

namespace vbops {

const char* dtype_name(int32_t dtype) {
  switch (dtype) {
    case VBOPS_DTYPE_BF16: return "bfloat16";
    case VBOPS_DTYPE_F16: return "float16";
    case VBOPS_DTYPE_F32: return "float32";
    case VBOPS_DTYPE_I32: return "int32";
    case VBOPS_DTYPE_I64: return "int64";
    case VBOPS_DTYPE_U8: return "uint8";
    case VBOPS_DTYPE_BOOL: return "bool";
    case VBOPS_DTYPE_U64: return "uint64";
    case VBOPS_DTYPE_FP8_E4M3: return "float8_e4m3";
    case VBOPS_DTYPE_INVALID: return "invalid";
    default: return "unsupported dtype";
  }
}

namespace {
std::string join(const int64_t* v, int n) {
  std::string out = "[";
  for (int i = 0; i < n; ++i) out += (i ? ", " : "") + std::to_string(v[i]);
  return out + "]";
}
}  // namespace

std::string shape_text(const vbops_tensor& t) {
  return join(t.shape, t.ndim >= 0 && t.ndim <= VBOPS_MAX_DIMS ? t.ndim : 0);
}

void ArgCheck::fail(vbops_status status, std::string message) {
  if (!ok()) return;
  status_ = status;
  message_ = std::move(message);
}

bool ArgCheck::present(const char* name, const vbops_tensor& t) {
  if (!ok()) return false;
  if (!given(t)) {
    fail(VBOPS_ERROR_INVALID_ARGUMENT, std::string(name) + ": missing; a CUDA device array is required");
  } else if (t.ndim < 1 || t.ndim > VBOPS_MAX_DIMS) {
    fail(VBOPS_ERROR_INVALID_ARGUMENT,
         std::string(name) + ": " + std::to_string(t.ndim) + " dimensions; allowed: 1 to " +
             std::to_string(VBOPS_MAX_DIMS));
  } else if (t.device < 0) {
    fail(VBOPS_ERROR_INVALID_ARGUMENT, std::string(name) + ": host memory; a CUDA device array is required");
  } else if (t.data == nullptr) {
    fail(VBOPS_ERROR_INVALID_ARGUMENT,
         std::string(name) + ": null data pointer (an empty array?); at least one element is required");
  }
  return ok();
}

bool ArgCheck::dtype(const char* name, const vbops_tensor& t, std::initializer_list<vbops_dtype> allowed) {
  if (!ok()) return false;
  std::string names;
  for (vbops_dtype d : allowed) {
    if (t.dtype == d) return true;
    names += (names.empty() ? "" : " or ") + std::string(dtype_name(d));
  }
  fail(VBOPS_ERROR_INVALID_ARGUMENT, std::string(name) + ": dtype " + dtype_name(t.dtype) + "; allowed: " + names);
  return false;
}

bool ArgCheck::shape(const char* name, const vbops_tensor& t, const std::vector<int64_t>& expected,
                     const std::string& meaning) {
  if (!ok()) return false;
  bool match = t.ndim == static_cast<int>(expected.size());
  for (int i = 0; match && i < t.ndim; ++i) match = expected[i] < 0 || t.shape[i] == expected[i];
  if (!match) {
    std::string want = "[";
    for (std::size_t i = 0; i < expected.size(); ++i) {
      want += (i ? ", " : "") + (expected[i] < 0 ? std::string("*") : std::to_string(expected[i]));
    }
    fail(VBOPS_ERROR_INVALID_ARGUMENT,
         std::string(name) + ": shape " + shape_text(t) + "; expected " + want + "] (" + meaning + ")");
  }
  return ok();
}

bool ArgCheck::contiguous(const char* name, const vbops_tensor& t) {
  if (!ok()) return false;
  int64_t expected = 1;
  for (int i = t.ndim - 1; i >= 0; --i) {
    if (t.shape[i] != 1 && t.strides[i] != expected) {
      fail(VBOPS_ERROR_INVALID_ARGUMENT, std::string(name) + ": strides " + join(t.strides, t.ndim) +
                                             " (elements) for shape " + shape_text(t) +
                                             "; a contiguous row-major array is required");
      return false;
    }
    expected *= t.shape[i];
  }
  return true;
}

bool ArgCheck::aligned(const char* name, const vbops_tensor& t, int bytes) {
  if (!ok()) return false;
  if (reinterpret_cast<std::uintptr_t>(t.data) % static_cast<std::uintptr_t>(bytes) != 0) {
    fail(VBOPS_ERROR_INVALID_ARGUMENT, std::string(name) + ": data pointer not " + std::to_string(bytes) +
                                           "-byte aligned; the kernel moves it in " + std::to_string(bytes) +
                                           "-byte units");
  }
  return ok();
}

bool ArgCheck::same_device(const char* name, const vbops_tensor& t, int* device) {
  if (!ok() || !given(t)) return ok();
  if (*device < 0) *device = t.device;
  if (t.device != *device) {
    fail(VBOPS_ERROR_INVALID_ARGUMENT, std::string(name) + ": on CUDA device " + std::to_string(t.device) +
                                           "; every array must be on device " + std::to_string(*device));
  }
  return ok();
}

int64_t check_row_table(ArgCheck& check, const char* name, const vbops_tensor& t, int width, int64_t expected_rows,
                        const std::string& meaning, std::initializer_list<vbops_dtype> dtypes) {
  if (!check.present(name, t) || !check.dtype(name, t, dtypes)) return 0;
  if (t.ndim == 3) {
    check.shape(name, t, {expected_rows, 1, width}, meaning);
  } else {
    check.shape(name, t, {expected_rows, width}, meaning);
  }
  // Rows must be packed (the kernel steps rows by the width) and 16-byte aligned.
  check.contiguous(name, t);
  check.aligned(name, t, 16);
  return check.ok() ? t.shape[0] : 0;
}

}  // namespace vbops

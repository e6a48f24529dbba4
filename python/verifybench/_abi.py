"""ctypes mirror of ops/include/verifybench_ops.h and the loader of libverifybench_ops.so."""
import ctypes
import os

ABI_VERSION = 3
MAX_DIMS = 4

# vbops_status
OK = 0
STATUS_NAMES = {
    1: "invalid argument",
    2: "unsupported",
    3: "workspace too small",
    4: "shape exceeds the plan",
    5: "CUDA error",
}

# vbops_dtype
BF16, F16, F32, I32, I64, U8, BOOL, U64, FP8_E4M3, OTHER = range(1, 11)
ITEMSIZE = {BF16: 2, F16: 2, F32: 4, I32: 4, I64: 8, U8: 1, BOOL: 1, U64: 8, FP8_E4M3: 1}

# vbops_math
MATH_BF16, MATH_FP8 = 0, 1


class Tensor(ctypes.Structure):
    _fields_ = [
        ("data", ctypes.c_void_p),
        ("dtype", ctypes.c_int32),
        ("ndim", ctypes.c_int32),
        ("shape", ctypes.c_int64 * MAX_DIMS),
        ("strides", ctypes.c_int64 * MAX_DIMS),
        ("device", ctypes.c_int32),
    ]


class Shape(ctypes.Structure):
    _fields_ = [(n, ctypes.c_int32) for n in ("max_batch", "tree_size", "num_heads", "max_kv_len", "page_size",
                                              "kv_dtype", "math")]


class DeviceFacts(ctypes.Structure):
    _fields_ = [(n, ctypes.c_int32) for n in ("sm_count", "blocks_per_sm", "wgmma_supported", "max_threads_per_sm",
                                              "smem_optin_bytes")]


NATIVE_TENSORS = ("q", "kv_pool", "prefix_len", "tree_kv", "kv_indptr", "kv_indices", "block_table",
                  "tree_mask", "o", "lse")
SGLANG_TENSORS = ("q_extend", "k_extend", "k_buffer", "qo_indptr", "kv_indptr", "kv_indices",
                  "custom_mask", "mask_indptr", "o", "lse")


_SCALES = [("sm_scale", ctypes.c_float), ("kv_scale", ctypes.c_float)]


class NativeArgs(ctypes.Structure):
    _fields_ = _SCALES + [(n, Tensor) for n in NATIVE_TENSORS]


class SglangArgs(ctypes.Structure):
    _fields_ = _SCALES + [(n, Tensor) for n in SGLANG_TENSORS]


LIBRARY_NAME = "libverifybench_ops.so"
LIBRARY_ENV = "VERIFYBENCH_OPS_LIBRARY"


def candidate_paths():
    """Where the library is looked for, in order: $VERIFYBENCH_OPS_LIBRARY, the copy pip
    installed beside this package, the checkout's build/ops/, then the loader's search path."""
    here = os.path.dirname(os.path.abspath(__file__))
    paths = []
    if os.environ.get(LIBRARY_ENV):
        paths.append(os.environ[LIBRARY_ENV])
    paths.append(os.path.join(here, "_lib", LIBRARY_NAME))
    paths.append(os.path.join(here, "..", "..", "build", "ops", LIBRARY_NAME))
    paths.append(LIBRARY_NAME)
    return paths


_library = None


def library():
    """The loaded library (loaded on first use, so importing the package needs none)."""
    global _library
    if _library is not None:
        return _library
    errors = []
    for path in candidate_paths():
        if os.sep in path and not os.path.exists(path):
            errors.append(f"{path}: not found")
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            errors.append(f"{path}: {e}")
            continue
        _declare(lib)
        if lib.vbops_abi_version() != ABI_VERSION:
            errors.append(f"{path}: ABI version {lib.vbops_abi_version()}, this package needs {ABI_VERSION}")
            continue
        _library = lib
        return lib
    raise OSError(f"{LIBRARY_NAME} could not be loaded (build it: cmake --build build --target verifybench_ops, "
                  f"or set {LIBRARY_ENV}); tried: " + "; ".join(errors))


def _declare(lib):
    p = ctypes.POINTER
    lib.vbops_abi_version.restype = ctypes.c_int
    lib.vbops_version.restype = ctypes.c_char_p
    lib.vbops_last_error.restype = ctypes.c_char_p
    lib.vbops_plan_create.argtypes = [p(Shape), p(DeviceFacts), p(ctypes.c_int32), p(ctypes.c_void_p)]
    lib.vbops_plan_create.restype = ctypes.c_int
    lib.vbops_plan_destroy.argtypes = [ctypes.c_void_p]
    lib.vbops_plan_destroy.restype = None
    lib.vbops_plan_workspace_bytes.argtypes = [ctypes.c_void_p]
    lib.vbops_plan_workspace_bytes.restype = ctypes.c_size_t
    lib.vbops_plan_describe.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]
    lib.vbops_plan_describe.restype = ctypes.c_size_t
    for name, args in (("vbops_verify_native", NativeArgs), ("vbops_verify_sglang", SglangArgs)):
        fn = getattr(lib, name)
        fn.argtypes = [ctypes.c_void_p, p(args), ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p]
        fn.restype = ctypes.c_int

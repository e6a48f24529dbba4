"""Borrowed device-array views for the C ABI, from torch tensors, objects exposing
__cuda_array_interface__ (CuPy, Numba, ...) or DLPack (__dlpack__: JAX, CuPy, torch).

Only what an array *is* is checked here (given, an array at all, on a CUDA device, a dtype
the ABI can name, strides in whole elements); shapes, dtypes per argument, contiguity,
alignment and sizes are checked by the library, whose messages name the argument too."""
import ctypes
import sys

from . import _abi
from ._ints import INT64, UINT64, as_list, c_int
from .errors import VerifyError

# __cuda_array_interface__ typestr -> ABI dtype. NumPy and CuPy have no bfloat16: a bf16
# array may come as its 16-bit pattern ('<u2' / '<i2') or as ml_dtypes' bfloat16 ('<V2').
_TYPESTR = {
    "<f4": _abi.F32, "<f2": _abi.F16, "<i4": _abi.I32, "<i8": _abi.I64, "|u1": _abi.U8, "<u1": _abi.U8,
    "|b1": _abi.BOOL, "<u8": _abi.U64, "<u2": _abi.BF16, "<i2": _abi.BF16, "<V2": _abi.BF16, "|V2": _abi.BF16,
}

# DLPack (code, bits) -> ABI dtype: kDLInt 0, kDLUInt 1, kDLFloat 2, kDLBfloat 4, kDLBool 6,
# kDLFloat8_e4m3fn 10 (DLPack 1.1). The interface above has no fp8 typestr (NumPy and CuPy have
# no fp8 type; ml_dtypes' are 'V1' like every other 1-byte type): pass such a pool as uint8.
_DLPACK = {(2, 32): _abi.F32, (2, 16): _abi.F16, (0, 32): _abi.I32, (0, 64): _abi.I64, (1, 8): _abi.U8,
           (6, 8): _abi.BOOL, (1, 64): _abi.U64, (4, 16): _abi.BF16, (10, 8): _abi.FP8_E4M3}
_DL_CPU, _DL_CUDA, _DL_CUDA_HOST, _DL_CUDA_MANAGED = 1, 2, 3, 13


def _torch_dtype_code(dtype):
    import torch
    table = {torch.bfloat16: _abi.BF16, torch.float16: _abi.F16, torch.float32: _abi.F32, torch.int32: _abi.I32,
             torch.int64: _abi.I64, torch.uint8: _abi.U8, torch.bool: _abi.BOOL}
    if hasattr(torch, "uint64"):
        table[torch.uint64] = _abi.U64
    if hasattr(torch, "float8_e4m3fn"):
        table[torch.float8_e4m3fn] = _abi.FP8_E4M3
    return table.get(dtype, _abi.OTHER)


def _fill(name, t, data, dtype, shape, strides, device):
    """Fills the ABI tensor `t`; every integer is range-checked first (ctypes would keep the low
    bits of one that does not fit: a 2**64 + 1000-row array would pass as 1000 rows)."""
    shape, strides = as_list(f"{name}: shape", shape), as_list(f"{name}: strides", strides)
    if len(shape) > _abi.MAX_DIMS:
        raise VerifyError(f"{name}: {len(shape)} dimensions; allowed: at most {_abi.MAX_DIMS}")
    if len(strides) != len(shape):
        raise VerifyError(f"{name}: {len(strides)} strides for {len(shape)} dimensions")
    t.data = c_int(f"{name}: data pointer", data, UINT64) if data else None
    t.dtype = dtype
    n = t.ndim = len(shape)
    t.shape[:n] = _extents(f"{name}: shape", shape, low=0)
    t.strides[:n] = _extents(f"{name}: strides", strides)
    t.device = c_int(f"{name}: device", device)
    return t


def _extents(name, values, low=None):
    """Shape or stride entries as int64s, each checked (c_int)."""
    return [c_int(f"{name}[{i}]", v, INT64, low) for i, v in enumerate(as_list(name, values))]


def _contiguous_strides(shape):
    strides, step = [], 1
    for s in reversed(shape):
        strides.append(step)
        step *= s
    return list(reversed(strides))


def _is_torch(obj):
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(obj, torch.Tensor)


class DLPackHold:
    """Keeps a consumed DLPack capsule's tensor alive until release() (after the launch)."""

    def __init__(self, managed, deleter):
        self.managed, self.deleter = managed, deleter

    def release(self):
        if self.deleter:
            self.deleter(self.managed)
            self.deleter = None


class _DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _DLDevice), ("ndim", ctypes.c_int32),
                ("dtype", _DLDataType), ("shape", ctypes.POINTER(ctypes.c_int64)),
                ("strides", ctypes.POINTER(ctypes.c_int64)), ("byte_offset", ctypes.c_uint64)]


class _DLManagedTensor(ctypes.Structure):
    pass


_DELETER = ctypes.CFUNCTYPE(None, ctypes.POINTER(_DLManagedTensor))
_DLManagedTensor._fields_ = [("dl_tensor", _DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _DELETER)]


def _from_dlpack(name, obj, stream, holds):
    device_type, device_id = obj.__dlpack_device__()
    if device_type in (_DL_CPU, _DL_CUDA_HOST):
        raise VerifyError(f"{name}: host memory ({type(obj).__name__}, DLPack device type {device_type}); "
                          "a CUDA device array is required")
    if device_type not in (_DL_CUDA, _DL_CUDA_MANAGED):
        raise VerifyError(f"{name}: DLPack device type {device_type}; a CUDA device array is required")
    # DLPack names CUDA's legacy default stream 1 (0 is not allowed); the runtime's handle is 0.
    if stream == 0:
        stream = 1
    capsule = obj.__dlpack__(stream=stream) if stream is not None else obj.__dlpack__()
    api = ctypes.pythonapi
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
    address = api.PyCapsule_GetPointer(capsule, b"dltensor")
    managed = ctypes.cast(address, ctypes.POINTER(_DLManagedTensor))
    api.PyCapsule_SetName(capsule, b"used_dltensor")  # consumed: the producer's destructor skips it
    holds.append(DLPackHold(managed, managed.contents.deleter))
    dl = managed.contents.dl_tensor
    shape = [dl.shape[i] for i in range(dl.ndim)]
    strides = [dl.strides[i] for i in range(dl.ndim)] if dl.strides else _contiguous_strides(shape)
    dtype = _DLPACK.get((dl.dtype.code, dl.dtype.bits), _abi.OTHER) if dl.dtype.lanes == 1 else _abi.OTHER
    return shape, strides, (dl.data or 0) + dl.byte_offset, dtype, device_id


def describe(name, obj, out, *, device_hint, stream=None, holds=None, optional=False):
    """Fills the ctypes Tensor `out` with a view of `obj`; raises VerifyError naming `name`."""
    if obj is None:
        if optional:
            return _fill(name, out, None, 0, [], [], 0)
        raise VerifyError(f"{name}: missing; a CUDA device array is required")
    try:
        if _is_torch(obj):
            if not obj.is_cuda:
                raise VerifyError(f"{name}: host memory (a torch.Tensor on {obj.device}); a CUDA device tensor "
                                  "is required")
            return _fill(name, out, obj.data_ptr(), _torch_dtype_code(obj.dtype), list(obj.shape), list(obj.stride()),
                         obj.device.index if obj.device.index is not None else device_hint)
        cai = getattr(obj, "__cuda_array_interface__", None)
        if cai is not None:
            shape = _extents(f"{name}: shape", cai["shape"], low=0)
            typestr = cai["typestr"]
            dtype = _TYPESTR.get(typestr, _abi.OTHER)
            itemsize = int(typestr[2:]) if typestr[2:].isdigit() else 0
            if cai.get("strides") is None:
                strides = _contiguous_strides(shape)
            else:
                byte_strides = _extents(f"{name}: strides", cai["strides"])
                if itemsize == 0 or any(s % itemsize for s in byte_strides):
                    raise VerifyError(f"{name}: strides {tuple(byte_strides)} bytes are not whole "
                                      f"{itemsize}-byte elements")
                strides = [s // itemsize for s in byte_strides]
            if dtype == _abi.OTHER:
                raise VerifyError(f"{name}: dtype {typestr!r} (__cuda_array_interface__) has no meaning here; "
                                  "allowed: " + ", ".join(sorted(_TYPESTR)))
            # The interface names no device: the library checks the pointer's own device.
            return _fill(name, out, cai["data"][0], dtype, shape, strides, device_hint)
        if hasattr(obj, "__dlpack__") and hasattr(obj, "__dlpack_device__"):
            shape, strides, data, dtype, device = _from_dlpack(name, obj, stream, holds if holds is not None else [])
            return _fill(name, out, data, dtype, shape, strides, device)
        if hasattr(obj, "__array_interface__") or hasattr(obj, "__array__"):
            raise VerifyError(f"{name}: host memory ({type(obj).__module__}.{type(obj).__name__}); a CUDA device "
                              "array is required")
    except VerifyError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError) as e:
        # A malformed array interface (a missing key, a shape that is not a tuple of ints, ...).
        raise VerifyError(f"{name}: a malformed array ({type(obj).__name__}): {type(e).__name__}: {e}") from None
    raise VerifyError(f"{name}: a {type(obj).__name__} is not an array: it exposes neither "
                      "__cuda_array_interface__ nor DLPack (__dlpack__)")


def nbytes(t):
    """Bytes a described array spans (its elements times their size)."""
    count = 1
    for i in range(t.ndim):
        count *= t.shape[i]
    return count * _abi.ITEMSIZE.get(t.dtype, 0)

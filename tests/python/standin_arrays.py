"""Stand-in arrays for the package tests without a GPU: objects that expose only
__cuda_array_interface__ (as CuPy and Numba arrays do), DLPack, or a host array's interface.
Their addresses are made up and never dereferenced: the library refuses before any launch."""
_next_address = [0x7F0000000000]


def _address():
    _next_address[0] += 1 << 24
    return _next_address[0]


class CudaArray:
    def __init__(self, shape, typestr, strides=None, address=None):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr,
                                         "data": (address or _address(), False), "strides": strides, "version": 3}


class HostArray:
    """What numpy.ndarray offers (no device interface)."""

    def __init__(self, shape, typestr):
        self.__array_interface__ = {"shape": tuple(shape), "typestr": typestr, "data": (_address(), False),
                                    "version": 3}


class HostDLPack:
    """A DLPack producer on the CPU (device type 1)."""

    def __dlpack_device__(self):
        return (1, 0)

    def __dlpack__(self, stream=None):
        raise AssertionError("a host array must be refused before it is consumed")


def bf16(*shape):
    return CudaArray(shape, "<u2")


def sglang_arrays(B=3, T=4, H=8, pool_rows=1000, prefix_tokens=900):
    """Valid SGLang-form arguments for a plan of (B, T, H)."""
    return dict(q_extend=bf16(B * T, H, 576), k_extend=bf16(B * T, 1, 576), k_buffer=bf16(pool_rows, 1, 576),
                qo_indptr=CudaArray((B + 1,), "<i4"), kv_indptr=CudaArray((B + 1,), "<i4"),
                kv_indices=CudaArray((prefix_tokens,), "<i8"), custom_mask=CudaArray((5000,), "|b1"),
                mask_indptr=CudaArray((B + 1,), "<i8"), o=bf16(B * T, H, 512))


class DeviceDLPack:
    """A DLPack producer on CUDA device 0 that records the stream it is asked to order
    against, then stops the call (it holds no memory to hand over)."""

    class Asked(Exception):
        pass

    def __init__(self):
        self.streams = []

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, stream=None):
        self.streams.append(stream)
        raise DeviceDLPack.Asked()

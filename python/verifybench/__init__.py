"""verifybench: the production MLA tree-verify attention kernel from Python.

Pure Python over ctypes (libverifybench_ops.so, ops/include/verifybench_ops.h): any array
exposing __cuda_array_interface__ or DLPack, launched on the caller's current stream. With
torch importable, verifybench.torch_ops registers torch.library custom ops (CUDA graphs,
torch.compile); verifybench.sglang is the drop-in for SGLang's Triton target verify.
"""
from .errors import VerifyError
from .ops import Plan, resolve_stream, verify_native, verify_sglang

__version__ = "0.3.0"

# With torch installed, the custom ops are registered on import (torch.ops.verifybench.*).
import importlib.util as _util

if _util.find_spec("torch") is not None:
    from . import torch_ops  # noqa: F401


def library_version():
    """The loaded library's version line, e.g. "verifybench-ops 0.3.0 (abi 3)"."""
    from . import _abi
    return _abi.library().vbops_version().decode()


__all__ = ["Plan", "VerifyError", "verify_native", "verify_sglang", "resolve_stream", "library_version",
           "__version__"]

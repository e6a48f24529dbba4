"""Plans and launches of the production kernel over the C ABI (framework-neutral)."""
import ctypes
import sys

from . import _abi, _arrays
from ._ints import UINT64, as_list, c_int, c_ints, positive_finite
from .errors import VerifyError

# The KV pool dtypes a plan is made for, by the names a caller may use (the scenario files'
# and torch's); the value is the ABI's code and the name Plan.kv_dtype reports.
_KV_DTYPES = {
    "bf16": (_abi.BF16, "bf16"), "bfloat16": (_abi.BF16, "bf16"),
    "fp8_e4m3": (_abi.FP8_E4M3, "fp8_e4m3"), "float8_e4m3fn": (_abi.FP8_E4M3, "fp8_e4m3"),
}


def kv_dtype_of(value):
    """(ABI code, canonical name) of a pool dtype: 'bf16' / 'fp8_e4m3', or torch.bfloat16 /
    torch.float8_e4m3fn (or their names)."""
    name = str(value).replace("torch.", "")
    if name not in _KV_DTYPES:
        raise VerifyError(f"kv_dtype: {value!r}; allowed: 'bf16' or 'fp8_e4m3' (or torch.bfloat16 / "
                          "torch.float8_e4m3fn)")
    return _KV_DTYPES[name]


# The tensor math a plan over an fp8 pool runs, by name: the ABI's code.
_MATHS = {"bf16": _abi.MATH_BF16, "fp8": _abi.MATH_FP8}


def math_of(value, kv_dtype):
    """(ABI code, name) of a plan's tensor math: 'bf16' (the default: an fp8 pool's e4m3 tile
    widened to bf16, exact) or 'fp8' (e4m3 tensor math, over an fp8 pool only). kv_dtype: the
    plan's canonical pool dtype name."""
    if not isinstance(value, str) or value not in _MATHS:
        raise VerifyError(f"math: {value!r}; allowed: 'bf16' or 'fp8' (e4m3 tensor math, over an fp8 pool only)")
    if value == "fp8" and kv_dtype != "fp8_e4m3":
        raise VerifyError(f"math: 'fp8' with kv_dtype {kv_dtype!r}; allowed: fp8 math with an fp8 pool only "
                          "(kv_dtype='fp8_e4m3'): a bf16 pool has no e4m3 tile to multiply")
    return _MATHS[value], value


def host_scale(name, value):
    """A scale as a float, refusing device arrays: reading one on the host would synchronise
    (and break a CUDA-graph capture). SGLang passes its scales as floats (layer.k_scale_float)."""
    torch = sys.modules.get("torch")
    if (torch is not None and isinstance(value, torch.Tensor)) or hasattr(value, "__cuda_array_interface__"):
        raise VerifyError(f"{name}: a {type(value).__name__}; allowed: a Python float (a device tensor would be "
                          "read on the host, which synchronises and cannot be captured in a CUDA graph)")
    return positive_finite(name, value)


def _raise_for(status, lib):
    if status != _abi.OK:
        message = lib.vbops_last_error().decode("utf-8", "replace")
        raise VerifyError(message or _abi.STATUS_NAMES.get(status, f"status {status}"), status)


def _device_facts(facts):
    """The DeviceFacts of a sequence of its five integers, each checked by name."""
    names = [name for name, _ in _abi.DeviceFacts._fields_]
    values = as_list("device_facts", facts)
    if len(values) != len(names):
        raise VerifyError(f"device_facts: {len(values)} values; allowed: {len(names)} ({', '.join(names)})")
    return _abi.DeviceFacts(*(c_int(f"device_facts.{n}", v) for n, v in zip(names, values)))


class Plan:
    """The launch the kernel runs for a shape, fixed for a captured CUDA graph.

    max_batch requests at most, exactly tree_size nodes and num_heads heads per request;
    max_kv_len (prefix + tree of the longest request) sizes the KV splits. kv_lens (host
    ints, max_batch of them) sizes them by actual lengths instead. kv_dtype: the KV pool's
    element type, 'bf16' or 'fp8_e4m3' (a pool of 576 e4m3 bytes a row holding value / kv_scale,
    passed as torch.float8_e4m3fn or as its uint8 bytes; it runs on the mma.sync engine).
    math: the tensor math over an fp8 pool, 'bf16' (the tile widened to bf16, exact: the
    default) or 'fp8' (the tile stays e4m3, Q is quantized to e4m3 per query row and the
    softmax weights P to e4m3: opt-in, within scenarios/README.md's "fp8 math" tolerance);
    'fp8' with a bf16 pool is refused.
    device_facts
    (sm_count, blocks_per_sm, wgmma_supported, max_threads_per_sm, smem_optin_bytes): plan
    for a described GPU without one (the default reads the current device, which must not
    be capturing a graph)."""

    def __init__(self, max_batch, tree_size, num_heads, max_kv_len, page_size=1, kv_lens=None,
                 device_facts=None, device=None, kv_dtype="bf16", math="bf16"):
        lib = _abi.library()
        self._lib = lib
        # Every integer is range-checked before ctypes sees it (ctypes keeps the low bits of one
        # that does not fit); the library checks what the values mean.
        fields = dict(max_batch=max_batch, tree_size=tree_size, num_heads=num_heads, max_kv_len=max_kv_len,
                      page_size=page_size)
        kv_code, self.kv_dtype = kv_dtype_of(kv_dtype)
        math_code, self.math = math_of(math, self.kv_dtype)
        self.shape = _abi.Shape(**{name: c_int(name, value) for name, value in fields.items()}, kv_dtype=kv_code,
                                math=math_code)
        facts = _device_facts(device_facts) if device_facts is not None else None
        self.device = c_int("device", device) if device is not None else None
        lens = None
        if kv_lens is not None:
            kv_lens = c_ints("kv_lens", kv_lens)
            if len(kv_lens) != self.shape.max_batch:
                raise VerifyError(f"kv_lens: {len(kv_lens)} entries; expected max_batch ({max_batch})")
            lens = (ctypes.c_int32 * len(kv_lens))(*kv_lens)
        handle = ctypes.c_void_p()
        _raise_for(lib.vbops_plan_create(ctypes.byref(self.shape), ctypes.byref(facts) if facts else None, lens,
                                         ctypes.byref(handle)), lib)
        self._handle = handle
        self.workspace_bytes = lib.vbops_plan_workspace_bytes(handle)
        n = lib.vbops_plan_describe(handle, None, 0)
        text = ctypes.create_string_buffer(n + 1)
        lib.vbops_plan_describe(handle, text, n + 1)
        self.description = text.value.decode()

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle:
            self._lib.vbops_plan_destroy(handle)
            self._handle = None

    def __repr__(self):
        s = self.shape
        return (f"Plan(max_batch={s.max_batch}, tree_size={s.tree_size}, num_heads={s.num_heads}, "
                f"max_kv_len={s.max_kv_len}, page_size={s.page_size}, kv_dtype={self.kv_dtype!r}, math={self.math!r}: "
                f"{self.description})")


def resolve_stream(stream, arrays):
    """The stream to launch on, as an integer handle: `stream` when given (an int, a
    torch.cuda.Stream, a CuPy stream); otherwise the caller's current stream of the
    framework the arrays come from (torch, then CuPy), else the legacy default stream (0)."""
    if stream is not None:
        for attribute in ("cuda_stream", "ptr", "handle"):
            if hasattr(stream, attribute):
                return c_int(f"stream.{attribute}", getattr(stream, attribute), UINT64)
        if isinstance(stream, int) and not isinstance(stream, bool):
            return c_int("stream", stream, UINT64)
        raise VerifyError(f"stream: a {type(stream).__name__}; allowed: a stream handle (int), a torch.cuda.Stream "
                          "or a CuPy stream")
    torch = sys.modules.get("torch")
    if torch is not None:
        for a in arrays:
            if isinstance(a, torch.Tensor) and a.is_cuda:
                return torch.cuda.current_stream(a.device).cuda_stream
    cupy = sys.modules.get("cupy")
    if cupy is not None and any(isinstance(a, cupy.ndarray) for a in arrays):
        return cupy.cuda.get_current_stream().ptr
    return 0


def _pool_scale(plan, kv_scale):
    """The kv_scale to pass: an fp8 pool's must be given (a forgotten scale would compute wrong
    numbers silently); a bf16 pool's defaults to 1."""
    if kv_scale is None:
        if plan.kv_dtype == "fp8_e4m3":
            raise VerifyError("kv_scale: missing; an fp8 pool needs its dequantization scale (SGLang's k_scale; 1.0 "
                              "when the checkpoint ships none)")
        return 1.0
    return host_scale("kv_scale", kv_scale)


def _launch(plan, fn_name, args_type, names, optional, values, sm_scale, kv_scale, workspace, stream):
    if not isinstance(plan, Plan):
        raise VerifyError(f"plan: a {type(plan).__name__}; a verifybench.Plan is required")
    scale = positive_finite("sm_scale", sm_scale)
    pool_scale = _pool_scale(plan, kv_scale)
    handle = resolve_stream(stream, list(values.values()) + [workspace])
    args = args_type()
    args.sm_scale = scale
    args.kv_scale = pool_scale
    holds = []
    try:
        hint = plan.device if plan.device is not None else 0
        for name in names:
            _arrays.describe(name, values.get(name), getattr(args, name), device_hint=hint, stream=handle,
                             holds=holds, optional=name in optional)
        ws = _abi.Tensor()
        _arrays.describe("workspace", workspace, ws, device_hint=hint, stream=handle, holds=holds)
        lib = plan._lib
        status = getattr(lib, fn_name)(plan._handle, ctypes.byref(args), ws.data, _arrays.nbytes(ws), handle)
        _raise_for(status, lib)
    finally:
        for h in holds:
            h.release()


def verify_native(plan, *, q, kv_pool, prefix_len, tree_mask, o, lse, sm_scale, workspace, kv_indptr=None,
                  kv_indices=None, block_table=None, tree_kv=None, kv_scale=None, stream=None):
    """o, lse = attention of q over each request's prefix and its tree ancestors, native form
    (shapes: ops/include/verifybench_ops.h). kv_pool is of the plan's kv_dtype; kv_scale (a
    float) is an fp8 pool's dequantization scale, required for one (1 or None for bf16).
    Asynchronous on `stream`
    (default: the caller's current stream); nothing is launched when an argument is refused
    (VerifyError)."""
    values = dict(q=q, kv_pool=kv_pool, prefix_len=prefix_len, tree_kv=tree_kv, kv_indptr=kv_indptr,
                  kv_indices=kv_indices, block_table=block_table, tree_mask=tree_mask, o=o, lse=lse)
    optional = {"tree_kv", "kv_indptr", "kv_indices", "block_table"}
    _launch(plan, "vbops_verify_native", _abi.NativeArgs, _abi.NATIVE_TENSORS, optional, values, sm_scale,
            kv_scale, workspace, stream)


def verify_sglang(plan, *, q_extend, k_extend, k_buffer, qo_indptr, kv_indptr, kv_indices, custom_mask,
                  mask_indptr, o, sm_scale, workspace, lse=None, kv_scale=None, stream=None):
    """SGLang's target-verify inputs (its Triton backend's extend_attention_fwd, MLA): writes
    o [B*T, H, 512] (and lse when given). k_buffer is of the plan's kv_dtype (SGLang's fp8 MLA
    pool: float8_e4m3fn or its uint8 storage), kv_scale its k_scale (== v_scale in MLA),
    required for an fp8 pool.
    Asynchronous on `stream`; VerifyError when refused."""
    values = dict(q_extend=q_extend, k_extend=k_extend, k_buffer=k_buffer, qo_indptr=qo_indptr,
                  kv_indptr=kv_indptr, kv_indices=kv_indices, custom_mask=custom_mask, mask_indptr=mask_indptr,
                  o=o, lse=lse)
    _launch(plan, "vbops_verify_sglang", _abi.SglangArgs, _abi.SGLANG_TENSORS, {"lse"}, values, sm_scale,
            kv_scale, workspace, stream)

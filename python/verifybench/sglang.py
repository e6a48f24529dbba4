"""Drop-in for SGLang's Triton MLA target verify.

extend_attention_fwd() takes exactly the arguments SGLang's TritonAttnBackend.forward_extend
passes to its Triton extend_attention_fwd (python/sglang/srt/layers/attention/triton_ops/
extend_attention.py) and writes o_extend in place with the production kernel. It takes
SGLang's MLA target-verify calls only; unsupported_reason() says why a call is not one.

route_target_verify(backend) wraps a TritonAttnBackend's extend_attention_fwd: every call
the production kernel supports goes to it, every other call to the original Triton kernel.
Falls back to Triton on (unsupported_reason's texts):
  - no custom_mask (prefill, chunked prefill, draft extend: causal, not a tree);
  - extend lengths that are not one tree size for every request (q rows != B * max_len_extend);
  - a KV pool that is neither bf16 nor fp8 e4m3 (float8_e4m3fn), a scaled bf16 pool
    (k_scale / v_scale != 1), an fp8 pool whose k_scale and v_scale differ (MLA's K and V are
    one row: one scale) or scales given as tensors (reading them would synchronise);
  - logit cap, sliding window (sliding_window_size, window_kv_offsets), attention sinks,
    xai temperature scaling;
  - head dims other than absorbed MLA's (q 576, o 512, one latent KV head), a V pool that is
    not the K pool's first 512 values, a custom mask that applies to the prefix
    (skip_prefix_custom_mask=False), trees above 1024 nodes, non-contiguous q or k, q, k_extend
    or o not bf16.
v_extend is never read: in absorbed MLA it is the first 512 values of k_extend's rows. With an
fp8 pool (SGLang's MLATokenToKVPool under --kv-cache-dtype fp8_e4m3: uint8 storage viewed as
float8_e4m3fn, each row stored divided by k_scale) k_extend stays the bf16 rows SGLang computed,
read unquantized as Triton does, and the pool is read as e4m3 x k_scale.

Over an fp8 pool the kernel's tensor math is bf16 by default (the e4m3 tile widened, exact);
math="fp8" (route_target_verify's and extend_attention_fwd's argument) opts those calls into
e4m3 tensor math (Q per row and the softmax weights quantized to e4m3; error bound:
scenarios/README.md's "fp8 math"). Calls over a bf16 pool run bf16 math either way.
"""
import collections
import functools
import inspect
import logging
import math

from ._ints import c_int, positive_finite
from .errors import VerifyError

log = logging.getLogger("verifybench.sglang")

_HEAD_DIM_QK, _HEAD_DIM_V, _MAX_TREE = 576, 512, 1024
# The longest prefix a plan is sized for when nobody says (SGLang's graph buffers of
# kv_indices hold every request's whole context): longer ones are computed all the same.
_MAX_DEFAULT_PREFIX = 1 << 20


def _dtype_name(t):
    return str(t.dtype).replace("torch.", "")


def _is_tensor(x):
    return hasattr(x, "dtype") and hasattr(x, "data_ptr")


# The KV pool dtypes the kernel reads, by torch's name, as verifybench's kv_dtype.
_POOL_DTYPES = {"bfloat16": "bf16", "float8_e4m3fn": "fp8_e4m3"}


def _scale_reason(pool_dtype, k_scale, v_scale):
    """Why these scales keep the call on Triton, or None (a fixed text per cause: the router
    counts calls by it). SGLang passes floats (its layers' k_scale_float / v_scale_float, 1.0
    without a checkpoint scale); None reads as 1."""
    scales = {}
    for name, scale in (("k_scale", k_scale), ("v_scale", v_scale)):
        if _is_tensor(scale):
            return f"{name} given as a tensor (reading it would synchronise)"
        try:
            scales[name] = 1.0 if scale is None else float(scale)
        except (TypeError, ValueError):
            return f"{name} not a number"
        if not (math.isfinite(scales[name]) and scales[name] > 0):
            return f"{name} not a finite number above 0"
    if pool_dtype == "bf16":
        for name, scale in scales.items():
            if scale != 1.0:
                return f"scaled bf16 KV ({name})"
    elif scales["k_scale"] != scales["v_scale"]:
        return "fp8 KV with k_scale != v_scale (MLA's K and V are one row: one scale)"
    return None


def unsupported_reason(q_extend, k_extend, v_extend, o_extend, k_buffer, v_buffer, qo_indptr, kv_indptr, kv_indices,
                       custom_mask, is_causal, mask_indptr, max_len_extend, k_scale=1.0, v_scale=1.0, sm_scale=None,
                       logit_cap=0.0, skip_prefix_custom_mask=True, sliding_window_size=-1, sinks=None,
                       window_kv_offsets=None, xai_temperature_len=-1, **ignored):
    """None when the production kernel computes this call exactly, else why not (one line).
    Reads shapes, dtypes and pointers only: no device data, no synchronisation."""
    if custom_mask is None or mask_indptr is None:
        return "no custom mask (prefill or causal extend, not a tree verify)"
    pool_dtype = _POOL_DTYPES.get(_dtype_name(k_buffer))
    if pool_dtype is None:
        return f"KV cache of {_dtype_name(k_buffer)}: bf16 or fp8 e4m3 (float8_e4m3fn) only"
    if {_dtype_name(t) for t in (q_extend, k_extend, o_extend)} != {"bfloat16"}:
        return (f"q_extend / k_extend / o_extend of {_dtype_name(q_extend)} / {_dtype_name(k_extend)} / "
                f"{_dtype_name(o_extend)}: bf16 only")
    reason = _scale_reason(pool_dtype, k_scale, v_scale)
    if reason is not None:
        return reason
    if logit_cap is not None and logit_cap > 0:
        return "logit cap"
    if (sliding_window_size is not None and sliding_window_size > -1) or window_kv_offsets is not None:
        return "sliding window"
    if sinks is not None:
        return "attention sinks"
    if xai_temperature_len is not None and xai_temperature_len > 0:
        return "xai temperature scaling"
    if not skip_prefix_custom_mask:
        return "a custom mask over the prefix columns (skip_prefix_custom_mask=False)"
    if (q_extend.dim() != 3 or q_extend.shape[-1] != _HEAD_DIM_QK or o_extend.shape[-1] != _HEAD_DIM_V
            or k_buffer.dim() != 3 or k_buffer.shape[1] != 1 or k_buffer.shape[-1] != _HEAD_DIM_QK
            or k_extend.shape[-1] != _HEAD_DIM_QK):
        return "not absorbed MLA (q 576 / o 512 wide, one 576-wide latent KV head)"
    if v_buffer.data_ptr() != k_buffer.data_ptr() or v_buffer.stride(0) != k_buffer.stride(0):
        return "a V pool that is not the K pool's first 512 values"
    batch = qo_indptr.shape[0] - 1
    if max_len_extend < 1 or max_len_extend > _MAX_TREE or q_extend.shape[0] != batch * max_len_extend:
        return f"extend lengths not one tree size of at most {_MAX_TREE} nodes (q rows {q_extend.shape[0]}, " \
               f"batch {batch}, max_len_extend {max_len_extend})"
    if not (q_extend.is_contiguous() and k_extend.is_contiguous() and o_extend.is_contiguous()):
        return "non-contiguous q_extend, k_extend or o_extend"
    return None


def extend_attention_fwd(q_extend, k_extend, v_extend, o_extend, k_buffer, v_buffer, qo_indptr, kv_indptr,
                         kv_indices, custom_mask, is_causal, mask_indptr, max_len_extend, k_scale=1.0, v_scale=1.0,
                         sm_scale=None, logit_cap=0.0, skip_prefix_custom_mask=True, sliding_window_size=-1,
                         sinks=None, window_kv_offsets=None, xai_temperature_len=-1, *, max_kv_len=None,
                         math="bf16"):
    """SGLang's Triton extend_attention_fwd for MLA target verify, on the production kernel.
    Writes o_extend [B*T, H, 512]. k_buffer: bf16, or SGLang's fp8 pool (float8_e4m3fn) with
    its k_scale (== v_scale). max_kv_len: the longest prefix + tree the plan is sized for
    (default: the largest kv_indices can describe, kv_indices.numel() + T). math: the tensor
    math over an fp8 pool, 'bf16' (default) or 'fp8' (opt-in); a bf16 pool runs bf16 math.
    Raises verifybench.VerifyError for a call unsupported_reason() refuses or a math that is
    neither."""
    check_math(math)
    reason = unsupported_reason(q_extend, k_extend, v_extend, o_extend, k_buffer, v_buffer, qo_indptr, kv_indptr,
                                kv_indices, custom_mask, is_causal, mask_indptr, max_len_extend, k_scale, v_scale,
                                sm_scale, logit_cap, skip_prefix_custom_mask, sliding_window_size, sinks,
                                window_kv_offsets, xai_temperature_len)
    if reason is not None:
        raise VerifyError(f"not supported by the production kernel: {reason}")
    import torch
    from . import torch_ops
    batch, tree_size, heads = qo_indptr.shape[0] - 1, c_int("max_len_extend", max_len_extend), q_extend.shape[1]
    if max_kv_len is None:
        max_kv_len = min(kv_indices.numel(), _MAX_DEFAULT_PREFIX) + tree_size
    kv_dtype = _POOL_DTYPES[_dtype_name(k_buffer)]
    plan_id, _ = torch_ops.plan_for(q_extend.device, batch, tree_size, heads, c_int("max_kv_len", max_kv_len),
                                    kv_dtype=kv_dtype, math=math if kv_dtype == "fp8_e4m3" else "bf16")
    scale = sm_scale if sm_scale else 1.0 / (_HEAD_DIM_QK ** 0.5)
    lse = torch.empty((q_extend.shape[0], heads), dtype=torch.float32, device=q_extend.device)
    if custom_mask.dtype not in (torch.bool, torch.uint8):
        custom_mask = custom_mask.to(torch.uint8)
    kv_scale = 1.0 if k_scale is None else float(k_scale)  # a float: unsupported_reason refused tensors
    torch.ops.verifybench.verify_sglang_(q_extend, k_extend, k_buffer, qo_indptr, kv_indptr, kv_indices, custom_mask,
                                         mask_indptr, o_extend, lse, positive_finite("sm_scale", scale), plan_id,
                                         kv_scale)


def check_math(math):
    """The math argument of the drop-in and the router, refused (VerifyError, a ValueError) when
    it is neither 'bf16' nor 'fp8'."""
    if not isinstance(math, str) or math not in ("bf16", "fp8"):
        raise VerifyError(f"math: {math!r}; allowed: 'bf16' or 'fp8' (e4m3 tensor math for calls over an fp8 pool)")
    return math


_DROP_IN_PARAMETERS = inspect.signature(extend_attention_fwd).parameters


def _drop_in(**call):
    return extend_attention_fwd(**call)


def route_target_verify(backend, max_kv_len=None, math="bf16"):
    """Routes `backend`'s (a TritonAttnBackend) extend_attention_fwd calls that the
    production kernel supports to it; the rest go to the original Triton kernel. Binds each
    call by the original's own signature, so SGLang versions with and without k_scale /
    v_scale both route. max_kv_len: the plans' longest request (default: the backend's
    max_context_len). math: the tensor math of calls over an fp8 pool, 'bf16' (default: the
    e4m3 tile widened, exact) or 'fp8' (e4m3 tensor math, opt-in); calls over a bf16 pool run
    bf16 math. Returns a Counter of fallback reasons, updated as calls come in;
    `backend.extend_attention_fwd = routed.original` undoes it."""
    check_math(math)
    original = backend.extend_attention_fwd
    signature = inspect.signature(original)
    if max_kv_len is None:
        max_kv_len = getattr(backend, "max_context_len", None)
    fallbacks = collections.Counter()

    @functools.wraps(original)
    def routed(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        call = {k: v for k, v in bound.arguments.items() if k in _DROP_IN_PARAMETERS}
        reason = unsupported_reason(**call)
        if reason is None:
            return _drop_in(**call, max_kv_len=max_kv_len, math=math)
        if fallbacks[reason] == 0:
            log.info("verifybench: Triton keeps %s", reason)
        fallbacks[reason] += 1
        return original(*args, **kwargs)

    routed.original = original
    routed.fallbacks = fallbacks
    backend.extend_attention_fwd = routed
    return fallbacks

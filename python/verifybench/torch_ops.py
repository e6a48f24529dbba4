"""torch.library custom ops over the C ABI (imported only when torch is).

  torch.ops.verifybench.verify_sglang_(q_extend, k_extend, k_buffer, qo_indptr, kv_indptr,
      kv_indices, custom_mask, mask_indptr, o, lse, sm_scale, plan_id, kv_scale=None)
  torch.ops.verifybench.verify_native_(q, kv_pool, prefix_len, kv_indptr, kv_indices,
      block_table, tree_kv, tree_mask, o, lse, sm_scale, plan_id, kv_scale=None)

The pool (k_buffer / kv_pool) is of the plan's kv_dtype: bf16, or fp8 e4m3 as
torch.float8_e4m3fn or its uint8 bytes, with kv_scale its dequantization scale (a float,
required for an fp8 pool). The tensor math is the plan's (plan_for(..., math='fp8') over an
fp8 pool: e4m3 tensor math; the ops' arguments are the same).

Both write o and lse in place (mutates_args) on the current stream, allocate only their
workspace (torch's caching allocator: inside a CUDA-graph capture it comes from the graph's
pool) and never synchronise, so they can be captured with torch.cuda.graph; their fake
implementations let torch.compile trace them. plan_id names a Plan registered with
register_plan() (or made by plan_for()), made outside any capture."""
import threading
from typing import Optional

import torch

from . import ops
from ._ints import INT64, c_int, c_ints, positive_finite

_plans = {}
_plans_by_shape = {}
_lock = threading.Lock()


def register_plan(plan):
    """Registers `plan` for the ops; returns its plan_id."""
    with _lock:
        plan_id = len(_plans) + 1
        _plans[plan_id] = plan
        return plan_id


def plan_for(device, batch, tree_size, num_heads, max_kv_len, page_size=1, kv_lens=None, kv_dtype="bf16",
             math="bf16"):
    """The registered plan for this shape, pool dtype ('bf16' or 'fp8_e4m3') and tensor math
    ('bf16' or 'fp8', an fp8 pool's opt-in; see ops.Plan) on `device` (made on first use: call
    it outside a graph capture, e.g. in a warm-up step). Returns (plan_id, plan)."""
    device = torch.device(device)
    index = device.index if device.index is not None else torch.cuda.current_device()
    kv_lens = c_ints("kv_lens", kv_lens) if kv_lens is not None else None  # the key needs them as ints
    _, kv_dtype = ops.kv_dtype_of(kv_dtype)
    _, math = ops.math_of(math, kv_dtype)
    key = (index, batch, tree_size, num_heads, max_kv_len, page_size, tuple(kv_lens) if kv_lens else None, kv_dtype,
           math)
    with _lock:
        found = _plans_by_shape.get(key)
    if found is not None:
        return found, _plans[found]
    with torch.cuda.device(index):
        plan = ops.Plan(batch, tree_size, num_heads, max_kv_len, page_size=page_size, kv_lens=kv_lens, device=index,
                        kv_dtype=kv_dtype, math=math)
    plan_id = register_plan(plan)
    with _lock:
        _plans_by_shape[key] = plan_id
    return plan_id, plan


def _plan(plan_id):
    plan = _plans.get(plan_id)
    if plan is None:
        raise ops.VerifyError(f"plan_id: {plan_id} is not a registered plan (register_plan / plan_for)")
    return plan


def _workspace(plan, like):
    return torch.empty(plan.workspace_bytes, dtype=torch.uint8, device=like.device)


@torch.library.custom_op("verifybench::verify_sglang_", mutates_args=("o", "lse"), device_types="cuda")
def verify_sglang_(q_extend: torch.Tensor, k_extend: torch.Tensor, k_buffer: torch.Tensor, qo_indptr: torch.Tensor,
                   kv_indptr: torch.Tensor, kv_indices: torch.Tensor, custom_mask: torch.Tensor,
                   mask_indptr: torch.Tensor, o: torch.Tensor, lse: torch.Tensor, sm_scale: float,
                   plan_id: int, kv_scale: Optional[float] = None) -> None:
    plan = _plan(plan_id)
    ops.verify_sglang(plan, q_extend=q_extend, k_extend=k_extend, k_buffer=k_buffer, qo_indptr=qo_indptr,
                      kv_indptr=kv_indptr, kv_indices=kv_indices, custom_mask=custom_mask, mask_indptr=mask_indptr,
                      o=o, lse=lse, sm_scale=sm_scale, kv_scale=kv_scale, workspace=_workspace(plan, q_extend),
                      stream=torch.cuda.current_stream(q_extend.device).cuda_stream)


@verify_sglang_.register_fake
def _verify_sglang_fake(q_extend, k_extend, k_buffer, qo_indptr, kv_indptr, kv_indices, custom_mask, mask_indptr, o,
                        lse, sm_scale, plan_id, kv_scale=None):
    return None


@torch.library.custom_op("verifybench::verify_native_", mutates_args=("o", "lse"), device_types="cuda")
def verify_native_(q: torch.Tensor, kv_pool: torch.Tensor, prefix_len: torch.Tensor, kv_indptr: Optional[torch.Tensor],
                   kv_indices: Optional[torch.Tensor], block_table: Optional[torch.Tensor],
                   tree_kv: Optional[torch.Tensor], tree_mask: torch.Tensor, o: torch.Tensor, lse: torch.Tensor,
                   sm_scale: float, plan_id: int, kv_scale: Optional[float] = None) -> None:
    plan = _plan(plan_id)
    ops.verify_native(plan, q=q, kv_pool=kv_pool, prefix_len=prefix_len, kv_indptr=kv_indptr, kv_indices=kv_indices,
                      block_table=block_table, tree_kv=tree_kv, tree_mask=tree_mask, o=o, lse=lse, sm_scale=sm_scale,
                      kv_scale=kv_scale, workspace=_workspace(plan, q),
                      stream=torch.cuda.current_stream(q.device).cuda_stream)


@verify_native_.register_fake
def _verify_native_fake(q, kv_pool, prefix_len, kv_indptr, kv_indices, block_table, tree_kv, tree_mask, o, lse,
                        sm_scale, plan_id, kv_scale=None):
    return None


def _scale_arg(kv_scale):
    """kv_scale checked before the op sees it (None stays None: the plan decides)."""
    return None if kv_scale is None else ops.host_scale("kv_scale", kv_scale)


def _outputs(q, num_heads):
    rows = q.shape[0]
    o = torch.empty((rows, num_heads, 512), dtype=torch.bfloat16, device=q.device)
    lse = torch.empty((rows, num_heads), dtype=torch.float32, device=q.device)
    return o, lse


def sglang_verify(q_extend, k_extend, k_buffer, qo_indptr, kv_indptr, kv_indices, custom_mask, mask_indptr, sm_scale,
                  plan_id, kv_scale=None):
    """Functional form of verify_sglang_: returns new (o, lse)."""
    o, lse = _outputs(q_extend, q_extend.shape[1])
    torch.ops.verifybench.verify_sglang_(q_extend, k_extend, k_buffer, qo_indptr, kv_indptr, kv_indices, custom_mask,
                                         mask_indptr, o, lse, positive_finite("sm_scale", sm_scale),
                                         c_int("plan_id", plan_id, INT64), _scale_arg(kv_scale))
    return o, lse


def native_verify(q, kv_pool, prefix_len, tree_mask, sm_scale, plan_id, kv_indptr=None, kv_indices=None,
                  block_table=None, tree_kv=None, kv_scale=None):
    """Functional form of verify_native_: returns new (o, lse)."""
    o, lse = _outputs(q, q.shape[1])
    torch.ops.verifybench.verify_native_(q, kv_pool, prefix_len, kv_indptr, kv_indices, block_table, tree_kv,
                                         tree_mask, o, lse, positive_finite("sm_scale", sm_scale),
                                         c_int("plan_id", plan_id, INT64), _scale_arg(kv_scale))
    return o, lse

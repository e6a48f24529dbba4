#!/usr/bin/env python3
"""The Python package on a GPU (torch required): what a CPU-only CI cannot show.

  python3 tests/python/gpu_check.py CASE_ROOT [CASE_ROOT...] OUT_DIR

Each CASE_ROOT holds folders written by `verifybench export` on this GPU (with its executors'
outputs; scripts/python_gpu_check.sh exports every case of scenarios/correctness.yaml and
scenarios/correctness_fp8.yaml into one, and correctness_fp8.yaml again with `--math fp8`
into another).

  1. equality: on every case, the torch op in SGLang's form, in the native form over the
     token table and over the block table equals the C++ production executor's exported
     output (sglang-adapter, production, production/block-table) bit for bit, O and LSE,
     with the plan the harness makes for the case (its lengths); and the framework-neutral
     entry points (DLPack, __cuda_array_interface__) equal the torch op.
  2. graphs: each form captured once in torch.cuda.graph for a maximum shape, then replayed
     with new prefix lengths, page tables, masks and queries: every replay equals an eager
     launch on the same buffers bit for bit and a float64 torch reference within the
     correctness tolerance; capture, replay and eager launches run under
     torch.cuda.set_sync_debug_mode("error") (a capture fails on any synchronisation of
     the library itself).
  3. torch.compile (aot_eager: the fake implementation traced) equals eager; opcheck.
  4. fp8 e4m3 KV pools: the graph checks of 2 over a pool quantized with a non-unit scale
     (max |value| / 448), as torch.float8_e4m3fn and as its uint8 bytes, in SGLang's form
     (bf16 k_extend beside the fp8 pool, as SGLang passes it; the adapter quantizes it with the
     pool's scale, as SGLang stores it), the native form over the block
     table and over the token table, and SGLang's own call through route_target_verify over
     a pool laid out as SGLang's MLATokenToKVPool holds it (uint8 storage viewed as
     float8_e4m3fn, k_scale == v_scale floats); the float64 reference reads the pool's values
     dequantized. Each also launches once with a wrong scale (x1.5), which must miss the
     tolerance: the check can fail.
  Also on every case: SGLang's own call (the Triton backend's arguments) through
  verifybench.sglang.route_target_verify, within the case's tolerance of the CPU reference.
  Exported fp8 cases (scenarios/correctness_fp8.yaml) run every check of 1 over their fp8
  k_buffer and scale.
  5. fp8 tensor math (a plan's math="fp8", over an fp8 pool): the cases exported with
     `--math fp8` (case.json's math, whose executors ran fp8 math and whose tolerance is the one
     derived for it, scenarios/README.md "fp8 math") run every check of 1 with an fp8-math
     plan (and the router's math="fp8"): bit for bit against the executors, within the derived
     tolerance of the exact CPU reference; and the same launch with bf16 math must differ from
     it (the math is applied). Graphs as in 2 over fp8 pools with fp8 math (SGLang's form, the
     native block table, SGLang's call through route_target_verify(math="fp8")): every replay
     equals an eager launch bit for bit and differs from bf16 math's eager launch.
Writes OUT_DIR/gpu_check.json and OUT_DIR/gpu_check.md and prints a PASS/FAIL table; exit 0
when every check passed.
"""
import contextlib
import json
import math
import os
import sys
import time
import traceback

import numpy as np
import torch

import verifybench
from verifybench import torch_ops
from verifybench.casefile import Case
from verifybench.peers import PEERS, availability
from verifybench.sglang import route_target_verify

DEVICE = torch.device("cuda", 0)
TOLERANCE = {"o_atol": 0.01, "o_rtol": 0.02, "lse_atol": 0.002, "lse_rtol": 0.0001}


# ---------------------------------------------------------------- inputs of the native form
def tree_mask_words(parents):
    """[B, T, ceil(T/64)] int64 ancestor bitmasks (bit j of node i: j is i or an ancestor)."""
    B, T = parents.shape
    words = (T + 63) // 64
    bits = np.zeros((B, T, words * 64), dtype=bool)
    requests = np.arange(B)
    for i in range(T):  # parents come first: a node's set is its parent's plus itself
        parent = parents[:, i]
        child = parent >= 0
        bits[requests[child], i] = bits[requests[child], parent[child]]
        bits[:, i, i] = True
    packed = np.zeros((B, T, words), dtype=np.uint64)
    for w in range(words):
        chunk = bits[:, :, w * 64:(w + 1) * 64].astype(np.uint64)
        packed[:, :, w] = (chunk << np.arange(64, dtype=np.uint64)).sum(axis=2, dtype=np.uint64)
    return packed.view(np.int64)


def token_table(block_table, kv_lens, page):
    """kv_indptr [B+1] and int64 kv_indices of every prefix and tree token, from the block table."""
    rows = [(block_table[b, np.arange(n) // page].astype(np.int64) * page + np.arange(n) % page)
            for b, n in enumerate(kv_lens)]
    indptr = np.concatenate([[0], np.cumsum([len(r) for r in rows])]).astype(np.int32)
    return indptr, np.concatenate(rows)


def bits_equal(expected, got):
    """Bit for bit (float32 arrays of bf16 or fp32 values), and where the first difference is."""
    a = np.ascontiguousarray(expected, dtype=np.float32).view(np.uint32).ravel()
    b = np.ascontiguousarray(got, dtype=np.float32).view(np.uint32).ravel()
    if a.shape != b.shape:
        return False, f"shape {expected.shape} vs {got.shape}"
    diff = np.flatnonzero(a != b)
    if diff.size == 0:
        return True, ""
    i = int(diff[0])
    return False, f"{diff.size} of {a.size} differ, first at {i}: {a.view(np.float32)[i]!r} vs {b.view(np.float32)[i]!r}"


def on_device(array, bf16=False):
    t = torch.from_numpy(np.array(array))  # a writable copy: the case's arrays are read-only views
    return (t.to(torch.bfloat16) if bf16 else t).to(DEVICE)


def host(t):
    return t.float().cpu().numpy()


# ---------------------------------------------------------------- 1. equality with production
class NeutralDLPack:
    """A torch tensor seen only through DLPack (as JAX or CuPy hand theirs over). An fp8 tensor
    goes as DLPack's float8_e4m3fn where this torch exports it, else as its bytes."""

    def __init__(self, t):
        self.t = t
        if t.dtype == torch.float8_e4m3fn:
            try:
                t.__dlpack__()
            except (BufferError, RuntimeError, TypeError):
                self.t = t.view(torch.uint8)

    def __dlpack__(self, stream=None):
        return self.t.__dlpack__(stream=stream)

    def __dlpack_device__(self):
        return self.t.__dlpack_device__()


class NeutralCAI:
    """A torch tensor seen only through __cuda_array_interface__ (bf16 as its 16-bit pattern)."""

    def __init__(self, t):
        if t.dtype == torch.float8_e4m3fn:  # the interface has no fp8 type: its bytes
            t = t.view(torch.uint8)
        typestr = {torch.bfloat16: "<u2", torch.float32: "<f4", torch.int32: "<i4", torch.int64: "<i8",
                   torch.uint8: "|u1", torch.bool: "|b1"}[t.dtype]
        self.__cuda_array_interface__ = {"shape": tuple(t.shape), "typestr": typestr, "data": (t.data_ptr(), False),
                                         "strides": tuple(s * t.element_size() for s in t.stride()), "version": 3}


def check_case(directory):
    case = Case(directory)
    inp, out = case.inputs, case.outputs
    B, T, H, page = case.batch, case.tree_size, case.heads, case.page_size
    result = {"case": case.name, "B": B, "T": T, "H": H, "page": page, "checks": {}}
    kv_lens = (inp["prefix_len"].astype(np.int64) + T).tolist()
    fp8 = case.kv_dtype == "fp8_e4m3"

    def plan_of(math):
        return torch_ops.plan_for(DEVICE, B, T, H, int(max(kv_lens)), page_size=page, kv_lens=kv_lens,
                                  kv_dtype=case.kv_dtype, math=math)

    plan_id, plan = plan_of(case.math)  # the math the exported executors ran
    result["plan"] = plan.description
    result["kv"] = (f"fp8 e4m3, scale {case.kv_scale:g}" if fp8 else "bf16") + \
        (", fp8 math" if case.math == "fp8" else "")
    kv_scale = case.kv_scale if fp8 else None
    q = on_device(inp["q_extend"], bf16=True)
    k_extend = on_device(inp["k_extend"], bf16=True)
    # An fp8 pool as SGLang hands it over (float8_e4m3fn); the native forms below take its bytes.
    k_buffer = on_device(inp["k_buffer"]).view(torch.float8_e4m3fn) if fp8 else on_device(inp["k_buffer"], bf16=True)
    kv_indices = inp["kv_indices"] if inp["kv_indices"].size else np.zeros(1, np.int64)  # P = 0 everywhere
    sg = dict(qo_indptr=on_device(inp["qo_indptr"]), kv_indptr=on_device(inp["kv_indptr"]),
              kv_indices=on_device(kv_indices), custom_mask=on_device(inp["custom_mask"]),
              mask_indptr=on_device(inp["mask_indptr"]))

    def checked(name, fn):
        """Runs one check; an exception fails that check only."""
        try:
            fn()
        except Exception as e:
            result["checks"][name] = {"ok": False, "detail": f"{type(e).__name__}: {e}"}

    def compare(name, executor, o, lse):
        if f"o_{executor}" not in out:
            result["checks"][name] = {"ok": False, "detail": f"the export has no o_{executor} (exported without a GPU?)"}
            return
        o_ok, o_why = bits_equal(out[f"o_{executor}"], host(o))
        l_ok, l_why = bits_equal(out[f"lse_{executor}"], host(lse))
        result["checks"][name] = {"ok": o_ok and l_ok, "against": executor,
                                  "detail": "; ".join(w for w in (o_why and "O: " + o_why, l_why and "LSE: " + l_why) if w)}

    def sglang_reference():
        """(o, lse, what) SGLang's form is held to: the export's CPU reference. Over an fp8 pool
        the adapter quantizes k_extend with the pool's scale as SGLang stores it; the export's
        k_extend holds the pool's tree rows (rounded to bf16 once), which quantize back to the
        pool's own bytes, so the reference over the pool applies as it is."""
        return out["o_reference"], out["lse_reference"], "the CPU reference"

    def sglang_form():
        o, lse = torch_ops.sglang_verify(q, k_extend, k_buffer, sg["qo_indptr"], sg["kv_indptr"], sg["kv_indices"],
                                         sg["custom_mask"], sg["mask_indptr"], case.sm_scale, plan_id,
                                         kv_scale=kv_scale)
        compare("torch op, SGLang form", "sglang-adapter", o, lse)
        tol = case.tolerance
        ref_o, ref_lse, against = sglang_reference()
        near = (check_tolerance(ref_o, host(o), case.o_atol, tol["o_rtol"]) and
                check_tolerance(ref_lse, host(lse), tol["lse_atol"], tol["lse_rtol"]))
        result["checks"]["torch op vs the CPU reference (tolerance)"] = {"ok": near, "detail": "" if near else against}
        # The framework-neutral entry points over the same buffers, on the current stream.
        stream = torch.cuda.current_stream().cuda_stream
        for wrap_name, wrap in (("DLPack", NeutralDLPack), ("__cuda_array_interface__", NeutralCAI)):
            def neutral():
                o2 = torch.full_like(o, float("nan"))
                lse2 = torch.full_like(lse, float("nan"))
                ws = torch.empty(plan.workspace_bytes, dtype=torch.uint8, device=DEVICE)
                verifybench.verify_sglang(plan, q_extend=wrap(q), k_extend=wrap(k_extend), k_buffer=wrap(k_buffer),
                                          **{k: wrap(v) for k, v in sg.items()}, o=wrap(o2), lse=wrap(lse2),
                                          sm_scale=case.sm_scale, kv_scale=kv_scale, workspace=wrap(ws),
                                          stream=stream)
                ok_o, why_o = bits_equal(host(o), host(o2))
                ok_l, why_l = bits_equal(host(lse), host(lse2))
                result["checks"][f"{wrap_name} arrays equal the torch op"] = {"ok": ok_o and ok_l,
                                                                            "detail": why_o + why_l}
            checked(f"{wrap_name} arrays equal the torch op", neutral)

    def fp8_math_is_applied():
        # The same launch with bf16 math must give other bits (the plan's math is read); the
        # fp8-math output's distance to the exact reference is the check above, with case.json's
        # tolerance (derived for fp8 math by the export: scenarios/README.md, "fp8 math").
        args = (q, k_extend, k_buffer, sg["qo_indptr"], sg["kv_indptr"], sg["kv_indices"], sg["custom_mask"],
                sg["mask_indptr"], case.sm_scale)
        fp8_o, fp8_lse = torch_ops.sglang_verify(*args, plan_id, kv_scale=kv_scale)
        bf16_o, bf16_lse = torch_ops.sglang_verify(*args, plan_of("bf16")[0], kv_scale=kv_scale)
        # Only finite outputs can tell the maths apart: a case whose every row is NaN (NaN in
        # every request's pool rows) gives NaN under both.
        finite = np.isfinite(host(bf16_o))
        if not finite.any():
            result["checks"][FP8_MATH_DIFFERS] = {"ok": True, "detail": "not applicable: every output is NaN "
                                                  "(poisoned) under both maths"}
            return
        same = bits_equal(host(bf16_o)[finite], host(fp8_o)[finite])[0] and \
            bits_equal(host(bf16_lse), host(fp8_lse))[0]
        result["checks"][FP8_MATH_DIFFERS] = {"ok": not same, "detail": "the fp8-math launch gave bf16 math's "
                                              "output bit for bit" if same else ""}

    checked("torch op, SGLang form", sglang_form)
    if case.math == "fp8":
        checked(FP8_MATH_DIFFERS, fp8_math_is_applied)
    tree_mask = on_device(tree_mask_words(inp["tree_parents"]))
    kv_pool = k_buffer.view(-1, 576)
    if fp8:
        kv_pool = kv_pool.view(torch.uint8)  # the native forms take the pool's bytes
    prefix_len = on_device(inp["prefix_len"])
    indptr, indices = token_table(inp["block_table"], kv_lens, page)

    def native_token():
        o, lse = torch_ops.native_verify(q, kv_pool, prefix_len, tree_mask, case.sm_scale, plan_id,
                                         kv_indptr=on_device(indptr), kv_indices=on_device(indices),
                                         kv_scale=kv_scale)
        compare("torch op, native form, token table", "production", o, lse)

    def native_block():
        o, lse = torch_ops.native_verify(q, kv_pool, prefix_len, tree_mask, case.sm_scale, plan_id,
                                         block_table=on_device(inp["block_table"]), kv_scale=kv_scale)
        compare("torch op, native form, block table", "production/block-table", o, lse)

    def drop_in():
        # SGLang's call as its Triton backend makes it (v_buffer a view of the K pool's latent
        # part, a bool mask), through the router, against the CPU reference.
        class Backend:
            max_context_len = int(max(kv_lens))

            # SGLang's current signature (k_scale, v_scale after max_len_extend).
            def extend_attention_fwd(self, q_extend, k_extend, v_extend, o_extend, k_buffer, v_buffer, qo_indptr,
                                     kv_indptr, kv_indices, custom_mask, is_causal, mask_indptr, max_len_extend,
                                     k_scale, v_scale, sm_scale=None, logit_cap=0.0, skip_prefix_custom_mask=True,
                                     sliding_window_size=-1, sinks=None, window_kv_offsets=None,
                                     xai_temperature_len=-1):
                raise AssertionError("a supported call went to the Triton stand-in")

        backend = Backend()
        fallbacks = route_target_verify(backend, math=case.math)
        o_extend = torch.full((B * T, H, 512), float("nan"), dtype=torch.bfloat16, device=DEVICE)
        backend.extend_attention_fwd(q, k_extend, on_device(inp["v_extend"], bf16=True), o_extend, k_buffer,
                                     k_buffer[..., :512], sg["qo_indptr"], sg["kv_indptr"], sg["kv_indices"],
                                     sg["custom_mask"].view(torch.bool), True, sg["mask_indptr"], T, case.kv_scale,
                                     case.kv_scale, case.sm_scale)
        ref_o, _, against = sglang_reference()
        near = check_tolerance(ref_o, host(o_extend), case.o_atol, case.tolerance["o_rtol"])
        result["checks"]["SGLang drop-in via route_target_verify (tolerance)"] = {
            "ok": near and not fallbacks,
            "detail": f"fallbacks {dict(fallbacks)}" if fallbacks else ("" if near else against)}

    checked("SGLang drop-in via route_target_verify (tolerance)", drop_in)
    checked("torch op, native form, token table", native_token)
    checked("torch op, native form, block table", native_block)
    return result


FP8_MATH_DIFFERS = "fp8 math differs from bf16 math"


def check_tolerance(expected, got, atol, rtol):
    """|got - expected| <= atol + rtol * |expected| where finite; `atol` is a number or one value
    per channel (the last axis)."""
    expected = np.asarray(expected, np.float64)
    got = np.asarray(got, np.float64).reshape(expected.shape)
    finite = np.isfinite(expected)
    if not np.array_equal(finite, np.isfinite(got)):
        return False
    atol = np.resize(np.asarray(atol, np.float64), expected.size).reshape(expected.shape)
    return bool(np.all(np.abs(got[finite] - expected[finite]) <= atol[finite] + rtol * np.abs(expected[finite])))


# ---------------------------------------------------------------- 2. CUDA graphs
@contextlib.contextmanager
def no_sync():
    torch.cuda.set_sync_debug_mode("error")
    try:
        yield
    finally:
        torch.cuda.set_sync_debug_mode("default")


def random_problem(rng, B, T, H, max_prefix, pool_rows, page):
    """One replay's inputs: new lengths, a shuffled page table, a random tree, new queries."""
    prefix = rng.integers(0, max_prefix + 1, size=B)
    prefix[rng.integers(0, B)] = max_prefix  # the longest the plan was made for
    parents = np.stack([np.array([-1] + [int(rng.integers(0, i)) for i in range(1, T)]) for _ in range(B)])
    kv_lens = prefix + T
    pages = (kv_lens + page - 1) // page
    pool_pages = pool_rows // page
    perm = rng.permutation(pool_pages)
    block_table = np.full((B, (max_prefix + T + page - 1) // page), pool_pages + 7, dtype=np.int32)  # out of range
    at = 0
    for b in range(B):
        block_table[b, :pages[b]] = perm[at:at + pages[b]]
        at += pages[b]
    q = rng.standard_normal((B * T, H, 576)).astype(np.float32)
    return dict(prefix=prefix.astype(np.int32), parents=parents.astype(np.int32), block_table=block_table, q=q)


def sglang_inputs(p, B, T, page, pool):
    """SGLang's form of a random problem (prefix rows from the table, tree rows dense)."""
    kv_lens = p["prefix"] + T
    indptr, indices = token_table(p["block_table"], kv_lens, page)
    prefix_rows = [indices[indptr[b]:indptr[b] + p["prefix"][b]] for b in range(B)]
    tree_rows = np.concatenate([indices[indptr[b] + p["prefix"][b]:indptr[b + 1]] for b in range(B)])
    kv_indptr = np.concatenate([[0], np.cumsum(p["prefix"])]).astype(np.int32)
    mask_bits = tree_mask_words(p["parents"]).view(np.uint64)
    masks, starts = [], [0]
    for b in range(B):
        P = p["prefix"][b]
        tree = ((mask_bits[b][:, np.arange(T) // 64] >> (np.arange(T) % 64).astype(np.uint64)) & 1).astype(np.uint8)
        masks.append(np.concatenate([np.ones((T, P), np.uint8), tree], axis=1).ravel())
        starts.append(starts[-1] + T * (P + T))
    return dict(kv_indptr=kv_indptr, kv_indices=np.concatenate(prefix_rows + [np.zeros(1, np.int64)]),
                custom_mask=np.concatenate(masks), mask_indptr=np.array(starts, np.int64),
                k_extend=pool[tree_rows], qo_indptr=np.arange(0, (B + 1) * T, T, dtype=np.int32))


def adapter_tree_rows(k_extend, scale):
    """The tree rows the SGLang adapter reads beside an fp8 pool: k_extend quantized as SGLang's
    set_kv_buffer stores it (x / scale in fp32, round to nearest even, saturated at +-448),
    dequantized (float64)."""
    codes = (k_extend.float() / scale).clamp(-448, 448).to(torch.float8_e4m3fn)
    return codes.float().double() * scale


def reference(q, pool, p, B, T, H, page, sm_scale, tree_keys=None):
    """float64 attention over the random problem (torch on the GPU). `pool`: the values the
    kernel should see (an fp8 pool dequantized); `tree_keys` [B*T, 576], when given: the tree
    rows the kernel reads beside the pool (SGLang's k_extend) instead of the pool's."""
    kv_lens = p["prefix"] + T
    _, indices = token_table(p["block_table"], kv_lens, page)
    bits = tree_mask_words(p["parents"]).view(np.uint64)
    o = torch.empty((B * T, H, 512), dtype=torch.float64, device=DEVICE)
    lse = torch.empty((B * T, H), dtype=torch.float64, device=DEVICE)
    start = 0
    for b in range(B):
        n = int(kv_lens[b])
        keys = pool[torch.from_numpy(indices[start:start + n]).to(DEVICE)].double()
        start += n
        P = n - T
        if tree_keys is not None:
            keys[P:] = tree_keys[b * T:(b + 1) * T].double()
        visible = np.ones((T, n), bool)
        visible[:, P:] = ((bits[b][:, np.arange(T) // 64] >> (np.arange(T) % 64).astype(np.uint64)) & 1).astype(bool)
        s = torch.einsum("thd,nd->thn", q[b * T:(b + 1) * T].double(), keys) * sm_scale
        s = s.masked_fill(~torch.from_numpy(visible).to(DEVICE)[:, None, :], -math.inf)
        lse[b * T:(b + 1) * T] = torch.logsumexp(s, dim=2)
        o[b * T:(b + 1) * T] = torch.einsum("thn,nd->thd", torch.softmax(s, dim=2), keys[:, :512])
    return o, lse


class Pool:
    """The KV pool of a graph check. bf16: the values rounded to bf16. fp8: the values divided
    by one scale (max |value| / 448, a calibration's choice; not a power of two) and rounded
    to e4m3, held as `storage` ("float8_e4m3fn", "uint8", or "sglang": SGLang's
    MLATokenToKVPool layout, a uint8 [rows, 1, 576] buffer viewed as float8_e4m3fn);
    `values` what the kernel must see (e4m3 x scale, float64), `scale` a float32's value."""

    def __init__(self, values, storage=None):
        v = torch.from_numpy(values).to(DEVICE)
        self.storage, self.fp8 = storage, storage is not None
        if not self.fp8:
            self.launched = v.to(torch.bfloat16)
            self.values, self.scale = self.launched.double(), None
            return
        self.scale = float(np.float32(np.abs(values).max() / 448.0))
        codes = (v / self.scale).clamp(-448, 448).to(torch.float8_e4m3fn)
        self.values = codes.float().double() * self.scale
        if storage == "sglang":
            buffer = torch.zeros((v.shape[0], 1, 576), dtype=torch.uint8, device=DEVICE)
            buffer.copy_(codes.view(torch.uint8).view(-1, 1, 576))
            self.buffer = buffer
            self.launched = buffer.view(torch.float8_e4m3fn)
        else:
            self.launched = codes if storage == "float8_e4m3fn" else codes.view(torch.uint8)

    def name(self):
        return f"fp8 e4m3 pool ({self.storage}, scale {self.scale:.6g})" if self.fp8 else "bf16 pool"


def check_graph(form, B=4, T=8, H=16, max_prefix=700, page=16, replays=3, seed=7, storage=None, math="bf16"):
    """Captures `form` ("sglang", "native block table", "native token table" or "sglang drop-in")
    once over a bf16 pool (storage None) or an fp8 one (Pool), replays with new inputs. math
    "fp8" (an fp8 pool's e4m3 tensor math): every replay equals an eager launch bit for bit and
    differs from bf16 math's eager launch on the same inputs (the plan's math reaches the
    graph); its accuracy is the exported fp8-math cases' check (case.json's derived tolerance),
    which this float64 comparison with the bf16 tolerance cannot be."""
    rng = np.random.default_rng(seed)
    pool_rows = (B * (max_prefix + T) // page + 8) * page
    pool_host = rng.standard_normal((pool_rows, 576)).astype(np.float32)
    pool = Pool(pool_host, storage)
    sm_scale = 0.1308608
    kv_dtype = "fp8_e4m3" if pool.fp8 else "bf16"
    sglang_form = form.startswith("sglang")
    fp8_math = math == "fp8"
    plans = {m: torch_ops.plan_for(DEVICE, B, T, H, max_prefix + T, page_size=1 if sglang_form else page,
                                   kv_dtype=kv_dtype, math=m) for m in {math, "bf16"}}
    plan_id, plan = plans[math]
    first = random_problem(rng, B, T, H, max_prefix, pool_rows, page)
    # Static buffers of the maximum sizes, filled before every replay.
    mask_capacity = B * T * (max_prefix + T)
    static = {
        "q": torch.zeros((B * T, H, 576), dtype=torch.bfloat16, device=DEVICE),
        "prefix_len": torch.zeros(B, dtype=torch.int32, device=DEVICE),
        "tree_mask": torch.zeros((B, T, (T + 63) // 64), dtype=torch.int64, device=DEVICE),
        "block_table": torch.zeros(first["block_table"].shape, dtype=torch.int32, device=DEVICE),
        "kv_indptr": torch.zeros(B + 1, dtype=torch.int32, device=DEVICE),
        "kv_indices": torch.zeros(B * (max_prefix + T) + 1, dtype=torch.int64, device=DEVICE),
        "custom_mask": torch.zeros(mask_capacity, dtype=torch.uint8, device=DEVICE),
        "mask_indptr": torch.zeros(B + 1, dtype=torch.int64, device=DEVICE),
        "qo_indptr": torch.zeros(B + 1, dtype=torch.int32, device=DEVICE),
        "k_extend": torch.zeros((B * T, 1, 576), dtype=torch.bfloat16, device=DEVICE),
        "o": torch.full((B * T, H, 512), float("nan"), dtype=torch.bfloat16, device=DEVICE),
        "lse": torch.full((B * T, H), float("nan"), dtype=torch.float32, device=DEVICE),
    }
    fallbacks, drop_ins = None, {}
    if form == "sglang drop-in":
        drop_ins = {m: sglang_backend(max_context_len=max_prefix + T, math=m) for m in {math, "bf16"}}
        fallbacks = drop_ins[math][1]

    def fill(p):
        static["q"].copy_(on_device(p["q"], bf16=True))
        if sglang_form:
            # k_extend: the tree rows as SGLang computed them, in bf16 (the values the fp8 pool
            # quantized; SGLang does not read them back from the pool).
            s = sglang_inputs(p, B, T, page, pool_host)
            for name in ("kv_indptr", "mask_indptr", "qo_indptr"):
                static[name].copy_(on_device(s[name]))
            static["kv_indices"][:len(s["kv_indices"])].copy_(on_device(s["kv_indices"]))
            static["custom_mask"].zero_()
            static["custom_mask"][:len(s["custom_mask"])].copy_(on_device(s["custom_mask"]))
            static["k_extend"].copy_(on_device(s["k_extend"].reshape(B * T, 1, 576), bf16=True))
        else:
            static["prefix_len"].copy_(on_device(p["prefix"]))
            static["tree_mask"].copy_(on_device(tree_mask_words(p["parents"])))
            static["block_table"].copy_(on_device(p["block_table"]))
            indptr, indices = token_table(p["block_table"], p["prefix"] + T, page)
            static["kv_indptr"].copy_(on_device(indptr))
            static["kv_indices"][:len(indices)].copy_(on_device(indices))
        torch.cuda.synchronize()

    def launch(o, lse, kv_scale=pool.scale, launch_math=math):
        """One launch of `form` into o, lse (the graph's math unless launch_math says)."""
        plan_id = plans[launch_math][0]
        if form == "sglang drop-in":
            k_buffer = pool.launched.view(-1, 1, 576)
            backend = drop_ins[launch_math][0]
            backend.extend_attention_fwd(static["q"], static["k_extend"], static["k_extend"][..., :512], o, k_buffer,
                                         k_buffer[..., :512], static["qo_indptr"], static["kv_indptr"],
                                         static["kv_indices"], static["custom_mask"].view(torch.bool), True,
                                         static["mask_indptr"], T, kv_scale or 1.0, kv_scale or 1.0, sm_scale)
        elif form == "sglang":
            torch.ops.verifybench.verify_sglang_(static["q"], static["k_extend"], pool.launched.view(-1, 1, 576),
                                                 static["qo_indptr"], static["kv_indptr"], static["kv_indices"],
                                                 static["custom_mask"], static["mask_indptr"], o, lse, sm_scale,
                                                 plan_id, kv_scale)
        elif form == "native block table":
            torch.ops.verifybench.verify_native_(static["q"], pool.launched, static["prefix_len"], None, None,
                                                 static["block_table"], None, static["tree_mask"], o, lse, sm_scale,
                                                 plan_id, kv_scale)
        else:
            torch.ops.verifybench.verify_native_(static["q"], pool.launched, static["prefix_len"],
                                                 static["kv_indptr"], static["kv_indices"], None, None,
                                                 static["tree_mask"], o, lse, sm_scale, plan_id, kv_scale)

    def near_reference(o, lse, p):
        tree_keys = static["k_extend"].view(B * T, 576) if sglang_form else None
        if tree_keys is not None and pool.fp8:
            tree_keys = adapter_tree_rows(tree_keys, pool.scale)
        ref_o, ref_lse = reference(static["q"], pool.values, p, B, T, H, page, sm_scale, tree_keys)
        near = check_tolerance(host(ref_o), host(o), TOLERANCE["o_atol"], TOLERANCE["o_rtol"])
        if form != "sglang drop-in":  # SGLang's call returns no LSE
            near = near and check_tolerance(host(ref_lse), host(lse), TOLERANCE["lse_atol"], TOLERANCE["lse_rtol"])
        return near

    fill(first)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up outside the capture, as torch.cuda.graph asks (the drop-in plans here)
        launch(static["o"], static["lse"])
    torch.cuda.current_stream().wait_stream(side)
    torch.cuda.synchronize()
    graph = torch.cuda.CUDAGraph()
    with no_sync():
        with torch.cuda.graph(graph):
            launch(static["o"], static["lse"])
    rows = []
    for r in range(replays):
        p = random_problem(rng, B, T, H, max_prefix, pool_rows, page)
        fill(p)
        static["o"].fill_(float("nan"))
        static["lse"].fill_(float("nan"))
        eager_o = torch.full_like(static["o"], float("nan"))
        eager_lse = torch.full_like(static["lse"], float("nan"))
        with no_sync():
            graph.replay()
            launch(eager_o, eager_lse)
        torch.cuda.synchronize()
        same_o, why_o = bits_equal(host(eager_o), host(static["o"]))
        same_l, why_l = (True, "") if form == "sglang drop-in" else bits_equal(host(eager_lse), host(static["lse"]))
        row = {"replay": r + 1, "prefix_len": p["prefix"].tolist(), "equals_eager": same_o and same_l,
               "detail": why_o + why_l}
        if fp8_math:
            bf16_o, bf16_lse = torch.full_like(static["o"], float("nan")), torch.full_like(static["lse"], float("nan"))
            launch(bf16_o, bf16_lse, launch_math="bf16")
            torch.cuda.synchronize()
            row["differs_from_bf16_math"] = not bits_equal(host(bf16_o), host(static["o"]))[0]
        else:
            row["within_tolerance_of_float64"] = near_reference(static["o"], static["lse"], p)
        rows.append(row)
    result = {"form": form, "pool": pool.name(), "math": math, "B": B, "T": T, "H": H, "max_prefix": max_prefix,
              "page": page, "plan": plan.description, "replays": rows}
    ok = all(replay_ok(r) for r in rows)
    if fallbacks:
        result["fallbacks"] = dict(fallbacks)
        ok = False
    if pool.fp8 and not fp8_math:
        # The same inputs with the scale off by half: must miss the tolerance (the scale is read,
        # and this check can fail).
        wrong_o = torch.full_like(static["o"], float("nan"))
        wrong_lse = torch.full_like(static["lse"], float("nan"))
        launch(wrong_o, wrong_lse, kv_scale=pool.scale * 1.5)
        torch.cuda.synchronize()
        result["wrong_scale_caught"] = not near_reference(wrong_o, wrong_lse, p)
        ok = ok and result["wrong_scale_caught"]
    result["ok"] = ok
    return result


def replay_ok(row):
    """A replay equals its eager launch, and is within the float64 reference's tolerance (bf16
    math) or differs from bf16 math's output (fp8 math)."""
    return row["equals_eager"] and row.get("within_tolerance_of_float64", True) and \
        row.get("differs_from_bf16_math", True)


def sglang_backend(max_context_len, math="bf16"):
    """A stand-in TritonAttnBackend whose extend_attention_fwd (SGLang's current signature) is
    routed by route_target_verify (with `math` for fp8 pools); a call that reaches the stand-in
    itself fails."""
    class Backend:
        def extend_attention_fwd(self, q_extend, k_extend, v_extend, o_extend, k_buffer, v_buffer, qo_indptr,
                                 kv_indptr, kv_indices, custom_mask, is_causal, mask_indptr, max_len_extend,
                                 k_scale, v_scale, sm_scale=None, logit_cap=0.0, skip_prefix_custom_mask=True,
                                 sliding_window_size=-1, sinks=None, window_kv_offsets=None, xai_temperature_len=-1):
            raise AssertionError("a supported call went to the Triton stand-in")

    backend = Backend()
    backend.max_context_len = max_context_len
    return backend, route_target_verify(backend, math=math)


DOCS_FP8_EXAMPLE = "<!-- fp8 example: run by tests/python/gpu_check.py -->"


DOCS_FP8_MATH_EXAMPLE = "<!-- fp8 math example: run by tests/python/gpu_check.py after the fp8 example -->"


def docs_block(text, marker):
    """The python block after `marker` in docs/python.md."""
    return text.split(marker, 1)[1].split("```python\n", 1)[1].split("```", 1)[0]


def check_docs_fp8_example():
    """docs/python.md's fp8 example run as written (the carry keeps the checkout's layout),
    against the float64 reference over its pool dequantized; then its fp8 math example over
    the same inputs, which must plan fp8 math and give other bits than bf16 math."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "python.md")
    with open(path) as f:
        text = f.read()
    env = {}
    exec(compile(docs_block(text, DOCS_FP8_EXAMPLE), path, "exec"), env)  # noqa: S102 - the project's own example
    B, T, H, P = env["B"], env["T"], env["H"], env["P"]
    pool = env["pool"].float().double() * float(np.float32(env["kv_scale"]))  # the kernel gets a float32
    p = {"prefix": np.full(B, P), "parents": np.tile(np.arange(-1, T - 1), (B, 1)),
         "block_table": np.arange(B * (P + T), dtype=np.int32).reshape(B, P + T)}  # page 1: row = token
    ref_o, ref_lse = reference(env["q"], pool, p, B, T, H, 1, 576 ** -0.5)
    near_o = check_tolerance(host(ref_o), host(env["o"]), TOLERANCE["o_atol"], TOLERANCE["o_rtol"])
    near_lse = check_tolerance(host(ref_lse), host(env["lse"]), TOLERANCE["lse_atol"], TOLERANCE["lse_rtol"])
    bf16_math = {"plan": env["plan"].description, "o": host(env["o"])}
    exec(compile(docs_block(text, DOCS_FP8_MATH_EXAMPLE), path, "exec"), env)  # noqa: S102
    fp8_math_planned = "math=fp8" in env["plan"].description
    fp8_math_differs = not bits_equal(bf16_math["o"], host(env["o"]))[0]
    ok = near_o and near_lse and fp8_math_planned and fp8_math_differs
    return {"ok": ok, "plan": bf16_math["plan"], "fp8_math_plan": env["plan"].description,
            "detail": "" if ok else f"O within tolerance {near_o}, LSE {near_lse}; fp8 math example: planned "
                                    f"{fp8_math_planned}, differs from bf16 math {fp8_math_differs}"}


# ---------------------------------------------------------------- 3. torch.compile
def check_compile():
    rng = np.random.default_rng(3)
    B, T, H, max_prefix, page = 2, 4, 16, 300, 1
    pool_rows = B * (max_prefix + T) + 8
    pool_host = rng.standard_normal((pool_rows, 576)).astype(np.float32)
    pool = on_device(pool_host, bf16=True).view(-1, 1, 576)
    p = random_problem(rng, B, T, H, max_prefix, pool_rows, page)
    s = {k: on_device(v, bf16=k == "k_extend") for k, v in sglang_inputs(p, B, T, page, pool_host).items()}
    s["k_extend"] = s["k_extend"].view(B * T, 1, 576)
    q = on_device(p["q"], bf16=True)
    plan_id, _ = torch_ops.plan_for(DEVICE, B, T, H, max_prefix + T)
    args = (q, s["k_extend"], pool, s["qo_indptr"], s["kv_indptr"], s["kv_indices"], s["custom_mask"],
            s["mask_indptr"])

    def f(*a):
        o, lse = torch_ops.sglang_verify(*a, 0.1308608, plan_id)
        return o.float().sum(dim=-1), lse

    eager = f(*args)
    compiled = torch.compile(f, backend="aot_eager", fullgraph=True)(*args)
    same = all(bits_equal(host(a), host(b))[0] for a, b in zip(eager, compiled))
    result = {"aot_eager equals eager": same}
    try:
        o = torch.empty((B * T, H, 512), dtype=torch.bfloat16, device=DEVICE)
        lse = torch.empty((B * T, H), dtype=torch.float32, device=DEVICE)
        torch.library.opcheck(torch.ops.verifybench.verify_sglang_.default, args + (o, lse, 0.1308608, plan_id),
                              test_utils=("test_schema", "test_faketensor"))
        result["opcheck (schema, fake tensor)"] = True
    except Exception as e:
        result["opcheck (schema, fake tensor)"] = f"{type(e).__name__}: {e}"
    return result


def guarded(name, fn, *args, **kwargs):
    t0 = time.time()
    try:
        value = fn(*args, **kwargs)
    except Exception as e:
        value = {"ok": False, "error": f"{type(e).__name__}: {e}", "traceback": traceback.format_exc()[-2000:]}
    print(f"gpu_check: {name}: {time.time() - t0:.1f} s", flush=True)
    return value


def main(case_roots, out_dir):
    os.makedirs(out_dir, exist_ok=True)
    report = {"torch": torch.__version__, "device": torch.cuda.get_device_name(DEVICE),
              "python": sys.version.split()[0], "library": verifybench.library_version(),
              "peer_packages": {p.executor: (availability(p)[1] or "importable") for p in PEERS}}
    case_dirs = [os.path.join(root, d) for root in case_roots for d in sorted(os.listdir(root))
                 if os.path.exists(os.path.join(root, d, "case.json"))]
    # The report is rewritten after each part, so a time limit still leaves what was done; the
    # graph and compile checks (seconds) come before the exported cases (one per case).
    report["docs_example"] = guarded("docs/python.md fp8 examples", check_docs_fp8_example)
    report["graphs"] = [guarded(f"graph {form}, {storage or 'bf16'} pool, {math} math", check_graph, form,
                                storage=storage, math=math)
                        for form, storage, math in GRAPH_CHECKS]
    write(report, out_dir)
    report["compile"] = guarded("compile", check_compile)
    write(report, out_dir)
    report["cases"] = []
    for d in case_dirs:
        report["cases"].append(guarded(os.path.basename(d), check_case, d))
    report["cases_finished"] = True
    report["failures"] = failures_of(report)
    write(report, out_dir)
    print(markdown(report))
    print(pass_fail_table(report))
    return 0 if not report["failures"] else 1


# (form, fp8 storage or None for a bf16 pool, math): the graph checks of parts 2, 4 and 5.
GRAPH_CHECKS = (("sglang", None, "bf16"), ("native block table", None, "bf16"),
                ("sglang", "float8_e4m3fn", "bf16"), ("native block table", "float8_e4m3fn", "bf16"),
                ("native token table", "uint8", "bf16"), ("sglang drop-in", "sglang", "bf16"),
                ("sglang", "float8_e4m3fn", "fp8"), ("native block table", "uint8", "fp8"),
                ("sglang drop-in", "sglang", "fp8"))


def pass_fail_rows(report):
    """(check, PASS / FAIL, detail) of every part: the docs example, graphs, compile, each
    exported case."""
    rows = []
    if "docs_example" in report:
        d = report["docs_example"]
        rows.append(("docs/python.md fp8 and fp8 math examples", "PASS" if d.get("ok") else "FAIL",
                     d.get("error") or d.get("detail") or d.get("plan", "")))
    for g in report.get("graphs", []):
        if "error" in g:
            rows.append(("graph", "FAIL", g["error"]))
            continue
        bad = [f"replay {r['replay']}: " + ("differs from eager " + r["detail"] if not r["equals_eager"]
                                            else "outside the float64 reference's tolerance"
                                            if not r.get("within_tolerance_of_float64", True)
                                            else "equals bf16 math's output (the math is not applied)")
               for r in g["replays"] if not replay_ok(r)]
        if g.get("fallbacks"):
            bad.append(f"fell back to Triton: {g['fallbacks']}")
        if g.get("wrong_scale_caught") is False:
            bad.append("a launch with the wrong scale passed the reference check")
        extra = "; a wrong scale is caught" if g.get("wrong_scale_caught") else ""
        against = "differ from bf16 math" if g.get("math") == "fp8" else "the float64 reference"
        rows.append((f"graph {g['form']}, {g['pool']}, {g.get('math', 'bf16')} math", "PASS" if g["ok"] else "FAIL",
                     "; ".join(bad) or f"{len(g['replays'])} replays equal eager and {against}{extra}"))
    for k, v in report.get("compile", {}).items():
        rows.append((f"compile: {k}", "PASS" if v is True else "FAIL", "" if v is True else str(v)))
    for c in report.get("cases", []):
        if "error" in c:
            rows.append((f"case {c.get('case', '?')}", "FAIL", c["error"]))
            continue
        bad = [n for n, v in c["checks"].items() if not v["ok"]]
        rows.append((f"case {c['case']} ({c.get('kv', 'bf16')})", "FAIL" if bad else "PASS",
                     "failed: " + "; ".join(bad) if bad else f"{len(c['checks'])} checks"))
    if not report.get("cases_finished"):
        rows.append(("exported cases", "FAIL", "not finished: the run stopped before every case was checked"))
    return rows


def pass_fail_table(report):
    rows = pass_fail_rows(report)
    failed = sum(r[1] == "FAIL" for r in rows)
    lines = ["| check | result | detail |", "| --- | --- | --- |"] + [f"| {c} | {r} | {d} |" for c, r, d in rows]
    return "\n".join(lines + ["", f"gpu_check: {len(rows) - failed} PASS, {failed} FAIL"])


def failures_of(report):
    failures = []
    for c in report.get("cases", []):
        if "error" in c:
            failures.append(f"{c.get('case', '?')}: {c['error']}")
            continue
        failures += [f"{c['case']}: {n}: {v['detail']}" for n, v in c["checks"].items() if not v["ok"]]
    failures += [f"graph {g.get('form', '?')}, {g.get('pool', '?')}: {g.get('error', 'see the replays')}"
                 for g in report.get("graphs", []) if not g.get("ok")]
    failures += [f"compile: {k}: {v}" for k, v in report.get("compile", {}).items() if v is not True]
    if "docs_example" in report and not report["docs_example"].get("ok"):
        d = report["docs_example"]
        failures.append(f"docs/python.md fp8 examples: {d.get('error') or d.get('detail')}")
    if not report.get("cases_finished"):
        failures.append("not finished: the run stopped before every exported case was checked")
    return failures


def write(report, out_dir):
    report = dict(report, failures=failures_of(report))
    with open(os.path.join(out_dir, "gpu_check.json"), "w") as f:
        json.dump(report, f, indent=1)
    with open(os.path.join(out_dir, "gpu_check.md"), "w") as f:
        f.write(markdown(report))

def markdown(report):
    lines = [f"# python/verifybench on {report['device']}", "",
             f"torch {report['torch']}, Python {report['python']}, {report['library']}", "",
             "## Peer packages", ""]
    lines += [f"- {name}: {state}" for name, state in report["peer_packages"].items()]
    lines += ["", "## The torch op against the C++ production executors (bit for bit)", "",
              "| case | B | T | H | page | plan | SGLang form = sglang-adapter | native token = production | "
              "native block = production/block-table | DLPack | CAI | reference tolerance | SGLang drop-in | "
              "fp8 math != bf16 math |",
              "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    keys = ["torch op, SGLang form", "torch op, native form, token table", "torch op, native form, block table",
            "DLPack arrays equal the torch op", "__cuda_array_interface__ arrays equal the torch op",
            "torch op vs the CPU reference (tolerance)", "SGLang drop-in via route_target_verify (tolerance)",
            FP8_MATH_DIFFERS]
    for c in report.get("cases", []):
        if "error" in c:
            lines.append(f"| {c.get('case', '?')} | error: {c['error']} |")
            continue
        marks = ["-" if k == FP8_MATH_DIFFERS and "fp8 math" not in c.get("kv", "") else
                 "yes" if c["checks"].get(k, {}).get("ok") else "**NO**" for k in keys]
        lines.append(f"| {c['case']} ({c.get('kv', 'bf16')}) | {c['B']} | {c['T']} | {c['H']} | {c['page']} | {c['plan']} | " +
                     " | ".join(marks) + " |")
    lines += ["", "## CUDA graphs: captured once, replayed with new lengths, page tables, masks", ""]
    for g in report.get("graphs", []):
        if "error" in g:
            lines.append(f"- error: {g['error']}")
            continue
        lines.append(f"- {g['form']}, {g['pool']}, {g.get('math', 'bf16')} math (B {g['B']}, T {g['T']}, H {g['H']}, "
                     f"prefixes up to {g['max_prefix']}, page {g['page']}; {g['plan']}):")
        for r in g["replays"]:
            second = ("within tolerance of float64", "within_tolerance_of_float64") \
                if "within_tolerance_of_float64" in r else ("differs from bf16 math", "differs_from_bf16_math")
            lines.append(f"  - replay {r['replay']}, prefixes {r['prefix_len']}: equals eager "
                         f"{'yes' if r['equals_eager'] else '**NO**'}, {second[0]} "
                         f"{'yes' if r[second[1]] else '**NO**'}")
        if "wrong_scale_caught" in g:
            lines.append(f"  - a launch with the scale x1.5 misses the tolerance: "
                         f"{'yes' if g['wrong_scale_caught'] else '**NO**'}")
        if g.get("fallbacks"):
            lines.append(f"  - **fell back to Triton**: {g['fallbacks']}")
    lines += ["", "Capture, replays and eager launches ran under torch.cuda.set_sync_debug_mode(\"error\").", "",
              "## torch.compile", ""]
    lines += [f"- {k}: {v}" for k, v in report.get("compile", {}).items()]
    lines += ["", "## PASS / FAIL", "", pass_fail_table(report)]
    lines += ["", f"## Result: {len(report['failures'])} failures", ""] + [f"- {f}" for f in report["failures"]]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1:-1], sys.argv[-1]))

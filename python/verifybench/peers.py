"""python -m verifybench.peers CASE_DIR...: the kernels the production kernel competes with,
run on cases written by `verifybench export`, checked against the exported CPU reference
and timed by the harness's own timer (libverifybench_timing.so: the same cold-L2 flush, hold
kernel, warm-up, stop rule and statistics as `verifybench run --time`).

Peers, each run where its package imports:
  peer/sglang-triton  sglang: the Triton extend-attention kernel SGLang's Triton backend runs
                      for target verify (flat custom mask, token table); every case, an fp8
                      one over the float8_e4m3fn k_buffer with k_scale / v_scale. No LSE.
  peer/flashmla       flash_mla: dense MLA decode with a causal mask; chain trees on page-64
                      block tables of a bf16 pool only (its only page size; a causal mask is a
                      chain).
  peer/flashinfer     flashinfer: BatchMLAPagedAttentionWrapper, causal only: chain trees over
                      a bf16 pool.
  python/verifybench  this package's torch op (the SGLang form) through Python.
Absent packages and unsupported cases are reported with the reason ("not run", "not
supported"). The result file holds one ExecutorResult per case and peer in result.json's
form; `verifybench run FILE --peers PEERS.json` puts them into summary.md, the CSV, the plot
and result.json beside production.

Exit codes: 0 every peer that ran passed, 1 one was incorrect, 2 bad input (a case folder
that is not an export or whose case.json lacks a field, --out in a missing folder or not a
regular file, an option out of range; all checked before any peer runs), 3 a peer failed to
launch or time, the result file could not be written, or NumPy is not installed."""
import argparse
import ctypes
import importlib
import inspect
import json
import math
import os
import sys
import textwrap
import time

EXIT_OK, EXIT_INCORRECT, EXIT_BAD_INPUT, EXIT_RUNTIME = 0, 1, 2, 3

try:
    import numpy as np
except ModuleNotFoundError:
    if __name__ != "__main__":
        raise
    print("verifybench.peers: error: NumPy is not installed; the peers runner reads exported cases "
          "into NumPy arrays (Debian: apt-get install python3-numpy; pip: pip install numpy)", file=sys.stderr)
    sys.exit(EXIT_RUNTIME)

from ._files import destination_error, write_file_whole
from .casefile import Case, fp8_e4m3_values
BF16_INPUTS = ("q_extend", "k_extend", "v_extend", "k_buffer")
POOL_INPUTS = ("k_buffer", "v_buffer")


# ---------------------------------------------------------------- array backends
class NumpyBackend:
    """Host arrays, for stand-in peers (tests without a GPU): bf16 is float32 here."""
    name = "numpy"

    def array(self, a, bf16=False):
        return np.array(a, dtype=np.float32 if bf16 else a.dtype)

    def fp8_array(self, codes):
        """e4m3 codes as their (unscaled) values: what a float8_e4m3fn tensor holds."""
        return fp8_e4m3_values(codes)

    def empty(self, shape, bf16):
        return np.full(shape, np.nan, dtype=np.float32)

    def contiguous(self, x):
        return np.ascontiguousarray(x)

    def as_bool(self, x):
        return x.astype(bool)

    def host(self, x):
        return np.asarray(x, dtype=np.float32)

    def synchronize(self):
        pass


class TorchBackend:
    """CUDA tensors through torch (bf16 inputs exact: the exported values are bf16)."""
    name = "torch"

    def __init__(self):
        import torch
        self.torch = torch
        self.device = torch.device("cuda", torch.cuda.current_device())

    def array(self, a, bf16=False):
        t = self.torch.from_numpy(np.array(a))  # a writable copy: the case's arrays are read-only views
        if bf16:
            t = t.to(self.torch.bfloat16)
        return t.to(self.device)

    def fp8_array(self, codes):
        """e4m3 codes as a torch.float8_e4m3fn tensor (SGLang's view of its uint8 pool)."""
        return self.torch.from_numpy(np.array(codes)).to(self.device).view(self.torch.float8_e4m3fn)

    def empty(self, shape, bf16):
        dtype = self.torch.bfloat16 if bf16 else self.torch.float32
        return self.torch.full(shape, float("nan"), dtype=dtype, device=self.device)

    def contiguous(self, x):
        return x.contiguous()

    def as_bool(self, x):
        return x.view(self.torch.bool)

    def host(self, x):
        return x.float().cpu().numpy()

    def synchronize(self):
        self.torch.cuda.synchronize()


class DeviceCase:
    """A case's inputs on the backend, converted once per case."""

    def __init__(self, case, backend):
        self.case, self.backend, self._arrays = case, backend, {}

    def __getitem__(self, name):
        if name not in self._arrays:
            values = self.case.inputs[name]
            if name in POOL_INPUTS and self.case.kv_dtype == "fp8_e4m3":
                self._arrays[name] = self.backend.fp8_array(values)
            else:
                self._arrays[name] = self.backend.array(values, bf16=name in BF16_INPUTS)
        return self._arrays[name]


# ---------------------------------------------------------------- peers
class Peer:
    executor = ""
    package = ""
    module = ""

    def supports(self, case):
        """None, or why this peer cannot compute `case` (one line)."""
        return None

    def prepare(self, lib, dev):
        """Returns (launch, outputs): launch() enqueues one run on the current stream;
        outputs() gives (o [B*T, H, 512], lse [B*T, H] or None) as backend arrays."""
        raise NotImplementedError


def _bind_by_name(fn, values):
    """Keyword arguments `fn` takes out of `values` (versions differ in which they have)."""
    parameters = inspect.signature(fn).parameters
    missing = [n for n, p in parameters.items() if p.default is inspect.Parameter.empty and n not in values]
    if missing:
        raise TypeError(f"{fn.__module__}.{fn.__name__} needs {', '.join(missing)}, which this runner cannot give")
    return {n: v for n, v in values.items() if n in parameters}


class SglangTriton(Peer):
    executor, package = "peer/sglang-triton", "sglang"
    module = "sglang.srt.layers.attention.triton_ops.extend_attention"

    def prepare(self, lib, dev):
        case, backend = dev.case, dev.backend
        rows = case.batch * case.tree_size
        o = backend.empty((rows, case.heads, 512), bf16=True)
        k_buffer = dev["k_buffer"]
        # SGLang's backend passes its layer's scales as floats (1.0 for a bf16 pool).
        values = dict(q_extend=dev["q_extend"], k_extend=dev["k_extend"], v_extend=dev["v_extend"], o_extend=o,
                      k_buffer=k_buffer, v_buffer=k_buffer[..., :512], qo_indptr=dev["qo_indptr"],
                      kv_indptr=dev["kv_indptr"], kv_indices=dev["kv_indices"],
                      custom_mask=backend.as_bool(dev["custom_mask"]), is_causal=True,
                      mask_indptr=dev["mask_indptr"], max_len_extend=case.tree_size, k_scale=case.kv_scale,
                      v_scale=case.kv_scale, sm_scale=case.sm_scale)
        if case.kv_dtype != "bf16" and "k_scale" not in inspect.signature(lib.extend_attention_fwd).parameters:
            raise TypeError(f"{lib.__name__}.extend_attention_fwd takes no k_scale: this SGLang cannot read a "
                            f"scaled {case.kv_dtype} pool")
        kwargs = _bind_by_name(lib.extend_attention_fwd, values)
        return (lambda: lib.extend_attention_fwd(**kwargs)), (lambda: (o, None))


def _causal_bf16_only(case):
    if case.kv_dtype != "bf16":
        return f"bf16 KV only (this case: {case.kv_dtype} KV)"
    if not case.is_chain():
        return f"causal masks only: chain trees (this case: a {case.tree_kind} tree)"
    return None


class FlashMla(Peer):
    executor, package, module = "peer/flashmla", "flash_mla", "flash_mla"

    def supports(self, case):
        if case.page_size != 64:
            return f"page size 64 only (this case: {case.page_size})"
        return _causal_bf16_only(case)

    def prepare(self, lib, dev):
        case, backend = dev.case, dev.backend
        B, T, H = case.batch, case.tree_size, case.heads
        seqlens = backend.array(case.inputs["prefix_len"] + T)
        # Scheduling metadata ahead of the timed launches, as a serving step computes it once.
        metadata, splits = lib.get_mla_metadata(seqlens, T * H, 1)
        q = dev["q_extend"].reshape(B, T, H, 576)
        cache = dev["k_buffer"].reshape(-1, 64, 1, 576)
        table = dev["block_table"]
        result = {}

        def launch():
            result["o"], result["lse"] = lib.flash_mla_with_kvcache(q, cache, table, seqlens, 512, metadata, splits,
                                                                    softmax_scale=case.sm_scale, causal=True)

        def outputs():  # out [B, T, H, 512]; lse [B, H, T]
            return result["o"].reshape(B * T, H, 512), backend.contiguous(result["lse"].transpose(1, 2)).reshape(B * T, H)

        return launch, outputs


class FlashInfer(Peer):
    executor, package, module = "peer/flashinfer", "flashinfer", "flashinfer.mla"

    def supports(self, case):
        return _causal_bf16_only(case)

    def prepare(self, lib, dev):
        case, backend = dev.case, dev.backend
        B, T, H, page = case.batch, case.tree_size, case.heads, case.page_size
        kv_lens = case.inputs["prefix_len"].astype(np.int64) + T
        pages = (kv_lens + page - 1) // page
        table = case.inputs["block_table"]
        page_ids = np.concatenate([table[b, :pages[b]] for b in range(B)]).astype(np.int32)
        page_indptr = np.concatenate([[0], np.cumsum(pages)]).astype(np.int32)
        qo_indptr = np.arange(0, (B + 1) * T, T, dtype=np.int32)
        pool = dev["k_buffer"].reshape(-1, page, 576)
        ckv, kpe = backend.contiguous(pool[..., :512]), backend.contiguous(pool[..., 512:])
        q = dev["q_extend"]
        q_nope, q_pe = backend.contiguous(q[..., :512]), backend.contiguous(q[..., 512:])
        workspace = backend.empty((128 << 20,), bf16=False)
        wrapper = lib.BatchMLAPagedAttentionWrapper(workspace.view(backend.torch.uint8) if backend.name == "torch"
                                                    else workspace)
        wrapper.plan(backend.array(qo_indptr), backend.array(page_indptr), backend.array(page_ids),
                     backend.array(kv_lens.astype(np.int32)), H, 512, 64, page, True, case.sm_scale, q.dtype, q.dtype)
        result = {}

        def launch():
            result["o"], result["lse"] = wrapper.run(q_nope, q_pe, ckv, kpe, return_lse=True)

        def outputs():  # FlashInfer's lse is base 2
            return result["o"], result["lse"] * math.log(2.0)

        return launch, outputs


class VerifybenchOp(Peer):
    executor, package, module = "peer/verifybench-torch-op", "verifybench.torch_ops", "verifybench.torch_ops"

    def prepare(self, lib, dev):
        case, backend = dev.case, dev.backend
        if backend.name != "torch":
            raise TypeError("the verifybench torch op runs on CUDA tensors only")
        kv_lens = case.inputs["prefix_len"].astype(np.int64) + case.tree_size
        plan_id, _ = lib.plan_for(backend.device, case.batch, case.tree_size, case.heads, int(kv_lens.max()),
                                  page_size=case.page_size, kv_lens=[int(x) for x in kv_lens], kv_dtype=case.kv_dtype,
                                  math=case.math)
        args = [dev[n] for n in ("q_extend", "k_extend", "k_buffer", "qo_indptr", "kv_indptr", "kv_indices",
                                 "custom_mask", "mask_indptr")]
        rows = case.batch * case.tree_size
        o = backend.empty((rows, case.heads, 512), bf16=True)
        lse = backend.empty((rows, case.heads), bf16=False)
        op = backend.torch.ops.verifybench.verify_sglang_
        return (lambda: op(*args, o, lse, case.sm_scale, plan_id, case.kv_scale)), (lambda: (o, lse))


PEERS = (SglangTriton(), FlashMla(), FlashInfer(), VerifybenchOp())


def availability(peer):
    """(module or None, reason): the peer's module when its package imports."""
    try:
        return importlib.import_module(peer.module), ""
    except Exception as e:  # an installed package can fail to import for many reasons
        return None, f"package {peer.package} not importable ({type(e).__name__}: {e})"


# ---------------------------------------------------------------- checking
def error_stats(expected, got, atol, rtol, heads, tree_size, channels):
    """result.json's error statistics of `got` against `expected` (harness/record/result.cpp):
    NaN/Inf positions first, then |got - expected| <= atol + rtol * |expected|; `atol` is a
    number or one value per channel."""
    expected = np.asarray(expected, dtype=np.float64).ravel()
    got = np.asarray(got, dtype=np.float64).ravel()
    atol = np.resize(np.asarray(atol, dtype=np.float64), expected.size)
    finite = np.isfinite(expected) & np.isfinite(got)
    same_nonfinite = (np.isnan(expected) & np.isnan(got)) | (
        np.isinf(expected) & np.isinf(got) & (np.signbit(expected) == np.signbit(got)))
    mismatch = ~finite & ~same_nonfinite
    err = np.where(finite, np.abs(got - expected), 0.0)
    tol = atol + rtol * np.abs(np.where(finite, expected, 0.0))
    failed = finite & ~(err <= tol)
    excess = np.where(finite, err - tol, -np.inf)
    excess[mismatch] = np.inf
    excess[~finite & ~mismatch] = -np.inf
    rel = np.where(finite, err / np.maximum(np.abs(np.where(finite, expected, 0.0)), 1e-6), 0.0)
    stats = {"elements_checked": int(expected.size), "elements_failed": int(failed.sum()),
             "nonfinite_mismatch": int(mismatch.sum()), "max_abs_error": float(err.max(initial=0.0)),
             "max_rel_error": float(rel.max(initial=0.0)),
             "mean_abs_error": float(err[finite].mean()) if finite.any() else 0.0,
             "worst": {"request": -1, "node": -1, "head": -1, "channel": -1}, "worst_expected": 0.0,
             "worst_got": 0.0}
    if expected.size and np.isfinite(excess).any() or mismatch.any():
        i = int(np.argmax(excess))
        row, channel = (i // channels, i % channels) if channels > 1 else (i, -1)
        stats["worst"] = {"request": row // heads // tree_size, "node": row // heads % tree_size,
                          "head": row % heads, "channel": channel}
        stats["worst_expected"], stats["worst_got"] = float(expected[i]), float(got[i])
    return stats


def check(case, o, lse):
    """(outcome, detail, o stats, lse stats) of a peer's outputs against the reference."""
    tol, ref = case.tolerance, case.outputs
    H, T = case.heads, case.tree_size
    o_stats = error_stats(ref["o_reference"], o, case.o_atol, tol["o_rtol"], H, T, 512)
    lse_stats = None
    if lse is not None:
        lse_stats = error_stats(ref["lse_reference"], lse, tol["lse_atol"], tol["lse_rtol"], H, T, 1)
    bad = o_stats["elements_failed"] + o_stats["nonfinite_mismatch"]
    if lse_stats:
        bad += lse_stats["elements_failed"] + lse_stats["nonfinite_mismatch"]
    what = "O and LSE" if lse_stats else "O (the peer returns no LSE)"
    detail = (f"{what} against the CPU reference, max |err| {o_stats['max_abs_error']:.3g}"
              + (f", LSE {lse_stats['max_abs_error']:.3g}" if lse_stats else ""))
    return ("incorrect" if bad else "passed"), detail, o_stats, lse_stats


# ---------------------------------------------------------------- timing
class Timer:
    """libverifybench_timing.so's vbtiming_measure over a Python launch."""

    def __init__(self, path=None):
        path = path or os.environ.get("VERIFYBENCH_TIMING_LIBRARY") or self._default_path()
        self.lib = ctypes.CDLL(path)
        self.callback_type = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p)
        self.lib.vbtiming_measure.argtypes = [ctypes.c_char_p, ctypes.c_double, ctypes.c_int, ctypes.c_int,
                                              ctypes.c_double, ctypes.c_int, ctypes.c_char_p, self.callback_type,
                                              ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]
        self.lib.vbtiming_measure.restype = ctypes.c_int
        self.lib.vbtiming_free.argtypes = [ctypes.c_void_p]
        self.lib.vbtiming_last_error.restype = ctypes.c_char_p

    @staticmethod
    def _default_path():
        from . import _abi
        ops = os.environ.get(_abi.LIBRARY_ENV)
        for base in ([os.path.dirname(ops)] if ops else []) + [os.path.dirname(p) for p in _abi.candidate_paths()]:
            candidate = os.path.join(base, "libverifybench_timing.so")
            if os.path.exists(candidate):
                return candidate
        return "libverifybench_timing.so"

    def measure(self, launch_on_stream, options):
        """Timing records (result.json's form) of launch_on_stream(stream_handle)."""
        failure = []

        def callback(stream, overlap, context):
            try:
                launch_on_stream(stream or 0)
                return 0
            except Exception as e:  # reported after the measurement, with the records
                failure.append(f"{type(e).__name__}: {e}")
                return 1  # cudaErrorInvalidValue: ends the measurement
        c_callback = self.callback_type(callback)
        out = ctypes.c_void_p()
        status = self.lib.vbtiming_measure(options.modes.encode(), options.noise, options.min_samples,
                                           options.max_samples, options.budget_s, 3, options.l2_flush.encode(),
                                           c_callback, None, ctypes.byref(out))
        if status != 0:
            raise RuntimeError(self.lib.vbtiming_last_error().decode())
        records = json.loads(ctypes.string_at(out.value).decode())
        self.lib.vbtiming_free(out)
        if failure:
            for r in records:
                r["stop_reason"] = f"error: launch raised {failure[0]}"
        return records


def torch_stream_launcher(launch):
    """launch() on the timer's stream, made torch's current stream for the call."""
    import torch
    streams = {}

    def on_stream(handle):
        stream = streams.get(handle)
        if stream is None:
            stream = streams[handle] = torch.cuda.ExternalStream(handle)
        with torch.cuda.stream(stream):
            launch()
    return on_stream


def host_launch_us(launch, backend, count=5):
    """Median host time of one eager launch (what a cold-L2 sample's flush must cover)."""
    times = []
    for _ in range(count):
        t0 = time.perf_counter()
        launch()
        times.append((time.perf_counter() - t0) * 1e6)
        backend.synchronize()
    return sorted(times)[len(times) // 2]


# ---------------------------------------------------------------- the run
def _number(v):
    """result.json's numbers: non-finite values as the strings "nan", "inf", "-inf"."""
    if isinstance(v, float) and not math.isfinite(v):
        return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")
    return v


def _numbers(d):
    return {k: (_numbers(v) if isinstance(v, dict) else _number(v)) for k, v in d.items()}


def record(executor, outcome, detail, checked_against="", rows=0, o_stats=None, lse_stats=None, timings=()):
    r = {"executor": executor, "outcome": outcome, "detail": detail, "checked_against": checked_against,
         "rows_checked": rows, "wall_ms": None}
    if o_stats:
        empty = dict(o_stats, elements_checked=0, elements_failed=0, nonfinite_mismatch=0, max_abs_error=0.0,
                     max_rel_error=0.0, mean_abs_error=0.0)
        r["o"], r["lse"] = _numbers(o_stats), _numbers(lse_stats or empty)
    r["timings"] = list(timings)  # libverifybench_timing's records, already in result.json's form
    r["achieved"] = None
    return r


def run_peer(peer, module, reason, case, dev, timer, options):
    if module is None:
        return record(peer.executor, "not run", f"not run: {reason}")
    why = peer.supports(case)
    if why:
        return record(peer.executor, "not supported", f"not supported: {why}")
    try:
        launch, outputs = peer.prepare(module, dev)
        launch()
        dev.backend.synchronize()
        o, lse = outputs()
        o_host = dev.backend.host(o)
        lse_host = dev.backend.host(lse) if lse is not None else None
    except Exception as e:
        return record(peer.executor, "launch failed", f"launch failed: {type(e).__name__}: {e}")
    outcome, detail, o_stats, lse_stats = check(case, o_host, lse_host)
    rows = case.batch * case.tree_size * case.heads
    timings = []
    if timer is None:
        detail += "; not timed: " + options.not_timed_reason
    else:
        try:
            host_us = host_launch_us(launch, dev.backend)
            timings = timer.measure(torch_stream_launcher(launch), options)
            detail += f"; host launch {host_us:.1f} us"
            if any(t["stop_reason"].startswith("error") for t in timings):
                outcome = "launch failed"
        except Exception as e:
            outcome, detail = "launch failed", detail + f"; timing failed: {type(e).__name__}: {e}"
    return record(peer.executor, outcome, detail, "reference", rows, o_stats, lse_stats, timings)


def run(case_dirs, options, backend=None, timer=None, peers=PEERS, out=sys.stdout):
    """The peers document for `case_dirs` (raises ValueError for a folder that is no export)."""
    cases = [Case(d) for d in case_dirs]
    backend = backend or NumpyBackend()
    found = [(peer,) + availability(peer) for peer in peers]
    document = {"format": "verifybench-peers/1", "backend": backend.name,
                "timing": ({"modes": options.modes, "l2_flush": options.l2_flush, "noise": options.noise,
                            "min_samples": options.min_samples, "max_samples": options.max_samples,
                            "budget_s": options.budget_s} if timer else None),
                "peers": [{"executor": p.executor, "package": p.package, "available": m is not None,
                           "reason": r} for p, m, r in found],
                "cases": []}
    table = ConsoleTable(max((len(c.name) for c in cases), default=0), out)
    for case in cases:
        dev = DeviceCase(case, backend)
        rows = [run_peer(peer, module, reason, case, dev, timer, options) for peer, module, reason in found]
        document["cases"].append({"case": case.name, "dir": case.dir, "executors": rows})
        for r in rows:
            table.row(case.name, r)
    return document


class ConsoleTable:
    """One line per case and peer as it finishes, under a header; names in full, and a detail
    longer than its column wrapped at word boundaries onto lines of its own column."""
    DETAIL_WIDTH = 72

    def __init__(self, case_width, out):
        self.case_width, self.out = max(case_width, len("case")), out
        self._line("case", "executor", "outcome", "cold-L2 median", "detail")

    def _line(self, case, executor, outcome, timing, detail):
        print(f"{case:{self.case_width}}  {executor:20} {outcome:14} {timing:>14}  {detail}".rstrip(), file=self.out)

    def row(self, case_name, record):
        cold = next((t for t in record["timings"] if t["mode"] == "cold-l2"), None)
        timing = f"{cold['median_ms'] * 1e3:.1f} us" if cold else "-"
        lines = textwrap.wrap(record["detail"], self.DETAIL_WIDTH, break_long_words=False) or [""]
        self._line(case_name, record["executor"], record["outcome"], timing, lines[0])
        for more in lines[1:]:
            self._line("", "", "", "", more)


def exit_code(document):
    outcomes = [r["outcome"] for c in document["cases"] for r in c["executors"]]
    if "launch failed" in outcomes:
        return EXIT_RUNTIME
    return EXIT_INCORRECT if "incorrect" in outcomes else EXIT_OK


def _number_in(lo, hi, integer=False):
    """An argparse type: a finite number (an integer when `integer`) in [lo, hi]; float() alone
    takes "nan" and "inf", which would switch the stop rule off."""
    def parse(text):
        try:
            value = int(text) if integer else float(text)
        except ValueError:
            value = None
        if value is None or not math.isfinite(value) or not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{text!r}; allowed: {'an integer' if integer else 'a finite number'} "
                                             f"in {lo}..{hi}")
        return value
    return parse


def out_path_error(path):
    """Why the result file cannot be written at `path` (None when it can): checked before any
    peer runs, so a typo does not cost the whole run."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        return f"--out {path}: the folder {folder} does not exist"
    if (why := destination_error(path)) is not None:
        return f"--out {why}"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"--out {path}: the folder {folder} is not writable"
    return None


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m verifybench.peers", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    p.add_argument("case_dirs", nargs="+", metavar="CASE_DIR", help="folders written by `verifybench export`")
    p.add_argument("--out", default="peers.json", help="result file (default: peers.json)")
    p.add_argument("--modes", default="cold,hot", help="timing modes as `verifybench run --modes` (default: cold,hot; "
                   "graph and chain capture the peer's Python launch, which may allocate)")
    p.add_argument("--l2-flush", default="read", choices=("read", "write"))
    p.add_argument("--noise", type=_number_in(0, 1), default=0.01)
    p.add_argument("--min-samples", type=_number_in(3, 1000000, integer=True), default=10)
    p.add_argument("--max-samples", type=_number_in(3, 1000000, integer=True), default=1000)
    p.add_argument("--budget-s", type=_number_in(0, 3600), default=1.0)
    p.add_argument("--no-time", action="store_true", help="check only")
    p.add_argument("--peer", action="append", default=None, help="run only this executor (repeatable)")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    args.not_timed_reason = "--no-time"
    peers = PEERS if not args.peer else tuple(p for p in PEERS if p.executor in args.peer)
    if args.peer and len(peers) != len(args.peer):
        known = ", ".join(p.executor for p in PEERS)
        unknown = ", ".join(n for n in args.peer if n not in known.split(", "))
        print(f"verifybench.peers: error: --peer {unknown}: unknown executor (allowed: {known})", file=sys.stderr)
        return EXIT_BAD_INPUT
    if (why := out_path_error(args.out)) is not None:
        print(f"verifybench.peers: error: {why}", file=sys.stderr)
        return EXIT_BAD_INPUT
    backend, timer = NumpyBackend(), None
    try:
        import torch
        if torch.cuda.is_available():
            backend = TorchBackend()
            if not args.no_time:
                timer = Timer()
        else:
            args.not_timed_reason = "no CUDA device"
    except ImportError:
        args.not_timed_reason = "torch not importable (no CUDA arrays)"
    except OSError as e:
        args.not_timed_reason = f"libverifybench_timing.so not loadable ({e})"
    try:
        document = run(args.case_dirs, args, backend=backend, timer=timer, peers=peers)
    except ValueError as e:
        print(f"verifybench.peers: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    try:
        write_file_whole(args.out, json.dumps(document, indent=1))
    except OSError as e:
        print(f"verifybench.peers: error: {args.out}: cannot write the result file: {e.strerror}", file=sys.stderr)
        return EXIT_RUNTIME
    print(f"wrote {args.out}")
    return exit_code(document)


if __name__ == "__main__":
    sys.exit(main())

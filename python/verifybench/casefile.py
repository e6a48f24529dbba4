"""Cases written by `verifybench export` (harness/export/export_safetensors.h): case.json plus
inputs.safetensors and outputs.safetensors, read into NumPy arrays (bf16 as float32; fp8 e4m3,
which NumPy has no type for, as its uint8 codes: fp8_e4m3_values() gives their values)."""
import json
import math
import os
import struct

import numpy as np

from ._files import CASE_JSON_MAX_BYTES, SAFETENSORS_MAX_BYTES, read_regular_file

_DTYPES = {"F32": np.float32, "I32": np.int32, "I64": np.int64, "U8": np.uint8, "BOOL": np.bool_,
           "BF16": np.uint16, "F8_E4M3": np.uint8}


def bf16_bits_to_f32(bits):
    return (bits.astype(np.uint32) << 16).view(np.float32)


def _e4m3_table():
    """The value of each of the 256 e4m3 ("fn": no infinities, NaN = S.1111.111) codes."""
    codes = np.arange(256)
    exponent, mantissa = (codes >> 3) & 0xF, codes & 0x7
    significand = np.where(exponent == 0, mantissa, 8 + mantissa).astype(np.float64)
    values = np.ldexp(significand, np.maximum(exponent, 1) - 10)  # bias 7, 3 mantissa bits
    values[(exponent == 0xF) & (mantissa == 0x7)] = np.nan
    return np.where(codes & 0x80, -values, values).astype(np.float32)


_E4M3_VALUES = _e4m3_table()


def fp8_e4m3_values(codes):
    """float32 values of e4m3 codes (uint8), exact: what torch.float8_e4m3fn's .float() gives."""
    return _E4M3_VALUES[np.asarray(codes, dtype=np.uint8)]


def read_safetensors(path, dtypes=None):
    """{name: array} of one safetensors file; BF16 tensors as float32 (exact), F8_E4M3 as their
    uint8 codes, the rest as stored. `dtypes`, when given, receives each tensor's stored dtype.
    Raises ValueError naming the file and tensor for anything malformed."""
    blob = read_regular_file(path, SAFETENSORS_MAX_BYTES)
    if len(blob) < 8:
        raise ValueError(f"{path}: {len(blob)} bytes, shorter than the 8-byte header length")
    (header_len,) = struct.unpack("<Q", blob[:8])
    if 8 + header_len > len(blob):
        raise ValueError(f"{path}: header of {header_len} bytes runs past the file's {len(blob)}")
    header = json.loads(blob[8:8 + header_len])
    data = memoryview(blob)[8 + header_len:]
    tensors = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(entry["dtype"])
        if dtype is None:
            raise ValueError(f"{path}: tensor {name}: dtype {entry['dtype']} not read here")
        begin, end = entry["data_offsets"]
        count = int(np.prod(entry["shape"], dtype=np.int64))
        if end - begin != count * np.dtype(dtype).itemsize or end > len(data):
            raise ValueError(f"{path}: tensor {name}: data_offsets {begin}..{end} do not hold shape {entry['shape']}")
        array = np.frombuffer(data[begin:end], dtype=dtype).reshape(entry["shape"])
        tensors[name] = bf16_bits_to_f32(array) if entry["dtype"] == "BF16" else array
        if dtypes is not None:
            dtypes[name] = entry["dtype"]
    return tensors


# case.json fields the readers use, each with what it must be. kv_cache.dtype -> the stored
# dtype of k_buffer.
_POOL_DTYPES = {"bf16": "BF16", "fp8_e4m3": "F8_E4M3"}
_POSITIVE_INTS = ("batch", "tree_size", "heads", "page_size")
_TOLERANCES = ("o_atol", "o_rtol", "lse_atol", "lse_rtol")
# case.json's math: the tensor math the executors ran (and its tolerance is for): bf16, or
# fp8 tensor math over an fp8 pool.
_MATHS = ("bf16", "fp8")


def _is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _check_meta(path, meta):
    """Raises ValueError naming the field of case.json that the readers could not use."""
    def bad(field, value, allowed):
        raise ValueError(f"{path}: {field}: {value!r}; allowed: {allowed}")

    if not isinstance(meta, dict):
        bad("(document)", type(meta).__name__, "an object")
    if not str(meta.get("format", "")).startswith("verifybench-export/"):
        bad("format", meta.get("format"), "verifybench-export/1")
    if not isinstance(meta.get("case"), str):
        bad("case", meta.get("case"), "the case name (a string)")
    for field in _POSITIVE_INTS:
        v = meta.get(field)
        if isinstance(v, bool) or not isinstance(v, int) or not 1 <= v < 2**31:
            bad(field, v, "an integer in 1..2147483647")
    if not _is_number(meta.get("sm_scale")) or meta["sm_scale"] <= 0:
        bad("sm_scale", meta.get("sm_scale"), "a finite number > 0")
    tree = meta.get("tree")
    if not isinstance(tree, dict) or not isinstance(tree.get("kind"), str):
        bad("tree", tree, "an object with a string 'kind'")
    tol = meta.get("tolerance")
    if not isinstance(tol, dict):
        bad("tolerance", tol, "an object with " + ", ".join(_TOLERANCES))
    for field in _TOLERANCES:
        if not _is_number(tol.get(field)) or tol[field] < 0:
            bad("tolerance." + field, tol.get(field), "a finite number >= 0")
    wide = tol.get("o_wide_channels", [])
    if not isinstance(wide, list) or any(isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < 512
                                         for c in wide):
        bad("tolerance.o_wide_channels", wide, "a list of O channels 0..511")
    if not _is_number(tol.get("o_wide_channel_scale", 1.0)):
        bad("tolerance.o_wide_channel_scale", tol.get("o_wide_channel_scale"), "a finite number")
    kv = meta.get("kv_cache", {"dtype": "bf16"})  # exports before fp8 KV have none: bf16
    if not isinstance(kv, dict) or kv.get("dtype") not in _POOL_DTYPES:
        bad("kv_cache", kv, "an object with 'dtype' " + " or ".join(map(repr, _POOL_DTYPES)))
    if kv["dtype"] == "fp8_e4m3":
        for field in ("k_scale", "v_scale"):
            if not _is_number(kv.get(field)) or kv[field] <= 0:
                bad("kv_cache." + field, kv.get(field), "a finite number > 0 (the fp8 pool's scale)")
    math = meta.get("math", "bf16")  # exports before fp8 math have none: bf16
    if math not in _MATHS:
        bad("math", math, " or ".join(map(repr, _MATHS)))
    if math == "fp8" and kv["dtype"] != "fp8_e4m3":
        bad("math", math, "'fp8' only with kv_cache.dtype 'fp8_e4m3' (fp8 tensor math multiplies the pool's e4m3 tile)")


class Case:
    """One exported case: `meta` (case.json), `inputs` and `outputs` (read on first use)."""

    def __init__(self, directory):
        self.dir = directory
        path = os.path.join(directory, "case.json")
        text = read_regular_file(path, CASE_JSON_MAX_BYTES)
        try:
            self.meta = json.loads(text)
        except (ValueError, RecursionError) as e:  # JSONDecodeError, UnicodeDecodeError, nesting too deep
            raise ValueError(f"{path}: not JSON: {type(e).__name__}: {e}") from None
        _check_meta(path, self.meta)
        for name in ("inputs.safetensors", "outputs.safetensors"):
            if not os.path.isfile(os.path.join(directory, name)):
                raise ValueError(f"{os.path.join(directory, name)}: missing or not a regular file")
        self._inputs = self._outputs = None

    name = property(lambda self: self.meta["case"])
    batch = property(lambda self: int(self.meta["batch"]))
    tree_size = property(lambda self: int(self.meta["tree_size"]))
    heads = property(lambda self: int(self.meta["heads"]))
    page_size = property(lambda self: int(self.meta["page_size"]))
    sm_scale = property(lambda self: float(self.meta["sm_scale"]))
    tree_kind = property(lambda self: self.meta["tree"]["kind"])
    tolerance = property(lambda self: self.meta["tolerance"])
    kv_dtype = property(lambda self: self.meta.get("kv_cache", {}).get("dtype", "bf16"))
    # 'bf16' or 'fp8' (e4m3 tensor math, an fp8 pool's opt-in): what the exported executors ran,
    # and what `tolerance` was derived for (scenarios/README.md, "fp8 math").
    math = property(lambda self: self.meta.get("math", "bf16"))

    @property
    def kv_scale(self):
        """The fp8 pool's dequantization scale (SGLang's k_scale, == v_scale in MLA); 1 for bf16."""
        return float(self.meta["kv_cache"]["k_scale"]) if self.kv_dtype == "fp8_e4m3" else 1.0

    @property
    def o_atol(self):
        """O's absolute tolerance per channel (512): o_atol, times o_wide_channel_scale in the
        channels the case's data distribution makes larger (case.json's tolerance)."""
        tol = self.tolerance
        atol = np.full(512, float(tol["o_atol"]))
        atol[list(tol.get("o_wide_channels", []))] *= float(tol.get("o_wide_channel_scale", 1.0))
        return atol

    @property
    def inputs(self):
        if self._inputs is None:
            path = os.path.join(self.dir, "inputs.safetensors")
            dtypes = {}
            inputs = read_safetensors(path, dtypes)
            expected = _POOL_DTYPES[self.kv_dtype]
            if dtypes.get("k_buffer") != expected:
                raise ValueError(f"{path}: tensor k_buffer: dtype {dtypes.get('k_buffer')}; case.json's kv_cache.dtype "
                                 f"{self.kv_dtype} needs {expected}")
            for name in ("k_scale", "v_scale") if self.kv_dtype == "fp8_e4m3" else ():
                stored = inputs.get(name)
                if stored is None or stored.size != 1 or float(stored.ravel()[0]) != np.float32(self.kv_scale):
                    raise ValueError(f"{path}: tensor {name}: {stored!r}; allowed: case.json's kv_cache.k_scale "
                                     f"{self.kv_scale!r} as one float32")
            self._inputs = inputs
        return self._inputs

    @property
    def outputs(self):
        if self._outputs is None:
            self._outputs = read_safetensors(os.path.join(self.dir, "outputs.safetensors"))
        return self._outputs

    def is_chain(self):
        """Every node's parent is the node before it: a causal mask computes the tree."""
        parents = self.inputs["tree_parents"]
        return bool(np.all(parents == np.arange(-1, self.tree_size - 1, dtype=parents.dtype)))

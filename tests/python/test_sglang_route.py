"""The SGLang drop-in's routing without torch: which calls go to the production kernel and
which stay on Triton (unsupported_reason), bound by the original function's own signature."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from verifybench import sglang  # noqa: E402


class Tensor:
    """What unsupported_reason reads of a torch.Tensor: dtype, shape, strides, pointer."""

    def __init__(self, shape, dtype="torch.bfloat16", address=0x1000, strides=None, contiguous=True):
        self.shape, self.dtype, self._address = tuple(shape), dtype, address
        self._strides = strides or tuple(int(_prod(shape[i + 1:])) for i in range(len(shape)))
        self._contiguous = contiguous

    def dim(self):
        return len(self.shape)

    def data_ptr(self):
        return self._address

    def stride(self, i=None):
        return self._strides if i is None else self._strides[i]

    def is_contiguous(self):
        return self._contiguous

    def numel(self):
        return _prod(self.shape)


def _prod(values):
    out = 1
    for v in values:
        out *= v
    return out


def verify_call(B=2, T=4, H=16, **changes):
    """The arguments TritonAttnBackend.forward_extend passes for an MLA target verify."""
    k_buffer = Tensor((1000, 1, 576), address=0x9000)
    call = dict(q_extend=Tensor((B * T, H, 576)), k_extend=Tensor((B * T, 1, 576)), v_extend=Tensor((B * T, 1, 512)),
                o_extend=Tensor((B * T, H, 512)), k_buffer=k_buffer,
                v_buffer=Tensor((1000, 1, 512), address=0x9000, strides=(576, 576, 1), contiguous=False),
                qo_indptr=Tensor((B + 1,), "torch.int32"), kv_indptr=Tensor((B + 1,), "torch.int32"),
                kv_indices=Tensor((500,), "torch.int64"), custom_mask=Tensor((999,), "torch.bool"), is_causal=True,
                mask_indptr=Tensor((B + 1,), "torch.int64"), max_len_extend=T, k_scale=1.0, v_scale=1.0,
                sm_scale=0.1308)
    call.update(changes)
    return call


def fp8_call(k_scale=0.5, v_scale=0.5, **changes):
    """The same call over SGLang's fp8 MLA pool: get_key_buffer's float8_e4m3fn view of its
    uint8 storage, v_buffer the view of its first 512 values, the layer's scales as floats."""
    fp8 = "torch.float8_e4m3fn"
    pools = dict(k_buffer=Tensor((1000, 1, 576), fp8, 0x9000),
                 v_buffer=Tensor((1000, 1, 512), fp8, 0x9000, strides=(576, 576, 1), contiguous=False))
    pools.update(changes)
    return verify_call(k_scale=k_scale, v_scale=v_scale, **pools)


class RouteTest(unittest.TestCase):
    def test_target_verify_is_supported(self):
        self.assertIsNone(sglang.unsupported_reason(**verify_call()))

    def test_fp8_target_verify_is_supported(self):
        for k_scale in (0.5, 1.0, None):
            with self.subTest(k_scale=k_scale):
                self.assertIsNone(sglang.unsupported_reason(**fp8_call(k_scale=k_scale, v_scale=k_scale)))

    def test_fallbacks_say_why(self):
        cases = {
            "no custom mask": dict(custom_mask=None),
            "KV cache of float8_e5m2": dict(k_buffer=Tensor((1000, 1, 576), "torch.float8_e5m2", 0x9000)),
            "KV cache of uint8": dict(k_buffer=Tensor((1000, 1, 576), "torch.uint8", 0x9000)),
            "scaled bf16 KV (k_scale)": dict(k_scale=0.5),
            "scaled bf16 KV (v_scale)": dict(v_scale=2.0),
            "fp8 KV with k_scale != v_scale": fp8_call(k_scale=0.5, v_scale=0.25),
            "k_scale given as a tensor": fp8_call(k_scale=Tensor((1,), "torch.float32")),
            "v_scale not a finite number above 0": fp8_call(v_scale=float("nan")),
            "k_scale not a finite number above 0": fp8_call(k_scale=0.0, v_scale=0.0),
            "k_extend / o_extend of bfloat16 / float8_e4m3fn / bfloat16: bf16 only":
                fp8_call(k_extend=Tensor((8, 1, 576), "torch.float8_e4m3fn")),
            "logit cap": dict(logit_cap=30.0),
            "sliding window": dict(sliding_window_size=4096),
            "attention sinks": dict(sinks=Tensor((16,), "torch.float32")),
            "xai temperature": dict(xai_temperature_len=8),
            "skip_prefix_custom_mask=False": dict(skip_prefix_custom_mask=False),
            "not absorbed MLA": dict(q_extend=Tensor((8, 16, 192)), o_extend=Tensor((8, 16, 128))),
            "a V pool that is not the K pool": dict(v_buffer=Tensor((1000, 1, 512), address=0x5000)),
            "extend lengths not one tree size": dict(max_len_extend=3),
            "non-contiguous": dict(q_extend=Tensor((8, 16, 576), contiguous=False)),
        }
        for expected, change in cases.items():
            with self.subTest(expected):
                self.assertIn(expected, sglang.unsupported_reason(**verify_call(**change)) or "supported")

    def test_route_binds_by_the_original_signature(self):
        calls = []

        class Backend:
            max_context_len = 8192

            # An SGLang without k_scale / v_scale: sm_scale is the 14th positional argument.
            def extend_attention_fwd(self, q_extend, k_extend, v_extend, o_extend, k_buffer, v_buffer, qo_indptr,
                                     kv_indptr, kv_indices, custom_mask, is_causal, mask_indptr, max_len_extend,
                                     sm_scale=None, logit_cap=0.0, skip_prefix_custom_mask=True,
                                     sliding_window_size=-1, sinks=None, window_kv_offsets=None,
                                     xai_temperature_len=-1):
                calls.append(("triton", sm_scale))

        backend = Backend()
        original = sglang._drop_in
        sglang._drop_in = lambda **call: calls.append(("verifybench", call["sm_scale"], call["max_kv_len"]))
        try:
            fallbacks = sglang.route_target_verify(backend)
            c = verify_call()
            positional = [c[k] for k in ("q_extend", "k_extend", "v_extend", "o_extend", "k_buffer", "v_buffer",
                                         "qo_indptr", "kv_indptr", "kv_indices", "custom_mask", "is_causal",
                                         "mask_indptr", "max_len_extend")]
            backend.extend_attention_fwd(*positional, 0.25)
            positional[9] = None  # a prefill: no custom mask
            backend.extend_attention_fwd(*positional, 0.5, logit_cap=0.0)
        finally:
            sglang._drop_in = original
        self.assertEqual(calls, [("verifybench", 0.25, 8192), ("triton", 0.5)])
        self.assertEqual(dict(fallbacks), {"no custom mask (prefill or causal extend, not a tree verify)": 1})

    def test_route_with_k_scale_and_v_scale_positional(self):
        """SGLang's current call: k_scale, v_scale after max_len_extend, then sm_scale."""
        calls = []

        class Backend:
            def extend_attention_fwd(self, q_extend, k_extend, v_extend, o_extend, k_buffer, v_buffer, qo_indptr,
                                     kv_indptr, kv_indices, custom_mask, is_causal, mask_indptr, max_len_extend,
                                     k_scale, v_scale, sm_scale=None, logit_cap=0.0, skip_prefix_custom_mask=True,
                                     sliding_window_size=-1, sinks=None, window_kv_offsets=None,
                                     xai_temperature_len=-1):
                calls.append(("triton", k_scale))

        backend = Backend()
        original = sglang._drop_in
        sglang._drop_in = lambda **call: calls.append(("verifybench", call["sm_scale"], call["max_kv_len"],
                                                       call["k_scale"]))
        try:
            fallbacks = sglang.route_target_verify(backend, max_kv_len=4096)
            c = verify_call()
            positional = [c[k] for k in ("q_extend", "k_extend", "v_extend", "o_extend", "k_buffer", "v_buffer",
                                         "qo_indptr", "kv_indptr", "kv_indices", "custom_mask", "is_causal",
                                         "mask_indptr", "max_len_extend")]
            backend.extend_attention_fwd(*positional, 1.0, 1.0, 0.125, logit_cap=0.0, sliding_window_size=-1)
            backend.extend_attention_fwd(*positional, 0.5, 0.5, 0.125)  # a scaled bf16 pool: Triton
            f = fp8_call()
            positional[4], positional[5] = f["k_buffer"], f["v_buffer"]
            backend.extend_attention_fwd(*positional, 0.75, 0.75, 0.125)  # SGLang's fp8 pool: verifybench
            backend.extend_attention_fwd(*positional, 0.75, 0.5, 0.125)  # two scales for one row: Triton
        finally:
            sglang._drop_in = original
        self.assertEqual(calls, [("verifybench", 0.125, 4096, 1.0), ("triton", 0.5), ("verifybench", 0.125, 4096, 0.75),
                                 ("triton", 0.75)])
        self.assertEqual(dict(fallbacks), {"scaled bf16 KV (k_scale)": 1,
                                           "fp8 KV with k_scale != v_scale (MLA's K and V are one row: one scale)": 1})

    def test_the_math_reaches_the_drop_in(self):
        """math='fp8' (the opt-in for calls over an fp8 pool) goes with every routed call; the
        default is bf16 math."""
        class Backend:
            def extend_attention_fwd(self, q_extend, k_extend, v_extend, o_extend, k_buffer, v_buffer, qo_indptr,
                                     kv_indptr, kv_indices, custom_mask, is_causal, mask_indptr, max_len_extend,
                                     k_scale, v_scale, sm_scale=None):
                raise AssertionError("a supported call went to the Triton stand-in")

        calls = []
        original = sglang._drop_in
        sglang._drop_in = lambda **call: calls.append(call["math"])
        try:
            for math in ("fp8", "bf16", None):
                backend = Backend()
                sglang.route_target_verify(backend, max_kv_len=4096, **({"math": math} if math else {}))
                backend.extend_attention_fwd(**fp8_call())
        finally:
            sglang._drop_in = original
        self.assertEqual(calls, ["fp8", "bf16", "bf16"])

    def test_a_math_that_is_neither_is_refused(self):
        for bad in ("fp16", "FP8", 1, None):
            with self.subTest(bad):
                with self.assertRaises(ValueError) as caught:  # verifybench.VerifyError
                    sglang.route_target_verify(object(), math=bad)
                self.assertTrue(str(caught.exception).startswith(f"math: {bad!r}; allowed: 'bf16' or 'fp8'"),
                                str(caught.exception))
                with self.assertRaises(ValueError) as caught:
                    sglang.extend_attention_fwd(**fp8_call(), math=bad)
                self.assertTrue(str(caught.exception).startswith(f"math: {bad!r}"), str(caught.exception))


if __name__ == "__main__":
    unittest.main()

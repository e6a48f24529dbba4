"""The verifybench package without a GPU or torch: it imports, loads the library, plans for
a described device, and refuses every wrong argument with a message that names it."""
import ctypes
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import verifybench  # noqa: E402
from standin_arrays import CudaArray, DeviceDLPack, HostArray, HostDLPack, bf16, sglang_arrays  # noqa: E402

H200_FACTS = (132, 1, 1, 2048, 232448)


def plan(**kw):
    kw.setdefault("device_facts", H200_FACTS)
    return verifybench.Plan(3, 4, 8, 4096, **kw)


class PackageTest(unittest.TestCase):
    def setUp(self):
        self.plan = plan()
        self.workspace = CudaArray((self.plan.workspace_bytes,), "|u1")

    def refuse(self, starts_with, contains="", **changes):
        args = sglang_arrays()
        args.update(changes)
        with self.assertRaises(verifybench.VerifyError) as caught:
            verifybench.verify_sglang(self.plan, sm_scale=args.pop("sm_scale", 0.13), workspace=args.pop(
                "workspace", self.workspace), **args)
        message = str(caught.exception)
        self.assertTrue(message.startswith(starts_with), message)
        self.assertIn(contains, message)
        return caught.exception

    def test_library_and_plan(self):
        self.assertIn("abi 3", verifybench.library_version())
        self.assertIn("splits=", self.plan.description)
        self.assertGreaterEqual(self.plan.workspace_bytes, 3 * 4 * 8 * 4)
        with self.assertRaises(verifybench.VerifyError) as caught:
            verifybench.Plan(0, 4, 8, 4096, device_facts=H200_FACTS)
        self.assertIn("shape.max_batch 0", str(caught.exception))
        with self.assertRaises(verifybench.VerifyError) as caught:
            plan(kv_lens=[10, 20])
        self.assertIn("kv_lens: 2 entries", str(caught.exception))

    def test_no_device_array(self):
        self.refuse("k_buffer: a list is not an array", "__cuda_array_interface__", k_buffer=[1.0, 2.0])

    def test_missing(self):
        self.refuse("mask_indptr: missing", mask_indptr=None)

    def test_cpu_array(self):
        self.refuse("q_extend: host memory", "CUDA device array", q_extend=HostArray((12, 8, 576), "<u2"))

    def test_cpu_dlpack(self):
        self.refuse("kv_indices: host memory", "DLPack device type 1", kv_indices=HostDLPack())

    def test_dlpack_gets_the_legacy_default_stream_as_1(self):
        # DLPack forbids 0 for CUDA; the runtime's legacy default stream (handle 0) is 1 there.
        for handle, expected in ((0, 1), (0x5000, 0x5000)):
            producer = DeviceDLPack()
            args = sglang_arrays()
            args["q_extend"] = producer
            with self.assertRaises(DeviceDLPack.Asked):
                verifybench.verify_sglang(self.plan, **args, sm_scale=0.1, workspace=self.workspace, stream=handle)
            self.assertEqual(producer.streams, [expected])

    def test_wrong_dtype(self):
        e = self.refuse("q_extend: dtype float16", "allowed: bfloat16", q_extend=CudaArray((12, 8, 576), "<f2"))
        self.assertEqual(e.status, 1)

    def test_unknown_typestr(self):
        self.refuse("o: dtype '<c8'", "has no meaning here", o=CudaArray((12, 8, 512), "<c8"))

    def test_non_contiguous_view(self):
        # Every other head of a [12, 16, 576] array: strides in bytes.
        view = CudaArray((12, 8, 576), "<u2", strides=(16 * 576 * 2, 2 * 576 * 2, 2))
        self.refuse("q_extend: strides [9216, 1152, 1]", "contiguous", q_extend=view)

    def test_mismatched_shapes(self):
        self.refuse("o: shape [12, 8, 576]", "expected [12, 8, 512]", o=bf16(12, 8, 576))
        self.refuse("k_extend: shape [8, 1, 576]", "B=3 from kv_indptr", k_extend=bf16(8, 1, 576))

    def test_more_requests_than_planned(self):
        e = self.refuse("kv_indptr: shape [5] gives batch 4", "1 to 3", kv_indptr=CudaArray((5,), "<i4"))
        self.assertEqual(e.status, 4)

    def test_workspace(self):
        self.refuse("workspace: 10 bytes", "vbops_plan_workspace_bytes", workspace=CudaArray((10,), "|u1"))

    def test_scale_and_plan(self):
        self.refuse("sm_scale: 'x' is not a number", sm_scale="x")
        with self.assertRaises(verifybench.VerifyError) as caught:
            verifybench.verify_sglang(object(), **sglang_arrays(), sm_scale=0.1, workspace=self.workspace)
        self.assertIn("plan: a object", str(caught.exception))

    def test_plan_fields_and_stream(self):
        with self.assertRaises(verifybench.VerifyError) as caught:
            verifybench.Plan(3, 4.5, 8, 4096, device_facts=H200_FACTS)
        self.assertIn("tree_size: 4.5 (float); allowed: a 32-bit integer", str(caught.exception))
        args = sglang_arrays()
        with self.assertRaises(verifybench.VerifyError) as caught:
            verifybench.verify_sglang(self.plan, **args, sm_scale=0.1, workspace=self.workspace, stream="s")
        self.assertTrue(str(caught.exception).startswith("stream: a str"), str(caught.exception))

    def test_native_form(self):
        args = dict(q=bf16(12, 8, 576), kv_pool=bf16(1000, 576), prefix_len=CudaArray((3,), "<i4"),
                    kv_indptr=CudaArray((4,), "<i4"), kv_indices=CudaArray((900,), "<i8"),
                    tree_mask=CudaArray((3, 4, 2), "<u8"), o=bf16(12, 8, 512), lse=CudaArray((12, 8), "<f4"))
        with self.assertRaises(verifybench.VerifyError) as caught:
            verifybench.verify_native(self.plan, **args, sm_scale=0.1, workspace=self.workspace)
        self.assertTrue(str(caught.exception).startswith("tree_mask: shape [3, 4, 2]"), str(caught.exception))

    def test_valid_arguments_reach_the_device_check(self):
        # Every argument right: the library's last check asks the driver about the (made-up)
        # addresses, which no device holds (or there is no device): refused, nothing launched.
        e = self.refuse("q_extend: ")
        self.assertIn(e.status, (1, 5))


def fp8_pool(rows=1000, width=576):
    """An fp8 e4m3 pool as NumPy / CuPy can hold it: its bytes (uint8)."""
    return CudaArray((rows, 1, width), "|u1")


class Fp8PoolTest(unittest.TestCase):
    """An fp8 e4m3 KV pool: the plan names the dtype, the launch gives the pool and its scale."""

    def setUp(self):
        self.plan = plan(kv_dtype="fp8_e4m3")
        self.workspace = CudaArray((self.plan.workspace_bytes,), "|u1")

    def sglang(self, plan_=None, **changes):
        args = sglang_arrays()
        args["k_buffer"] = fp8_pool()
        args.update(changes)
        with self.assertRaises(verifybench.VerifyError) as caught:
            verifybench.verify_sglang(plan_ or self.plan, sm_scale=0.13, workspace=self.workspace, **args)
        return caught.exception

    def assertRefused(self, error, starts_with, contains=""):
        self.assertTrue(str(error).startswith(starts_with), str(error))
        self.assertIn(contains, str(error))

    def test_the_plan_names_its_pool_dtype(self):
        self.assertEqual(self.plan.kv_dtype, "fp8_e4m3")
        self.assertEqual(plan().kv_dtype, "bf16")
        self.assertIn("kv_dtype='fp8_e4m3'", repr(self.plan))
        for name in ("fp16", "float8_e5m2", 9, None):
            with self.assertRaises(verifybench.VerifyError) as caught:
                plan(kv_dtype=name)
            self.assertRefused(caught.exception, f"kv_dtype: {name!r}", "allowed: 'bf16' or 'fp8_e4m3'")

    def test_fp8_plans_run_the_mma_sync_engine(self):
        big = dict(device_facts=H200_FACTS)
        bf16_plan = verifybench.Plan(64, 8, 16, 32768, **big)
        fp8_plan = verifybench.Plan(64, 8, 16, 32768, kv_dtype="float8_e4m3fn", **big)
        self.assertTrue(bf16_plan.description.startswith("wgmma"), bf16_plan.description)
        self.assertTrue(fp8_plan.description.startswith("mma"), fp8_plan.description)

    def test_pool_bytes_with_a_scale_are_accepted(self):
        # Every argument right: refused only by the device check (made-up addresses).
        e = self.sglang(kv_scale=0.0625)
        self.assertRefused(e, "q_extend: ")
        self.assertIn(e.status, (1, 5))

    def test_a_scale_is_required(self):
        self.assertRefused(self.sglang(), "kv_scale: missing", "an fp8 pool needs its dequantization scale")
        for bad in (0.0, -2.0, float("nan"), float("inf"), "x"):
            self.assertRefused(self.sglang(kv_scale=bad), "kv_scale: ", "allowed: a finite number above 0")

    def test_a_device_scale_is_refused(self):
        # Reading it would synchronise: SGLang passes floats (layer.k_scale_float).
        self.assertRefused(self.sglang(kv_scale=CudaArray((1,), "<f4")), "kv_scale: a CudaArray",
                           "a Python float")

    def test_a_bf16_pool_under_an_fp8_plan(self):
        self.assertRefused(self.sglang(k_buffer=bf16(1000, 1, 576), kv_scale=1.0), "k_buffer: dtype bfloat16",
                           "allowed: float8_e4m3 or uint8 (its bytes): the plan was made for an fp8 pool")

    def test_a_bf16_pools_bytes(self):
        self.assertRefused(self.sglang(k_buffer=fp8_pool(width=1152), kv_scale=1.0), "k_buffer: shape [1000, 1, 1152]",
                           "expected [*, 1, 576]")

    def test_fp8_bytes_under_a_bf16_plan(self):
        bf16_plan = plan()
        self.assertRefused(self.sglang(bf16_plan), "k_buffer: dtype uint8",
                           "an fp8 pool needs a plan with kv_dtype VBOPS_DTYPE_FP8_E4M3")

    def test_a_bf16_pool_is_not_scaled(self):
        bf16_plan = plan()
        e = self.sglang(bf16_plan, k_buffer=bf16(1000, 1, 576), kv_scale=0.5)
        self.assertRefused(e, "kv_scale: 0.5", "a bf16 pool is not scaled")
        for given in (None, 1.0):
            self.assertRefused(self.sglang(bf16_plan, k_buffer=bf16(1000, 1, 576), kv_scale=given), "q_extend: ")

    def test_native_form(self):
        args = dict(q=bf16(12, 8, 576), kv_pool=CudaArray((1000, 576), "|u1"), prefix_len=CudaArray((3,), "<i4"),
                    kv_indptr=CudaArray((4,), "<i4"), kv_indices=CudaArray((900,), "<i8"),
                    tree_mask=CudaArray((3, 4, 1), "<u8"), o=bf16(12, 8, 512), lse=CudaArray((12, 8), "<f4"))
        with self.assertRaises(verifybench.VerifyError) as caught:
            verifybench.verify_native(self.plan, **args, sm_scale=0.1, workspace=self.workspace)
        self.assertRefused(caught.exception, "kv_scale: missing")
        with self.assertRaises(verifybench.VerifyError) as caught:
            verifybench.verify_native(self.plan, **args, sm_scale=0.1, kv_scale=2.0, workspace=self.workspace)
        self.assertRefused(caught.exception, "q: ")


class Fp8MathTest(unittest.TestCase):
    """A plan's tensor math (math='fp8', over an fp8 pool only): validated in Python and by the
    library, named in the plan, and its launches take the fp8 pool's arguments."""

    def assertRefused(self, call, starts_with, contains=""):
        with self.assertRaises(ValueError) as caught:  # verifybench.VerifyError is a ValueError
            call()
        self.assertIsInstance(caught.exception, verifybench.VerifyError)
        self.assertTrue(str(caught.exception).startswith(starts_with), str(caught.exception))
        self.assertIn(contains, str(caught.exception))
        return caught.exception

    def test_an_fp8_math_plan_names_its_math(self):
        # 64 requests of 8 nodes x 16 heads: a bf16 pool's plan there is a wgmma one.
        p = verifybench.Plan(64, 8, 16, 32768, device_facts=H200_FACTS, kv_dtype="fp8_e4m3", math="fp8")
        self.assertEqual(p.math, "fp8")
        self.assertEqual(p.shape.math, 1)
        self.assertTrue(p.description.startswith("mma"), p.description)
        self.assertIn(" math=fp8", p.description)
        self.assertIn("math='fp8'", repr(p))
        default = plan(kv_dtype="fp8_e4m3")
        self.assertEqual((default.math, default.shape.math), ("bf16", 0))
        self.assertNotIn("math=", default.description)

    def test_fp8_math_with_a_bf16_pool_is_refused(self):
        for kv_dtype in ("bf16", "bfloat16"):
            self.assertRefused(lambda: plan(kv_dtype=kv_dtype, math="fp8"), "math: 'fp8' with kv_dtype 'bf16'",
                               "fp8 math with an fp8 pool only (kv_dtype='fp8_e4m3')")
        self.assertRefused(lambda: plan(math="fp8"), "math: 'fp8' with kv_dtype 'bf16'")

    def test_a_math_that_is_neither_is_refused(self):
        for bad in ("fp16", "FP8", "e4m3", 1, None):
            self.assertRefused(lambda: plan(kv_dtype="fp8_e4m3", math=bad), f"math: {bad!r}",
                               "allowed: 'bf16' or 'fp8'")

    def test_the_library_refuses_what_python_would(self):
        # The ABI mirror: vbops_shape's seven int32 fields in the header's order, and the
        # library's own refusal of fp8 math over a bf16 pool (a caller of the C ABI).
        from verifybench import _abi
        self.assertEqual([name for name, _ in _abi.Shape._fields_],
                         ["max_batch", "tree_size", "num_heads", "max_kv_len", "page_size", "kv_dtype", "math"])
        self.assertEqual(ctypes.sizeof(_abi.Shape), 7 * 4)
        lib = _abi.library()
        facts = _abi.DeviceFacts(*H200_FACTS)
        handle = ctypes.c_void_p()
        for kv_dtype, math, expected in ((_abi.BF16, _abi.MATH_FP8, "shape.math 1 (VBOPS_MATH_FP8) with a bf16 pool"),
                                         (_abi.FP8_E4M3, 2, "shape.math 2; allowed: VBOPS_MATH_BF16 (0)")):
            shape = _abi.Shape(3, 4, 8, 4096, 1, kv_dtype, math)
            status = lib.vbops_plan_create(ctypes.byref(shape), ctypes.byref(facts), None, ctypes.byref(handle))
            self.assertEqual(status, 1)
            self.assertTrue(lib.vbops_last_error().decode().startswith(expected), lib.vbops_last_error())
            self.assertFalse(handle.value)
        shape = _abi.Shape(3, 4, 8, 4096, 1, _abi.FP8_E4M3, _abi.MATH_FP8)
        self.assertEqual(lib.vbops_plan_create(ctypes.byref(shape), ctypes.byref(facts), None, ctypes.byref(handle)), 0)
        lib.vbops_plan_destroy(handle)

    def test_fp8_math_launches_take_the_fp8_pool_arguments(self):
        p = plan(kv_dtype="fp8_e4m3", math="fp8")
        workspace = CudaArray((p.workspace_bytes,), "|u1")
        args = sglang_arrays()
        args["k_buffer"] = fp8_pool()
        with self.assertRaises(verifybench.VerifyError) as caught:
            verifybench.verify_sglang(p, sm_scale=0.13, workspace=workspace, **args)
        self.assertTrue(str(caught.exception).startswith("kv_scale: missing"), str(caught.exception))
        # Every argument right: refused only by the device check (made-up addresses).
        with self.assertRaises(verifybench.VerifyError) as caught:
            verifybench.verify_sglang(p, sm_scale=0.13, kv_scale=0.5, workspace=workspace, **args)
        self.assertTrue(str(caught.exception).startswith("q_extend: "), str(caught.exception))
        self.assertIn(caught.exception.status, (1, 5))


class IntegerRangeTest(unittest.TestCase):
    """Every integer is checked against its C type before ctypes keeps its low bits, and every
    refusal is a VerifyError naming the argument (issue 48, item 10)."""

    def refused(self, call, *fragments):
        with self.assertRaises(verifybench.VerifyError) as caught:
            call()
        message = str(caught.exception)
        for fragment in fragments:
            self.assertIn(fragment, message)
        return caught.exception

    def test_device_facts_and_kv_lens_do_not_wrap(self):
        self.refused(lambda: plan(device_facts=(2**32 + 132, 1, 1, 2048, 232448)),
                     "device_facts.sm_count: 4294967428; allowed: a 32-bit integer")
        self.refused(lambda: plan(kv_lens=[2**32 + 100, 100, 100]), "kv_lens[0]: 4294967396")
        self.refused(lambda: verifybench.Plan(2**31, 4, 8, 4096, device_facts=H200_FACTS), "max_batch: 2147483648")
        self.refused(lambda: plan(device=2**40), "device: 1099511627776")

    def test_buffer_extents_do_not_wrap(self):
        p = plan()
        workspace = CudaArray((p.workspace_bytes,), "|u1")
        for rows in (2**64 + 1000, 2**63, -1):
            args = sglang_arrays()
            args["k_buffer"] = bf16(rows, 1, 576)
            self.refused(lambda: verifybench.verify_sglang(p, **args, sm_scale=0.1, workspace=workspace),
                         f"k_buffer: shape[0]: {rows}")

    def test_plans_the_device_cannot_hold_are_refused(self):
        # smem_optin_bytes=1: neither engine's shared memory fits (wgmma: 64 query rows).
        tiny = (132, 1, 1, 2048, 1)
        e = self.refused(lambda: verifybench.Plan(8, 4, 16, 8192, device_facts=tiny), "wgmma", "smem_optin_bytes 1")
        self.assertEqual(e.status, 2)
        self.refused(lambda: verifybench.Plan(3, 4, 8, 4096, device_facts=tiny), "mma.sync", "shared memory")
        # num_heads = 2**31 - 1 once overflowed the planner's row count (m_tiles = -33554431).
        e = self.refused(lambda: verifybench.Plan(1, 1, 2**31 - 1, 4096, device_facts=H200_FACTS),
                         "num_heads = 1 * 1 * 2147483647 query rows", "at most 1073741824")
        self.assertEqual(e.status, 1)

    def test_wrong_types_are_verify_errors(self):
        p = plan()
        workspace = CudaArray((p.workspace_bytes,), "|u1")
        self.refused(lambda: plan(device_facts=5), "device_facts: 5 (int)")
        self.refused(lambda: plan(device_facts=(132, 1)), "device_facts: 2 values; allowed: 5")
        self.refused(lambda: plan(device_facts=(132, "1", 1, 2048, 232448)), "device_facts.blocks_per_sm: '1'")
        self.refused(lambda: plan(kv_lens=[1.5, 100, 100]), "kv_lens[0]: 1.5 (float)")
        self.refused(lambda: plan(kv_lens=7), "kv_lens: 7 (int)")
        for bad in (float("nan"), float("inf"), -1.0, None):
            self.refused(lambda: verifybench.verify_sglang(p, **sglang_arrays(), sm_scale=bad, workspace=workspace),
                         "sm_scale: ")
        self.refused(lambda: verifybench.verify_sglang(p, **sglang_arrays(), sm_scale=0.1, workspace=workspace,
                                                       stream=2**64), "stream: 18446744073709551616")
        args = sglang_arrays()
        args["o"] = CudaArray(("12", 8, 512), "<u2")
        self.refused(lambda: verifybench.verify_sglang(p, **args, sm_scale=0.1, workspace=workspace), "o: shape[0]: '12'")
        malformed = CudaArray((12, 8, 512), "<u2")
        del malformed.__cuda_array_interface__["data"]
        args["o"] = malformed
        self.refused(lambda: verifybench.verify_sglang(p, **args, sm_scale=0.1, workspace=workspace),
                     "o: a malformed array", "KeyError")


if __name__ == "__main__":
    unittest.main()

"""The verifybench package without a GPU or torch: it imports, loads the library, plans for
a described device, and refuses every wrong argument with a message that names it."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import verifybench  # noqa: E402
from standin_arrays import CudaArray, DeviceDLPack, HostArray, HostDLPack, bf16, sglang_arrays  # noqa: E402

H200_FACTS = (132, 1, 1, 2048, 232448)


def plan(**kw):
    return verifybench.Plan(3, 4, 8, 4096, device_facts=H200_FACTS, **kw)


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
        self.assertIn("abi 1", verifybench.library_version())
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
        self.assertIn("tree_size: 4.5; a 32-bit integer is required", str(caught.exception))
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


if __name__ == "__main__":
    unittest.main()

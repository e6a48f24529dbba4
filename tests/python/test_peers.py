"""python -m verifybench.peers against stand-in peer modules (NumPy, no GPU): discovery,
the reasons for skipped peers and cases, the check against the exported reference (a peer
that ignores the tree mask is reported incorrect), and the result file's form.

The exported case comes from VERIFYBENCH_TEST_CASE (a `verifybench export` folder)."""
import contextlib
import importlib
import io
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "standin"))

from verifybench import peers  # noqa: E402

CASE_DIR = os.environ.get("VERIFYBENCH_TEST_CASE", os.path.join(HERE, "..", "..", "build", "tests", "export-smoke"))
FP8_CASE_DIR = os.environ.get("VERIFYBENCH_TEST_FP8_CASE",
                              os.path.join(HERE, "..", "..", "build", "tests", "export-fp8"))
# The same case exported with `--math fp8`.
FP8_MATH_CASE_DIR = os.environ.get("VERIFYBENCH_TEST_FP8_MATH_CASE",
                                   os.path.join(HERE, "..", "..", "build", "tests", "export-fp8-math"))


def with_standins(which):
    """Puts tests/python/standin/<which> first on sys.path, forgetting earlier imports."""
    for name in [m for m in sys.modules if m.split(".")[0] in ("sglang", "flash_mla", "flashinfer")]:
        del sys.modules[name]
    for d in ("good", "wrong"):
        path = os.path.join(HERE, "standin", d)
        if path in sys.path:
            sys.path.remove(path)
    sys.path.insert(0, os.path.join(HERE, "standin", which))
    importlib.invalidate_caches()


def options():
    return peers.parse_args([CASE_DIR, "--no-time"])


def rows_by_executor(document):
    return {r["executor"]: r for r in document["cases"][0]["executors"]}


class PeersTest(unittest.TestCase):
    def setUp(self):
        self.assertTrue(os.path.exists(os.path.join(CASE_DIR, "case.json")), f"no exported case at {CASE_DIR}")

    def run_peers(self, which):
        with_standins(which)
        opts = options()
        opts.not_timed_reason = "no CUDA device"
        return peers.run([CASE_DIR], opts, out=io.StringIO())

    def test_standins_checked_and_absent_peers_skipped(self):
        rows = rows_by_executor(self.run_peers("good"))
        sglang = rows["peer/sglang-triton"]
        self.assertEqual(sglang["outcome"], "passed", sglang["detail"])
        self.assertIn("O (the peer returns no LSE)", sglang["detail"])
        self.assertIn("not timed: no CUDA device", sglang["detail"])
        self.assertGreater(sglang["o"]["elements_checked"], 0)
        self.assertEqual(sglang["lse"]["elements_checked"], 0)
        self.assertEqual(rows["peer/flashmla"]["outcome"], "not supported")
        self.assertIn("page size 64 only (this case: 1)", rows["peer/flashmla"]["detail"])
        self.assertEqual(rows["peer/flashinfer"]["outcome"], "not run")
        self.assertIn("package flashinfer not importable (ModuleNotFoundError", rows["peer/flashinfer"]["detail"])

    def test_a_peer_that_ignores_the_mask_is_incorrect(self):
        rows = rows_by_executor(self.run_peers("wrong"))
        sglang = rows["peer/sglang-triton"]
        self.assertEqual(sglang["outcome"], "incorrect", sglang["detail"])
        self.assertGreater(sglang["o"]["elements_failed"], 0)
        self.assertEqual(peers.exit_code({"cases": [{"executors": [sglang]}]}), peers.EXIT_INCORRECT)

    def test_cli_writes_the_result_file(self):
        with_standins("good")
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "peers.json")
            code = peers.main([CASE_DIR, "--out", out, "--no-time"])
            self.assertEqual(code, peers.EXIT_OK)
            with open(out) as f:
                document = json.load(f)
        self.assertEqual(document["format"], "verifybench-peers/1")
        self.assertEqual(document["cases"][0]["case"], "smoke_chain4_page1")
        for r in document["cases"][0]["executors"]:
            for key in ("executor", "outcome", "detail", "checked_against", "rows_checked", "timings"):
                self.assertIn(key, r)

    def test_widened_channels_widen_only_their_atol(self):
        import numpy as np
        from verifybench.casefile import Case
        case = Case(CASE_DIR)
        case.meta = dict(case.meta, tolerance=dict(case.tolerance, o_wide_channels=[3], o_wide_channel_scale=100.0))
        atol = case.o_atol
        self.assertEqual(atol[3], 100.0 * case.tolerance["o_atol"])
        self.assertEqual(atol[4], case.tolerance["o_atol"])
        expected = np.zeros((2, 512))
        err = 10.0 * case.tolerance["o_atol"]  # inside the widened atol, outside the plain one
        in_wide, in_plain = expected.copy(), expected.copy()
        in_wide[1, 3] = err
        in_plain[1, 4] = err
        self.assertEqual(peers.error_stats(expected, in_wide, atol, 0.0, 1, 2, 512)["elements_failed"], 0)
        self.assertEqual(peers.error_stats(expected, in_plain, atol, 0.0, 1, 2, 512)["elements_failed"], 1)

    def test_console_table_has_a_header_and_cuts_no_word(self):
        with_standins("good")
        opts = options()
        opts.not_timed_reason = "no CUDA device"
        out = io.StringIO()
        document = peers.run([CASE_DIR], opts, out=out)
        lines = out.getvalue().splitlines()
        self.assertEqual(lines[0].split(), ["case", "executor", "outcome", "cold-L2", "median", "detail"])
        detail_column = lines[0].index("detail")
        printed = " ".join(line[detail_column:].strip() for line in lines[1:])
        for r in document["cases"][0]["executors"]:
            self.assertIn(" ".join(r["detail"].split()), printed)  # each detail whole, words unbroken
        self.assertTrue(any(len(r["detail"]) > peers.ConsoleTable.DETAIL_WIDTH
                            for r in document["cases"][0]["executors"]), "no detail long enough to wrap")
        self.assertTrue(all(len(line) <= detail_column + peers.ConsoleTable.DETAIL_WIDTH for line in lines))

    def test_without_numpy_the_command_says_so_in_one_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.mkdir(os.path.join(tmp, "numpy"))
            with open(os.path.join(tmp, "numpy", "__init__.py"), "w") as f:
                f.write("raise ModuleNotFoundError(\"No module named 'numpy'\", name='numpy')\n")
            env = dict(os.environ, PYTHONPATH=os.pathsep.join([tmp, os.path.join(HERE, "..", "..", "python")]))
            result = subprocess.run([sys.executable, "-m", "verifybench.peers", CASE_DIR, "--no-time"],
                                    env=env, capture_output=True, text=True)
        self.assertEqual(result.returncode, peers.EXIT_RUNTIME, result.stderr)
        self.assertEqual(result.stdout, "")
        self.assertEqual(len(result.stderr.splitlines()), 1, result.stderr)
        self.assertRegex(result.stderr, r"^verifybench\.peers: error: NumPy is not installed; .*python3-numpy")

    def test_bad_input(self):
        with tempfile.TemporaryDirectory() as tmp:
            self.assertEqual(peers.main([tmp, "--no-time"]), peers.EXIT_BAD_INPUT)
        self.assertEqual(peers.main([CASE_DIR, "--peer", "peer/bogus"]), peers.EXIT_BAD_INPUT)

    def test_malformed_case_json_and_bad_out_are_refused_before_any_peer_runs(self):
        # Issue 48, item 10: these ran every peer, then ended in a traceback with exit 1.
        import shutil
        with_standins("good")
        ran = []
        original = peers.run_peer
        peers.run_peer = lambda *a, **kw: ran.append(a) or original(*a, **kw)
        try:
            with tempfile.TemporaryDirectory() as tmp:
                for name, text in (("list", "[]"), ("no batch", None), ("nan scale", None), ("not json", "{"),
                                   ("deep", "[" * 100000 + "]" * 100000)):
                    case = os.path.join(tmp, name.replace(" ", "_"))
                    shutil.copytree(CASE_DIR, case)
                    if text is None:
                        with open(os.path.join(case, "case.json")) as f:
                            meta = json.load(f)
                        if name == "no batch":
                            del meta["batch"]
                        else:
                            meta["sm_scale"] = float("nan")
                        text = json.dumps(meta)
                    with open(os.path.join(case, "case.json"), "w") as f:
                        f.write(text)
                    err = io.StringIO()
                    with contextlib.redirect_stderr(err):
                        code = peers.main([CASE_DIR, case, "--no-time", "--out", os.path.join(tmp, "p.json")])
                    self.assertEqual(code, peers.EXIT_BAD_INPUT, name)
                    self.assertIn("case.json", err.getvalue(), name)
                for out in (tmp, os.path.join(tmp, "missing", "p.json")):
                    err = io.StringIO()
                    with contextlib.redirect_stderr(err):
                        self.assertEqual(peers.main([CASE_DIR, "--no-time", "--out", out]), peers.EXIT_BAD_INPUT)
                    self.assertIn("--out", err.getvalue())
                for option in ("--noise", "--budget-s", "--min-samples"):
                    for value in ("nan", "inf", "-1"):
                        with contextlib.redirect_stderr(io.StringIO()), self.assertRaises(SystemExit) as caught:
                            peers.main([CASE_DIR, option, value, "--out", os.path.join(tmp, "p.json")])
                        self.assertEqual(caught.exception.code, peers.EXIT_BAD_INPUT, (option, value))
        finally:
            peers.run_peer = original
        self.assertEqual(ran, [])


class Fp8PeersTest(unittest.TestCase):
    """An exported fp8 KV case (VERIFYBENCH_TEST_FP8_CASE): SGLang's float8 pool and its scale
    reach the peers as SGLang passes them, and a peer that drops the scale is incorrect."""

    def setUp(self):
        self.assertTrue(os.path.exists(os.path.join(FP8_CASE_DIR, "case.json")), f"no fp8 export at {FP8_CASE_DIR}")

    def rows(self, which="good"):
        with_standins(which)
        opts = peers.parse_args([FP8_CASE_DIR, "--no-time"])
        opts.not_timed_reason = "no CUDA device"
        return rows_by_executor(peers.run([FP8_CASE_DIR], opts, out=io.StringIO()))

    def test_the_case_reads_as_an_fp8_pool_with_its_scale(self):
        import numpy as np
        from verifybench.casefile import Case, fp8_e4m3_values
        case = Case(FP8_CASE_DIR)
        self.assertEqual(case.kv_dtype, "fp8_e4m3")
        self.assertEqual(np.float32(case.kv_scale), np.float32(0.37))
        pool = case.inputs["k_buffer"]
        self.assertEqual(pool.dtype, np.uint8)
        self.assertEqual(pool.shape[1:], (1, 576))
        # e4m3 codes by hand: 0x38 = 1, 0x7e = 448 (the largest), 0x01 = 2^-9, 0xb4 = -0.75, 0x7f NaN.
        values = fp8_e4m3_values(np.array([0x38, 0x7E, 0x01, 0xB4, 0x7F], np.uint8))
        self.assertEqual(values[:4].tolist(), [1.0, 448.0, 2.0 ** -9, -0.75])
        self.assertTrue(np.isnan(values[4]))
        # The tree rows SGLang keeps in bf16 are the pool's rows dequantized (within bf16 rounding).
        T, first = case.tree_size, case.inputs["block_table"][0, 0]
        prefix = int(case.inputs["prefix_len"][0])
        row = int(first) * case.page_size + prefix  # page size 1 contiguous: token t of request 0 at row first + t
        exact = fp8_e4m3_values(pool[row, 0]).astype(np.float64) * np.float32(case.kv_scale)
        got = case.inputs["k_extend"][0, 0].astype(np.float64)
        self.assertTrue(np.all(np.abs(got - exact) <= np.abs(exact) * 2.0 ** -8), (got[:4], exact[:4]))
        self.assertGreater(T, 0)

    def test_standin_sglang_passes_with_the_scale(self):
        rows = self.rows()
        self.assertEqual(rows["peer/sglang-triton"]["outcome"], "passed", rows["peer/sglang-triton"]["detail"])
        self.assertEqual(rows["peer/flashinfer"]["outcome"], "not run")

    def test_a_peer_without_the_scale_is_incorrect(self):
        import functools
        with_standins("good")
        module = importlib.import_module(peers.SglangTriton.module)
        scaled = module.extend_attention_fwd

        @functools.wraps(scaled)  # the same signature: the runner binds by it
        def unscaled(*args, **kwargs):  # reads the e4m3 values as they are
            return scaled(*args, **dict(kwargs, k_scale=1.0, v_scale=1.0))

        module.extend_attention_fwd = unscaled
        opts = peers.parse_args([FP8_CASE_DIR, "--no-time"])
        opts.not_timed_reason = "no CUDA device"
        rows = rows_by_executor(peers.run([FP8_CASE_DIR], opts, out=io.StringIO()))
        sglang = rows["peer/sglang-triton"]
        self.assertEqual(sglang["outcome"], "incorrect", sglang["detail"])
        self.assertGreater(sglang["o"]["elements_failed"], 0)

    def test_flash_mla_and_flashinfer_take_bf16_pools_only(self):
        from verifybench.casefile import Case
        case = Case(FP8_CASE_DIR)
        self.assertEqual(peers.FlashInfer().supports(case), "bf16 KV only (this case: fp8_e4m3 KV)")

    def test_a_malformed_kv_cache_is_bad_input(self):
        import shutil
        with tempfile.TemporaryDirectory() as tmp:
            for name, change in (("dtype", {"dtype": "fp16"}), ("no scale", {"dtype": "fp8_e4m3"}),
                                 ("nan scale", {"dtype": "fp8_e4m3", "k_scale": float("nan"), "v_scale": 1.0}),
                                 ("a list", [])):
                case = os.path.join(tmp, name.replace(" ", "_"))
                shutil.copytree(FP8_CASE_DIR, case)
                with open(os.path.join(case, "case.json")) as f:
                    meta = json.load(f)
                meta["kv_cache"] = change
                with open(os.path.join(case, "case.json"), "w") as f:
                    json.dump(meta, f)
                err = io.StringIO()
                with contextlib.redirect_stderr(err):
                    self.assertEqual(peers.main([case, "--no-time"]), peers.EXIT_BAD_INPUT, name)
                self.assertIn("kv_cache", err.getvalue(), name)

    def edited_copy(self, tmp, name, **fields):
        """A copy of the fp8 export with case.json's `fields` set (None: removed)."""
        import shutil
        case_dir = os.path.join(tmp, name)
        shutil.copytree(FP8_CASE_DIR, case_dir)
        with open(os.path.join(case_dir, "case.json")) as f:
            meta = json.load(f)
        for field, value in fields.items():
            if value is None:
                meta.pop(field, None)
            else:
                meta[field] = value
        with open(os.path.join(case_dir, "case.json"), "w") as f:
            json.dump(meta, f)
        return case_dir

    def test_the_case_says_its_math(self):
        from verifybench.casefile import Case
        bf16_math, fp8_math = Case(FP8_CASE_DIR), Case(FP8_MATH_CASE_DIR)
        self.assertEqual((bf16_math.math, fp8_math.math), ("bf16", "fp8"))
        # The export with --math fp8 holds the tolerance derived for it: the case's own, wider
        # by the rounding model, which fp8_math keeps beside it.
        base, widened = bf16_math.tolerance, fp8_math.tolerance
        self.assertEqual(fp8_math.meta["fp8_math"]["base_o_atol"], base["o_atol"])
        self.assertGreater(widened["o_atol"], base["o_atol"])
        self.assertGreater(widened["lse_atol"], base["lse_atol"])
        self.assertEqual(widened["o_rtol"], base["o_rtol"])
        with tempfile.TemporaryDirectory() as tmp:
            self.assertEqual(Case(self.edited_copy(tmp, "absent", math=None)).math, "bf16")  # older exports
            self.assertEqual(Case(self.edited_copy(tmp, "fp8", math="fp8")).math, "fp8")
            self.assertEqual(Case(self.edited_copy(tmp, "bf16", math="bf16")).math, "bf16")

    def test_a_malformed_math_is_bad_input(self):
        with tempfile.TemporaryDirectory() as tmp:
            for name, fields, expected in (
                    ("unknown", dict(math="fp16"), "math: 'fp16'; allowed: 'bf16' or 'fp8'"),
                    ("a number", dict(math=1), "math: 1; allowed"),
                    ("bf16 pool", dict(math="fp8", kv_cache={"dtype": "bf16"}),
                     "math: 'fp8'; allowed: 'fp8' only with kv_cache.dtype 'fp8_e4m3'")):
                case = self.edited_copy(tmp, name.replace(" ", "_"), **fields)
                err = io.StringIO()
                with contextlib.redirect_stderr(err):
                    self.assertEqual(peers.main([case, "--no-time"]), peers.EXIT_BAD_INPUT, name)
                self.assertIn(expected, err.getvalue(), name)

    def test_a_pool_of_another_dtype_than_case_json_says_is_refused(self):
        import shutil
        from verifybench.casefile import Case
        with tempfile.TemporaryDirectory() as tmp:
            case_dir = os.path.join(tmp, "c")
            shutil.copytree(FP8_CASE_DIR, case_dir)
            with open(os.path.join(case_dir, "case.json")) as f:
                meta = json.load(f)
            meta["kv_cache"] = {"dtype": "bf16"}
            with open(os.path.join(case_dir, "case.json"), "w") as f:
                json.dump(meta, f)
            with self.assertRaises(ValueError) as caught:
                Case(case_dir).inputs
            self.assertIn("tensor k_buffer: dtype F8_E4M3; case.json's kv_cache.dtype bf16 needs BF16",
                          str(caught.exception))


if __name__ == "__main__":
    unittest.main()

#!/usr/bin/env python3
"""sm_120 build check (issue 26, item 3), run by CTest on every CI build (no GPU, no cuobjdump).

For every kernel of kernels/ built for sm_120 (every .cu but *_sm90a.cu):
  - shared memory: the ptxas report's static bytes + the launcher's dynamic request (from
    the sm120_smem_requests program) <= 101,376 bytes (99 KB, sm_120's per-block limit);
    a kernel built for sm_120 but never launched there (a deeper pipeline) is listed, not held;
  - attention kernels ("mma" in the requests): their sm_120 PTX contains mma.sync; the fp8-math
    instances ("mma-e4m3"): the m16n8k32 e4m3 mma (E4M3_MMA);
  - a kernel no request line names fails (its dynamic request is unknown), and so does a
    request line that names no kernel (the table is stale). A request line's pattern is a
    regular expression searched in the mangled name; the first line that matches applies.
Register spills and local memory already fail the build itself (ptxas -Werror).

Usage:
  check_sm120_kernels.py --requests BIN --nvcc NVCC --src DIR [--work DIR]
      compiles kernels/*/*.cu (not *_sm90a.cu) for sm_120 with ptxas -v, keeping the PTX;
  check_sm120_kernels.py --requests BIN --ptxas-log LOG --ptx PTX [--ptx PTX ...]
      checks a given ptxas log and PTX (the tests feed it broken ones);
  --expect-failure-naming KERNEL: exit 0 only if the check fails with a failure line naming
      KERNEL (a substring of the mangled name): how the tests show that each check can fail.
Exit 0 when every check holds, 1 otherwise (a line per failure, naming the kernel).
"""
import argparse
import glob
import os
import re
import subprocess
import sys
import tempfile

SM120_SMEM_LIMIT = 101376
E4M3_MMA = "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32"

ENTRY_RE = re.compile(r"Compiling entry function '([^']+)' for 'sm_120'")
SMEM_RE = re.compile(r"Used \d+ registers.*?(\d+) bytes smem")
PTX_ENTRY_RE = re.compile(r"^\s*(?:\.(?:visible|weak|extern)\s+)*\.entry\s+([A-Za-z0-9_$]+)\s*\(", re.M)


def parse_ptxas_log(text):
    """{mangled entry name: static smem bytes} of the sm_120 entries of a ptxas -v log."""
    static = {}
    current = None
    for line in text.splitlines():
        m = ENTRY_RE.search(line)
        if m:
            current = m.group(1)
            static[current] = 0  # no "bytes smem" on the Used line means none
            continue
        m = SMEM_RE.search(line)
        if m and current is not None:
            static[current] = int(m.group(1))
            current = None
    return static


def ptx_entry_bodies(text):
    """{mangled entry name: its PTX text up to the next entry}."""
    starts = [(m.start(), m.group(1)) for m in PTX_ENTRY_RE.finditer(text)]
    bodies = {}
    for i, (pos, name) in enumerate(starts):
        end = starts[i + 1][0] if i + 1 < len(starts) else len(text)
        bodies[name] = text[pos:end]
    return bodies


def read_requests(binary):
    out = subprocess.run([binary], check=True, capture_output=True, text=True).stdout
    requests = []
    for line in out.splitlines():
        pattern, dynamic, mma = line.split()
        requests.append((pattern, None if dynamic == "not-launched" else int(dynamic), mma))
    return requests


def compile_sm120(nvcc, src, work):
    """ptxas log and PTX texts of kernels/*/*.cu (not *_sm90a.cu) built for sm_120 alone."""
    sources = sorted(s for s in glob.glob(os.path.join(src, "kernels", "*", "*.cu")) if not s.endswith("_sm90a.cu"))
    log, ptx = "", []
    for source in sources:
        keep = os.path.join(work, os.path.basename(source) + ".keep")
        os.makedirs(keep, exist_ok=True)
        cmd = [nvcc, "-std=c++17", "-O3", "-DNDEBUG", "--expt-relaxed-constexpr",
               "-gencode", "arch=compute_120,code=sm_120",
               "-I" + os.path.join(src, "kernels", "include"), "-I" + os.path.join(src, "kernels"),
               "-Xptxas=-v", "-keep", "-keep-dir", keep, "-cubin", "-o", os.devnull, source]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            sys.stderr.write(run.stdout + run.stderr)
            raise SystemExit(f"check_sm120_kernels: nvcc failed on {source} (exit {run.returncode})")
        log += run.stdout + run.stderr
        for path in glob.glob(os.path.join(keep, "*.ptx")):
            with open(path) as f:
                ptx.append(f.read())
    return log, ptx


def check(static, bodies, requests):
    """(failure lines, report lines)."""
    failures, report = [], []
    used_patterns = set()
    for name in sorted(static):
        match = [r for r in requests if re.search(r[0], name)]
        if not match:
            failures.append(f"{name}: no dynamic shared-memory request known for this sm_120 kernel "
                            "(add its line to tests/build/sm120_smem_requests.cpp)")
            continue
        pattern, dynamic, mma = match[0]
        used_patterns.add(pattern)
        if dynamic is None:
            report.append(f"{name}: static {static[name]} B; not launched on sm_120 (deeper pipeline)")
        else:
            total = static[name] + dynamic
            verdict = "ok" if total <= SM120_SMEM_LIMIT else "OVER"
            report.append(f"{name}: static {static[name]} + dynamic {dynamic} = {total} B "
                          f"(limit {SM120_SMEM_LIMIT}) {verdict}")
            if total > SM120_SMEM_LIMIT:
                failures.append(f"{name}: shared memory static {static[name]} + dynamic {dynamic} = {total} "
                                f"bytes > {SM120_SMEM_LIMIT} (sm_120's per-block limit)")
        if mma != "no-mma":
            needed = E4M3_MMA if mma == "mma-e4m3" else "mma.sync"
            body = bodies.get(name)
            if body is None:
                failures.append(f"{name}: no sm_120 PTX found for this kernel")
            elif needed not in body:
                failures.append(f"{name}: its sm_120 PTX has no {needed} instruction")
            else:
                report.append(f"{name}: {needed} in its sm_120 PTX ({body.count(needed)} instructions)")
    for pattern, _, _ in requests:
        if pattern not in used_patterns:
            failures.append(f"{pattern}: a request line names no sm_120 kernel of the ptxas log (stale table)")
    if not static:
        failures.append("(none): the ptxas log holds no sm_120 entry function")
    return failures, report


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", required=True, help="the sm120_smem_requests program")
    ap.add_argument("--nvcc")
    ap.add_argument("--src")
    ap.add_argument("--work")
    ap.add_argument("--ptxas-log")
    ap.add_argument("--ptx", action="append", default=[])
    ap.add_argument("--expect-failure-naming")
    args = ap.parse_args()

    if args.ptxas_log:
        with open(args.ptxas_log) as f:
            log = f.read()
        ptx = []
        for path in args.ptx:
            with open(path) as f:
                ptx.append(f.read())
    elif args.nvcc and args.src:
        with tempfile.TemporaryDirectory(dir=args.work) as work:
            log, ptx = compile_sm120(args.nvcc, args.src, work)
    else:
        ap.error("give --nvcc and --src, or --ptxas-log and --ptx")

    bodies = {}
    for text in ptx:
        bodies.update(ptx_entry_bodies(text))
    failures, report = check(parse_ptxas_log(log), bodies, read_requests(args.requests))
    for line in report:
        print("check_sm120_kernels: " + line)
    for line in failures:
        print("check_sm120_kernels: FAIL " + line)

    if args.expect_failure_naming:
        named = [f for f in failures if args.expect_failure_naming in f.split(":")[0]]
        if named:
            print(f"check_sm120_kernels: failed as expected, naming {args.expect_failure_naming}")
            return 0
        print(f"check_sm120_kernels: expected a failure naming {args.expect_failure_naming}; got "
              f"{len(failures)} failure(s), none naming it")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env bash
# Per-function machine-code digest of the production kernels: compiles each kernel source to
# cubins (sm_90 and sm_120 for the portable files, sm_90a for *_sm90a.cu) and prints one line
# per function: "<source> <arch> <sha256 of its .text section> <function>". Two trees whose
# digests are equal run the same machine code, so a host-only or comment-only change needs no
# device A/B. No GPU and no cuobjdump needed (cubins are ELF64: the section table is read
# directly). Anonymous-namespace tags in the names (<length>_GLOBAL__N__<hash>_<file>_cu_<hash>)
# become 4anon: the tag follows the file, not the code, so a function that moves to another
# file keeps its name (compare with the source column dropped: awk '{print $2,$3,$4}' | sort).
# Usage: scripts/kernel_text_digest.sh [ROOT] > digest.txt     (ROOT: a source tree, default .)
set -euo pipefail
root=$(cd "${1:-.}" && pwd)
nvcc=${NVCC:-/usr/local/cuda/bin/nvcc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
flags=(-std=c++17 -O3 --expt-relaxed-constexpr -I"$root/kernels/include" -I"$root/kernels" ${VB_DIGEST_FLAGS:-})
digest_cubin() {  # SOURCE ARCH CUBIN
  python3 - "$1" "$2" "$3" <<'PY'
import hashlib, re, struct, sys
source, arch, path = sys.argv[1:]
data = open(path, "rb").read()
shoff, = struct.unpack_from("<Q", data, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
def strip_anon(fn):
    # <length>_GLOBAL__N__<hash>_<n>_<file>_cu_<hash>: the length prefix says where the tag
    # ends, so the name that follows keeps its own length prefix (a name's leading hex digits
    # are not taken for the hash). The file's name and hashes go; "4anon" stays.
    while True:
        m = re.search(r"([0-9]{1,4})_GLOBAL__N__", fn)
        if not m:
            return fn
        for k in range(1, len(m.group(1)) + 1):  # the shortest digit run whose length fits
            start = m.end(1) - k
            end = m.end(1) + int(m.group(1)[-k:])
            if re.search(r"_cu_[0-9a-f]{8}$", fn[m.end(1):end]):
                break
        else:
            raise SystemExit(f"kernel_text_digest: cannot parse the anonymous namespace in {fn}")
        fn = fn[:start] + "4anon" + fn[end:]
def header(i):
    return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
names = header(shstrndx)
def name(off):
    start = names[4] + off
    return data[start:data.index(b"\x00", start)].decode()
for i in range(shnum):
    h = header(i)
    n = name(h[0])
    if n.startswith(".text."):
        code = data[h[4]:h[4] + h[5]]
        print(source, arch, hashlib.sha256(code).hexdigest()[:16], strip_anon(n[len(".text."):]))
PY
}
for src in "$root"/kernels/*.cu "$root"/kernels/*/*.cu; do
  [ -f "$src" ] || continue
  name=${src#"$root"/}
  case "$src" in
    *_sm90a.cu) archs=(sm_90a) ;;
    *) archs=(sm_90 sm_120) ;;
  esac
  for arch in "${archs[@]}"; do
    "$nvcc" "${flags[@]}" -arch="$arch" -cubin -o "$work/k.cubin" "$src"
    digest_cubin "$name" "$arch" "$work/k.cubin"
  done
done | sort -k4

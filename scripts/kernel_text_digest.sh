#!/usr/bin/env bash
# Per-function machine-code digest of the production kernels: compiles each kernel source to
# cubins (sm_90 and sm_120 for the portable files, sm_90a for *_sm90a.cu) and prints one line
# per function: "<source> <arch> <sha256 of its .text section> <function>". Two trees whose
# digests are equal run the same machine code, so a host-only or comment-only change needs no
# device A/B. No GPU and no cuobjdump needed (cubins are ELF64: the section table is read
# directly). Anonymous-namespace tags in the names (_GLOBAL__N__<hash>) are dropped: the hash
# follows the file, not the code.
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
        fn = re.sub(r"_GLOBAL__N__[0-9a-f]+_[0-9]+_[A-Za-z0-9_]+?_cu_[0-9a-f]+", "anon", n[len(".text."):])
        print(source, arch, hashlib.sha256(code).hexdigest()[:16], fn)
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

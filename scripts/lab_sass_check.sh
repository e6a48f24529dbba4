#!/usr/bin/env bash
# Lab-side SASS check (issue 26, item 3), run where the CUDA toolkit has cuobjdump (the
# device machine; CI has none). Per kernel and architecture of BINARY (sm_120, sm_90,
# sm_90a): HMMA, HGMMA, e4m3 MMA (QMMA, or an MMA opcode naming E4M3) and LDL/STL counts
# and the LOCAL bytes of the resource usage. Fails when an sm_120 attention kernel
# (flash_verify_mma_kernel*) has no HMMA or e4m3 MMA, when an sm_120 fp8-math instance (kFp8Math, the
# sixth template argument; names demangled with c++filt) has no e4m3 MMA, or when any kernel
# uses local memory (an LDL/STL instruction or LOCAL > 0).
# Writes the per-kernel report to OUT (text) and exits 1 when a check fails.
# Usage: scripts/lab_sass_check.sh BINARY OUT   (BINARY: verifybench or libvb_kernels.a)
set -uo pipefail
binary=${1:?binary (verifybench or libvb_kernels.a)}
out=${2:?report file}
cuobjdump=${CUOBJDUMP:-$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)}
if [[ ! -x $cuobjdump ]]; then
  echo "lab_sass_check: no cuobjdump (looked for \$CUOBJDUMP, PATH, /usr/local/cuda/bin)" >&2
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

status=0
{
  echo "# SASS check of $(basename "$binary") ($("$cuobjdump" --version | tail -1))"
  echo "# kernel | arch | HMMA | HGMMA | e4m3 MMA | LDL+STL | LOCAL bytes | verdict"
  for arch in sm_120 sm_90 sm_90a; do
    "$cuobjdump" -sass -arch "$arch" "$binary" > "$tmp/sass.$arch" 2>/dev/null || continue
    "$cuobjdump" -res-usage -arch "$arch" "$binary" > "$tmp/res.$arch" 2>/dev/null || true
    # Per function: instruction counts from the SASS, LOCAL from the resource usage.
    awk -v arch="$arch" -v resfile="$tmp/res.$arch" '
      BEGIN {
        while ((getline line < resfile) > 0) {
          if (match(line, /Function [^:]+:/)) { name = substr(line, RSTART + 9, RLENGTH - 10) }
          if (name != "" && match(line, /LOCAL:[0-9]+/)) { local_bytes[name] = substr(line, RSTART + 6, RLENGTH - 6); name = "" }
        }
      }
      function flush() {
        if (fn == "") return
        lb = (fn in local_bytes) ? local_bytes[fn] : "?"
        attention = (fn ~ /flash_verify_mma_kernel/)
        verdict = "ok"
        if (arch == "sm_120" && attention && hmma + qmma == 0) verdict = "FAIL: no tensor-core MMA"
        if (lmem > 0 || (lb != "?" && lb != "0")) verdict = "FAIL: local memory"
        printf "%s | %s | %d | %d | %d | %d | %s | %s\n", fn, arch, hmma, hgmma, qmma, lmem, lb, verdict
      }
      /Function : / { flush(); fn = $3; hmma = 0; hgmma = 0; qmma = 0; lmem = 0; next }
      /HGMMA/ { hgmma++ }
      /HMMA/ { hmma++ }
      /QMMA|MMA[^ ]*E4M3/ { qmma++ }
      /[^A-Z](LDL|STL)[. ]/ { lmem++ }
      END { flush() }
    ' "$tmp/sass.$arch"
  done
} > "$tmp/mangled"
# The fp8-math instances by their demangled template arguments: <stages, token split,
# balanced, params, kFp8Kv, kFp8Math, ...>.
if command -v c++filt > /dev/null; then
  c++filt < "$tmp/mangled" | awk -F' [|] ' '
    $2 == "sm_120" && $1 ~ /flash_verify_mma_kernel<[0-9]+, (true|false), (true|false), [^,]+, true, true/ &&
      $5 == 0 && $8 == "ok" { $8 = "FAIL: fp8 math without e4m3 MMA" }
    { print }' OFS=' | ' > "$out"
else
  { cat "$tmp/mangled"; echo "# no c++filt: the fp8-math instances' e4m3 MMA is not checked"; } > "$out"
fi
if ! grep -q " | sm_120 | " "$out"; then
  echo "lab_sass_check: no sm_120 machine code in $binary" | tee -a "$out" >&2
  status=1
fi
if grep -q "| FAIL" "$out"; then
  grep "| FAIL" "$out" >&2
  status=1
fi
echo "lab_sass_check: $(grep -c ' | sm_120 | ' "$out") sm_120 kernels, $(grep -c '| FAIL' "$out") failing; report in $out"
exit $status

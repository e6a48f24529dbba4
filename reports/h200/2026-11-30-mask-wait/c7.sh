#!/usr/bin/env bash
# Session 15, call 7: SASS of the mma.sync kernel's native and over-writer instances (N5 =
# d01cdd0's verifybench, sm_90), to see whether the over-writer instance's 3-5 % slower tile
# loop (call 5) differs in its code or only in its place. No GPU work: cuobjdump only.
tar xJf .device-carry/s15-c7.tar.xz -C .device-carry || exit 1
O=/tmp/s15c7; mkdir -p $O
cuobjdump -sass -arch sm_90 .device-carry/N5/bin/verifybench > $O/sm90.sass 2> $O/cuobjdump.err; echo "cuobjdump rc=$? $(wc -l < $O/sm90.sass) lines"
cuobjdump -res-usage -arch sm_90 .device-carry/N5/bin/verifybench > $O/sm90-res-usage.txt 2>&1
python3 - "$O" <<'PY'
import re, sys
o = sys.argv[1]
text = open(f"{o}/sm90.sass").read()
parts = re.split(r"\n\s*Function : (\S+)\n", text)
funcs = {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}
want = {}
for name, body in funcs.items():
    if "flash_verify_kernelILi4ELb0ELb0E" in name:
        want["native" if "12VerifyParams" in name else "over"] = body
for k, body in want.items():
    open(f"{o}/plain4-{k}.sass", "w").write(body)
def norm(body):  # instructions without addresses or encodings
    out = []
    for line in body.splitlines():
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?);", line)
        if m: out.append(re.sub(r"0x[0-9a-f]+", "X", m.group(2)).strip())
    return out
if len(want) == 2:
    a, b = norm(want["native"]), norm(want["over"])
    print("instructions native", len(a), "over-writer", len(b))
    import difflib
    d = list(difflib.unified_diff(a, b, lineterm="", n=1))
    open(f"{o}/plain4-native-vs-over.diff", "w").write("\n".join(d))
    print("diff lines", len(d))
    # where the hot loop's HMMAs sit: first and last address of each instance's HMMA run
    for k in ("native", "over"):
        addrs = [int(m.group(1), 16) for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+HMMA", want[k])]
        print(k, "HMMA", len(addrs), "first", hex(min(addrs)) if addrs else None, "last", hex(max(addrs)) if addrs else None)
else:
    print("functions found:", list(want))
PY
gzip -f $O/sm90.sass
tar czf $OUT/s15c7.tgz -C /tmp s15c7

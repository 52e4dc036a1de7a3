#!/usr/bin/env bash
# bench_arm.sh — x86 intrinsic code retargeted to AArch64 Neon, against the hand-written
# Neon version, the x86 source through SIMDe (its SSE/AVX2 on Neon) and plain C, by
# llvm-mca's model of each function's dominant loop (there is no Arm machine here).
#
#   bash tests/retarget/bench_arm.sh [--from sse2|avx2] [--mcpu CPU] [--csv PATH] [THEME|FUNCTION ...]
#
# Per function and way, the AArch64 assembly (clang-19 -O2, C -O3, -mcpu) is read for its
# innermost loops (LLVM's "Inner Loop Header" and "in Loop" comments); the loop measured
# is the one with the most vector instructions (then the most bytes loaded): the steady
# state of the function's vector work. llvm-mca-19 gives its cycles per iteration; divided
# by the bytes it loads per iteration, that is cycles per input byte, comparable across
# ways that unroll differently. The ratio way / retargeted (> 1: the retargeted code is
# faster) per function, and the geomeans. A way whose loop loads nothing, or that has no
# loop, is left out ("-"). Needs build/tine (or TINE), clang-19, llvm-mca-19, python3 and
# /usr/include/simde.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
corpus=$here/corpus
tine=${TINE:-$root/build/tine}
from=sse2 mcpu=neoverse-n1 csv=$PWD/retarget-bench-arm.csv sel=()
while [ $# -gt 0 ]; do
  case $1 in
    --from) from=$2; shift ;;
    --mcpu) mcpu=$2; shift ;;
    --csv) csv=$2; shift ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    -*) echo "bench_arm.sh: unknown option $1" >&2; exit 2 ;;
    *) sel+=("$1") ;;
  esac
  shift
done
case $from in sse2) src_target=x86-64-sse2 simde_h=sse2.h ;; avx2) src_target=x86-64-avx2 simde_h=avx2.h ;;
  *) echo "bench_arm.sh: --from sse2 or avx2" >&2; exit 2 ;; esac
for t in clang-19 llvm-mca-19 python3; do command -v $t >/dev/null || { echo "bench_arm.sh: needs $t" >&2; exit 2; }; done
build=$(mktemp -d "${TMPDIR:-/tmp}/retarget-bench-arm.XXXXXX")
trap 'rm -rf "$build"' EXIT
arm=(--target=aarch64-linux-gnu -mcpu=$mcpu -fno-unroll-loops -S)
cflags="-w -I$corpus"

# The assembly of each way, per theme (a theme without the source variant is skipped).
for f in "$corpus"/*.ref.c; do
  t=$(basename "$f" .ref.c)
  clang-19 "${arm[@]}" -O3 $cflags "$f" -o "$build/$t.c.s" 2>/dev/null
  [ -f "$corpus/$t.neon.c" ] && clang-19 "${arm[@]}" -O2 $cflags "$corpus/$t.neon.c" -o "$build/$t.hand.s" 2>/dev/null
  s=$corpus/$t.$from.c
  [ -f "$s" ] || continue
  if "$tine" retarget "$s" --from $src_target --to arm-64 -o "$build/$t.rt.c" 2>"$build/$t.rt.err"; then
    clang-19 "${arm[@]}" -O2 $cflags "$build/$t.rt.c" -o "$build/$t.rt.s" 2>>"$build/$t.rt.err"
  fi
  sed -E "s|^#include <[a-z0-9]*intrin\.h>|#define SIMDE_ENABLE_NATIVE_ALIASES\n#include <simde/x86/$simde_h>|" "$s" >"$build/$t.simde.c"
  clang-19 "${arm[@]}" -O2 $cflags "$build/$t.simde.c" -o "$build/$t.simde.s" 2>/dev/null
done

python3 - "$build" "$csv" "$mcpu" "$from" "${sel[@]}" <<'EOF'
import sys, os, re, glob, subprocess, math
build, csv_path, mcpu, src = sys.argv[1:5]
sel = sys.argv[5:]
ways = ["rt", "hand", "simde", "c"]
title = {"rt": "retargeted", "hand": "hand Neon", "simde": "SIMDe", "c": "C clang"}

def functions(path):
    """name -> its assembly lines, from an assembly file."""
    out, cur = {}, None
    for line in open(path):
        m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*):", line)
        if m and not line.startswith(".L"):
            cur = m.group(1); out[cur] = []; continue
        if cur and line.startswith(".Lfunc_end"):
            cur = None; continue
        if cur: out[cur].append(line.rstrip("\n"))
    return out

def loops(lines):
    """innermost loop header -> its instructions."""
    res, blk_loop, lab = {}, None, None
    for l in lines:
        m = re.match(r"^(\.LBB\d+_\d+:|// %bb\.\d+:)(.*)$", l)
        cont = re.match(r"^\s+//(.*)$", l)  # a label's comment goes on over lines of its own
        if m or cont:
            c = m.group(2) if m else cont.group(1)
            if m:
                lab = m.group(1)[2:-1] if m.group(1).startswith(".L") else None
                blk_loop = None
            h = re.search(r"=>\s*This Inner Loop Header", c)
            n = re.search(r"in Loop: Header=(BB\d+_\d+)", c)
            if h and lab: blk_loop = lab
            elif n: blk_loop = n.group(1)
            if blk_loop and blk_loop not in res: res[blk_loop] = []
            continue
        if not l.startswith("\t") or l.strip().startswith(".") or not blk_loop: continue
        ins = l.split("//")[0].strip()
        if ins: res[blk_loop].append(ins)
    return res

def reg_bytes(arr):
    return 16 if arr in ("16b", "8h", "4s", "2d") else 8

def load_bytes(ins):
    op = ins.split()[0]
    if op.startswith(("ld1", "ld2", "ld3", "ld4")):
        regs = re.findall(r"v\d+\.(\d+[bhsd]|[bhsd])", ins)
        if not regs: return 0
        lane = "}" in ins and ins.split("}", 1)[1].lstrip().startswith("[")
        if op.endswith("r") or lane:  # a replicated element, or one lane per register
            return {"b": 1, "h": 2, "s": 4, "d": 8}[regs[0][-1]] * (len(regs) if not op.endswith("r") else 1)
        return sum(reg_bytes(r) for r in regs)
    if not op.startswith("ld"): return 0
    pair = op.startswith("ldp")
    if op in ("ldrb", "ldrsb", "ldurb", "ldursb"): return 1
    if op in ("ldrh", "ldrsh", "ldurh", "ldursh"): return 2
    if op in ("ldrsw", "ldursw"): return 4
    m = re.match(r"\S+\s+([qdswxhb])\d+", ins)
    if not m: return 0
    size = {"q": 16, "d": 8, "s": 4, "w": 4, "x": 8, "h": 2, "b": 1}[m.group(1)]
    return size * (2 if pair else 1)

def vector(ins):
    return bool(re.search(r"\bv\d+\.|\bq\d+\b", ins))

def measure(lines):
    best = None
    for hdr, ins in loops(lines).items():
        key = (sum(vector(i) for i in ins), sum(load_bytes(i) for i in ins))
        if best is None or key > best[0]: best = (key, ins)
    if not best or best[0][1] == 0: return None
    out = subprocess.run(["llvm-mca-19", "-mtriple=aarch64", "-mcpu=" + mcpu, "-iterations=200"],
                         input="\n".join(best[1]) + "\n", capture_output=True, text=True)
    m = re.search(r"Total Cycles:\s+(\d+)", out.stdout)
    it = re.search(r"Iterations:\s+(\d+)", out.stdout)
    if not m or not it: return None
    return int(m.group(1)) / int(it.group(1)) / best[0][1], len(best[1]), best[0][1]

asm = {w: {} for w in ways}
theme_of = {}
for w in ways:
    for p in glob.glob(os.path.join(build, "*.%s.s" % w)):
        t = os.path.basename(p).split(".")[0]
        for name, lines in functions(p).items():
            if w == "c":
                if not name.startswith("ref_"): continue
                name = name[4:]
            asm[w][name] = lines
            theme_of.setdefault(name, t)
names = sorted(n for n in asm["c"] if not sel or n in sel or theme_of.get(n) in sel)
res = {}
for n in names:
    for w in ways:
        if n in asm[w]: res[w, n] = measure(asm[w][n])
print("== %s intrinsics retargeted to arm-64, by llvm-mca-19 -mcpu=%s on each function's dominant loop:" % (src, mcpu))
print("   cycles per input byte (lower is faster); ratio = way / retargeted (> 1: the retargeted code is faster)")
hdr = "%-19s" % "function" + "".join("%13s" % title[w] for w in ways) + "".join("%10s" % (w + "/rt") for w in ways[1:])
print(hdr); print("-" * len(hdr))
gm = {w: [] for w in ways[1:]}
rows = []
for n in names:
    r = res.get(("rt", n))
    cells = "".join("%13s" % ("%.3f" % res[w, n][0] if res.get((w, n)) else "-") for w in ways)
    ratios = ""
    row = {"function": n, "theme": theme_of.get(n, "")}
    for w in ways:
        row[w] = "%.4f" % res[w, n][0] if res.get((w, n)) else ""
    for w in ways[1:]:
        x = res.get((w, n))
        if r and x:
            q = x[0] / r[0]; gm[w].append(q); ratios += "%10.2f" % q; row[w + "_over_rt"] = "%.4f" % q
        else:
            ratios += "%10s" % "-"
    rows.append(row)
    print("%-19s" % n + cells + ratios)
print("-" * len(hdr))
g = lambda xs: math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")
print("%-19s" % "geomean" + " " * 13 * len(ways) + "".join("%10.2f" % g(gm[w]) for w in ways[1:]))
print("%-19s" % "  over N functions" + " " * 13 * len(ways) + "".join("%10d" % len(gm[w]) for w in ways[1:]))
cols = ["function", "theme"] + ways + [w + "_over_rt" for w in ways[1:]]
with open(csv_path, "w") as f:
    f.write(",".join(cols) + "\n")
    for row in rows: f.write(",".join(str(row.get(c, "")) for c in cols) + "\n")
print("\nCSV: %s" % csv_path)
EOF

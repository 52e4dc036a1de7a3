#!/usr/bin/env bash
# Per function of the retarget corpus (tests/retarget/corpus), the speed of each way to
# get x86 code from the Neon source, measured side by side on this machine (bench.md):
#
#   retargeted  tine retarget THEME.neon.c --from arm-64 --to x86-64-avx2, clang-19 -O2
#   hand        the corpus's own x86 code: THEME.avx2.c, else .sse41.c, else .sse2.c
#   SIMDe       THEME.neon.c through <simde/arm/neon.h> (native aliases), clang-19 -O2
#   C clang     THEME.ref.c (ref_NAME), clang-19 -O3 (autovectorized)
#   C gcc       THEME.ref.c, gcc -O3
#
# all with -march=x86-64-v3 (with --sse41 also a second level: --to x86-64-sse41, hand
# .sse41.c else .sse2.c, every way with -msse4.1). Every way is first checked against the
# reference with the corpus harness (differential mode); a function that fails is marked
# and not timed for that way. Then the harness binaries (one per way) run in --bench mode,
# in rounds: each round times every function with every binary, the binaries for one
# function right after each other (in an order that rotates). Per function and way the
# table gives the median over rounds of the per-run median ns per call and its spread
# over the rounds, and the ratios to the retargeted time (per round, median over rounds).
#
#   bash tests/retarget/bench.sh [--quick] [--sse41] [options] [NAME|THEME ...]
#
#   --quick             5 rounds, 5 batches of 1 ms, n=1024 w=128 h=32 (under 2 minutes)
#   --rounds N          rounds (default 21)         --batches B   batches per run (7)
#   --ms MS             batch length in ms (2)      --n N --w W --h H   sizes (4096 256 64)
#   --sse41             also time the x86-64-sse41 level   --only-sse41  only that level
#   --csv PATH          CSV output (default $PWD/retarget-bench.csv)
#   --build-dir DIR     build directory, wiped first (default build/retarget-bench)
#   --check-iters K     iterations of the correctness check per function (30)
#   --clock C           monotonic (CLOCK_MONOTONIC, default) or cpu (the thread's CPU time)
#   --no-gcc            skip the gcc -O3 column
#   --no-simde-shim     do not time SIMDe for functions that need an intrinsic SIMDe lacks
#   --rt128             also time the retargeted code with --no-widen (column "rt --no-widen")
#   NAME|THEME ...      only these functions
#
# Environment: TINE (default build/tine), CC_CLANG (clang-19), CC_GCC (gcc), PYTHON
# (python3), BENCH_JOBS (parallel compiles, default nproc).
# Word splitting of the flag strings is intended.
# shellcheck disable=SC2086
set -u
here=$(cd "$(dirname "$0")" && pwd)
corpus=$here/corpus
root=$(cd "$here/../.." && pwd)
tine=${TINE:-$root/build/tine}
clang=${CC_CLANG:-clang-19}
gcc=${CC_GCC:-gcc}
python=${PYTHON:-python3}
jobs=${BENCH_JOBS:-$(nproc 2>/dev/null || echo 2)}

quick=0
for a in "$@"; do [ "$a" = --quick ] && quick=1; done
if [ $quick = 1 ]; then
  rounds=5 batches=5 ms=1 n=1024 w=128 h=32 check_iters=30
else
  rounds=21 batches=7 ms=2 n=4096 w=256 h=64 check_iters=30
fi
levels=(avx2) csv=$PWD/retarget-bench.csv build=$root/build/retarget-bench
use_gcc=1 use_rt128=0 simde_shim=1 sel=() clock=monotonic
# find_byte: a byte that never occurs, so that every call scans all n bytes (bench.md)
bench_sets=(--bench-set 'find_byte:c=0;arg1=1..255')
usage() { sed -n '2,/^# Environment/p' "$0" | sed 's/^# \{0,1\}//'; }
need() { [ $# -ge 2 ] || { echo "bench.sh: $1 needs a value" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
  case $1 in
    --quick) ;;
    --sse41) levels=(avx2 sse41) ;;
    --only-sse41) levels=(sse41) ;;
    --rounds) need "$@"; rounds=$2; shift ;;
    --batches) need "$@"; batches=$2; shift ;;
    --ms) need "$@"; ms=$2; shift ;;
    --n) need "$@"; n=$2; shift ;;
    --w) need "$@"; w=$2; shift ;;
    --h) need "$@"; h=$2; shift ;;
    --csv) need "$@"; csv=$2; shift ;;
    --build-dir) need "$@"; build=$2; shift ;;
    --check-iters) need "$@"; check_iters=$2; shift ;;
    --clock) need "$@"; clock=$2; shift ;;
    --no-gcc) use_gcc=0 ;;
    --no-simde-shim) simde_shim=0 ;;
    --rt128) use_rt128=1 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "bench.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) sel+=("$1") ;;
  esac
  shift
done
case $csv in /*) ;; *) csv=$PWD/$csv ;; esac
[ -x "$tine" ] || { echo "bench.sh: no tine binary at $tine (build it, or set TINE)" >&2; exit 2; }
[ -f /usr/include/simde/arm/neon.h ] || echo "bench.sh: warning: no SIMDe (/usr/include/simde); the SIMDe column will fail" >&2
t_start=$(date +%s)

declare -A lvl_target=([avx2]=x86-64-avx2 [sse41]=x86-64-sse41)
declare -A lvl_isa=([avx2]="-march=x86-64-v3" [sse41]="-msse4.1")
declare -A lvl_hand=([avx2]="avx2 sse41 sse2" [sse41]="sse41 sse2")
ways=(rt hand simde c)
[ $use_gcc = 1 ] && ways+=(gcc)
[ $use_rt128 = 1 ] && ways+=(rt128)
declare -A way_variant=([rt]=neon [rt128]=neon [simde]=neon [c]=ref [gcc]=ref)
# the harness's --variant for LEVEL WAY: hand code is "avx2+sse41+sse2" (any of them)
variant_of() { if [ "$2" = hand ]; then echo "${lvl_hand[$1]// /+}"; else echo "${way_variant[$2]}"; fi; }

rm -rf "$build"
mkdir -p "$build"
cflags="-Wall -Wno-unused-parameter -Wno-unused-function"

# 1. The prototypes, the list of functions, the harness and the reference it checks against.
if ! gcc -O2 -DHARNESS_PROTOS_ONLY -I"$corpus" "$corpus/harness.c" -o "$build/protogen" 2>"$build/protogen.log"; then
  cat "$build/protogen.log"; echo "bench.sh: cannot build the prototype generator"; exit 1
fi
"$build/protogen" --protos >"$build/corpus_protos.h" || { echo "bench.sh: bad corpus.def"; exit 1; }
"$build/protogen" --list >"$build/list.tsv"
inc="-include $build/corpus_protos.h"
all_names=()
while IFS=$'\t' read -r name theme _; do all_names+=("$name"); done <"$build/list.tsv"
fnames=()
if [ ${#sel[@]} -eq 0 ]; then
  fnames=("${all_names[@]}")
else
  while IFS=$'\t' read -r name theme _; do
    for s in "${sel[@]}"; do
      if [ "$s" = "$name" ] || [ "$s" = "$theme" ]; then fnames+=("$name"); break; fi
    done
  done <"$build/list.tsv"
  [ ${#fnames[@]} -gt 0 ] || { echo "bench.sh: no function matches ${sel[*]}"; exit 2; }
fi
printf '%s\n' "${fnames[@]}" >"$build/selected.txt"
# ref_NAME -> NAME, to make the -O3 reference a "variant" of the harness
while IFS=$'\t' read -r name _; do echo "ref_$name $name"; done <"$build/list.tsv" >"$build/rename.txt"

# pool: tests/pool.sh (at most $jobs commands at a time)
# shellcheck source=/dev/null
source "$here/../pool.sh"

# 2. SIMDe: the Neon files with <simde/arm/neon.h> instead of <arm_neon.h>, and a shim for
#    the few intrinsics that this SIMDe lacks (each written with SIMDe's own intrinsics,
#    each only where SIMDe does not define it).
mkdir -p "$build/simde-src"
cat >"$build/simde_shim.h" <<'EOF'
/* bench.sh: Neon intrinsics missing from SIMDe 0.7.4, written with SIMDe's intrinsics. */
#ifndef vst1q_u8_x2
static inline void bench_vst1q_u8_x2(uint8_t *p, uint8x16x2_t v) { vst1q_u8(p, v.val[0]); vst1q_u8(p + 16, v.val[1]); }
#define vst1q_u8_x2 bench_vst1q_u8_x2
#endif
#ifndef vst1q_s16_x2
static inline void bench_vst1q_s16_x2(int16_t *p, int16x8x2_t v) { vst1q_s16(p, v.val[0]); vst1q_s16(p + 8, v.val[1]); }
#define vst1q_s16_x2 bench_vst1q_s16_x2
#endif
#ifndef vqmovun_high_s16
#define vqmovun_high_s16(r, a) vcombine_u8((r), vqmovun_s16(a))
#endif
#ifndef vqrshrun_high_n_s16
#define vqrshrun_high_n_s16(r, a, n) vcombine_u8((r), vqrshrun_n_s16((a), (n)))
#endif
#ifndef vrshrn_high_n_u16
#define vrshrn_high_n_u16(r, a, n) vcombine_u8((r), vrshrn_n_u16((a), (n)))
#endif
#ifndef vraddhn_u16 /* (a + b + 128) >> 8, the sum modulo 2^16 */
#define vraddhn_u16(a, b) vshrn_n_u16(vaddq_u16(vaddq_u16((a), (b)), vdupq_n_u16(128)), 8)
#endif
#ifndef vsliq_n_u32
#define vsliq_n_u32(a, b, n) \
  vorrq_u32(vshlq_n_u32((b), (n)), vandq_u32((a), vdupq_n_u32((uint32_t)((1ull << (n)) - 1))))
#endif
#ifndef vmlaq_lane_s16
#define vmlaq_lane_s16(a, b, v, lane) vmlaq_s16((a), (b), vdupq_lane_s16((v), (lane)))
#endif
#ifndef vshll_high_n_u8
#define vshll_high_n_u8(a, n) vshll_n_u8(vget_high_u8(a), (n))
#endif
#ifndef vabal_u8
#define vabal_u8(a, b, c) vaddq_u16((a), vabdl_u8((b), (c)))
#endif
#ifndef vabal_high_u8
#define vabal_high_u8(a, b, c) vaddq_u16((a), vabdl_u8(vget_high_u8(b), vget_high_u8(c)))
#endif
#ifndef vmull_high_n_u16
#define vmull_high_n_u16(a, b) vmull_n_u16(vget_high_u16(a), (b))
#endif
EOF
shim_names=$(sed -n 's/^#ifndef \([a-z0-9_]*\).*/\1/p' "$build/simde_shim.h")
{
  printf '#define SIMDE_ENABLE_NATIVE_ALIASES\n#include <simde/arm/neon.h>\n#include <stdio.h>\nint main(void) {\n'
  for s in $shim_names; do printf '#ifndef %s\n  puts("%s");\n#endif\n' "$s" "$s"; done
  printf '  return 0;\n}\n'
} >"$build/simde_probe.c"
if $clang -w "$build/simde_probe.c" -o "$build/simde_probe" 2>"$build/simde_probe.log"; then
  "$build/simde_probe" >"$build/simde_missing.txt"
else
  : >"$build/simde_missing.txt"
fi
for f in "$corpus"/*.neon.c; do
  sed "s|^#include <arm_neon.h>|#define SIMDE_ENABLE_NATIVE_ALIASES\n#include <simde/arm/neon.h>\n#include \"$build/simde_shim.h\"|" \
    "$f" >"$build/simde-src/$(basename "$f" .neon.c).c"
done

# 3. Sources and compile commands, per level and way.
cmds=("$clang -O2 $cflags -I'$corpus' -c '$corpus/harness.c' -o '$build/harness.o'")
mkdir -p "$build/refchk"
for f in "$corpus"/*.ref.c; do
  cmds+=("$clang -O2 $cflags $inc -c '$f' -o '$build/refchk/$(basename "$f" .c).o'")
done
for L in "${levels[@]}"; do
  isa=${lvl_isa[$L]}
  for W in "${ways[@]}"; do mkdir -p "$build/$L/$W"; done
  # hand: per function the first of the level's variants that corpus.def lists; a file's
  # other definitions of it are made local (objcopy) so the chosen one is linked.
  read -ra hv <<<"${lvl_hand[$L]}"
  awk -F'\t' -v order="${lvl_hand[$L]}" '{
      k = split(order, o, " "); src = "-"
      for (i = 1; i <= k; i++) if ((" " $3 " ") ~ (" " o[i] " ")) { src = o[i]; break }
      print $1 "\t" src }' "$build/list.tsv" >"$build/$L/handsrc.tsv"
  for v in "${hv[@]}"; do
    awk -F'\t' -v v="$v" '$2 != v { print $1 }' "$build/$L/handsrc.tsv" >"$build/$L/hand/localize.$v"
    for f in "$corpus"/*."$v".c; do
      [ -e "$f" ] || continue
      o="$build/$L/hand/$(basename "$f" .c).o"
      cmds+=("$clang -O2 $isa $cflags $inc -c '$f' -o '$o' && objcopy --localize-symbols='$build/$L/hand/localize.$v' '$o'")
    done
  done
  mkdir -p "$build/$L/rt/src"
  for f in "$corpus"/*.neon.c; do
    t=$(basename "$f" .neon.c) out="$build/$L/rt/src/$t.c"
    cmds+=("'$tine' retarget '$f' --from arm-64 --to ${lvl_target[$L]} -o '$out' && $clang -O2 $isa $cflags $inc -c '$out' -o '$build/$L/rt/$t.o'")
    if [ $use_rt128 = 1 ]; then
      mkdir -p "$build/$L/rt128/src"
      o128="$build/$L/rt128/src/$t.c"
      cmds+=("'$tine' retarget '$f' --from arm-64 --to ${lvl_target[$L]} --no-widen -o '$o128' && $clang -O2 $isa $cflags $inc -c '$o128' -o '$build/$L/rt128/$t.o'")
    fi
  done
  for f in "$build"/simde-src/*.c; do
    cmds+=("$clang -O2 $isa $cflags $inc -c '$f' -o '$build/$L/simde/$(basename "$f" .c).o'")
  done
  for f in "$corpus"/*.ref.c; do
    t=$(basename "$f" .ref.c)
    cmds+=("$clang -O3 $isa $cflags $inc -c '$f' -o '$build/$L/c/$t.o' && objcopy --redefine-syms='$build/rename.txt' '$build/$L/c/$t.o'")
    [ $use_gcc = 1 ] && cmds+=("$gcc -O3 $isa $cflags $inc -c '$f' -o '$build/$L/gcc/$t.o' && objcopy --redefine-syms='$build/rename.txt' '$build/$L/gcc/$t.o'")
  done
done
echo "bench.sh: building ${#cmds[@]} objects in $build ..."
pool "${cmds[@]}"
if [ ! -e "$build/harness.o" ] || ! compgen -G "$build/refchk/*.o" >/dev/null; then
  cat "$build"/failed/* 2>/dev/null; echo "bench.sh: cannot build the harness"; exit 1
fi
for f in "$build"/failed/*; do
  [ -e "$f" ] || continue
  echo "bench.sh: build failed (its functions are marked MISSING for that way):"
  head -c 1500 "$f"; echo
done

# 4. Link one harness per level and way; a way whose file failed lacks those functions
#    (weak symbols: the check reports them MISSING).
for L in "${levels[@]}"; do
  for W in "${ways[@]}"; do
    objs=$(compgen -G "$build/$L/$W/*.o")
    if ! $clang "$build/harness.o" "$build"/refchk/*.o $objs -o "$build/$L/$W/harness" 2>"$build/$L/$W/link.log"; then
      cat "$build/$L/$W/link.log"; echo "bench.sh: cannot link $L/$W"; exit 1
    fi
  done
done

# Run the harness BIN with ARGS... on the function names after "--", at most 60 at a time
# (the harness takes 64 selections); no names at all means every function.
run_names() {
  local args=() names=() i
  while [ "$1" != -- ]; do args+=("$1"); shift; done
  shift
  names=("$@")
  if [ ${#names[@]} -eq ${#all_names[@]} ]; then "${args[@]}"; return; fi
  for ((i = 0; i < ${#names[@]}; i += 60)); do "${args[@]}" "${names[@]:i:60}"; done
}

# 5. Check every way against the reference (the harness's differential mode); a fault
#    ends a harness run, so the functions after it are checked in a new run.
check_way() { # LEVEL WAY
  local dir=$build/$1/$2 left=("${fnames[@]}") next f line st
  : >"$dir/check.log"
  while [ ${#left[@]} -gt 0 ]; do
    run_names "$dir/harness" --variant "$(variant_of "$1" "$2")" --iters "$check_iters" -- "${left[@]}" >>"$dir/check.log" 2>&1
    next=()
    for f in "${left[@]}"; do grep -q "^$f: " "$dir/check.log" || next+=("$f"); done
    if [ ${#next[@]} -eq ${#left[@]} ]; then
      for f in "${next[@]}"; do echo "$f: ABORTED" >>"$dir/check.log"; done
      break
    fi
    left=("${next[@]}")
  done
  for f in "${fnames[@]}"; do
    line=$(grep -m1 "^$f: " "$dir/check.log")
    st=${line#"$f: "}
    printf '%s\t%s\n' "$f" "${st%% *}"
  done >"$dir/status.tsv"
}
"$python" - "$build" <<'EOF' >"$build/simde_shimmed.tsv"
# Which corpus functions (with the static helpers they call) use an intrinsic that the
# SIMDe shim supplies: NAME<TAB>intrinsics.
import re, sys, glob, os
build = sys.argv[1]
missing = open(os.path.join(build, "simde_missing.txt")).read().split()
funcs = {l.split("\t")[0] for l in open(os.path.join(build, "list.tsv"))}
for path in sorted(glob.glob(os.path.join(build, "simde-src", "*.c"))):
    text = open(path).read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    chunks, cur = {}, None
    for line in text.split("\n"):
        if re.match(r"[A-Za-z_]", line):          # a top-level definition starts
            m = re.search(r"([A-Za-z_]\w*)\s*\(", line)
            cur = m.group(1) if m else None
            if cur: chunks[cur] = ""
        if cur: chunks[cur] += line + "\n"
    def uses(name, seen):
        found = {m for m in missing if re.search(r"\b%s\b" % m, chunks[name])}
        for other in chunks:
            if other not in seen and other not in funcs and re.search(r"\b%s\b" % other, chunks[name]):
                seen.add(other)
                found |= uses(other, seen)
        return found
    for name in chunks:
        if name in funcs:
            u = uses(name, {name})
            if u: print("%s\t%s" % (name, " ".join(sorted(u))))
EOF
echo "bench.sh: checking every way against the reference ($check_iters iterations per function) ..."
for L in "${levels[@]}"; do
  for W in "${ways[@]}"; do
    check_way "$L" "$W"
    if [ "$W" = simde ] && [ $simde_shim = 0 ]; then # not timed: marked noshim
      awk -F'\t' 'NR == FNR { s[$1] = 1; next } { print $1 "\t" ($1 in s && $2 == "ok" ? "noshim" : $2) }' \
        "$build/simde_shimmed.tsv" "$build/$L/$W/status.tsv" >"$build/$L/$W/status.tmp"
      mv "$build/$L/$W/status.tmp" "$build/$L/$W/status.tsv"
    fi
    bad=$(awk -F'\t' '$2 != "ok" && $2 != "noshim" { printf " %s(%s)", $1, $2 }' "$build/$L/$W/status.tsv")
    [ -n "$bad" ] && echo "  $L/$W: not timed:$bad"
  done
done

# 6. Time. A round times every function once with every binary, function by function:
#    the binaries that time one function run one right after the other (their order
#    rotates with the function and the round), so a slow spell of this machine hits
#    all the ways of a function alike.
bench_args=(--bench --bench-clock "$clock" --bench-n "$n" --bench-w "$w" --bench-h "$h" --bench-ms "$ms"
            --bench-batches "$batches" "${bench_sets[@]}")
runs=()
for L in "${levels[@]}"; do for W in "${ways[@]}"; do runs+=("$L/$W"); done; done
declare -A timed
for LW in "${runs[@]}"; do
  while IFS=$'\t' read -r f st; do [ "$st" = ok ] && timed[$LW/$f]=1; done <"$build/$LW/status.tsv"
done
echo "bench.sh: timing ${#fnames[@]} functions, ${#runs[@]} binaries, $rounds rounds ($batches batches of $ms ms; n=$n w=$w h=$h; clock $clock) ..."
for ((r = 1; r <= rounds; r++)); do
  for ((i = 0; i < ${#fnames[@]}; i++)); do
    f=${fnames[$i]}
    for ((k = 0; k < ${#runs[@]}; k++)); do
      LW=${runs[$(((k + r + i) % ${#runs[@]}))]}
      [ -n "${timed[$LW/$f]-}" ] || continue
      L=${LW%/*} W=${LW#*/}
      "$build/$LW/harness" --variant "$(variant_of "$L" "$W")" "${bench_args[@]}" "$f" \
        >>"$build/$LW/run.$r.tsv" 2>>"$build/$LW/run.$r.err" ||
        echo "  round $r $LW $f: harness exit $? ($(tail -1 "$build/$LW/run.$r.tsv"))"
    done
  done
  echo "  round $r/$rounds done ($(($(date +%s) - t_start)) s)"
done

# 7. The table and the CSV.
"$python" - "$build" "$csv" "$rounds" "${levels[*]}" "${ways[*]}" \
  "n=$n w=$w h=$h, $rounds rounds x $batches batches of $ms ms, clock $clock" <<'EOF'
import sys, os, math, statistics
build, csv_path, rounds, levels, ways, params = sys.argv[1:7]
rounds, levels, ways = int(rounds), levels.split(), ways.split()
title = {"rt": "retargeted", "hand": "hand", "simde": "SIMDe", "c": "C clang", "gcc": "C gcc", "rt128": "rt --no-widen"}
short = {"hand": "hand/rt", "simde": "SIMDe/rt", "c": "clang/rt", "gcc": "gcc/rt", "rt128": "128/rt"}
target = {"avx2": ("x86-64-avx2", "-march=x86-64-v3"), "sse41": ("x86-64-sse41", "-msse4.1")}
sel = open(os.path.join(build, "selected.txt")).read().split()
theme = {l.split("\t")[0]: l.split("\t")[1] for l in open(os.path.join(build, "list.tsv"))}
shimmed = dict(l.rstrip("\n").split("\t") for l in open(os.path.join(build, "simde_shimmed.tsv")))
ratio_ways = [w for w in ways if w != "rt"]
rows_csv = []

def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))
def quartiles(xs):
    if len(xs) < 2: return xs[0], xs[0]
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return q[0], q[2]

for L in levels:
    hand_src = dict(l.rstrip("\n").split("\t") for l in open(os.path.join(build, L, "handsrc.tsv")))
    status, runs, args, checklog = {}, {}, {}, {}
    for w in ways:
        status[w] = dict(l.rstrip("\n").split("\t", 1) for l in open(os.path.join(build, L, w, "status.tsv")))
        for l in open(os.path.join(build, L, w, "check.log")):
            fn = l.split(":")[0]
            if fn in status[w] and status[w][fn] not in ("ok", "noshim"): checklog.setdefault((w, fn), l.strip())
        for r in range(1, rounds + 1):
            p = os.path.join(build, L, w, "run.%d.tsv" % r)
            if not os.path.exists(p): continue
            for l in open(p):
                f = l.rstrip("\n").split("\t")
                if len(f) >= 6:
                    runs[w, f[0], r] = float(f[1])
                    args.setdefault(f[0], f[5])
    stat = {}   # (way, fn) -> median, min, max, q1, q3, rounds: of the per-round medians
    for w in ways:
        for fn in sel:
            xs = [runs[w, fn, r] for r in range(1, rounds + 1) if (w, fn, r) in runs]
            if xs: stat[w, fn] = (statistics.median(xs), min(xs), max(xs)) + quartiles(xs) + (len(xs),)
    # ratio: way ns / retargeted ns, paired by round (the two ran a moment apart), median
    # over rounds; its quartiles; and, for the CSV, the ratio of the two medians
    ratio, rspread, rmed = {}, {}, {}
    for fn in sel:
        for w in ratio_ways:
            rr = [runs[w, fn, r] / runs["rt", fn, r] for r in range(1, rounds + 1)
                  if (w, fn, r) in runs and ("rt", fn, r) in runs]
            if rr:
                ratio[w, fn] = statistics.median(rr)
                rspread[w, fn] = quartiles(rr)
                rmed[w, fn] = stat[w, fn][0] / stat["rt", fn][0]

    def cell(w, fn):
        if (w, fn) in stat:
            m, lo, hi, q1, q3, _ = stat[w, fn]
            mark = "+" if w == "simde" and fn in shimmed else " "
            return "%9.1f%s%4.0f%%" % (m, mark, 100 * (q3 - q1) / m)
        st = status[w].get(fn, "?")
        return {"ok": "no data", "skipped": "n/a", "MISSING": "no build", "noshim": "(shim)"}.get(st, st)
    tgt, isa = target[L]
    print()
    print("== %s: ns per call (median over rounds) and IQR/median over rounds; clang-19 -O2 %s, C -O3 %s;"
          % (tgt, isa, isa))
    print("   %s" % params)
    print("   ratio = way / retargeted, per round, median over rounds (> 1: the retargeted code is faster);"
          " hand = the hand file used;")
    print("   '+' = SIMDe with the bench shim for an intrinsic SIMDe lacks")
    hdr = "%-19s %-5s" % ("function", "hand") + "".join("%16s" % title[w] for w in ways) + \
          "".join("%9s" % short[w] for w in ratio_ways)
    print(hdr)
    print("-" * len(hdr))
    for fn in sel:
        line = "%-19s %-5s" % (fn, hand_src.get(fn, "-")) + "".join("%16s" % cell(w, fn) for w in ways)
        line += "".join("%9s" % ("%.2f" % ratio[w, fn] if (w, fn) in ratio else "-") for w in ratio_ways)
        print(line)
        row = {"level": tgt, "function": fn, "theme": theme.get(fn, ""), "hand_src": hand_src.get(fn, ""),
               "args": args.get(fn, ""), "simde_shim": shimmed.get(fn, "")}
        for w in ways:
            m = stat.get((w, fn))
            for i, k in enumerate(("ns", "min", "max", "q1", "q3")):
                row["%s_%s" % (w, k)] = "%.3f" % m[i] if m else ""
            row[w + "_rounds"] = m[5] if m else 0
            row[w + "_status"] = status[w].get(fn, "")
        for w in ratio_ways:
            row[w + "_over_rt"] = "%.4f" % ratio[w, fn] if (w, fn) in ratio else ""
            row[w + "_over_rt_q1"] = "%.4f" % rspread[w, fn][0] if (w, fn) in ratio else ""
            row[w + "_over_rt_q3"] = "%.4f" % rspread[w, fn][1] if (w, fn) in ratio else ""
            row[w + "_over_rt_medians"] = "%.4f" % rmed[w, fn] if (w, fn) in ratio else ""
        rows_csv.append(row)
    print("-" * len(hdr))
    gm = {w: [ratio[w, fn] for fn in sel if (w, fn) in ratio] for w in ratio_ways}
    pad = " " * (25 + 16 * len(ways) - 25)
    print("%-25s" % "geomean" + pad + "".join("%9s" % ("%.2f" % gmean(gm[w]) if gm[w] else "-") for w in ratio_ways))
    print("%-25s" % "  over N functions" + pad + "".join("%9d" % len(gm[w]) for w in ratio_ways))
    grow = {"level": tgt, "function": "GEOMEAN"}
    for w in ratio_ways:
        grow[w + "_over_rt"] = "%.4f" % gmean(gm[w]) if gm[w] else ""
        grow[w + "_rounds"] = len(gm[w])
    rows_csv.append(grow)
    if "simde" in ratio_ways:
        pure = [ratio["simde", fn] for fn in sel if ("simde", fn) in ratio and fn not in shimmed]
        if pure and len(pure) < len(gm["simde"]):
            print("SIMDe/rt geomean without the '+' functions: %.2f over %d functions" % (gmean(pure), len(pure)))
    for w in ("hand", "simde"):
        worst = sorted((ratio[w, fn], fn) for fn in sel if (w, fn) in ratio)[:5]
        if worst:
            print("retargeted slowest relative to %s (%s): %s" % (
                title[w], short[w], ", ".join("%s %.2f" % (fn, x) for x, fn in worst)))
    used = ["%s: %s" % (k, v) for k, v in sorted(shimmed.items()) if k in sel]
    if used: print("'+': the intrinsics the shim supplies: " + "; ".join(used))
    for (w, fn), l in sorted(checklog.items()):
        print("not timed, %s: %s" % (title[w], l))

cols = ["level", "function", "theme", "hand_src", "args"]
for w in ways: cols += ["%s_%s" % (w, k) for k in ("ns", "min", "max", "q1", "q3", "rounds", "status")]
for w in ratio_ways: cols += [w + "_over_rt", w + "_over_rt_q1", w + "_over_rt_q3", w + "_over_rt_medians"]
cols += ["simde_shim"]
with open(csv_path, "w") as out:
    out.write(",".join(cols) + "\n")
    for row in rows_csv:
        out.write(",".join('"%s"' % row.get(c, "") if c in ("args", "simde_shim") else str(row.get(c, ""))
                           for c in cols) + "\n")
print("\nCSV: %s" % csv_path)
EOF
echo "bench.sh: done in $(($(date +%s) - t_start)) s"

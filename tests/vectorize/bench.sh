#!/usr/bin/env bash
# bench.sh — `tine bench --vectorize`: Diospyros's kernels (bench/vectorize: 2-D convolution,
# matrix multiply, quaternion product, QR decomposition; f32), vectorized by `tine
# vectorize`, against the peers a user would reach for, on this machine's x86 rows:
#
#   tine         tine vectorize FILE.c --function NAME --target T --emit obj (its header,
#                --emit h, is included by the driver: its prototype must agree with the C):
#                strict mode, tine's default, the C's own operations in the C's order
#   tine reassoc the same with --reassociate (+ and * reassociate and commute: equal to the
#                C over the reals, not bit for bit), its symbol renamed reassoc_NAME
#   naive        the same C file, clang-19 -O3 FLAGS: Diospyros's "Naive (fixed size)";
#                clang's default -ffp-contract=on (a * b + c fused within one expression)
#   naive nofma  the same at -ffp-contract=off: C's own order of operations, which is what
#                tine's strict mode (its default) must compute, bit for bit
#   naive restrict  the same C with `restrict` on the kernel's outputs (kernels.py restrict),
#                as naive: what tine assumes and the C does not say, that no output
#                overlaps an input (tine's code is wrong for a call with out == a; clang's
#                naive code is right and pays for it)
#   Eigen        bench/vectorize/eigen.cpp, Eigen 3.4 fixed-size maps, clang++-19 -O3 FLAGS
#
# rows: x86-64-avx2 (tine --target x86-64-avx2, FLAGS -march=x86-64-v3) and x86-64-avx512
# (--target x86-64-avx512, FLAGS -march=native), each when this CPU runs it.
#
# Per row and kernel, one driver (kernels.py + driver.h) holds every implementation and the
# C at -O0 -ffp-contract=off (ref). First it checks each against ref on random inputs:
# tine and nofma must be bit-exact (unless --tine-flags has --contract or --reassociate:
# then tine's largest difference is reported), tine reassoc, naive and Eigen within
# rounding (1e-3 of the largest output; tine reassoc's largest difference, absolute and
# relative, is in the table, every one's in the CSV); for QR every implementation must
# also give A = QR with Q orthogonal (1e-4), which is all that is checked of Eigen's QR
# (its signs differ).
# A failing implementation is reported and not timed. Then the implementations are timed
# in the same process, interleaved: ROUNDS rounds, each visiting every implementation once
# in a fresh seeded shuffled order, a visit being one untimed run and BATCHES batches of
# back-to-back calls on the same inputs (each batch about MS ms; the visit's value is the
# median ns per call of its batches). Per kernel the table gives the median over rounds
# and IQR/median, the ratios peer / tine and naive / tine reassoc, Eigen / tine reassoc
# paired by round (median and IQR over rounds), and tine's compile time in both modes and
# peak memory (wall seconds and peak RSS of the `--emit obj` process); per row the
# geomeans and issue 35's goals: naive judged against tine strict (both the C's order of
# operations), Eigen against tine reassoc (Eigen reassociates too: the same freedom),
# Eigen / tine strict printed for information. The CSV adds every ratio over both tine
# modes and tine's own account of each kernel in both modes (--emit egraph-stats: spec
# and e-graph sizes, vector and scalar ops chosen, search and compile seconds, peak memory).
#
#   bash tests/vectorize/bench.sh [--quick] [--target T] [options] [FILTER ...]
#
#   --quick             kernels.py's QUICK kernels, 5 rounds of 2 batches of 0.5 ms
#   --target T          only this row: x86-64-avx2 or x86-64-avx512 (default: every row
#                       this CPU runs)
#   --rounds N          rounds (21)      --batches B   batches per visit (3)
#   --ms MS             batch length in ms (2)
#   --tine-flags "..."  more flags for tine vectorize's strict column (--contract ...)
#   --no-reassoc        skip the tine reassoc column (Eigen is then judged against tine)
#   --stand-in          no tine: the C at clang-19 -O3 FLAGS -ffp-contract=off stands in
#                       for tine's object, and with -fassociative-math -fno-signed-zeros
#                       -fno-trapping-math for tine reassoc's (the harness's own test;
#                       "compile s" is then clang's time for the whole file)
#   --no-eigen          skip the Eigen column (no libeigen3-dev)
#   --csv PATH          CSV output (default $PWD/vectorize-bench.csv)
#   --build-dir DIR     build directory, wiped first (default vectorize-bench beside the tine
#                       binary: build/vectorize-bench)
#   [--filter] FILTER   the kernels whose name contains FILTER (a name, a family: conv2d
#                       matmul qprod qr), or that match it with * ? [; several, or commas
#
# Environment: TINE (default build/tine), CC_CLANG (clang-19), CXX_CLANG (clang++-19),
# OBJCOPY (llvm-objcopy-19), BENCH_JOBS (parallel compiles, default 2), SEED.
# Word splitting of the flag strings is intended.
# shellcheck disable=SC2086
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=/dev/null
source "$here/env.sh" # root, kdir, tine, cc, cxx, objcopy, jobs, seed; pool

quick=0
for a in "$@"; do [ "$a" = --quick ] && quick=1; done
if [ $quick = 1 ]; then rounds=5 batches=2 ms=0.5; else rounds=21 batches=3 ms=2; fi
row_arg="" tine_flags="" stand_in=0 use_eigen=1 use_reassoc=1 csv=$PWD/vectorize-bench.csv build=$(dirname "$tine")/vectorize-bench
filters=()
usage() { sed -n '2,/^# Environment/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
need() { [ $# -ge 2 ] || { echo "bench.sh: $1 needs a value" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
  case $1 in
    --quick) ;;
    --target) need "$@"; row_arg=$2; shift ;;
    --filter) need "$@"; filters+=("$2"); shift ;;
    --rounds) need "$@"; rounds=$2; shift ;;
    --batches) need "$@"; batches=$2; shift ;;
    --ms) need "$@"; ms=$2; shift ;;
    --tine-flags) need "$@"; tine_flags=$2; shift ;;
    --stand-in) stand_in=1 ;;
    --no-eigen) use_eigen=0 ;;
    --no-reassoc) use_reassoc=0 ;;
    --csv) need "$@"; csv=$2; shift ;;
    --build-dir) need "$@"; build=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "bench.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) filters+=("$1") ;;
  esac
  shift
done
case $csv in /*) ;; *) csv=$PWD/$csv ;; esac
t_start=$(date +%s)

if [ $stand_in = 0 ]; then
  [ -x "$tine" ] || { echo "bench.sh: no tine binary at $tine (build it, or set TINE; --stand-in times the harness alone)" >&2; exit 2; }
  if ! "$tine" vectorize --help >/dev/null 2>&1; then
    echo "bench.sh: $tine has no 'vectorize' command (--stand-in times the harness alone)" >&2; exit 2
  fi
fi
if [ $use_eigen = 1 ] && [ ! -f /usr/include/eigen3/Eigen/Dense ]; then
  echo "bench.sh: no Eigen (/usr/include/eigen3: Debian's libeigen3-dev, scripts/setup.sh); the Eigen column is skipped" >&2
  use_eigen=0
fi

# The rows this CPU runs.
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
has() { for f in "$@"; do [[ " $flags " == *" $f "* ]] || return 1; done; }
declare -A row_target=([avx2]=x86-64-avx2 [avx512]=x86-64-avx512)
declare -A row_flags=([avx2]="-march=x86-64-v3" [avx512]="-march=native")
rows=()
for r in avx2 avx512; do
  if [ -n "$row_arg" ] && [ "$row_arg" != "${row_target[$r]}" ]; then continue; fi
  case $r in
    avx2) has avx2 fma || { echo "bench.sh: this CPU does not run x86-64-avx2; row skipped"; continue; } ;;
    avx512) has avx512f avx512bw avx512vl avx512dq avx512cd avx512_vnni ||
      { echo "bench.sh: this CPU does not run x86-64-avx512 (AVX-512 F BW VL DQ CD VNNI); row skipped"; continue; } ;;
  esac
  rows+=("$r")
done
if [ -n "$row_arg" ] && [ ${#rows[@]} = 0 ]; then
  case $row_arg in x86-64-avx2|x86-64-avx512) ;;
    *) echo "bench.sh: rows are x86-64-avx2 and x86-64-avx512 (arm-64: bench_arm.sh), not '$row_arg'" >&2; exit 2 ;;
  esac
fi
[ ${#rows[@]} -gt 0 ] || { echo "bench.sh: no row to time" >&2; exit 2; }

select_kernels bench.sh
[ $use_eigen = 1 ] && tags+=(eigen)
exact=nofma
[[ " $tine_flags " == *" --contract "* || " $tine_flags " == *" --reassociate "* ]] || exact=tine,nofma

rm -rf "$build"
mkdir -p "$build/ref"
{
  printf 'tags\t%s\n' "${tags[*]}"
  printf 'rounds\t%s\n' "$rounds"
  printf 'params\t%s rounds x %s batches of %s ms, seed %s, clock CLOCK_MONOTONIC, one thread, inputs uniform in [-1, 1].\n' \
    "$rounds" "$batches" "$ms" "$seed"
  if [ $stand_in = 1 ]; then printf 'tine\tSTAND-IN (the C at clang-19 -O3 -ffp-contract=off, not tine)\n'
  else printf 'tine\ttine vectorize%s\n' "${tine_flags:+ $tine_flags}"; fi
  if [ $stand_in = 1 ]; then printf 'reassoc\tSTAND-IN (the C at clang-19 -O3 -ffp-contract=off -fassociative-math -fno-signed-zeros -fno-trapping-math, not tine)\n'
  else printf 'reassoc\ttine vectorize --reassociate\n'; fi
} >"$build/meta.tsv"


# 1. The C objects: ref once; per row naive, nofma, Eigen and (--stand-in) tine's stand-in.
#    Eigen: the whole of eigen.cpp, or only the kernels timed (instantiating them all takes
#    clang++ 16 s).
eigen_src=$kdir/eigen.cpp
if [ ${#klist[@]} -lt "$(py list | wc -l)" ]; then
  eigen_src=$build/eigen_selected.cpp
  mapfile -t knames < <(printf '%s\n' "${klist[@]}" | cut -f1)
  py eigen-tu "${knames[@]}" >"$eigen_src"
fi
cmds=()
files=(conv2d matmul qprod qr)
for f in "${files[@]}"; do
  for p in ref naive nofma noalias reassoc; do py renames "$kdir/$f.c" $p >"$build/$p-$f.syms"; done
  py restrict "$kdir/$f.c" >"$build/noalias-$f.c"
  cmds+=("$cc -O0 -ffp-contract=off -w -c '$kdir/$f.c' -o '$build/ref/$f.o' && $objcopy --redefine-syms='$build/ref-$f.syms' '$build/ref/$f.o'")
done
for r in "${rows[@]}"; do
  fl=${row_flags[$r]}
  mkdir -p "$build/$r/naive" "$build/$r/nofma" "$build/$r/noalias" "$build/$r/standin" "$build/$r/standin-reassoc"
  for f in "${files[@]}"; do
    cmds+=("$cc -O3 $fl -w -c '$kdir/$f.c' -o '$build/$r/naive/$f.o' && $objcopy --redefine-syms='$build/naive-$f.syms' '$build/$r/naive/$f.o'")
    cmds+=("$cc -O3 $fl -ffp-contract=off -w -c '$kdir/$f.c' -o '$build/$r/nofma/$f.o' && $objcopy --redefine-syms='$build/nofma-$f.syms' '$build/$r/nofma/$f.o'")
    cmds+=("$cc -O3 $fl -w -c '$build/noalias-$f.c' -o '$build/$r/noalias/$f.o' && $objcopy --redefine-syms='$build/noalias-$f.syms' '$build/$r/noalias/$f.o'")
    [ $stand_in = 1 ] &&
      cmds+=("python3 '$here/kernels.py' measure '$build/$r/standin/$f.measure' -- $cc -O3 $fl -ffp-contract=off -w -c '$kdir/$f.c' -o '$build/$r/standin/$f.o'")
    [ $stand_in = 1 ] && [ $use_reassoc = 1 ] &&
      cmds+=("python3 '$here/kernels.py' measure '$build/$r/standin-reassoc/$f.measure' -- $cc -O3 $fl -ffp-contract=off -fassociative-math -fno-signed-zeros -fno-trapping-math -w -c '$kdir/$f.c' -o '$build/$r/standin-reassoc/$f.o' && $objcopy --redefine-syms='$build/reassoc-$f.syms' '$build/$r/standin-reassoc/$f.o'")
  done
  [ $use_eigen = 1 ] && cmds+=("$cxx -std=c++17 -O3 $fl -isystem /usr/include/eigen3 -w -c '$eigen_src' -o '$build/$r/eigen.o'")
done
# 2. tine's objects and headers, per row and kernel, each compile measured.
for r in "${rows[@]}"; do
  for line in "${klist[@]}"; do
    IFS=$'\t' read -r n f _ <<<"$line"
    d=$build/$r/$n
    mkdir -p "$d"
    printf '%s\n' "$n" >>"$build/$r/kernels.tsv"
    [ $stand_in = 1 ] && continue
    cmds+=("python3 '$here/kernels.py' measure '$d/tine.measure' -- '$tine' vectorize '$kdir/$f' --function $n --target ${row_target[$r]} $tine_flags --emit obj -o '$d/tine.o' 2>'$d/tine.log' >/dev/null;
            '$tine' vectorize '$kdir/$f' --function $n --target ${row_target[$r]} $tine_flags --emit h -o '$d/tine.h' 2>>'$d/tine.log' >/dev/null || rm -f '$d/tine.h';
            '$tine' vectorize '$kdir/$f' --function $n --target ${row_target[$r]} $tine_flags --emit egraph-stats -o '$d/tine.stats' 2>/dev/null >/dev/null || rm -f '$d/tine.stats'; true")
    # tine reassoc: --reassociate alone (not --tine-flags), its symbol renamed reassoc_NAME
    [ $use_reassoc = 1 ] &&
      cmds+=("{ python3 '$here/kernels.py' measure '$d/reassoc.measure' -- '$tine' vectorize '$kdir/$f' --function $n --target ${row_target[$r]} --reassociate --emit obj -o '$d/reassoc.o' 2>'$d/reassoc.log' >/dev/null &&
              $objcopy --redefine-sym=$n=reassoc_$n '$d/reassoc.o' 2>>'$d/reassoc.log'; } || rm -f '$d/reassoc.o';
            '$tine' vectorize '$kdir/$f' --function $n --target ${row_target[$r]} --reassociate --emit egraph-stats -o '$d/reassoc.stats' 2>/dev/null >/dev/null || rm -f '$d/reassoc.stats'; true")
  done
done
echo "bench.sh: building ${#cmds[@]} objects in $build (${#klist[@]} kernels, rows: ${rows[*]}) ..."
pool "${cmds[@]}"
for f in "$build"/failed/*; do
  [ -e "$f" ] || continue
  echo "bench.sh: build failed:"; head -c 2000 "$f"; echo
done
for f in "${files[@]}"; do [ -f "$build/ref/$f.o" ] || { echo "bench.sh: cannot build the reference $f.c"; exit 1; }; done

# 3. Per row and kernel: the driver, linked; the check.
for r in "${rows[@]}"; do
  for line in "${klist[@]}"; do
    IFS=$'\t' read -r n f _ <<<"$line"
    d=$build/$r/$n b=${f%.c}
    : >"$d/notes.tsv"
    if [ $stand_in = 1 ]; then
      tobj=$build/$r/standin/$b.o
      cp "$build/$r/standin/$b.measure" "$d/tine.measure" 2>/dev/null
    else
      tobj=$(built_obj "$d" tine tine)
    fi
    robj=""
    if [ $use_reassoc = 1 ]; then
      if [ $stand_in = 1 ]; then
        robj=$build/$r/standin-reassoc/$b.o
        cp "$build/$r/standin-reassoc/$b.measure" "$d/reassoc.measure" 2>/dev/null
        [ -f "$robj" ] || robj=""
      else
        robj=$(built_obj "$d" reassoc "tine reassoc")
      fi
    fi
    impls=(ref naive nofma noalias) objs=("$build/ref/$b.o" "$build/$r/naive/$b.o" "$build/$r/nofma/$b.o" "$build/$r/noalias/$b.o")
    [ -n "$tobj" ] && { impls+=(tine); objs+=("$tobj"); }
    [ -n "$robj" ] && { impls+=(reassoc); objs+=("$robj"); }
    [ $use_eigen = 1 ] && [ -f "$build/$r/eigen.o" ] && { impls+=(eigen); objs+=("$build/$r/eigen.o"); }
    hdr=()
    [ -n "$tobj" ] && [ $stand_in = 0 ] && [ -f "$d/tine.h" ] && hdr=(--header "$d/tine.h")
    ok=0
    for attempt in with-header without; do
      [ $attempt = without ] && [ ${#hdr[@]} = 0 ] && break
      [ $attempt = without ] && hdr=()
      impl_csv=$(IFS=,; echo "${impls[*]}")
      py driver "$n" "$impl_csv" "${hdr[@]}" >"$d/driver.c"
      if $cc -O2 -std=c11 -w -I"$here" -c "$d/driver.c" -o "$d/driver.o" 2>"$d/driver.log" &&
         $cxx "$d/driver.o" "${objs[@]}" -lm -o "$d/driver" 2>>"$d/driver.log"; then ok=1; break; fi
      if [ $attempt = with-header ]; then
        printf "tine's header does not agree with the C: %s\n" "$(grep -m1 error "$d/driver.log" | cut -c1-160)" >>"$d/notes.tsv"
      fi
    done
    if [ $ok = 0 ]; then
      echo "bench.sh: $r $n: the driver does not build:"; head -20 "$d/driver.log"
      printf 'driver does not build\n' >>"$d/notes.tsv"
      continue
    fi
    "$d/driver" --check-bench ref --exact "$exact" --seed "$seed" >"$d/check.tsv" 2>&1 ||
      true
    awk -F'\t' -v r="$r" -v n="$n" '$1 == "check" && $3 !~ /^(exact|close)$/ { print "  " r " " n ": " $2 " " $3 " (max diff " $4 ", QR residual " $5 ", orthogonality " $6 ", " $7 " values differ): not timed" }' "$d/check.tsv"
  done
done

# 4. Time: per row and kernel, the implementations that passed, interleaved in one process.
echo "bench.sh: timing ${#klist[@]} kernels x ${#rows[@]} rows: $rounds rounds x $batches batches of $ms ms ..."
for r in "${rows[@]}"; do
  for line in "${klist[@]}"; do
    IFS=$'\t' read -r n _ <<<"$line"
    d=$build/$r/$n
    [ -x "$d/driver" ] || continue
    timed=()
    for t in "${tags[@]}"; do
      awk -F'\t' -v t="$t" '$1 == "check" && $2 == t && ($3 == "exact" || $3 == "close") { f = 1 } END { exit !f }' "$d/check.tsv" &&
        timed+=("$t")
    done
    [ ${#timed[@]} -gt 0 ] || continue
    "$d/driver" --bench "$rounds" "$ms" "$batches" "$seed" "${timed[@]}" >"$d/time.tsv" 2>&1 ||
      echo "  $r $n: the driver failed while timing ($(tail -1 "$d/time.tsv"))"
  done
  echo "  ${row_target[$r]} done ($(($(date +%s) - t_start)) s)"
done

# 5. The table and the CSV.
py report "$build" "$csv" "${rows[@]}"
echo "bench.sh: done in $(($(date +%s) - t_start)) s"

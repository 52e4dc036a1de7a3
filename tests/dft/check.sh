#!/usr/bin/env bash
# check.sh — tine dft's codelets built and run against a long-double O(n^2) DFT
# (tests/dft/check_main.c: random inputs and impulses, contiguous, strided and transposed
# layouts, batches that are and are not a multiple of the vector's transforms, nothing
# written outside the outputs, the relative RMS error within 4 eps log2 n).
#
#   bash tests/dft/check.sh [TINE] [--keep] [--sizes N,N...] [--targets T,T...]
#
# Cases (one line each, then a summary; exit 1 on any failure):
#   obj        `tine dft --n N --type T --target X [--inverse] --emit obj` linked with the
#              driver and run, at x86-64-sse41, x86-64-avx2 and x86-64-avx512 (each where
#              this CPU runs it: /proc/cpuinfo), every size, f32 and f64, both directions;
#              its --emit h header compiled (gcc -Wall -Wextra -Werror) beside the
#              driver's declaration of the entry point
#   c          --emit c compiled by gcc and by clang-19 at -O2 -ffp-contract=off with the
#              target's -march, -Wall -Wextra -Werror, each object linked and run
#   ablation   --no-peephole --no-schedule, each alone and both, and --no-contract, on a
#              few sizes (avx2, or the widest x86 level here)
#   arm-64     the LLVM object (--emit obj) and --emit c (aarch64-linux-gnu-gcc and
#              clang-19 --target=aarch64-linux-gnu), the driver built by
#              aarch64-linux-gnu-gcc -static and run under qemu-aarch64 (skipped without
#              them); sizes up to 16 in the quick run (the driver's long double is
#              software under qemu: n = 64 takes ~20 s there)
#   control    a forward codelet checked as an inverse one must fail (the harness sees
#              a wrong answer)
# A failing case prints the driver's message and the commands that reproduce it from the
# repository's root.
#
#   QUICK=1        sizes 2 3 4 5 8 12 16 64 (obj; C 3 5 8 16), forward everywhere and
#                  inverse for a few; ctest's test_dft_check runs this (~30 s on 2 cores)
#   --sizes N,...  only these sizes (every kind of case)
#   --targets T,.. only these targets (x86-64-sse41, x86-64-avx2, x86-64-avx512, arm-64)
#   --keep         keep the build directory (printed)
#
# Environment: TINE (default build/tine), JOBS (2), CC_GCC (gcc), CC_CLANG (clang-19),
# CC_GCC_A64 (aarch64-linux-gnu-gcc), QEMU (qemu-aarch64).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tine=${TINE:-$root/build/tine}
# shellcheck disable=SC2034 # pool's
jobs=${JOBS:-2}
quick=${QUICK:-0}
gcc=${CC_GCC:-gcc}
clang=${CC_CLANG:-clang-19}
gcc_a64=${CC_GCC_A64:-aarch64-linux-gnu-gcc}
qemu=${QEMU:-qemu-aarch64}
sysroot=/usr/aarch64-linux-gnu
main_c=$here/check_main.c
keep=0 sizes_arg="" targets_arg=""
usage() { sed -n '2,/^set -u/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case $1 in
    --keep) keep=1 ;;
    --sizes) sizes_arg=$2; shift ;;
    --sizes=*) sizes_arg=${1#--sizes=} ;;
    --targets) targets_arg=$2; shift ;;
    --targets=*) targets_arg=${1#--targets=} ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "check.sh: unknown option $1" >&2; exit 2 ;;
    *) tine=$1 ;; # CTest passes the binary
  esac
  shift
done
t_start=$(date +%s)
[ -x "$tine" ] || { echo "check.sh: no tine binary at $tine (build it, or set TINE)" >&2; exit 2; }
"$tine" dft --help >/dev/null 2>&1 || { echo "check.sh: $tine has no 'dft' command" >&2; exit 2; }
command -v "$gcc" >/dev/null || { echo "check.sh: no $gcc" >&2; exit 2; }

# The targets this machine runs.
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null)
has() { for f in "$@"; do [[ " $flags " == *" $f "* ]] || return 1; done; }
declare -A runs=() why=()
has sse4_1 && runs[x86-64-sse41]=1 || why[x86-64-sse41]="this CPU lacks SSE4.1"
has avx2 fma && runs[x86-64-avx2]=1 || why[x86-64-avx2]="this CPU lacks AVX2/FMA"
has avx512f avx512bw avx512vl avx512dq && runs[x86-64-avx512]=1 || why[x86-64-avx512]="this CPU lacks AVX-512 (F, BW, VL, DQ)"
if ! command -v "$qemu" >/dev/null; then why[arm-64]="no $qemu (qemu-user)"
elif ! command -v "$gcc_a64" >/dev/null; then why[arm-64]="no $gcc_a64 (gcc-aarch64-linux-gnu)"
elif [ ! -f $sysroot/lib/libc.a ]; then why[arm-64]="no AArch64 libc in $sysroot (libc6-dev-arm64-cross)"
else runs[arm-64]=1; fi
has_clang=1
command -v "$clang" >/dev/null || { has_clang=0; echo "check.sh: no $clang: --emit c is built by $gcc alone"; }
declare -A march=([x86-64-sse41]="-march=x86-64-v2" [x86-64-avx2]="-march=x86-64-v3" [x86-64-avx512]="-march=x86-64-v4"
                  [arm-64]="-march=armv8-a")
x86=()
for t in x86-64-sse41 x86-64-avx2 x86-64-avx512 arm-64; do
  if [ -n "$targets_arg" ] && [[ ",$targets_arg," != *",$t,"* ]]; then continue; fi
  if [ -z "${runs[$t]-}" ]; then echo "check.sh: skipping $t: ${why[$t]}"; continue; fi
  [ $t != arm-64 ] && x86+=("$t")
done
use_arm=0
if [ -n "${runs[arm-64]-}" ] && { [ -z "$targets_arg" ] || [[ ",$targets_arg," == *",arm-64,"* ]]; }; then use_arm=1; fi
# the widest x86 level here: the ablations' and the control's
wide=""
[ ${#x86[@]} -gt 0 ] && wide=${x86[$((${#x86[@]} - 1))]}
[[ " ${x86[*]} " == *" x86-64-avx2 "* ]] && wide="x86-64-avx2"

# The sizes.
if [ "$quick" = 1 ]; then
  obj_sizes=(2 3 4 5 8 12 16 64); c_sizes=(3 5 8 16); abl_sizes=(5 16); arm_sizes=(2 4 5 16); arm_c_sizes=(3 8)
  inv_cases=("x86-64-avx2 f32 3" "x86-64-avx2 f64 16" "x86-64-sse41 f64 7" "x86-64-avx512 f32 12" "x86-64-avx512 f64 64")
  arm_inv=("f64 8")
else
  obj_sizes=(2 3 4 5 6 7 8 9 10 12 15 16 32 64); c_sizes=("${obj_sizes[@]}"); abl_sizes=(3 5 8 16 32 64)
  arm_sizes=("${obj_sizes[@]}"); arm_c_sizes=(2 3 4 5 6 7 8 9 10 12 15 16)
  inv_cases=() arm_inv=()
fi
if [ -n "$sizes_arg" ]; then
  IFS=', ' read -r -a obj_sizes <<<"$sizes_arg"
  c_sizes=("${obj_sizes[@]}") abl_sizes=("${obj_sizes[@]}") arm_sizes=("${obj_sizes[@]}") arm_c_sizes=("${obj_sizes[@]}")
fi

build=$(mktemp -d "${TMPDIR:-/tmp}/tine-dft-check.XXXXXX")
if [ $keep = 0 ]; then trap 'rm -rf "$build"' EXIT; else echo "check.sh: build directory $build"; fi

# pool: tests/pool.sh (at most $jobs commands at a time)
# shellcheck source=/dev/null
source "$here/../pool.sh"

# The cases: KIND TARGET TYPE N INVERSE [FLAGS...] (FLAGS joined by commas); KIND obj, c
# or control.
cases=()
add() { cases+=("$*"); }
for t in "${x86[@]}"; do
  for ty in f32 f64; do
    for n in "${obj_sizes[@]}"; do
      add obj "$t" "$ty" "$n" 0
      [ "$quick" = 1 ] || add obj "$t" "$ty" "$n" 1
    done
  done
done
for c in "${inv_cases[@]}"; do
  read -r t ty n <<<"$c"
  [[ " ${x86[*]} " == *" $t "* ]] || continue
  [ -z "$sizes_arg" ] || [[ ",$sizes_arg," == *",$n,"* ]] || continue
  add obj "$t" "$ty" "$n" 1
done
# C: every size at one x86 level each (the levels in turn), f32 and f64; the full run also
# the inverse
if [ ${#x86[@]} -gt 0 ]; then
  k=0
  for n in "${c_sizes[@]}"; do
    for ty in f32 f64; do
      t=${x86[$((k % ${#x86[@]}))]}
      k=$((k + 1))
      add c "$t" "$ty" "$n" 0
      [ "$quick" = 1 ] || add c "$t" "$ty" "$n" 1
    done
  done
fi
if [ -n "$wide" ]; then
  for n in "${abl_sizes[@]}"; do
    add obj "$wide" f32 "$n" 0 --no-peephole,--no-schedule
    add obj "$wide" f64 "$n" 1 --no-peephole,--no-schedule
    if [ "$quick" = 1 ] && [ "$n" != "${abl_sizes[0]}" ]; then continue; fi
    add obj "$wide" f32 "$n" 1 --no-peephole
    add obj "$wide" f64 "$n" 0 --no-schedule
    add obj "$wide" f32 "$n" 0 --no-contract
    add c "$wide" f64 "$n" 0 --no-peephole,--no-schedule
  done
  add control "$wide" f32 5 0
fi
if [ $use_arm = 1 ]; then
  for ty in f32 f64; do
    for n in "${arm_sizes[@]}"; do
      add obj arm-64 "$ty" "$n" 0
      [ "$quick" = 1 ] || add obj arm-64 "$ty" "$n" 1
    done
    for n in "${arm_c_sizes[@]}"; do add c arm-64 "$ty" "$n" "$([ "$ty" = f64 ] && echo 1 || echo 0)"; done
  done
  for c in "${arm_inv[@]}"; do
    read -r ty n <<<"$c"
    [ -z "$sizes_arg" ] || [[ ",$sizes_arg," == *",$n,"* ]] || continue
    add obj arm-64 "$ty" "$n" 1
  done
  add obj arm-64 f32 "${abl_sizes[0]}" 0 --no-peephole,--no-schedule
fi
[ ${#cases[@]} -gt 0 ] || { echo "check.sh: no case to run (no target this machine runs?)" >&2; exit 2; }

# One case: ID KIND TARGET TYPE N INVERSE [FLAGS]; writes $build/ID/result (its first line
# "ok ..." or "FAIL ...").
one() {
  local id=$1 kind=$2 t=$3 ty=$4 n=$5 inv=$6 fl=${7-}
  local d=$build/$id sym=tine_dft_$n T=float dir=forward arm=0 t0=$SECONDS
  mkdir -p "$d"
  [ "$ty" = f64 ] && T=double
  [ "$inv" = 1 ] && dir=inverse
  [ "$t" = arm-64 ] && arm=1
  local gen=(dft --n "$n" --type "$ty" --target "$t")
  [ "$inv" = 1 ] && gen+=(--inverse)
  [ -n "$fl" ] && IFS=, read -r -a extra <<<"$fl" && gen+=("${extra[@]}")
  local label
  label=$(printf '%-7s %-13s %s n=%-2s %-7s%s' "$kind" "$t" "$ty" "$n" "$dir" "${fl:+ ${fl//,/ }}")
  local dflags=(-DCODELET="$sym" -DT="$T" -DN="$n")
  # the control checks a forward codelet as an inverse one
  [ "$inv" = 1 ] || [ "$kind" = control ] && dflags+=(-DINVERSE)
  local drv_cc=("$gcc" -O1 -std=c11) run=() repro_drv
  if [ $arm = 1 ]; then
    drv_cc=("$gcc_a64" -O1 -std=c11 -static)
    run=("$qemu" -L "$sysroot")
  fi
  repro_drv="${drv_cc[*]} ${dflags[*]} tests/dft/check_main.c X.o -lm -o X && ${run[*]:+${run[*]} }./X"
  fail_case() { # WHY LOG REPRO
    { echo "FAIL $label: $1"
      if [ -n "$2" ] && [ -f "$2" ]; then
        { head -8 "$2"; [ "$(wc -l <"$2")" -gt 8 ] && echo "..." && tail -1 "$2"; } | sed 's/^/    /'
      fi
      echo "    reproduce: $3"; } >"$d/result"
  }
  local objs=() tags=()
  case $kind in
    obj|control)
      local repro="build/tine ${gen[*]} --emit obj -o X.o"
      if ! "$tine" "${gen[@]}" --emit obj -o "$d/c.o" >"$d/tine.log" 2>&1; then
        fail_case "tine dft failed" "$d/tine.log" "$repro"; return
      fi
      # the header against the driver's declaration
      if [ "$kind" = obj ]; then
        if ! "$tine" "${gen[@]}" --emit h -o "$d/c.h" >"$d/h.log" 2>&1 ||
           ! printf '#include "c.h"\nvoid %s(const %s *in, %s *out, ptrdiff_t howmany, ptrdiff_t is, ptrdiff_t id, ptrdiff_t os, ptrdiff_t od);\n' \
               "$sym" "$T" "$T" | "$gcc" -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$d" -x c - >>"$d/h.log" 2>&1; then
          fail_case "its --emit h header does not compile beside the driver's declaration" "$d/h.log" \
            "build/tine ${gen[*]} --emit h -o X.h"; return
        fi
      fi
      objs=("$d/c.o") tags=(llvm)
      repro="$repro && $repro_drv" ;;
    c)
      local repro="build/tine ${gen[*]} --emit c -o X.c"
      if ! "$tine" "${gen[@]}" --emit c -o "$d/c.c" >"$d/tine.log" 2>&1; then
        fail_case "tine dft --emit c failed" "$d/tine.log" "$repro"; return
      fi
      local cfl=(-O2 -ffp-contract=off -std=c11 -Wall -Wextra -Werror) mflags
      read -r -a mflags <<<"${march[$t]}"
      cfl+=("${mflags[@]}")
      local g=$gcc cl=("$clang")
      [ $arm = 1 ] && g=$gcc_a64 cl=("$clang" --target=aarch64-linux-gnu)
      if ! $g "${cfl[@]}" -c "$d/c.c" -o "$d/c_gcc.o" >"$d/gcc.log" 2>&1; then
        fail_case "its C does not compile warning-free with $g" "$d/gcc.log" "$repro && $g ${cfl[*]} -c X.c"; return
      fi
      objs=("$d/c_gcc.o") tags=(gcc)
      if [ $has_clang = 1 ]; then
        if ! "${cl[@]}" "${cfl[@]}" -c "$d/c.c" -o "$d/c_clang.o" >"$d/clang.log" 2>&1; then
          fail_case "its C does not compile warning-free with clang" "$d/clang.log" "$repro && ${cl[*]} ${cfl[*]} -c X.c"; return
        fi
        objs+=("$d/c_clang.o") tags+=(clang)
      fi
      repro="$repro && $g ${cfl[*]} -c X.c -o X.o && $repro_drv" ;;
  esac
  local i msg=""
  for i in "${!objs[@]}"; do
    local tag=${tags[$i]} rc
    if ! "${drv_cc[@]}" "${dflags[@]}" "$main_c" "${objs[$i]}" -lm -o "$d/drv_$tag" >"$d/link_$tag.log" 2>&1; then
      fail_case "the driver does not link with the $tag object" "$d/link_$tag.log" "$repro"; return
    fi
    "${run[@]}" "$d/drv_$tag" >"$d/run_$tag.log" 2>&1 </dev/null
    rc=$?
    if [ "$kind" = control ]; then
      if [ $rc = 0 ]; then fail_case "a forward codelet passed the inverse check: the harness sees nothing" "$d/run_$tag.log" "$repro"; return; fi
      msg="the wrong direction rejected ($(grep -m1 -o 'error [0-9.e+-]* > [0-9.e+-]*' "$d/run_$tag.log"))"
      continue
    fi
    if [ $rc != 0 ]; then
      fail_case "the $tag build's check failed (exit $rc)" "$d/run_$tag.log" "$repro"; return
    fi
    msg="$msg${msg:+; }$tag $(sed -n 's/^n=[0-9]* f[0-9]*: //p' "$d/run_$tag.log")"
  done
  echo "ok   $label: $msg ($((SECONDS - t0)) s)" >"$d/result"
}

cmds=()
for i in "${!cases[@]}"; do
  read -r -a f <<<"${cases[$i]}"
  cmds+=("one $i ${f[*]}")
done
echo "check.sh: ${#cases[@]} cases (x86: ${x86[*]:-none}; arm-64: $([ $use_arm = 1 ] && echo "under $qemu" || echo no)$([ "$quick" = 1 ] && echo "; QUICK"))"
pool "${cmds[@]}"

ok=0 bad=0
for i in "${!cases[@]}"; do
  r=$build/$i/result
  if [ -f "$r" ] && head -1 "$r" | grep -q '^ok '; then ok=$((ok + 1)); cat "$r"
  else bad=$((bad + 1)); if [ -f "$r" ]; then cat "$r"; else echo "FAIL ${cases[$i]}: no result (the case died)"; fi; fi
done
echo "check.sh: $ok ok, $bad failed ($(($(date +%s) - t_start)) s)"
[ $bad = 0 ]

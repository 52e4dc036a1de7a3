#!/usr/bin/env bash
# bench_arm.sh — `tine bench --vectorize --target arm-64`: Diospyros's kernels (bench/vectorize)
# vectorized for AArch64 Neon by `tine vectorize`, against the same peers as bench.sh, by
# llvm-mca's cycles (there is no Arm machine here):
#
#   tine         tine vectorize FILE.c --function NAME --target arm-64 --emit asm (strict mode,
#                tine's default: bit-exact with the C)
#   tine reassoc the same with --reassociate (equal to the C over the reals; linked as
#                reassoc_NAME, checked within rounding, its largest difference reported)
#   naive        clang-19 --target=aarch64-linux-gnu -O3 -mcpu=CPU -S (-ffp-contract=on,
#                clang's default)
#   naive nofma  the same at -ffp-contract=off
#   naive restrict  the C with `restrict` on the kernel's outputs (as bench.sh)
#   Eigen        bench/vectorize/eigen.cpp, clang++-19 with the same flags, when the
#                AArch64 C++ headers are installed (Debian's libstdc++-12-dev-arm64-cross;
#                without them the column says so and is not timed)
#
# Cycles per call: llvm-mca-19 -mcpu=CPU, 100 iterations (back-to-back calls), over the
# function's body when it has no backward branch ('body': what one call executes), else
# over the instructions one call executes, traced under qemu-aarch64 -singlestep ('trace';
# llvm-mca takes the branches as perfectly predicted). Each implementation is also
# linked into a static AArch64 driver with the C at -O0 -ffp-contract=off and checked
# under qemu as bench.sh checks (tine and nofma bit-exact, tine reassoc, naive and Eigen
# within rounding, QR by A = QR); one that fails is reported and not counted.
#
#   bash tests/vectorize/bench_arm.sh [--quick] [--mcpu CPU] [--tine-flags "..."] [--no-reassoc]
#                                     [--stand-in] [--no-eigen] [--csv PATH] [--build-dir DIR] [FILTER ...]
#
#   --quick           kernels.py's QUICK kernels      --mcpu CPU   llvm-mca's CPU (neoverse-n1)
#   --tine-flags ".." more flags for the strict tine column (--contract ...)
#   --no-reassoc      skip the tine reassoc column
#   --stand-in        no tine: the C at -O3 -ffp-contract=off stands in for tine's assembly
#                     (with -fassociative-math -fno-signed-zeros -fno-trapping-math for
#                     tine reassoc's)
#   --csv PATH        default $PWD/vectorize-bench-arm.csv
#   --build-dir DIR   default a temporary directory, removed at the end
#   [--filter] FILTER the kernels whose name contains FILTER (or match it with * ? [)
#
# Environment: TINE (default build/tine), CC_CLANG, CXX_CLANG, OBJCOPY, BENCH_JOBS (2), SEED.
# shellcheck disable=SC2086
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=/dev/null
source "$here/env.sh" # root, kdir, tine, cc, cxx, objcopy, jobs, seed; pool
sysroot=/usr/aarch64-linux-gnu
mcpu=neoverse-n1 quick=0 stand_in=0 use_eigen=1 use_reassoc=1 tine_flags="" csv=$PWD/vectorize-bench-arm.csv build="" filters=()
usage() { sed -n '2,/^# Environment/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1 ;;
    --mcpu) mcpu=$2; shift ;;
    --filter) filters+=("$2"); shift ;;
    --tine-flags) tine_flags=$2; shift ;;
    --stand-in) stand_in=1 ;;
    --no-eigen) use_eigen=0 ;;
    --no-reassoc) use_reassoc=0 ;;
    --csv) csv=$2; shift ;;
    --build-dir) build=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "bench_arm.sh: unknown option $1" >&2; exit 2 ;;
    *) filters+=("$1") ;;
  esac
  shift
done
case $csv in /*) ;; *) csv=$PWD/$csv ;; esac
t_start=$(date +%s)
for t in "$cc" llvm-mca-19 "$objcopy" python3 qemu-aarch64; do
  command -v "$t" >/dev/null || { echo "bench_arm.sh: needs $t" >&2; exit 2; }
done
if [ $stand_in = 0 ]; then
  [ -x "$tine" ] || { echo "bench_arm.sh: no tine binary at $tine (set TINE; --stand-in tests the harness alone)" >&2; exit 2; }
  "$tine" vectorize --help >/dev/null 2>&1 ||
    { echo "bench_arm.sh: $tine has no 'vectorize' command (--stand-in tests the harness alone)" >&2; exit 2; }
fi
if [ -z "$build" ]; then
  build=$(mktemp -d "${TMPDIR:-/tmp}/vectorize-bench-arm.XXXXXX")
  trap 'rm -rf "$build"' EXIT
else
  rm -rf "$build"; mkdir -p "$build"
fi
arm=(--target=aarch64-linux-gnu "-mcpu=$mcpu")

select_kernels bench_arm.sh
eigen_note=""
if [ $use_eigen = 1 ]; then
  if [ ! -f /usr/include/eigen3/Eigen/Dense ]; then
    eigen_note="Eigen: not timed (no /usr/include/eigen3: libeigen3-dev)."
  elif ! echo '#include <cstdlib>' | $cxx "${arm[@]}" -x c++ -fsyntax-only - 2>/dev/null; then
    eigen_note="Eigen: not timed: no C++ headers for aarch64-linux-gnu here (Debian's libstdc++-12-dev-arm64-cross; g++-aarch64-linux-gnu brings them)."
  else
    tags+=(eigen)
  fi
fi
exact=nofma
[[ " $tine_flags " == *" --contract "* || " $tine_flags " == *" --reassociate "* ]] || exact=tine,nofma
{
  printf 'tags\t%s\n' "${tags[*]}"
  printf 'mcpu\t%s\n' "$mcpu"
  printf 'eigen_note\t%s\n' "$eigen_note"
  if [ $stand_in = 1 ]; then printf 'tine\tSTAND-IN (the C at clang-19 -O3 -ffp-contract=off, not tine)\n'
  else printf 'tine\ttine vectorize%s\n' "${tine_flags:+ $tine_flags}"; fi
  if [ $stand_in = 1 ]; then printf 'reassoc\tSTAND-IN (the C at clang-19 -O3 -ffp-contract=off -fassociative-math -fno-signed-zeros -fno-trapping-math, not tine)\n'
  else printf 'reassoc\ttine vectorize --reassociate\n'; fi
} >"$build/meta.tsv"
printf '%s\n' "${klist[@]}" | cut -f1 >"$build/kernels.tsv"


# 1. Assembly and objects: the C ways per file, tine's per kernel.
files=(conv2d matmul qprod qr)
cmds=()
for f in "${files[@]}"; do
  for p in ref naive nofma noalias standin reassoc; do py renames "$kdir/$f.c" $p >"$build/$p-$f.syms"; done
  py restrict "$kdir/$f.c" >"$build/noalias-$f.c"
  cmds+=("$cc --target=aarch64-linux-gnu -O0 -ffp-contract=off -w -c '$kdir/$f.c' -o '$build/ref-$f.o' && $objcopy --redefine-syms='$build/ref-$f.syms' '$build/ref-$f.o'")
  for p in naive nofma noalias; do
    c="" src=$kdir/$f.c
    [ $p = nofma ] && c=-ffp-contract=off
    [ $p = noalias ] && src=$build/noalias-$f.c
    cmds+=("$cc ${arm[*]} -O3 $c -w -S '$src' -o '$build/$p-$f.s' && $cc --target=aarch64-linux-gnu -c '$build/$p-$f.s' -o '$build/$p-$f.o' && $objcopy --redefine-syms='$build/$p-$f.syms' '$build/$p-$f.o'")
  done
  [ $stand_in = 1 ] &&
    cmds+=("$cc ${arm[*]} -O3 -ffp-contract=off -w -S '$kdir/$f.c' -o '$build/standin-$f.s' && $cc --target=aarch64-linux-gnu -c '$build/standin-$f.s' -o '$build/standin-$f.o'")
  [ $stand_in = 1 ] && [ $use_reassoc = 1 ] &&
    cmds+=("$cc ${arm[*]} -O3 -ffp-contract=off -fassociative-math -fno-signed-zeros -fno-trapping-math -w -S '$kdir/$f.c' -o '$build/standin-reassoc-$f.s' && $cc --target=aarch64-linux-gnu -c '$build/standin-reassoc-$f.s' -o '$build/standin-reassoc-$f.o' && $objcopy --redefine-syms='$build/reassoc-$f.syms' '$build/standin-reassoc-$f.o'")
done
if [[ " ${tags[*]} " == *" eigen "* ]]; then
  eigen_src=$kdir/eigen.cpp
  if [ ${#klist[@]} -lt "$(py list | wc -l)" ]; then
    eigen_src=$build/eigen_selected.cpp
    mapfile -t knames < <(printf '%s\n' "${klist[@]}" | cut -f1)
    py eigen-tu "${knames[@]}" >"$eigen_src"
  fi
  cmds+=("$cxx ${arm[*]} -std=c++17 -O3 -isystem /usr/include/eigen3 -w -S '$eigen_src' -o '$build/eigen.s' && $cc --target=aarch64-linux-gnu -c '$build/eigen.s' -o '$build/eigen.o'")
fi
for line in "${klist[@]}"; do
  IFS=$'\t' read -r n f _ <<<"$line"
  mkdir -p "$build/$n"
  [ $stand_in = 1 ] && continue
  cmds+=("python3 '$here/kernels.py' measure '$build/$n/tine.measure' -- '$tine' vectorize '$kdir/$f' --function $n --target arm-64 $tine_flags --emit asm -o '$build/$n/tine.s' >/dev/null 2>'$build/$n/tine.log';
          $cc --target=aarch64-linux-gnu -c '$build/$n/tine.s' -o '$build/$n/tine.o' 2>>'$build/$n/tine.log' || true")
  # tine reassoc: --reassociate alone (not --tine-flags); the object's symbol renamed reassoc_NAME
  [ $use_reassoc = 1 ] &&
    cmds+=("python3 '$here/kernels.py' measure '$build/$n/reassoc.measure' -- '$tine' vectorize '$kdir/$f' --function $n --target arm-64 --reassociate --emit asm -o '$build/$n/reassoc.s' >/dev/null 2>'$build/$n/reassoc.log' &&
          $cc --target=aarch64-linux-gnu -c '$build/$n/reassoc.s' -o '$build/$n/reassoc.o' 2>>'$build/$n/reassoc.log' &&
          $objcopy --redefine-sym=$n=reassoc_$n '$build/$n/reassoc.o' 2>>'$build/$n/reassoc.log' || rm -f '$build/$n/reassoc.o'")
done
echo "bench_arm.sh: building ${#cmds[@]} objects (${#klist[@]} kernels) ..."
pool "${cmds[@]}"

# 2. Per kernel: the driver (checked under qemu), then each way's cycles.
: >"$build/cycles.tsv"
measure_one() { # NAME TAG ASM SYMBOL DRIVER_SYMBOL: a line of cycles.tsv
  local n=$1 t=$2 s=$3 sym=$4 d=$build/$1 r cyc how note
  r=$(py body "$s" "$sym" "$mcpu")
  IFS=$'\t' read -r cyc how note <<<"$r"
  if [ "$how" = loop ]; then
    # one call traced: the instructions qemu executes inside the function
    local addr size
    read -r addr size < <(llvm-nm-19 -S "$d/driver" | awk -v s="$5" '$4 == s { print $1, $2 }')
    if [ -n "${addr:-}" ] && qemu-aarch64 -L $sysroot -singlestep -d exec,nochain -dfilter "0x$addr+0x$size" \
        -D "$d/$t.trace" "$d/driver" --once "$t" >/dev/null 2>&1; then
      llvm-objdump-19 -d --no-show-raw-insn --disassemble-symbols="$5" "$d/driver" >"$d/$t.objdump"
      r=$(py trace "$d/driver" "$d/$t.objdump" "$d/$t.trace" "$5" "$mcpu")
      IFS=$'\t' read -r cyc how note <<<"$r"
    else
      cyc=- how=- note="loop, and no trace"
    fi
  fi
  printf '%s\t%s\t%s\t%s\t%s\n' "$n" "$t" "$cyc" "$how" "$note" >>"$build/cycles.tsv"
}
for line in "${klist[@]}"; do
  IFS=$'\t' read -r n f _ <<<"$line"
  b=${f%.c} d=$build/$n
  impls=(ref) objs=("$build/ref-$b.o")
  declare -A asm=() sym=()
  if [ $stand_in = 1 ]; then
    [ -f "$build/standin-$b.o" ] && cp "$build/standin-$b.o" "$d/tine.o" && asm[tine]=$build/standin-$b.s
  elif [ -f "$d/tine.o" ]; then
    asm[tine]=$d/tine.s
  else
    printf '%s\ttine\t-\t-\ttine failed: %s\n' "$n" "$(grep -m1 . "$d/tine.log" | cut -c1-120)" >>"$build/cycles.tsv"
  fi
  [ -n "${asm[tine]-}" ] && { impls+=(tine); objs+=("$d/tine.o"); sym[tine]=$n; }
  if [ $use_reassoc = 1 ]; then
    if [ $stand_in = 1 ]; then
      [ -f "$build/standin-reassoc-$b.o" ] && cp "$build/standin-reassoc-$b.o" "$d/reassoc.o" && asm[reassoc]=$build/standin-reassoc-$b.s
    elif [ -f "$d/reassoc.o" ]; then
      asm[reassoc]=$d/reassoc.s
    else
      printf '%s\treassoc\t-\t-\ttine reassoc failed: %s\n' "$n" "$(grep -m1 . "$d/reassoc.log" | cut -c1-120)" >>"$build/cycles.tsv"
    fi
    [ -n "${asm[reassoc]-}" ] && { impls+=(reassoc); objs+=("$d/reassoc.o"); sym[reassoc]=$n; }
  fi
  for t in naive nofma noalias; do asm[$t]=$build/$t-$b.s; sym[$t]=$n; impls+=("$t"); objs+=("$build/$t-$b.o"); done
  if [[ " ${tags[*]} " == *" eigen "* ]] && [ -f "$build/eigen.o" ]; then
    asm[eigen]=$build/eigen.s sym[eigen]=eigen_$n; impls+=(eigen); objs+=("$build/eigen.o")
  fi
  py driver "$n" "$(IFS=,; echo "${impls[*]}")" >"$d/driver.c"
  if ! $cc --target=aarch64-linux-gnu -O1 -static -std=c11 -w -I"$here" "$d/driver.c" "${objs[@]}" -lm -o "$d/driver" \
      2>"$d/driver.log"; then
    echo "bench_arm.sh: $n: the driver does not link:"; head -5 "$d/driver.log"
    continue
  fi
  qemu-aarch64 -L $sysroot "$d/driver" --check-bench ref --exact "$exact" --seed "$seed" >"$d/check.tsv" 2>&1
  for t in "${tags[@]}"; do
    [ -n "${asm[$t]-}" ] || continue
    st=$(awk -F'\t' -v t="$t" '$1 == "check" && $2 == t { print $3 }' "$d/check.tsv")
    if [ "$st" != exact ] && [ "$st" != close ]; then
      printf '%s\t%s\t-\t-\tcheck under qemu: %s\n' "$n" "$t" "${st:-no result}" >>"$build/cycles.tsv"
      echo "  $n $t: check under qemu: ${st:-no result} ($(grep -P "^check\t$t\t" "$d/check.tsv" | cut -f3-))"
      continue
    fi
    # the symbol in the assembly, and in the driver (where the C ways are renamed)
    case $t in naive|nofma|noalias|reassoc) lsym=${t}_$n ;; *) lsym=${sym[$t]} ;; esac
    measure_one "$n" "$t" "${asm[$t]}" "${sym[$t]}" "$lsym"
  done
  unset asm sym
done

py report-arm "$build" "$csv"
echo "bench_arm.sh: done in $(($(date +%s) - t_start)) s"

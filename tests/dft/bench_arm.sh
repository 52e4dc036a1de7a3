#!/usr/bin/env bash
# bench_arm.sh — `tine bench --dft --target arm-64`: tine dft's AArch64 Neon codelets by
# llvm-mca's cycles (there is no Arm machine here), beside FFTW 3.3.10's own Neon codelets:
#
#   tine         tine dft --n N --type T --target arm-64 --emit asm (assembled by clang), and
#                the ablations (--no-peephole, --no-schedule, both)
#   FFTW-Neon    dft/simd/common/n1fv_N.c (n1bv_N.c backward) with simd-support/simd-neon.h,
#                the codelet FFTW's planner runs for a batch of contiguous size-N transforms
#                on aarch64, behind tine's signature (tests/dft/fftw_neon.c), compiled twice
#                with FFTW's own flags tuned for the CPU llvm-mca models: clang-19 -O3
#                -fomit-frame-pointer -fstrict-aliasing -mcpu=CPU, and (when installed)
#                aarch64-linux-gnu-gcc -O3 -fomit-frame-pointer -mtune=CPU -fstrict-aliasing
#                -fno-schedule-insns; the column is the better of the two (the compiler named).
#                FFTW's source is fetched into the
#                cache at first use (env.sh fftw_source), the column skipped with a note
#                when it cannot be
#
# Every codelet is linked into one static AArch64 driver per (type, N) (bench/dft/driver.c,
# without the x86 peers) and checked under qemu-aarch64 against the long-double DFT on every
# layout bench.sh checks; one that fails is reported and not measured. Then one call on H
# (32) contiguous transforms is traced (qemu -singlestep, the instructions inside the
# function): the hottest backward branch is the codelet's loop, its body (loop head to
# branch) goes to llvm-mca-19 -mcpu=CPU for 100 iterations, and its cycles per iteration
# over the transforms one iteration does (H over the branch's count) are the cycles per
# transform. The whole traced call through llvm-mca, over H, is printed beside it (call
# cycles: prologue and epilogue included).
#
#   bash tests/dft/bench_arm.sh [--quick] [--filter N] [options]
#
#   --quick             N = 4 16 64, f32 only
#   --filter N[,N...]   only these sizes (also as bare arguments)
#   --types T[,T]       f32, f64 (default both)
#   --inverse           the backward transform
#   --mcpu CPU          llvm-mca's CPU (neoverse-n1)
#   --howmany H         transforms in the traced call (32; the stand-in: 2)
#   --no-ablations      tine's full pipeline only
#   --no-fftw           no FFTW-Neon column
#   --results PATH      default $PWD/dft-bench-arm.tsv (the table beside it, .md)
#   --build-dir DIR     keep the build there (default a temporary directory)
#
# Environment: TINE, TINE_DFT_STANDIN=1 (the naive C codelet in tine's place), CC_CLANG
# (clang-19), CC_GCC_A64 (aarch64-linux-gnu-gcc), OBJCOPY (llvm-objcopy-19), BENCH_JOBS,
# SEED, TINE_DFT_CACHE, FFTW_SRC (a fftw-3.3.10 tree or tarball: no download).
# Word splitting of the flag strings is intended; env.sh sets tine, seed, standin ...
# shellcheck disable=SC2046,SC2154,SC2206
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=/dev/null
source "$here/env.sh" # root, ddir, tine, clang, objcopy, jobs, seed, cache, standin, all_sizes; pool, dftpy, fftw_source
sysroot=/usr/aarch64-linux-gnu
quick=0
for a in "$@"; do [ "$a" = --quick ] && quick=1; done
if [ $quick = 1 ]; then types=(f32) sizes=(4 16 64); else types=(f32 f64) sizes=("${all_sizes[@]}"); fi
mcpu=neoverse-n1 howmany="" inverse=0 ablations=1 use_fftw=1 results=$PWD/dft-bench-arm.tsv build="" filters=()
usage() { sed -n '2,/^# Environment/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
need() { [ $# -ge 2 ] || { echo "bench_arm.sh: $1 needs a value" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
  case $1 in
    --quick) ;;
    --filter) need "$@"; filters+=("$2"); shift ;;
    --types) need "$@"; IFS=, read -r -a types <<<"$2"; shift ;;
    --inverse) inverse=1 ;;
    --mcpu) need "$@"; mcpu=$2; shift ;;
    --howmany) need "$@"; howmany=$2; shift ;;
    --no-ablations) ablations=0 ;;
    --no-fftw) use_fftw=0 ;;
    --results) need "$@"; results=$2; shift ;;
    --build-dir) need "$@"; build=$2; shift ;;
    --target) need "$@"; [ "$2" = arm-64 ] || { echo "bench_arm.sh: times arm-64 only" >&2; exit 2; }; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "bench_arm.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) filters+=("$1") ;;
  esac
  shift
done
case $results in /*) ;; *) results=$PWD/$results ;; esac
t_start=$(date +%s)
select_sizes bench_arm.sh "${filters[@]}"
# the stand-in is O(N^2) with loops: a short trace
[ -z "$howmany" ] && { [ "$standin" = 1 ] && howmany=2 || howmany=32; }
[[ $howmany =~ ^[0-9]+$ ]] && [ "$howmany" -ge 2 ] && [ $((howmany % 2)) = 0 ] ||
  { echo "bench_arm.sh: --howmany takes an even count >= 2" >&2; exit 2; }
for t in "$clang" "$objcopy" llvm-mca-19 llvm-nm-19 llvm-objdump-19 qemu-aarch64 python3; do
  command -v "$t" >/dev/null || { echo "bench_arm.sh: needs $t" >&2; exit 2; }
done
if [ "$standin" = 1 ]; then
  echo "bench_arm.sh: TINE_DFT_STANDIN=1: the naive O(N^2) C codelet stands in for tine dft (cycles mean nothing)"
else
  [ -x "$tine" ] || { echo "bench_arm.sh: no tine binary at $tine (set TINE; TINE_DFT_STANDIN=1 runs the harness alone)" >&2; exit 2; }
  "$tine" dft --help >/dev/null 2>&1 ||
    { echo "bench_arm.sh: $tine has no 'dft' command yet (TINE_DFT_STANDIN=1 runs the harness with a stand-in codelet)" >&2; exit 2; }
fi
make_build dft-bench-arm
a64=("$clang" --target=aarch64-linux-gnu)

fftw_note="" src=""
gcc_a64=${CC_GCC_A64:-aarch64-linux-gnu-gcc}
command -v "$gcc_a64" >/dev/null || gcc_a64=""
if [ $use_fftw = 1 ]; then
  if src=$(fftw_source 2>"$build/fftw_source.err"); then
    fftw_note="FFTW 3.3.10's n1$([ $inverse = 1 ] && echo b || echo f)v_N Neon codelets (simd-neon.h) from $src, built by $clang -O3 -fomit-frame-pointer -fstrict-aliasing -mcpu=$mcpu (FFTW's clang flags)"
    if [ -n "$gcc_a64" ]; then
      fftw_note+=" and by $gcc_a64 -O3 -fomit-frame-pointer -mtune=$mcpu -fstrict-aliasing -fno-schedule-insns (FFTW's gcc flags); the fewer cycles of the two"
    fi
  else
    fftw_note="not measured: $(cat "$build/fftw_source.err")"
    echo "bench_arm.sh: FFTW-Neon column skipped: $(cat "$build/fftw_source.err")"
    use_fftw=0
  fi
else
  fftw_note="not measured (--no-fftw)"
fi

variants=(tine)
[ $ablations = 1 ] && variants+=(nopeep nosched noopt)
declare -A vflags=([tine]="" [nopeep]="--no-peephole" [nosched]="--no-schedule" [noopt]="--no-peephole --no-schedule")
declare -A vlabel=([tine]="tine" [nopeep]="tine --no-peephole" [nosched]="tine --no-schedule" [noopt]="tine neither"
                 [fftw]="FFTW-Neon (clang)" [fftwg]="FFTW-Neon (gcc)")
dir_flag=""
[ $inverse = 1 ] && dir_flag=--inverse
{
  printf 'variants\t%s\n' "${variants[*]}"
  printf 'mcpu\t%s\n' "$mcpu"
  printf 'howmany\t%s\n' "$howmany"
  printf 'fftw_neon\t%s\n' "$([ $use_fftw = 1 ] && echo yes || echo no)"
  printf 'fftw_note\t%s\n' "$fftw_note"
  if [ "$standin" = 1 ]; then printf 'tine\tSTAND-IN (tests/dft/naive_codelet.c at clang -O2, not tine)\n'
  else printf 'tine\ttine dft --target arm-64%s\n' "${dir_flag:+ $dir_flag}"; fi
} >"$build/meta.tsv"

# 1. Assembly and objects, in parallel.
: >"$build/rows.tsv"
cmds=("${a64[*]} -O2 -c '$here/fftw_neon_zero.c' -o '$build/zero.o'")
for ty in "${types[@]}"; do
  for n in "${sizes[@]}"; do
    d=$build/$ty/$n
    mkdir -p "$d"
    printf '%s\t%s\t%s\n' "$ty" "$n" "$d" >>"$build/rows.tsv"
    f64=0
    [ "$ty" = f64 ] && f64=1
    for v in "${variants[@]}"; do
      sym=tine_dft_$n name=()
      [ "$v" != tine ] && sym=tine_dft_${n}_$v name=(--name "$sym")
      if [ "$standin" = 1 ]; then
        cmds+=("${a64[*]} -O2 -DDFT_N=$n -DDFT_F64=$f64 -DDFT_INVERSE=$inverse -DDFT_NAME=$sym -S '$here/naive_codelet.c' -o '$d/$v.s' 2>'$d/$v.log' &&
                ${a64[*]} -c '$d/$v.s' -o '$d/$v.o' 2>>'$d/$v.log'")
      else
        t=("'$tine'" dft --n "$n" --type "$ty" --target arm-64 $dir_flag ${vflags[$v]} "${name[@]}")
        cmds+=("${t[*]} --emit asm -o '$d/$v.s' >/dev/null 2>'$d/$v.log' &&
                ${a64[*]} -c '$d/$v.s' -o '$d/$v.o' 2>>'$d/$v.log' &&
                $objcopy --keep-global-symbol=$sym '$d/$v.o' 2>>'$d/$v.log' || rm -f '$d/$v.o'")
      fi
    done
    if [ $use_fftw = 1 ]; then
      k=n1fv
      [ $inverse = 1 ] && k=n1bv
      single=""
      [ "$ty" = f32 ] && single=-DFFTW_SINGLE
      if [ -f "$src/dft/simd/common/${k}_$n.c" ]; then
        fl="-w -I'$src' -I'$here/fftw_neon' $single -DFFTW_CODELET='\"dft/simd/common/${k}_$n.c\"' -DFFTW_KERNEL=${k}_$n -DFFTW_N=$n -DDFT_INVERSE=$inverse"
        cmds+=("${a64[*]} -O3 -fomit-frame-pointer -fstrict-aliasing -mcpu=$mcpu $fl -DNAME=fftw_neon_dft_$n \
                  -S '$here/fftw_neon.c' -o '$d/fftw.s' 2>'$d/fftw.log' &&
                ${a64[*]} -c '$d/fftw.s' -o '$d/fftw.o' 2>>'$d/fftw.log' &&
                $objcopy --keep-global-symbol=fftw_neon_dft_$n '$d/fftw.o' 2>>'$d/fftw.log' || rm -f '$d/fftw.o'")
        [ -n "$gcc_a64" ] &&
          cmds+=("$gcc_a64 -O3 -fomit-frame-pointer -mtune=$mcpu -fstrict-aliasing -fno-schedule-insns $fl -DNAME=fftw_neon_gcc_dft_$n \
                    -S '$here/fftw_neon.c' -o '$d/fftwg.s' 2>'$d/fftwg.log' &&
                  ${a64[*]} -c '$d/fftwg.s' -o '$d/fftwg.o' 2>>'$d/fftwg.log' &&
                  $objcopy --keep-global-symbol=fftw_neon_gcc_dft_$n '$d/fftwg.o' 2>>'$d/fftwg.log' || rm -f '$d/fftwg.o'")
      else
        echo "FFTW has no ${k}_$n codelet" >"$d/fftw.log"
      fi
    fi
  done
done
echo "bench_arm.sh: building ${#cmds[@]} codelets (types: ${types[*]}; N: ${sizes[*]}) ..."
pool "${cmds[@]}"
[ -f "$build/zero.o" ] || { echo "bench_arm.sh: cannot compile for aarch64 (${a64[*]})" >&2; exit 1; }

# 2. Per (type, N): the driver, checked under qemu; each codelet traced and measured.
echo "bench_arm.sh: checking under qemu-aarch64 and measuring (llvm-mca-19 -mcpu=$mcpu) ..."
while IFS=$'\t' read -r ty n d; do
  : >"$d/notes.txt"
  : >"$d/asm.tsv"
  : >"$d/cycles.tsv"
  f64=0
  [ "$ty" = f64 ] && f64=1
  entries=() objs=()
  peers=()
  [ $use_fftw = 1 ] && peers=(fftw) && [ -n "$gcc_a64" ] && peers+=(fftwg)
  for v in "${variants[@]}" "${peers[@]}"; do
    case $v in
      tine) sym=tine_dft_$n ;;
      fftw) sym=fftw_neon_dft_$n ;;
      fftwg) sym=fftw_neon_gcc_dft_$n ;;
      *) sym=tine_dft_${n}_$v ;;
    esac
    if [ -f "$d/$v.o" ]; then
      entries+=("$v:${vlabel[$v]}:$sym") objs+=("$d/$v.o")
      printf '%s\t%s\n' "$v" "$(dftpy asm-stats "$d/$v.s" "$sym")" >>"$d/asm.tsv"
    else
      printf '%s failed: %s\n' "${vlabel[$v]}" "$(grep -m1 . "$d/$v.log" 2>/dev/null | cut -c1-160)" >>"$d/notes.txt"
    fi
  done
  [ -f "$d/tine.o" ] || { echo "  $ty N=$n: tine dft failed: $(grep -m1 . "$d/tine.log" 2>/dev/null | cut -c1-160)"; continue; }
  {
    echo "/* generated by tests/dft/bench_arm.sh */"
    echo "#define DFT_N $n"
    echo "#define DFT_F64 $f64"
    echo "#define DFT_INVERSE $inverse"
    echo "#define DFT_PEERS 0"
    printf '#define DFT_CODELETS(X)'
    for e in "${entries[@]}"; do IFS=: read -r id label sym <<<"$e"; printf ' X(%s, "%s", %s)' "$id" "$label" "$sym"; done
    echo
  } >"$d/codelets.h"
  if ! "${a64[@]}" -std=c11 -O2 -static -include "$d/codelets.h" "$ddir/driver.c" "${objs[@]}" "$build/zero.o" -lm \
      -o "$d/driver" 2>"$d/driver.log"; then
    echo "  $ty N=$n: the driver does not link:"; head -5 "$d/driver.log"
    printf 'the driver does not link: %s\n' "$(grep -m1 error "$d/driver.log" | cut -c1-160)" >>"$d/notes.txt"
    continue
  fi
  if ! qemu-aarch64 -L $sysroot "$d/driver" --check --batch 16 --seed "$seed" >"$d/check.txt" 2>&1 </dev/null; then
    echo "  $ty N=$n: $(grep -m1 '^driver:' "$d/check.txt")"
    printf 'check under qemu failed: %s\n' "$(grep -m1 '^driver:' "$d/check.txt" | cut -c1-200)" >>"$d/notes.txt"
  fi
  for e in "${entries[@]}"; do
    IFS=: read -r id label sym <<<"$e"
    if grep -qP "^check\t$id\t.*\tFAIL$" "$d/check.txt" || ! grep -qP "^check\t$id\t" "$d/check.txt"; then
      printf '%s\t-\t-\t-\t-\tcheck failed: not measured\n' "$id" >>"$d/cycles.tsv"
      continue
    fi
    read -r addr size < <(llvm-nm-19 -S "$d/driver" | awk -v s="$sym" '$4 == s { print $1, $2 }')
    if [ -n "${addr:-}" ] && qemu-aarch64 -L $sysroot -singlestep -d exec,nochain -dfilter "0x$addr+0x$size" \
        -D "$d/$id.trace" "$d/driver" --once "$id" --howmany "$howmany" >/dev/null 2>&1 </dev/null; then
      llvm-objdump-19 -d --no-show-raw-insn --disassemble-symbols="$sym" "$d/driver" >"$d/$id.objdump"
      printf '%s\t%s\n' "$id" "$(dftpy neon-cycles "$d/$id.objdump" "$d/$id.trace" "$sym" "$howmany" "$mcpu")" >>"$d/cycles.tsv"
      rm -f "$d/$id.trace"
    else
      printf '%s\t-\t-\t-\t-\tno trace\n' "$id" >>"$d/cycles.tsv"
    fi
  done
done <"$build/rows.tsv"

echo
dftpy report-arm "$build" "$results"
echo "bench_arm.sh: the lines in $results, the table in ${results%.*}.md; done in $(($(date +%s) - t_start)) s"

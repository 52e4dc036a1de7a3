#!/usr/bin/env bash
# bench.sh — `tine bench --dft`: the codelets of `tine dft` against FFTW 3.3.10 and KissFFT
# (issue 36's benchmark), on this machine's x86 rows:
#
#   tine         tine dft --n N --type T --target TARGET --emit obj (its --emit h header is
#                included by the driver: a prototype that differs fails the build)
#   ablations    the same with --no-peephole, --no-schedule, and both (named
#                tine_dft_N_nopeep, _nosched, _noopt), timed in the same rounds
#   FFTW         fftw[f]_plan_many_dft(1, &n, B, in, NULL, 1, n, out, NULL, 1, n, sign,
#                FFTW_MEASURE), planned once before timing, executed on the same buffers;
#                single thread, no wisdom; the system's libfftw3 (Debian's build: SSE2 and AVX
#                codelets only) or, with --fftw local, FFTW built with AVX2 and AVX-512
#                (tests/dft/fftw_build.sh)
#   KissFFT      kiss_fft_alloc(N, inverse, NULL, NULL) once, kiss_fft per transform over
#                the batch (float only: the f64 column is —)
#
# rows: x86-64-avx2 and x86-64-avx512, each when this CPU runs it; types f32 and f64; sizes
# 2 4 8 16 32 64 3 5 6 7 9 10 12 15. Per (row, type, N) one driver (bench/dft/driver.c)
# links them all: it checks each against a long-double O(N^2) DFT on random inputs (tine's
# codelets also on strided, interleaved, odd-count and empty layouts, guards around every
# output), then times them interleaved: ROUNDS rounds, each visiting every implementation
# once in an order rotated per round, a visit the median of K timings, a timing back-to-back
# batches of B transforms (contiguous: istride 1, idist N) lasting at least MS ms. The
# table: median ns per transform, FFTW/tine and Kiss/tine (the median of per-round ratios:
# above 1, tine faster), each ablation's time and ratio to the full tine, and each
# codelet's instruction and spill count (its --emit asm: tests/dft/dft.py asm-stats).
# Builds run in parallel (tests/pool.sh); the drivers run one at a time.
#
#   bash tests/dft/bench.sh [--quick] [--target T] [--filter N] [options]
#
#   --quick             N = 4 16 64, f32 only, 7 rounds of 0.5 ms
#   --target T          only this row: x86-64-avx2 or x86-64-avx512 (default: every row the
#                       CPU runs)
#   --filter N[,N...]   only these sizes (repeatable; also as bare arguments)
#   --types T[,T]       f32, f64 (default both; --quick: f32)
#   --inverse           the backward transform (sign +1) instead of the forward one
#   --rounds R          rounds (21)       --ms MS   least length of one timing (1)
#   --visits K          timings per visit, the median kept (3)
#   --batch B           transforms per batch (1000)
#   --fftw system|local|DIR  FFTW to link: the system's (default), the cache's build with
#                       AVX2 and AVX-512 (built on first use, ~10 min: fftw_build.sh), or an
#                       install prefix DIR (DIR/include/fftw3.h, DIR/lib/libfftw3{,f}.a)
#   --no-ablations      time tine's full pipeline only
#   --selftest          no tine and no timing: the driver (gcc and clang, -Wall -Wextra
#                       -Werror) with the stand-in codelet (tests/dft/naive_codelet.c) for
#                       N = 4 5 16, f32 and f64, both directions, checks that pass; three
#                       broken stand-ins whose checks must fail; the asm counters; a short
#                       timing through the report (~10 s)
#   --results PATH      the RESULT lines (default $PWD/dft-bench.tsv; the table beside it, .md)
#   --build-dir DIR     keep the build there (wiped first; default a temporary directory)
#
# Environment: TINE (default build/tine), TINE_DFT_STANDIN=1 (no tine: the stand-in codelet,
# plain C at -O2, in tine's place — the harness's own test, its times mean nothing),
# CC_BENCH (the driver's compiler, gcc), CC_CLANG (clang-19), OBJCOPY (llvm-objcopy-19),
# BENCH_JOBS (parallel builds, 2), SEED, TINE_DFT_CACHE (FFTW's source and build, default
# ~/.cache/tine-dft), FFTW_SRC.
# Word splitting of the flag strings is intended; env.sh sets tine, seed, standin ...
# shellcheck disable=SC2046,SC2154,SC2206
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=/dev/null
source "$here/env.sh" # root, ddir, tine, cc, clang, objcopy, jobs, seed, cache, standin, all_sizes; pool, dftpy, fftw_source

quick=0 selftest=0
for a in "$@"; do
  [ "$a" = --quick ] && quick=1
  [ "$a" = --selftest ] && selftest=1
done
if [ $quick = 1 ]; then rounds=7 ms=0.5 types=(f32) sizes=(4 16 64); else rounds=21 ms=1 types=(f32 f64) sizes=("${all_sizes[@]}"); fi
row_arg="" batch=1000 visits=3 inverse=0 fftw=system ablations=1 results=$PWD/dft-bench.tsv build="" filters=()
usage() { sed -n '2,/^# Environment/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
need() { [ $# -ge 2 ] || { echo "bench.sh: $1 needs a value" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
  case $1 in
    --quick|--selftest) ;;
    --target) need "$@"; row_arg=$2; shift ;;
    --filter) need "$@"; filters+=("$2"); shift ;;
    --types) need "$@"; IFS=, read -r -a types <<<"$2"; shift ;;
    --inverse) inverse=1 ;;
    --rounds) need "$@"; rounds=$2; shift ;;
    --visits) need "$@"; visits=$2; shift ;;
    --ms) need "$@"; ms=$2; shift ;;
    --batch) need "$@"; batch=$2; shift ;;
    --fftw) need "$@"; fftw=$2; shift ;;
    --no-ablations) ablations=0 ;;
    --results) need "$@"; results=$2; shift ;;
    --build-dir) need "$@"; build=$2; shift ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "bench.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    *) filters+=("$1") ;;
  esac
  shift
done
case $results in /*) ;; *) results=$PWD/$results ;; esac
t_start=$(date +%s)
select_sizes bench.sh "${filters[@]}"
for t in "${types[@]}"; do
  case $t in f32|f64) ;; *) echo "bench.sh: types are f32 and f64, not '$t'" >&2; exit 2 ;; esac
done
make_build dft-bench
warn=(-std=c11 -Wall -Wextra -Werror)

# write_codelets DIR N TYPE INVERSE HEADER ID:LABEL:SYMBOL...: DIR/codelets.h, which the driver
# is compiled with (-include): the size, type, direction and the codelets linked in.
write_codelets() {
  local d=$1 n=$2 ty=$3 inv=$4 hdr=$5 e id label sym
  shift 5
  {
    echo "/* generated by tests/dft/bench.sh */"
    echo "#define DFT_N $n"
    echo "#define DFT_F64 $([ "$ty" = f64 ] && echo 1 || echo 0)"
    echo "#define DFT_INVERSE $inv"
    [ -n "$hdr" ] && echo "#include \"$hdr\""
    printf '#define DFT_CODELETS(X)'
    for e in "$@"; do
      IFS=: read -r id label sym <<<"$e"
      printf ' X(%s, "%s", %s)' "$id" "$label" "$sym"
    done
    echo
  } >"$d/codelets.h"
}
standin_flags() { # N TYPE INVERSE: the stand-in's -D flags
  echo "-DDFT_N=$1 -DDFT_F64=$([ "$2" = f64 ] && echo 1 || echo 0) -DDFT_INVERSE=$3"
}

# ---- --selftest: the harness, with the stand-in codelet -------------------------------------
if [ $selftest = 1 ]; then
  fail=0
  dftpy selftest || fail=1
  cmds=()
  for n in 4 5 16; do
    for ty in f32 f64; do
      for inv in 0 1; do
        d=$build/$n-$ty-$inv
        mkdir -p "$d"
        write_codelets "$d" "$n" "$ty" "$inv" "" "tine:tine (stand-in):tine_dft_$n" "second:second codelet:tine_dft_${n}_second"
        fl=$(standin_flags "$n" "$ty" "$inv")
        cmds+=("$cc ${warn[*]} -O2 $fl -c '$here/naive_codelet.c' -o '$d/a.o' &&
                $clang ${warn[*]} -O2 $fl -DDFT_NAME=tine_dft_${n}_second -c '$here/naive_codelet.c' -o '$d/b.o' &&
                $cc ${warn[*]} -O2 -include '$d/codelets.h' -c '$ddir/driver.c' -o '$d/driver.o' &&
                $clang ${warn[*]} -O2 -include '$d/codelets.h' -c '$ddir/driver.c' -o '$d/driver-clang.o' &&
                $cc '$d/driver.o' '$d/a.o' '$d/b.o' -lfftw3 -lfftw3f -lkissfft-float -lm -o '$d/driver'")
      done
    done
  done
  # broken stand-ins: idist ignored, the other sign, a write past the last transform
  for bug in 1 2 3; do
    d=$build/bug$bug
    mkdir -p "$d"
    write_codelets "$d" 5 f32 0 "" "tine:tine (broken stand-in):tine_dft_5"
    cmds+=("$cc -O2 $(standin_flags 5 f32 0) -DDFT_BUG=$bug -c '$here/naive_codelet.c' -o '$d/a.o' &&
            $cc -O2 -include '$d/codelets.h' -c '$ddir/driver.c' -o '$d/driver.o' &&
            $cc '$d/driver.o' '$d/a.o' -lfftw3 -lfftw3f -lkissfft-float -lm -o '$d/driver'")
  done
  pool "${cmds[@]}"
  for f in "$build"/failed/*; do
    [ -e "$f" ] || continue
    echo "bench.sh --selftest: a build failed:"; head -c 3000 "$f"; echo
    fail=1
  done
  for n in 4 5 16; do
    for ty in f32 f64; do
      for inv in 0 1; do
        d=$build/$n-$ty-$inv
        [ -x "$d/driver" ] || { fail=1; continue; }
        if ! "$d/driver" --check --batch 64 --seed "$seed" >"$d/check.txt" 2>&1; then
          echo "bench.sh --selftest: N=$n $ty inverse=$inv: the stand-in fails its checks:"; grep -v "	ok$" "$d/check.txt" | head -20
          fail=1
        fi
      done
    done
  done
  declare -A bug_expect=([1]="strided" [2]="relative RMS error" [3]="which no transform owns")
  for bug in 1 2 3; do
    d=$build/bug$bug
    [ -x "$d/driver" ] || { fail=1; continue; }
    if "$d/driver" --check --batch 64 >"$d/check.txt" 2>&1; then
      echo "bench.sh --selftest: broken stand-in $bug passes the checks (the checker misses it)"; fail=1
    elif ! grep -q "${bug_expect[$bug]}" "$d/check.txt"; then
      echo "bench.sh --selftest: broken stand-in $bug fails, but not with '${bug_expect[$bug]}':"; head -5 "$d/check.txt"; fail=1
    fi
  done
  # a short timing through the report, and the asm counters on a compiled stand-in
  d=$build/16-f32-0
  if [ -x "$d/driver" ]; then
    mkdir -p "$build/report/x86-64-avx2/f32/16"
    r=$build/report/x86-64-avx2/f32/16
    "$d/driver" --batch 64 --rounds 3 --ms 0.2 --target x86-64-avx2 >"$r/run.txt" 2>&1 || { echo "bench.sh --selftest: the timing failed"; tail -3 "$r/run.txt"; fail=1; }
    $cc -O2 $(standin_flags 16 f32 0) -S "$here/naive_codelet.c" -o "$r/tine.s"
    printf 'tine\t%s\n' "$(dftpy asm-stats "$r/tine.s" tine_dft_16)" >"$r/asm.tsv"
    printf 'x86-64-avx2\tf32\t16\t%s\n' "$r" >"$build/report/rows.tsv"
    printf 'tine\tSTAND-IN\nvariants\ttine second\n' >"$build/report/meta.tsv"
    dftpy report "$build/report" "$build/report/results.tsv" >"$build/report/table.md"
    grep -q "^| 16 | f32 | [0-9]" "$build/report/table.md" ||
      { echo "bench.sh --selftest: the report has no row for N=16:"; cat "$build/report/table.md"; fail=1; }
    grep -qP '^tine\t[1-9][0-9]*\t[0-9]+\t[0-9]+$' "$r/asm.tsv" || { echo "bench.sh --selftest: no asm stats:"; cat "$r/asm.tsv"; fail=1; }
  fi
  if [ $fail = 0 ]; then
    echo "bench.sh --selftest: ok (driver with gcc and clang, 12 stand-in configurations checked, 3 broken ones caught, report) in $(($(date +%s) - t_start)) s"
  fi
  exit $fail
fi

# ---- the bench ----------------------------------------------------------------------------------
if [ "$standin" = 1 ]; then
  echo "bench.sh: TINE_DFT_STANDIN=1: the naive O(N^2) C codelet stands in for tine dft (times mean nothing)"
else
  [ -x "$tine" ] || { echo "bench.sh: no tine binary at $tine (build it, or set TINE; TINE_DFT_STANDIN=1 runs the harness alone)" >&2; exit 2; }
  if ! "$tine" dft --help >/dev/null 2>&1; then
    echo "bench.sh: $tine has no 'dft' command yet (TINE_DFT_STANDIN=1 runs the harness with a stand-in codelet; --selftest checks it)" >&2
    exit 2
  fi
fi

# The rows this CPU runs (as tests/vectorize/bench.sh decides them).
flags=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
has() { for f in "$@"; do [[ " $flags " == *" $f "* ]] || return 1; done; }
declare -A row_march=([x86-64-avx2]="-march=x86-64-v3" [x86-64-avx512]="-march=x86-64-v4")
rows=()
for r in x86-64-avx2 x86-64-avx512; do
  if [ -n "$row_arg" ] && [ "$row_arg" != "$r" ]; then continue; fi
  case $r in
    x86-64-avx2) has avx2 fma || { echo "bench.sh: this CPU does not run x86-64-avx2; row skipped"; continue; } ;;
    x86-64-avx512) has avx512f avx512bw avx512vl avx512dq avx512cd avx512_vnni ||
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

# FFTW: the system's, the cache's x86 SIMD build, or a prefix.
fftw_inc=() fftw_libs=(-lfftw3 -lfftw3f)
case $fftw in
  system) fftw_what="the system's libfftw3 (Debian 3.3.10-1: --enable-sse2 --enable-avx, no AVX2/FMA or AVX-512 codelets)" ;;
  local|/*|./*|../*)
    prefix=$fftw
    if [ "$fftw" = local ]; then prefix=$(bash "$here/fftw_build.sh") || { echo "bench.sh: --fftw local: the build failed" >&2; exit 1; }; fi
    [ -f "$prefix/include/fftw3.h" ] && [ -f "$prefix/lib/libfftw3f.a" ] && [ -f "$prefix/lib/libfftw3.a" ] ||
      { echo "bench.sh: --fftw $fftw: no $prefix/include/fftw3.h, lib/libfftw3.a and lib/libfftw3f.a" >&2; exit 2; }
    fftw_inc=(-I"$prefix/include") fftw_libs=("$prefix/lib/libfftw3.a" "$prefix/lib/libfftw3f.a")
    fftw_what="FFTW built at $prefix (static)" ;;
  *) echo "bench.sh: --fftw takes system, local or a directory, not '$fftw'" >&2; exit 2 ;;
esac

variants=(tine)
[ $ablations = 1 ] && variants+=(nopeep nosched noopt)
declare -A vflags=([tine]="" [nopeep]="--no-peephole" [nosched]="--no-schedule" [noopt]="--no-peephole --no-schedule")
declare -A vlabel=([tine]="tine" [nopeep]="tine --no-peephole" [nosched]="tine --no-schedule" [noopt]="tine neither")
dir_flag=""
[ $inverse = 1 ] && dir_flag=--inverse
{
  printf 'variants\t%s\n' "${variants[*]}"
  printf 'params\t%s, batches of %s transforms, %s rounds, a visit the median of %s timings >= %s ms, seed %s, one thread, inputs uniform in [-1, 1)\n' \
    "$([ $inverse = 1 ] && echo backward || echo forward)" "$batch" "$rounds" "$visits" "$ms" "$seed"
  if [ "$standin" = 1 ]; then printf 'tine\tSTAND-IN (tests/dft/naive_codelet.c, a naive O(N^2) DFT at %s -O2, not tine)\n' "$cc"
  else printf 'tine\ttine dft%s\n' "${dir_flag:+ $dir_flag}"; fi
  printf 'fftw\t%s, FFTW_MEASURE\n' "$fftw_what"
  printf 'kiss\t131.1.0 (Debian libkissfft-float), float only\n'
} >"$build/meta.tsv"

# 1. The codelets, every variant of every (row, type, N), in parallel.
: >"$build/rows.tsv"
cmds=()
for r in "${rows[@]}"; do
  for ty in "${types[@]}"; do
    for n in "${sizes[@]}"; do
      d=$build/$r/$ty/$n
      mkdir -p "$d"
      printf '%s\t%s\t%s\t%s\n' "$r" "$ty" "$n" "$d" >>"$build/rows.tsv"
      for v in "${variants[@]}"; do
        sym=tine_dft_$n name=()
        [ "$v" != tine ] && sym=tine_dft_${n}_$v name=(--name "$sym")
        if [ "$standin" = 1 ]; then
          fl="$(standin_flags "$n" "$ty" "$inverse") -DDFT_NAME=$sym"
          cmds+=("$cc -O2 ${row_march[$r]} $fl -c '$here/naive_codelet.c' -o '$d/$v.o' 2>'$d/$v.log' &&
                  $cc -O2 ${row_march[$r]} $fl -S '$here/naive_codelet.c' -o '$d/$v.s' 2>>'$d/$v.log'")
        else
          t=("'$tine'" dft --n "$n" --type "$ty" --target "$r" $dir_flag ${vflags[$v]} "${name[@]}")
          # the codelet's symbol alone global: helpers of the same name in two variants do not clash
          cmds+=("{ ${t[*]} --emit obj -o '$d/$v.o' 2>'$d/$v.log' >/dev/null &&
                    $objcopy --keep-global-symbol=$sym '$d/$v.o' 2>>'$d/$v.log'; } || rm -f '$d/$v.o';
                  ${t[*]} --emit asm -o '$d/$v.s' 2>>'$d/$v.log' >/dev/null || rm -f '$d/$v.s';
                  if [ $v = tine ]; then ${t[*]} --emit h -o '$d/tine.h' 2>>'$d/$v.log' >/dev/null || rm -f '$d/tine.h'; fi; true")
        fi
      done
    done
  done
done
echo "bench.sh: building ${#cmds[@]} codelet sets in $build (rows: ${rows[*]}; types: ${types[*]}; N: ${sizes[*]}) ..."
pool "${cmds[@]}"

# 2. Per (row, type, N): the asm counts, codelets.h, the driver (in parallel).
cmds=()
while IFS=$'\t' read -r r ty n d; do
  : >"$d/notes.txt"
  : >"$d/asm.tsv"
  entries=()
  for v in "${variants[@]}"; do
    sym=tine_dft_$n
    [ "$v" != tine ] && sym=tine_dft_${n}_$v
    if [ -f "$d/$v.o" ]; then
      entries+=("$v:${vlabel[$v]}:$sym")
    else
      printf '%s failed: %s\n' "${vlabel[$v]}" "$(grep -m1 . "$d/$v.log" 2>/dev/null | cut -c1-160)" >>"$d/notes.txt"
    fi
    [ -f "$d/$v.s" ] && printf '%s\t%s\n' "$v" "$(dftpy asm-stats "$d/$v.s" "$sym")" >>"$d/asm.tsv"
  done
  # tine's full codelet first: without it there is nothing to compare
  [ -f "$d/tine.o" ] || { rm -f "$d/driver"; continue; }
  hdr=""
  [ -f "$d/tine.h" ] && hdr=$d/tine.h
  # with tine's header (a prototype that differs from the contract fails the compile), and
  # without it, the fallback that is noted
  write_codelets "$d" "$n" "$ty" "$inverse" "$hdr" "${entries[@]}"
  mv "$d/codelets.h" "$d/codelets-h.h"
  write_codelets "$d" "$n" "$ty" "$inverse" "" "${entries[@]}"
  objs=()
  for e in "${entries[@]}"; do objs+=("'$d/${e%%:*}.o'"); done
  cmds+=("if ! $cc -std=c11 -O2 ${fftw_inc[*]} -include '$d/codelets-h.h' -c '$ddir/driver.c' -o '$d/driver.o' 2>'$d/driver.log'; then
            [ -n '$hdr' ] && printf \"tine's --emit h header does not agree with the codelet contract: %s\\n\" \"\$(grep -m1 error '$d/driver.log' | cut -c1-200)\" >>'$d/notes.txt'
            $cc -std=c11 -O2 ${fftw_inc[*]} -include '$d/codelets.h' -c '$ddir/driver.c' -o '$d/driver.o' 2>>'$d/driver.log'
          fi &&
          $cc '$d/driver.o' ${objs[*]} ${fftw_libs[*]} -lkissfft-float -lm -o '$d/driver' 2>>'$d/driver.log'")
done <"$build/rows.tsv"
echo "bench.sh: building ${#cmds[@]} drivers ..."
pool "${cmds[@]}"

# 3. Check and time, one driver at a time.
echo "bench.sh: checking and timing ($rounds rounds of $visits timings >= $ms ms, batches of $batch) ..."
while IFS=$'\t' read -r r ty n d; do
  if [ ! -x "$d/driver" ]; then
    if [ -f "$d/tine.o" ]; then
      printf 'the driver does not build: %s\n' "$(grep -m1 error "$d/driver.log" | cut -c1-200)" >>"$d/notes.txt"
      echo "  $r $ty N=$n: the driver does not build:"; head -5 "$d/driver.log"
    else
      echo "  $r $ty N=$n: tine dft failed: $(grep -m1 . "$d/tine.log" 2>/dev/null | cut -c1-160)"
    fi
    continue
  fi
  if ! "$d/driver" --batch "$batch" --rounds "$rounds" --visits "$visits" --ms "$ms" --seed "$seed" --target "$r" --quiet >"$d/run.txt" 2>"$d/run.err" </dev/null; then
    printf 'check failed, not timed: %s\n' "$(grep -m1 . "$d/run.err" | cut -c1-200)" >>"$d/notes.txt"
    echo "  $r $ty N=$n: $(grep -m1 . "$d/run.err")"
  fi
done <"$build/rows.tsv"

# 4. The table.
echo
dftpy report "$build" "$results"
echo "bench.sh: RESULT lines in $results, the table in ${results%.*}.md; done in $(($(date +%s) - t_start)) s"

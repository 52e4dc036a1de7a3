#!/usr/bin/env bash
# Build and run the differential harness for every hand-written variant of the
# retarget corpus (see README.md).
#
#   bash check_hand.sh [-v] [VARIANT...]      VARIANT: ref neon sse2 sse41 avx2
#
# Every variant is built twice, with clang-19 and with gcc (Neon: clang-19
# --target=aarch64-linux-gnu and aarch64-linux-gnu-gcc, static, run under
# qemu-aarch64), and compared bit for bit with the reference; "ref" runs the
# reference against itself (guard pages, guard bytes, determinism).
# -v prints every "NAME: ok" line.  Environment: CORPUS_ITERS (iterations per
# function, default 300), CORPUS_SEED, CORPUS_JOBS (parallel jobs, default
# nproc), CORPUS_BUILD_DIR (keep the build there), CC_CLANG (default clang-19).
# Exits non-zero on any compile error, mismatch, fault or manifest error.
# Word splitting of $warn, $b and the command strings is intended.
# shellcheck disable=SC2086
set -u
here=$(cd "$(dirname "$0")" && pwd)
verbose=0
if [ "${1:-}" = "-v" ]; then verbose=1; shift; fi
variants=("$@")
[ ${#variants[@]} -eq 0 ] && variants=(ref neon sse2 sse41 avx2)
for v in "${variants[@]}"; do
  case $v in ref|neon|sse2|sse41|avx2|neon/*|sse2/*|sse41/*|avx2/*) ;; *) echo "unknown variant '$v' (ref neon sse2 sse41 avx2, or VARIANT/TARGET)"; exit 2 ;; esac
done

clang=${CC_CLANG:-clang-19}
iters=${CORPUS_ITERS:-300}
seed_arg=()
[ -n "${CORPUS_SEED:-}" ] && seed_arg=(--seed "$CORPUS_SEED")
jobs=${CORPUS_JOBS:-$(nproc 2>/dev/null || echo 2)}
if [ -n "${CORPUS_BUILD_DIR:-}" ]; then
  build=$CORPUS_BUILD_DIR; rm -rf "$build"; mkdir -p "$build"
else
  build=$(mktemp -d "${TMPDIR:-/tmp}/retarget-corpus.XXXXXX")
  trap 'rm -rf "$build"' EXIT
fi
warn="-O2 -Wall -Wextra -Werror -Wno-unused-parameter -Wmissing-prototypes"

# Toolchains: compiler command for objects, link flags, runner.
declare -A tc_cc tc_ld tc_run
tc_cc[gcc]="gcc $warn";                                   tc_ld[gcc]="";        tc_run[gcc]=""
tc_cc[clang]="$clang $warn";                              tc_ld[clang]="";      tc_run[clang]=""
tc_cc[a64gcc]="aarch64-linux-gnu-gcc $warn";              tc_ld[a64gcc]="-static"; tc_run[a64gcc]="qemu-aarch64 -L /usr/aarch64-linux-gnu"
tc_cc[a64clang]="$clang --target=aarch64-linux-gnu $warn"; tc_ld[a64clang]="-static"; tc_run[a64clang]="qemu-aarch64 -L /usr/aarch64-linux-gnu"
declare -A isa=([ref]="" [neon]="" [sse2]="-msse2 -mno-ssse3" [sse41]="-msse4.1" [avx2]="-mavx2")
# A variant retargeted by `tine retarget` (tests/retarget/check_retarget.sh) is named
# VARIANT/TARGET (neon/x86-64-avx2): VARIANT's files, taken from $CORPUS_SRC, built for
# TARGET and run as VARIANT (the manifest's list of its functions).
declare -A target_isa=([x86-64-sse2]="-msse2 -mno-ssse3" [x86-64-sse41]="-msse4.1" [x86-64-avx2]="-march=x86-64-v3"
                       [x86-64-avx512]="-march=x86-64-v4" [arm-64]="" [arm-64-dotprod]="-march=armv8.2-a+dotprod")
src_dir=${CORPUS_SRC:-$here}

# Builds: NAME VARIANT TOOLCHAIN [SOURCE-VARIANT]
builds=()
for v in "${variants[@]}"; do
  case $v in
    */*)
      sv=${v%%/*} t=${v#*/} bn=${v//\//-to-}
      isa[$v]=${target_isa[$t]-}
      case $t in
        arm-64*) builds+=("$bn-clang $v a64clang $sv" "$bn-gcc $v a64gcc $sv") ;;
        *)       builds+=("$bn-clang $v clang $sv" "$bn-gcc $v gcc $sv") ;;
      esac ;;
    neon) builds+=("neon-clang neon a64clang neon" "neon-gcc neon a64gcc neon") ;;
    *)    builds+=("$v-clang $v clang $v" "$v-gcc $v gcc $v") ;;
  esac
done

# pool: tests/pool.sh (at most $jobs commands at a time)
# shellcheck source=/dev/null
source "$here/../../pool.sh"
failed() { [ -n "$(ls -A "$build/failed" 2>/dev/null)" ]; }

# 1. Prototypes from the SIG strings, force-included into every corpus file so
#    that a SIG which disagrees with a definition does not compile.
if ! gcc $warn -DHARNESS_PROTOS_ONLY -I"$here" "$here/harness.c" -o "$build/protogen" 2>"$build/protogen.log"; then
  cat "$build/protogen.log"; echo "check_hand: cannot build the prototype generator"; exit 1
fi
"$build/protogen" --protos >"$build/corpus_protos.h" || { echo "check_hand: bad corpus.def"; exit 1; }
inc="-include $build/corpus_protos.h"

# 2. Objects: the reference and the harness once per toolchain, each variant's
#    files once per build.
declare -A need_tc
for b in "${builds[@]}"; do set -- $b; need_tc[$3]=1; done
cmds=()
for tc in "${!need_tc[@]}"; do
  mkdir -p "$build/$tc"
  for f in "$here"/*.ref.c; do
    cmds+=("${tc_cc[$tc]} $inc -c '$f' -o '$build/$tc/$(basename "$f" .c).o'")
  done
  cmds+=("${tc_cc[$tc]} -I'$here' -c '$here/harness.c' -o '$build/$tc/harness.o'")
done
for b in "${builds[@]}"; do
  set -- $b
  [ "$2" = ref ] && cmds+=("${tc_cc[$3]} -I'$here' -DHARNESS_SELF_REF -DVARIANT='\"ref\"' -c '$here/harness.c' -o '$build/$3/harness_self.o'")
done
for b in "${builds[@]}"; do
  set -- $b
  mkdir -p "$build/$1"
  [ "$2" = ref ] && continue
  dir=$here
  [ "$4" != "$2" ] && dir=$src_dir # a retargeted variant's files
  for f in "$dir"/*."$4".c; do
    [ -e "$f" ] || continue
    cmds+=("${tc_cc[$3]} ${isa[$2]} $inc -c '$f' -o '$build/$1/$(basename "$f" .c).o'")
  done
done
pool "${cmds[@]}"

# 3. Link.
if ! failed; then
  cmds=()
  for b in "${builds[@]}"; do
    set -- $b
    if [ "$2" = ref ]; then h="$build/$3/harness_self.o"; vobjs=""; else h="$build/$3/harness.o"; vobjs="$build/$1/*.o"; fi
    cmds+=("${tc_cc[$3]} ${tc_ld[$3]} '$h' $build/$3/*.ref.o $vobjs -o '$build/$1/harness'")
  done
  pool "${cmds[@]}"
fi
if failed; then
  cat "$build"/failed/*
  echo "check_hand: BUILD FAILED"
  exit 1
fi

# 4. Run.
cmds=()
for b in "${builds[@]}"; do
  set -- $b
  cmds+=("${tc_run[$3]} '$build/$1/harness' --variant $4 --iters $iters ${seed_arg[*]} >'$build/$1/run.log' 2>&1; echo \$? >'$build/$1/rc'")
done
pool "${cmds[@]}"

status=0
for b in "${builds[@]}"; do
  set -- $b
  log="$build/$1/run.log" rc=$(cat "$build/$1/rc" 2>/dev/null || echo 99)
  if [ $verbose = 1 ]; then cat "$log"; else grep -v -e ': ok$' -e ': skipped$' -e '^==' "$log"; fi
  summary=$(grep '^==' "$log" | tail -1)
  if [ -n "$summary" ]; then echo "== $1: ${summary#== } (exit $rc)"; else echo "== $1: aborted (exit $rc)"; fi
  [ "$rc" = 0 ] || status=1
done
if [ $status = 0 ]; then echo "check_hand: all variants match the reference"; else echo "check_hand: FAILURES"; fi
exit $status

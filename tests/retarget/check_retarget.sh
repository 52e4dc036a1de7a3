#!/usr/bin/env bash
# Every function of the retarget corpus (tests/retarget/corpus) retargeted by `tine
# retarget`, compiled for its new target, and run bit-exact against the plain C reference
# by the corpus harness (x86 natively, Arm under qemu-aarch64).
#
#   bash check_retarget.sh [-v] [SOURCE/TARGET ...]
#
# SOURCE is a corpus variant (neon, sse2, sse41, avx2), TARGET a tine target; the default
# is every Neon file to every x86 level this CPU runs, and the SSE2, SSE4.1 and AVX2 files
# to arm-64. Environment: TINE (the tine binary, default build/tine from the repository
# root), CORPUS_ITERS, CORPUS_SEED (passed to the harness). A file tine cannot retarget
# fails the run, with tine's message.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tine=${TINE:-$root/build/tine}
verbose=()
if [ "${1:-}" = "-v" ]; then verbose=(-v); shift; fi
pairs=("$@")
if [ ${#pairs[@]} -eq 0 ]; then
  for t in x86-64-sse2 x86-64-sse41 x86-64-avx2 x86-64-avx512; do
    if [ "$t" = x86-64-avx512 ] && ! grep -q avx512bw /proc/cpuinfo; then continue; fi
    pairs+=("neon/$t")
  done
  pairs+=(sse2/arm-64 sse41/arm-64 avx2/arm-64)
fi

declare -A from=([neon]=arm-64 [sse2]=x86-64-sse2 [sse41]=x86-64-sse41 [avx2]=x86-64-avx2)
gen=$(mktemp -d "${TMPDIR:-/tmp}/retarget-gen.XXXXXX")
trap 'rm -rf "$gen"' EXIT
status=0
for p in "${pairs[@]}"; do
  sv=${p%%/*} t=${p#*/}
  if [ "$t" = x86-64-avx512 ] && ! grep -q avx512bw /proc/cpuinfo; then
    echo "== $p: skipped (this CPU has no AVX-512)"; continue
  fi
  mkdir -p "$gen/$sv-$t"
  for f in "$here"/corpus/*."$sv".c; do
    out="$gen/$sv-$t/$(basename "$f")"
    if ! "$tine" retarget "$f" --from "${from[$sv]}" --to "$t" -o "$out" 2>"$out.err"; then
      echo "retarget $(basename "$f") --from ${from[$sv]} --to $t: FAILED"
      cat "$out.err"
      status=1
      rm -f "$out"
    fi
  done
  # one check_hand run per pair, its files from that pair's directory
  CORPUS_SRC="$gen/$sv-$t" bash "$here/corpus/check_hand.sh" "${verbose[@]}" "$p" || status=1
done
if [ $status = 0 ]; then echo "check_retarget: every retargeted function matches the reference"; else echo "check_retarget: FAILURES"; fi
exit $status

#!/usr/bin/env bash
# Every benchmark kernel's assembly at every x86 level and on arm-64, through both
# selections, written to one directory by one tine binary. Two snapshots compare with
# `diff -r`: a refactoring that must not change code shows none.
#   bash scripts/asm_snapshot.sh TINE OUTDIR
set -euo pipefail
tine=$1 out=$2
cd "$(dirname "$0")/.."
mkdir -p "$out"
for k in bench/kernels/*.tine; do
  n=$(basename "$k" .tine)
  for t in x86-64-sse2 x86-64-sse41 x86-64-avx2 x86-64-avx512 arm-64; do
    for s in tine llvm; do
      "$tine" compile "$k" --target "$t" --select "$s" --emit asm -o "$out/$n.$t.$s.s"
    done
  done
done
echo "$(ls "$out" | wc -l) listings in $out"

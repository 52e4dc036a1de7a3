#!/usr/bin/env bash
# test_block_reduce.sh TINE — reductions with constant bounds vectorized along their
# variable (`vectorize f.i N`, docs/KERNELS.md). The block reductions of tests/data/block_*
# (the SAD and the sum of squared differences of 8x8 blocks, a 4x4 box sum through an
# inlined function, min and max of 6x2 blocks with terms left over) are bit-exact at every
# x86 level this CPU runs (tine run: both selections against the interpreter; also
# block_short, groups that do not fill or start at 1) and, compiled ahead of time for
# arm-64, under qemu-aarch64 against the loops of block_reduce_main.c (skipped without
# qemu, clang-19 or the AArch64 libc). The SAD reaches psadbw / vpsadbw on x86 and uabd
# with uaddlp on Arm, and no kernel whose block rows are whole vectors reads bytes one at
# a time (pinsrb, pextrb; Arm lane moves and lane loads).
set -uo pipefail
tine=$1
here=$(cd "$(dirname "$0")" && pwd)
data=$here/data
pass=0 failed=0
ok() { pass=$((pass + 1)); }
bad() { failed=$((failed + 1)); echo "FAIL: $*"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
kernels="block_sad8x8 block_sum4x4 block_ssd8x8 block_max6x2"

for k in $kernels block_short; do
  for t in x86-64-sse2 x86-64-avx2 x86-64-avx512; do
    "$tine" run "$data/$k.tine" --target "$t" --size 13x5 >"$tmp/out" 2>&1
    rc=$?
    if grep -q "cannot run" "$tmp/out"; then continue; fi # a level this CPU lacks
    n=$(grep -c 'bit-exact with the interpreter' "$tmp/out")
    if [[ $rc -eq 0 && $n -eq 2 ]]; then ok; else bad "$k at $t: rc $rc, $n of 2 selections bit-exact: $(head -3 "$tmp/out")"; fi
  done
done

# kernel target present-mnemonic (each at least once) ; absent (none anywhere)
asm="
block_sad8x8 x86-64-sse2 psadbw ; pinsrb pextrb
block_sad8x8 x86-64-avx2 vpsadbw ; vpinsrb vpextrb
block_sad8x8 x86-64-avx512 vpsadbw ; vpinsrb vpextrb
block_sum4x4 x86-64-avx2 - ; vpinsrb vpextrb
block_ssd8x8 x86-64-avx2 - ; vpinsrb vpextrb
block_sad8x8 arm-64 uabd uaddlp ; ins tbl
block_sum4x4 arm-64 uaddlp ; ins tbl
block_ssd8x8 arm-64 uabd ; ins tbl
"
while read -r k t rest; do
  [[ -z "$k" ]] && continue
  want=${rest%%;*} none=${rest#*;}
  "$tine" compile "$data/$k.tine" --target "$t" --emit asm >"$tmp/k.s" 2>&1 || { bad "$k at $t: compile failed"; continue; }
  for m in $want; do
    [[ $m == - ]] && continue
    if awk -v m="$m" '$1 == m { n++ } END { exit !(n > 0) }' "$tmp/k.s"; then ok; else bad "$k at $t: no $m"; fi
  done
  for m in $none; do
    # Arm lane moves: mov v0.b[3], ... and ld1 { v0.b }[3] are byte inserts too
    n=$(awk -v m="$m" '$1 == m || (m == "ins" && ($1 == "mov" || $1 == "ld1") && $2 ~ /\.b\[|\}\[/) { n++ } END { print n + 0 }' "$tmp/k.s")
    if [[ $n -eq 0 ]]; then ok; else bad "$k at $t: $n $m"; fi
  done
done <<<"$asm"

# arm-64 ahead of time, under qemu-aarch64
cc=clang-19 sysroot=/usr/aarch64-linux-gnu
if command -v qemu-aarch64 >/dev/null && command -v $cc >/dev/null && [[ -f $sysroot/lib/libc.a ]]; then
  objs=()
  for k in $kernels; do
    "$tine" compile "$data/$k.tine" --target arm-64 --emit obj -o "$tmp/$k.o" || bad "$k: arm-64 object"
    "$tine" compile "$data/$k.tine" --target arm-64 --emit h -o "$tmp/$k.h" || bad "$k: its header"
    objs+=("$tmp/$k.o")
  done
  if $cc --target=aarch64-linux-gnu -O2 -static -Wall -Wextra -Werror -I"$tmp" -o "$tmp/main" "$here/block_reduce_main.c" "${objs[@]}"; then
    out=$(qemu-aarch64 "$tmp/main")
    if [[ $? -eq 0 && $out == *bit-exact* ]]; then ok; else bad "arm-64 under qemu: $out"; fi
  else
    bad "arm-64: block_reduce_main.c does not link"
  fi
else
  echo "test_block_reduce: arm-64 run skipped (no qemu-aarch64, $cc or $sysroot)"
fi
echo "test_block_reduce: $pass passed, $failed failed"
[[ $failed -eq 0 ]]

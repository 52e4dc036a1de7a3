#!/usr/bin/env bash
# test_reduce_insns.sh TINE — loop reductions vectorized along their variable (`vectorize
# out.k N`) reach the dot-product instructions: each case below compiles a kernel for a
# target (emitting assembly does not need the CPU), and the body of the reduction's
# vector loop must hold the mnemonic: codegen names the loop's blocks after it
# ("out.k.vec.body"), and verbose assembly prints the names on the block labels.
set -uo pipefail
tine=$1
cd "$(dirname "$0")"
pass=0 failed=0
# kernel target mnemonic (softmax: the row sum of i16 exponentials widened, pmaddwd by ones)
cases="
data/rvec_dot_i16.tine x86-64-avx2 vpmaddwd
data/rvec_dot_i16.tine x86-64-avx512 vpdpwssd
data/rvec_dot_u8i8.tine x86-64-avx512 vpdpbusd
data/rvec_sad.tine x86-64-avx2 vpsadbw
../bench/kernels/fully_connected.tine x86-64-avx2 vpmaddwd
../bench/kernels/l2norm.tine x86-64-avx2 vpmaddwd
../bench/kernels/softmax.tine x86-64-avx2 vpmaddwd
"
while read -r kernel target insn; do
  [[ -z "$kernel" ]] && continue
  n=$("$tine" compile "$kernel" --target "$target" --emit asm 2>&1 | awk -v insn="$insn" '
    /^(\.LBB[0-9_]+:|# %bb\.[0-9]+:)/ { inloop = ($0 ~ /# %[a-z_]+\.k\.vec\.body/) ; next }
    inloop && $1 == insn { n++ }
    END { print n + 0 }')
  if [[ $n -gt 0 ]]; then
    pass=$((pass + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $kernel on $target: no '$insn' in the body of the vectorized reduction's loop"
  fi
done <<<"$cases"
# Register tiles of dot products in k pairs (matmul, conv_nn: operands packed as i16 pairs,
# docs/KERNELS.md): the innermost loop with the most multiply-adds holds at least `min` of
# the mnemonic and no shuffle (vpshufb, vpunpck*, vpinsr*, vpblend*): each operand pair is
# one load (stmt/interleave.c) or one broadcast.
# kernel target mnemonic min
tiles="
../bench/kernels/matmul.tine x86-64-avx2 vpmaddwd 12
../bench/kernels/conv_nn.tine x86-64-avx2 vpmaddwd 8
../bench/kernels/conv_nn.tine x86-64-avx512 vpdpwssd 4
"
while read -r kernel target insn min; do
  [[ -z "$kernel" ]] && continue
  r=$("$tine" compile "$kernel" --target "$target" --emit asm 2>&1 | awk -v insn="$insn" '
    /Inner Loop Header/ { inloop = 1; n = 0; sh = 0; next }
    inloop && $1 == insn { n++ }
    inloop && $1 ~ /^vp(shufb|unpck|insr|blend)/ { sh++ }
    inloop && $1 ~ /^j/ { if (n > best) { best = n; bsh = sh }; inloop = 0 }
    END { print best + 0, bsh + 0 }')
  read -r n sh <<<"$r"
  if [[ $n -ge $min && $sh -eq 0 ]]; then
    pass=$((pass + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $kernel on $target: the busiest inner loop has $n '$insn' (want >= $min) and $sh shuffles (want 0)"
  fi
done <<<"$tiles"
# Instructions a bounds-predicated rule removes: in every inner loop that holds the first
# mnemonic, none of the second. mul's rounding shift by min(15, osh) after its Q31 multiply
# (|x| <= 2^28) is an add and one shift (x86.rules rounding_shr_var_small), not the
# general form's second shift by the count minus one (vpsrlvd), mask and add.
# kernel target present absent
absent="
../bench/kernels/mul.tine x86-64-avx2 vpmuldq vpsrlvd
"
while read -r kernel target insn bad; do
  [[ -z "$kernel" ]] && continue
  r=$("$tine" compile "$kernel" --target "$target" --emit asm 2>&1 | awk -v insn="$insn" -v bad="$bad" '
    /Inner Loop Header/ { inloop = 1; n = 0; b = 0; next }
    inloop && $1 == insn { n++ }
    inloop && $1 == bad { b++ }
    inloop && $1 ~ /^j/ { if (n > 0) { loops++; nb += b }; inloop = 0 }
    END { print loops + 0, nb + 0 }')
  read -r loops nb <<<"$r"
  if [[ $loops -gt 0 && $nb -eq 0 ]]; then
    pass=$((pass + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $kernel on $target: $loops inner loops with '$insn' hold $nb '$bad' (want some loops, none)"
  fi
done <<<"$absent"
echo "test_reduce_insns: $pass passed, $failed failed"
[[ $failed -eq 0 ]]

#!/usr/bin/env bash
# test_arm_mul_loops.sh — the widening-multiply loops of matmul, conv3x3a16, conv_nn,
# fully_connected and add at arm-64, as tine
# selects them (umull and smull as llvm.aarch64.neon intrinsics on register halves), read in the
# assembly (`tine compile --emit asm` needs no Arm machine):
#
# - matmul's accumulator loop (the single-block loop with the most umull: 24 i32
#   accumulators, 48 products per k pair). A and B hold bytes in i16 (their stores show
#   it), so the pairs' products are UMULL of the bytes, 8 a register, and UADALP adds each
#   adjacent pair into the accumulators (arm.rules umull_pair_u8_i16): 24 of each, no
#   smlal; on Arm the kernel stores A and B as bytes (`on arm`), so B is loaded whole (no
#   ld2: the interleave of its k pairs is one load) and needs no xtn, and each A pair is
#   one halfword load broadcast by one dup from w (llvm.c cast_splat_interleave; no ld1r).
#   The accumulators, B's
#   bytes and the products in flight exceed the 32 vector registers by a few: at most 4
#   accumulators spill (on the load and store pipes, idle here; the bound guards against
#   a tile that no longer fits at all);
# - conv3x3a16's loop (u8 pixels times the i8 mask, summed in i16): each product is SMULL
#   of the weight and the pixel with its top bit flipped (eor), and the nine corrections
#   (128 times each weight) are one loop-invariant sum added once per accumulator
#   (stmt/reassoc.c), not an add per tap: 36 smull/smlal(2) per 32 outputs and at most 4
#   vector adds;
# - conv_nn's loop on Arm, where the kernel expands its zero points (`on arm`): the filter's
#   and the input's bytes meet UMULL, 16 umull and 16 uadalp per channel pair for 16
#   channels x 4 pixels, no smlal, smull or mul; each input pair is two adjacent bytes
#   loaded as one halfword and broadcast by one dup from w (a cast of an interleave of
#   broadcast loads, llvm.c), no ld1r and no tbl;
# - fully_connected's dot product on Arm (`vectorize out.k 16 acc 16`): each of the 16
#   products of a step accumulates in its own lane, SMLAL and SMLAL2 on the i16 halves in
#   place: 4 of them, no smull, addp or mul;
# - add's loop (products by two parameters, loop-invariant broadcasts) still takes high
#   halves in place: smull2 or smlal2 present, no ext (a high half moved down).
#
# Usage: bash tests/test_arm_mul_loops.sh path/to/tine
set -u
TINE=${1:?usage: test_arm_mul_loops.sh path/to/tine}
HERE=$(cd "$(dirname "$0")" && pwd)
fail=0
check() { # check STATUS WHAT
    if [ "$1" -ne 0 ]; then echo "FAIL: $2"; fail=$((fail + 1)); fi
}

# The instructions of the single-block loop (a block that branches to itself) with the
# most instructions matching $2, from assembly $1; comments and directives dropped.
loop_of() {
    awk -v pat="$2" '
    function done() { if (label != "" && self && n > best) { best = n; text = body } }
    /^\.LBB[0-9]+_[0-9]+:/ { done(); label = $1; sub(/:$/, "", label); body = ""; n = 0; self = 0; next }
    label == "" { next }
    /^[ \t]*(\/\/|\.)/ { next }
    /^[^ \t]/ { done(); label = ""; next }
    {
        line = $0; sub(/\/\/.*/, "", line)
        if (line ~ /^[ \t]*$/) next
        body = body $0 "\n"
        if (line ~ pat) n++
        if (line ~ /^[ \t]*b(\.[a-z]+)?[ \t]/ || line ~ /^[ \t]*(cbn?z|tbn?z)[ \t]/)
            if (index(line, label) && substr(line, index(line, label) + length(label), 1) !~ /[0-9]/) self = 1
    }
    END { done(); printf "%s", text }' <<<"$1"
}

# count PATTERN: how many instructions of $loop match the mnemonic PATTERN (an ERE)
count() { grep -cE "^[[:space:]]*($1)[[:space:]]" <<<"$loop"; }

# umull_loop KERNEL N: $loop := KERNEL's loop with the most umull at arm-64, which must hold
# N umull and N uadalp and no smlal, smull or mul
umull_loop() {
    asm=$("$TINE" compile "$HERE/../bench/kernels/$1.tine" --target arm-64 --emit asm 2>&1)
    loop=$(loop_of "$asm" '^[ \t]*umull2?[ \t]')
    local products pairs
    products=$(count 'umull2?') pairs=$(count uadalp)
    echo "test_arm_mul_loops: $1's loop: $(grep -c . <<<"$loop") instructions, $products umull, $pairs uadalp"
    [ "$products" -eq "$2" ] && [ "$pairs" -eq "$2" ]; check $? "$1: a loop of $2 umull and $2 uadalp (found $products, $pairs)"
    [ "$(count 'smlal2?|smull2?|mul')" -eq 0 ]; check $? "$1: no smlal, smull or mul in the loop"
}

umull_loop matmul 24
spills=$(grep -c 'Folded Spill' <<<"$loop")
[ "$spills" -le 4 ]; check $? "matmul: the loop spills $spills stores (at most 4)"
[ "$(count ld2)" -eq 0 ]; check $? "matmul: B loaded whole, no ld2"
[ "$(count ld1r)" -eq 0 ] && grep -qE '^[[:space:]]*dup[[:space:]]+v[0-9]+\.(4h|8h), w' <<<"$loop" && [ "$(count 'xtn2?')" -eq 0 ]
check $? "matmul: the A pairs are dup from w registers, no ld1r, no xtn ($(count ld1r) ld1r, $(count 'xtn2?') xtn)"
[ $fail -eq 0 ] || sed 's/^/    /' <<<"$loop"

asm=$("$TINE" compile "$HERE/../bench/kernels/conv3x3a16.tine" --target arm-64 --emit asm 2>&1)
loop=$(loop_of "$asm" '^[ \t]*(smull|smlal)2?[ \t]')
products=$(grep -cE '^[[:space:]]*(smull|smlal)2?[[:space:]]' <<<"$loop")
vadds=$(grep -cE '^[[:space:]]*add[[:space:]]+v[0-9]+\.8h' <<<"$loop")
echo "test_arm_mul_loops: conv3x3a16's loop: $products smull/smlal, $vadds vector adds"
[ "$products" -eq 36 ] && [ "$vadds" -le 4 ]
check $? "conv3x3a16: 36 smull/smlal(2) and at most 4 vector adds (found $products, $vadds)"

umull_loop conv_nn 16
dups=$(grep -cE '^[[:space:]]*dup[[:space:]]+v[0-9]+\.(4h|8h), w' <<<"$loop")
[ "$(count 'ld1r|tbl')" -eq 0 ] && [ "$dups" -eq 4 ]
check $? "conv_nn: no ld1r or tbl; the 4 input pairs dup from w (found $dups)"
[ $fail -eq 0 ] || sed 's/^/    /' <<<"$loop"

asm=$("$TINE" compile "$HERE/../bench/kernels/fully_connected.tine" --target arm-64 --emit asm 2>&1)
loop=$(loop_of "$asm" '^[ \t]*smlal2?[ \t]')
products=$(grep -cE '^[[:space:]]*smlal2?[[:space:]]' <<<"$loop")
echo "test_arm_mul_loops: fully_connected's loop: $(grep -c . <<<"$loop") instructions, $products smlal"
[ "$products" -eq 4 ] && ! grep -qE '^[[:space:]]*(smull2?|addp|mul)[[:space:]]' <<<"$loop"
check $? "fully_connected: 4 smlal(2) a step, no smull, addp or mul (found $products)"

asm=$("$TINE" compile "$HERE/../bench/kernels/add.tine" --target arm-64 --emit asm 2>&1)
loop=$(loop_of "$asm" '^[ \t]*(smull|smlal)2?[ \t]')
grep -qE '^[[:space:]]*(smull2|smlal2)[[:space:]]' <<<"$loop" && ! grep -qE '^[[:space:]]*ext[[:space:]]' <<<"$loop"
check $? "add: high halves in place (smull2/smlal2, no ext): $(grep -cE '^[[:space:]]*ext[[:space:]]' <<<"$loop") ext"

if [ $fail -eq 0 ]; then echo "test_arm_mul_loops: all passed"; else echo "test_arm_mul_loops: $fail failed"; fi
exit $((fail > 0))

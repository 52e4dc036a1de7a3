#!/usr/bin/env bash
# test_arm_mul_loops.sh — the widening-multiply loops of matmul and add at arm-64, as tine
# selects them (smull_i16 as llvm.aarch64.neon.smull on register halves), read in the
# assembly (`tine compile --emit asm` needs no Arm machine):
#
# - matmul's accumulator loop (the single-block loop with the most smlal/smlal2: 24 i32
#   accumulators, 48 products per k pair) spills nothing (no "Folded Spill"), loads its
#   packed B operand as ld2 of whole registers only (no ld2 of .4h: the low halves loaded
#   again as a group of their own) and takes its A broadcasts from general registers (dup
#   from w, no ld1r): 24 accumulators, 4 B registers and the broadcast in use fit the 32
#   vector registers only so;
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

asm=$("$TINE" compile "$HERE/../bench/kernels/matmul.tine" --target arm-64 --emit asm 2>&1)
loop=$(loop_of "$asm" '^[ \t]*smlal2?[ \t]')
products=$(grep -cE '^[[:space:]]*smlal2?[[:space:]]' <<<"$loop")
echo "test_arm_mul_loops: matmul's loop: $(grep -c . <<<"$loop") instructions, $products smlal/smlal2"
[ "$products" -eq 48 ]; check $? "matmul: a loop of 48 smlal/smlal2 (found $products)"
! grep -q 'Folded Spill' <<<"$loop"; check $? "matmul: the loop spills: $(grep -c 'Folded Spill' <<<"$loop") stores"
grep -qE '^[[:space:]]*ld2[[:space:]].*\.8h' <<<"$loop" && ! grep -qE '^[[:space:]]*ld2[[:space:]].*\.4h' <<<"$loop"
check $? "matmul: ld2 of .8h only: $(grep -E '^[[:space:]]*ld2' <<<"$loop" | tr '\n\t' '; ')"
! grep -qE '^[[:space:]]*ld1r[[:space:]]' <<<"$loop" && grep -qE '^[[:space:]]*dup[[:space:]]+v[0-9]+\.8h, w' <<<"$loop"
check $? "matmul: the broadcasts are dup from w registers, no ld1r ($(grep -cE '^[[:space:]]*ld1r' <<<"$loop") ld1r)"
[ $fail -eq 0 ] || sed 's/^/    /' <<<"$loop"

asm=$("$TINE" compile "$HERE/../bench/kernels/add.tine" --target arm-64 --emit asm 2>&1)
loop=$(loop_of "$asm" '^[ \t]*(smull|smlal)2?[ \t]')
grep -qE '^[[:space:]]*(smull2|smlal2)[[:space:]]' <<<"$loop" && ! grep -qE '^[[:space:]]*ext[[:space:]]' <<<"$loop"
check $? "add: high halves in place (smull2/smlal2, no ext): $(grep -cE '^[[:space:]]*ext[[:space:]]' <<<"$loop") ext"

if [ $fail -eq 0 ]; then echo "test_arm_mul_loops: all passed"; else echo "test_arm_mul_loops: $fail failed"; fi
exit $((fail > 0))

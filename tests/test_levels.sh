#!/usr/bin/env bash
# test_levels.sh — one kernel, several levels: `on` sections that name an x86 level or a
# feature, `natural` as each level's register width, and parameters with a range or an
# estimate (docs/KERNELS.md: Definitions for some targets, The automatic scheduler).
#
# Usage: bash tests/test_levels.sh path/to/tine
set -u

TINE=${1:?usage: test_levels.sh path/to/tine}
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

. "$HERE/checks.sh"


# the lanes of each stage for a target: "h=32 out=32"
lanes() {
    "$TINE" compile "$1" --target "$2" --emit lowered 2>&1 |
        sed -nE 's/^# stage ([a-z_0-9]+) \(([0-9]+) lanes.*/\1=\2/p' | tr '\n' ' ' | sed 's/ $//'
}

# ---- natural: the level's vector register ------------------------------------------------
cat >"$TMP/nat.tine" <<'EOF'
input in: u8[2]
func h(x, y) = u16(in(x, y)) + u16(in(x + 1, y))
output out(x, y): u8 = u8((h(x, y) + h(x, y + 1) + 2) >> 2)
schedule
materialize h
vectorize h.x natural
vectorize out.x natural
EOF
check "natural at sse2 is 128 bits: $(lanes "$TMP/nat.tine" x86-64-sse2)" test "$(lanes "$TMP/nat.tine" x86-64-sse2)" = "h=8 out=16"
check "natural at sse41 is 128 bits" test "$(lanes "$TMP/nat.tine" x86-64-sse41)" = "h=8 out=16"
check "natural at avx2 is 256 bits: $(lanes "$TMP/nat.tine" x86-64-avx2)" test "$(lanes "$TMP/nat.tine" x86-64-avx2)" = "h=16 out=32"
check "natural at avx512 is 512 bits: $(lanes "$TMP/nat.tine" x86-64-avx512)" test "$(lanes "$TMP/nat.tine" x86-64-avx512)" = "h=32 out=64"
# Neon's natural vector is two registers (docs/KERNELS.md says why)
check "natural at arm-64 is 256 bits" test "$(lanes "$TMP/nat.tine" arm-64)" = "h=16 out=32"
for t in x86-64-sse2 x86-64-avx2 x86-64-avx512; do
    run run "$TMP/nat.tine" --target "$t"
    check "natural kernel at $t is bit-exact (rc $rc: $err)" test "$rc" -eq 0
done
run compile "$TMP/nat.tine" --target x86-64-avx512 --emit asm
check "avx512's natural vector is a zmm register" grep -q zmm "$TMP/out"
run compile "$TMP/nat.tine" --target x86-64-sse2 --emit asm
check "sse2's natural vector is an xmm register (no ymm)" test "$(grep -c ymm "$TMP/out")" -eq 0

# ---- on: a description, a level, a feature; the most specific applies last -----------------
cat >"$TMP/on.tine" <<'EOF'
input in: u8[2]
func h(x, y) = u16(in(x, y)) + u16(in(x + 1, y))
output out(x, y): u8 = u8((h(x, y) + h(x, y + 1) + 2) >> 2)
schedule
materialize h
vectorize out.x 16
on x86
vectorize out.x 32
on avx2
vectorize out.x 64
on avx512vnni
vectorize out.x 128
on sse41
unroll out.y 2
on arm
vectorize out.x 8
EOF
sched() { "$TINE" compile "$TMP/on.tine" --target "$1" --emit schedule 2>&1 | grep -E "^(vectorize out|unroll)" | tr '\n' ';'; }
check "sse2 takes 'on x86' alone: $(sched x86-64-sse2)" test "$(sched x86-64-sse2)" = "vectorize out.x 32;"
check "sse41 takes 'on x86' and 'on sse41': $(sched x86-64-sse41)" test "$(sched x86-64-sse41)" = "vectorize out.x 32;unroll out.y 2;"
check "avx2 takes 'on avx2' over 'on x86': $(sched x86-64-avx2)" test "$(sched x86-64-avx2)" = "vectorize out.x 64;unroll out.y 2;"
check "avx512 takes the feature avx512vnni over avx2 and x86: $(sched x86-64-avx512)" \
    test "$(sched x86-64-avx512)" = "vectorize out.x 128;unroll out.y 2;"
check "x86-64-v4 (no VNNI) takes 'on avx2': $(sched x86-64-v4)" test "$(sched x86-64-v4)" = "vectorize out.x 64;unroll out.y 2;"
check "arm-64 takes 'on arm': $(sched arm-64)" test "$(sched arm-64)" = "vectorize out.x 8;"
run compile "$TMP/on.tine" --emit schedule
check "the written schedule prints every section" grep -qx "on avx512vnni" "$TMP/out"
for t in x86-64-sse2 x86-64-sse41 x86-64-avx2 x86-64-avx512; do
    run run "$TMP/on.tine" --target "$t"
    check "on-sections kernel at $t is bit-exact (rc $rc: $err)" test "$rc" -eq 0
done

# a function defined again for a level: that level's targets use it
cat >"$TMP/fn.tine" <<'EOF'
input in: u8[1]
output out(x): u8 = in(x)
on avx512
func unused(x) = in(x)
schedule
vectorize out.x 16
on avx512
materialize unused
EOF
run compile "$TMP/fn.tine" --target x86-64-avx512 --emit lowered
check "a level's function becomes that level's stage" grep -q "^# stage unused" "$TMP/out"
run compile "$TMP/fn.tine" --target x86-64-avx2 --emit lowered
check "another level has no such stage" test "$(grep -c '^# stage unused' "$TMP/out")" -eq 0

printf 'input in: u8[1]\noutput out(x): u8 = in(x)\nschedule\nvectorize out.x 16\non avx3\nunroll out.x 2\n' >"$TMP/bad.tine"
run compile "$TMP/bad.tine" --emit schedule
check "an unknown level is refused (rc $rc)" test "$rc" -ne 0
check "... located, naming the levels: $err" grep -qE "bad.tine:5:4: on: no target has an instruction set, level or feature called 'avx3' \(.*levels: .*avx512" "$TMP/err"

# ---- param ranges: checked at run time, assumed by selection --------------------------------
cat >"$TMP/q15.tine" <<'EOF'
input in: i16[1]
param s: i16 in 0..32767
output out(x): i16 = rounding_mul_shr(in(x), s, 15)
schedule
vectorize out.x 16
EOF
sed 's/ in 0..32767//' "$TMP/q15.tine" >"$TMP/q15_any.tine"
run compile "$TMP/q15.tine" --target x86-64-avx2 --emit asm
check "the range lets pmulhrsw stand alone (no -32768 fix-up)" test "$(grep -c vpcmpeqw "$TMP/out")" -eq 0
check "... and pmulhrsw is used" grep -q vpmulhrsw "$TMP/out"
run compile "$TMP/q15_any.tine" --target x86-64-avx2 --emit asm
check "without the range the fix-up stays" grep -q vpcmpeqw "$TMP/out"
for seed in 1 2 3 4; do
    run run "$TMP/q15.tine" --target x86-64-avx2 --seed $seed
    check "ranged parameter drawn in its range, bit-exact (seed $seed, rc $rc: $err)" test "$rc" -eq 0
done
run run "$TMP/q15.tine" --param s=-1
check "a value outside the range is refused (rc $rc)" test "$rc" -ne 0
check "... saying so: $err" grep -qF "parameter 's' is -1; the kernel declares it in 0..32767" "$TMP/err"

bad_param() { # bad_param DECL PATTERN: the declaration is refused with a located error
    printf 'input in: u8[1]\n%s\noutput out(x): u8 = in(x)\n' "$1" >"$TMP/p.tine"
    run compile "$TMP/p.tine" --emit schedule
    check "'$1' is refused (rc $rc)" test "$rc" -ne 0
    check "... located: $err" grep -qE "p.tine:2:[0-9]+: $2" "$TMP/err"
}
bad_param "param k: u8 in 0..256" "the range 0..256 of 'k' leaves its type u8"
bad_param "param k: i32 in 9..3" "the range 9..3 of 'k' is empty"
bad_param "param k: i32 in 1..8 estimate 9" "the estimate 9 of 'k' is outside its range"
bad_param "param k: i32 estimate 1 estimate 2" "'estimate' is given twice"
bad_param "param k: i32 in 1 8" "expected '..'"

# ---- estimates: the automatic scheduler prices a parameter-bounded sum by them -------------
est() {
    printf 'input a: u8[2]\ninput w: i8[2]\nparam K: i32%s\noutput d(c, n): i32 = sum(k in 0..K) (i32(a(k, n)) * i32(w(k, c)))\n' "$1" >"$TMP/e.tine"
    "$TINE" compile "$TMP/e.tine" --target "$2" --emit schedule 2>&1 | grep -c "vectorize d.k"
}
check "no estimate: the reduction is vectorized" test "$(est "" x86-64-avx2)" -eq 1
check "estimate 4: too few terms for a vector, kept a loop" test "$(est " estimate 4" x86-64-avx2)" -eq 0
check "estimate 24: a vector of 16 terms at avx2" test "$(est " estimate 24" x86-64-avx2)" -eq 1
check "estimate 24: not at avx512 (32 terms a vector)" test "$(est " estimate 24" x86-64-avx512)" -eq 0
check "range 1..8: the middle prices it (no vector)" test "$(est " in 1..8" x86-64-avx2)" -eq 0

echo "test_levels: $pass passed, $fail failed"
test "$fail" -eq 0

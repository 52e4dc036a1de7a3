#!/usr/bin/env bash
# tine retarget on small cases (tests/retarget/cases): the instruction a multi-intrinsic
# idiom becomes, pinned; preprocessor conditions decided as for the source; intrinsics
# behind macros; hostile input (malformed C, an unknown intrinsic, inline assembly, a
# vector escaping into a call, a very large file) gives a located error or correct code,
# never a crash or a hang. Environment: TINE (default build/tine from the repository root).
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tine=${TINE:-$root/build/tine}
cases=$here/cases
out=$(mktemp -d "${TMPDIR:-/tmp}/retarget-cases.XXXXXX")
trap 'rm -rf "$out"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
warn=(-O2 -Wall -Wextra -Werror)

# retarget CASE FROM TO: the output in $out/CASE.TO.c, the report in .report; 0 if it worked
retarget() {
  timeout 60 "$tine" retarget "$cases/$1" --from "$2" --to "$3" --report -o "$out/$1.$3.c" 2>"$out/$1.$3.report"
}
compiles() { # FILE TARGET
  case $2 in
    arm-64*) clang-19 --target=aarch64-linux-gnu "${warn[@]}" -c "$1" -o /dev/null ;;
    x86-64-sse2) gcc "${warn[@]}" -msse2 -c "$1" -o /dev/null && clang-19 "${warn[@]}" -msse2 -c "$1" -o /dev/null ;;
    x86-64-avx512) gcc "${warn[@]}" -march=x86-64-v4 -c "$1" -o /dev/null && clang-19 "${warn[@]}" -march=x86-64-v4 -c "$1" -o /dev/null ;;
    *) gcc "${warn[@]}" -march=x86-64-v3 -c "$1" -o /dev/null && clang-19 "${warn[@]}" -march=x86-64-v3 -c "$1" -o /dev/null ;;
  esac
}
# pin CASE FROM TO INTRINSIC COUNT [REPORT-TEXT]: the output calls INTRINSIC COUNT times
pin() {
  local c=$1 from=$2 to=$3 want=$4 count=$5 text=${6:-}
  if ! retarget "$c" "$from" "$to"; then fail "$c to $to: $(cat "$out/$c.$to.report")"; return; fi
  local got
  got=$(grep -o "\b$want(" "$out/$c.$to.c" | wc -l)
  [ "$got" = "$count" ] || fail "$c to $to: $want called $got times, want $count"
  if [ -n "$text" ] && ! grep -q -- "$text" "$out/$c.$to.report"; then fail "$c to $to: the report lacks '$text'"; cat "$out/$c.$to.report"; fi
  compiles "$out/$c.$to.c" "$to" || fail "$c to $to: the output does not compile warning-free"
}

# ---- fusion: several intrinsics, one target instruction --------------------------------
# vmovl_u8 + vaddq_u16 + vrshrn_n_u16(.., 1), twice (the halves) and vcombine: one pavgb
pin avg_rshrn.neon.c arm-64 x86-64-sse2 _mm_avg_epu8 1 "fused across intrinsics into rounding_halving_add -> pavgb"
pin avg_rshrn.neon.c arm-64 x86-64-avx2 _mm_avg_epu8 1
pin qadd.neon.c arm-64 x86-64-sse2 _mm_adds_epu8 1 "one-to-one: paddusb"
pin avg.sse2.c x86-64-sse2 arm-64 vrhaddq_u8 1 "one-to-one: urhadd_u8"
pin macro.neon.c arm-64 x86-64-avx2 _mm_avg_epu8 1

# ---- widening: a loop of 128-bit vectors at the target's width ---------------------------
pin avg_rshrn.neon.c arm-64 x86-64-avx2 _mm256_avg_epu8 1 "widened (2 copies in 256-bit registers), fused across intrinsics into rounding_halving_add -> pavgb"
pin avg_rshrn.neon.c arm-64 x86-64-avx512 _mm512_avg_epu8 1 "widened (4 copies in 512-bit registers)"
# scale_s32_u8's four loads a copy are one window; carry_add1 is not widened (each
# iteration reads what the one before wrote); add1 is, checked at run time
pin widen.neon.c arm-64 x86-64-avx2 _mm256_packus_epi16 1
grep -q "widen.neon.c:27:.*widened" "$out/widen.neon.c.x86-64-avx2.report" && fail "widen.neon.c: carry_add1 widened"
grep -q "widen.neon.c:33:.*widened" "$out/widen.neon.c.x86-64-avx2.report" || fail "widen.neon.c: add1 not widened"
# accumulators: sum_u8 and range_s16 widened, running_u32 (which stores its sum) not
grep -q "widen.neon.c:41:.*widened" "$out/widen.neon.c.x86-64-avx2.report" || fail "widen.neon.c: sum_u8 not widened"
grep -q "widen.neon.c:53:.*widened" "$out/widen.neon.c.x86-64-avx2.report" || fail "widen.neon.c: range_s16 not widened"
grep -q "widen.neon.c:67:.*widened" "$out/widen.neon.c.x86-64-avx2.report" && fail "widen.neon.c: running_u32 widened"
cat >"$out/widen_main.c" <<'EOF'
#include <stdint.h>
#include <stdio.h>
#include <string.h>
void scale_s32_u8(uint8_t *dst, const int32_t *src, int n);
void carry_add1(uint8_t *p, int n);
void add1(uint8_t *dst, const uint8_t *src, int n);
uint32_t sum_u8(const uint8_t *p, int n);
int32_t range_s16(const int16_t *p, int n);
void running_u32(uint32_t *out, const uint32_t *p, int n);
int main(void) {
    enum { N = 203 };
    int32_t s[N];
    uint8_t d[N], buf[N + 64], want[N + 64];
    uint32_t x = 12345;
    for (int i = 0; i < N; i++) x = x * 1103515245u + 12345u, s[i] = (int32_t)x >> (x % 20);
    scale_s32_u8(d, s, N);
    for (int i = 0; i < N; i++) {
        int32_t v = s[i] >> 4;
        if (d[i] != (v < 0 ? 0 : v > 255 ? 255 : v)) return printf("scale_s32_u8 at %d\n", i), 2;
    }
    for (int i = 0; i < N + 64; i++) buf[i] = want[i] = (uint8_t)(i * 7);
    carry_add1(buf, N);
    for (int i = 0; i + 24 <= N; i += 16) { /* a vector's 16 bytes read, then written */
        uint8_t v[16];
        for (int k = 0; k < 16; k++) v[k] = (uint8_t)(want[i + k] + 1);
        memcpy(want + i + 8, v, 16);
    }
    if (memcmp(buf, want, sizeof buf)) return printf("carry_add1\n"), 3;
    for (int shift = -20; shift <= 20; shift++) { /* dst over src, both ways */
        for (int i = 0; i < N + 64; i++) buf[i] = want[i] = (uint8_t)(i * 13);
        uint8_t *dst = buf + 32 + shift, *wd = want + 32 + shift, *ws = want + 32;
        add1(dst, buf + 32, N);
        int i = 0; /* as the source does it: 16 bytes read, then written */
        for (; i + 16 <= N; i += 16) {
            uint8_t v[16];
            for (int k = 0; k < 16; k++) v[k] = (uint8_t)(ws[i + k] + 1);
            memcpy(wd + i, v, 16);
        }
        for (; i < N; i++) wd[i] = (uint8_t)(ws[i] + 1);
        if (memcmp(buf, want, sizeof buf)) return printf("add1 with dst = src %+d\n", shift), 4;
    }
    for (int n = 0; n <= N; n += 7) { /* the accumulators, at lengths around the widths */
        uint32_t want_sum = 0;
        for (int i = 0; i < n; i++) want_sum += buf[i];
        if (sum_u8(buf, n) != want_sum) return printf("sum_u8 n=%d\n", n), 5;
        int16_t v[N];
        for (int i = 0; i < N; i++) x = x * 1103515245u + 12345u, v[i] = (int16_t)(x >> 9);
        int m0 = 32767, m1 = -32768;
        for (int i = 0; i < n; i++) m0 = v[i] < m0 ? v[i] : m0, m1 = v[i] > m1 ? v[i] : m1;
        if (n >= 8 && range_s16(v, n) != m1 - m0) return printf("range_s16 n=%d\n", n), 6;
        uint32_t o[N], q[N], acc[4] = {0, 0, 0, 0};
        for (int i = 0; i < N; i++) q[i] = x = x * 1103515245u + 12345u, o[i] = 0;
        running_u32(o, q, n);
        for (int i = 0; i + 4 <= n; i += 4)
            for (int k = 0; k < 4; k++)
                if (o[i + k] != (acc[k] += q[i + k])) return printf("running_u32 n=%d\n", n), 7;
    }
    return 0;
}
EOF
for to in x86-64-avx2 x86-64-avx512; do
  if retarget widen.neon.c arm-64 $to; then
    isa=-march=x86-64-v3
    [ $to = x86-64-avx512 ] && isa=-march=x86-64-v4
    if [ $to = x86-64-avx2 ] || grep -q avx512bw /proc/cpuinfo; then
      if gcc "${warn[@]}" $isa "$out/widen.neon.c.$to.c" "$out/widen_main.c" -o "$out/widen.$to"; then
        "$out/widen.$to" || fail "widen.neon.c to $to: wrong results (exit $?)"
      else
        fail "widen.neon.c to $to: the output does not compile"
      fi
    fi
  else
    fail "widen.neon.c to $to: $(cat "$out/widen.neon.c.$to.report")"
  fi
done

# _mm_mulhrs_epi16 (the rounded Q15 product, truncated: i16.min^2 gives i16.min) on Neon: by a
# constant above i16.min, one SQRDMULH and nothing to fix; in general SMULL and RSHRN #15 (4
# instructions for 8 lanes, cheaper than SQRDMULH and its fix-up)
pin mulhrs_const.sse41.c x86-64-sse41 arm-64 vqrdmulhq_s16 1 "one-to-one: sqrdmulh_i16"
pin mulhrs.sse41.c x86-64-sse41 arm-64 vrshrn_n_s32 2 "smull_i16, rshrn_i32"

# ---- the peephole after selection (src/retarget/peep.c) ------------------------------------
# x86 selects a negation as xorps with -0.0 beside the FMA or sub reading it: vfmaq_f32 of a
# negated factor and vfmsq_f32 become one vfnmadd231ps (fma_nega_ps), a - (-b) one addps
# (sub_neg_ps), no xorps left; a product and a sum stay two roundings (no contract pass: no
# _mm_fmadd_ps). subneg_int's loop is widened on AVX2: its rewrite counted for the wide loop
# (not for the widening's planning, nor again for the loop as written after it). Without
# FMA (SSE2) the FMA is emulated and only the subs are folded. Neon for Neon: the negated
# factor is fmls (fmla_nega_f32). --check runs source and rewrite, bit for bit (AArch64
# under qemu).
pin fneg.neon.c arm-64 x86-64-avx2 _mm_fnmadd_ps 2 "peephole: 4 rewrites (fma_nega_ps 2, sub_neg_ps 2)"
pin fneg.neon.c arm-64 x86-64-avx2 _mm_xor_ps 0
pin fneg.neon.c arm-64 x86-64-avx2 _mm_fmadd_ps 0
pin fneg.neon.c arm-64 x86-64-avx2 _mm_add_ps 3
pin fneg.neon.c arm-64 x86-64-avx2 _mm256_add_ps 1
pin fneg.neon.c arm-64 x86-64-sse2 _mm_xor_ps 2 "peephole: 2 rewrites (sub_neg_ps 2)"
pin fneg.neon.c arm-64 arm-64 vfmsq_f32 2 "peephole: 4 rewrites (fmla_nega_f32 2, sub_neg_f32 2)"
pin fneg.neon.c arm-64 arm-64 vnegq_f32 0
for to in x86-64-avx2 x86-64-sse2 arm-64; do
  timeout 300 "$tine" retarget "$cases/fneg.neon.c" --from arm-64 --to $to -o "$out/fneg.$to.c" --check 2>"$out/fneg.$to.err" &&
    grep -q "5 functions, .* the same results" "$out/fneg.$to.err" || fail "--check of fneg.neon.c to $to: $(tail -3 "$out/fneg.$to.err")"
done

# _mm_shuffle_epi32(v, 0xB1) swaps each pair of 32-bit lanes (a concat of one-lane slices
# once lifted); the engine puts the swaps in the swap rules' form, swap1_add makes the two
# swapped operands one swapped sum, and the swap of that swap cancels: the plain sum is
# stored, no shuffle left (on AVX2 the widened loop's halves are joined by shuffles of their
# own, not counted here). --check: bit for bit.
pin swap.sse2.c x86-64-sse2 arm-64 __builtin_shufflevector 0 "peephole: 1 rewrites (swap1_add 1)"
pin swap.sse2.c x86-64-sse2 x86-64-sse2 __builtin_shufflevector 0 "peephole: 1 rewrites (swap1_add 1)"
for to in x86-64-avx2 x86-64-sse2 arm-64; do
  timeout 300 "$tine" retarget "$cases/swap.sse2.c" --from x86-64-sse2 --to $to -o "$out/swap.$to.c" --check 2>"$out/swap.$to.err" &&
    grep -q "1 functions, .* the same results" "$out/swap.$to.err" || fail "--check of swap.sse2.c to $to: $(tail -3 "$out/swap.$to.err")"
done

# ---- a file without intrinsics comes back as it was, byte for byte -----------------------
timeout 60 "$tine" retarget "$cases/plain.c" --from arm-64 --to x86-64-avx2 -o "$out/plain.c" &&
  cmp -s "$cases/plain.c" "$out/plain.c" || fail "plain.c: not returned as it was"

# ---- preprocessor conditions decided as for the source --------------------------------
if retarget ifdef.neon.c arm-64 x86-64-avx2; then
  cat >"$out/ifdef_main.c" <<'EOF'
#include <stdint.h>
#include <stdio.h>
int which(void);
void add1(uint8_t *d, const uint8_t *a, int n);
int main(void) {
    uint8_t a[32], d[32];
    for (int i = 0; i < 32; i++) a[i] = (uint8_t)(i * 37);
    add1(d, a, 32);
    for (int i = 0; i < 32; i++) if (d[i] != (uint8_t)(a[i] + 1)) return 2;
    return which() == 1 ? 0 : 3;
}
EOF
  if gcc "${warn[@]}" -march=x86-64-v3 "$out/ifdef.neon.c.x86-64-avx2.c" "$out/ifdef_main.c" -o "$out/ifdef"; then
    "$out/ifdef" || fail "ifdef: the output does not take the source's branch (exit $?)"
  else
    fail "ifdef: the output does not compile"
  fi
else
  fail "ifdef: $(cat "$out/ifdef.neon.c.x86-64-avx2.report")"
fi

# ---- --check: equal results, and a difference found -------------------------------------
timeout 300 "$tine" retarget "$cases/qadd.neon.c" --from arm-64 --to x86-64-sse2 -o "$out/c1.c" --check 2>"$out/c1.err" ||
  fail "--check of qadd: $(cat "$out/c1.err")"
grep -q "the same results" "$out/c1.err" || fail "--check of qadd says: $(cat "$out/c1.err")"
timeout 300 "$tine" retarget "$cases/avg.sse2.c" --from x86-64-sse2 --to arm-64 -o "$out/c2.c" --check 2>"$out/c2.err" ||
  fail "--check of avg to arm-64: $(cat "$out/c2.err")"
timeout 300 "$tine" retarget "$cases/char_sign.neon.c" --from arm-64 --to x86-64-sse2 -o "$out/c3.c" --check 2>"$out/c3.err"
rc=$?
[ $rc = 1 ] && grep -q "differs" "$out/c3.err" || fail "--check did not find char's signedness (exit $rc): $(cat "$out/c3.err")"

# ---- hostile input: a located error, exit 1 ----------------------------------------------
# bad CASE WHAT: exit 1 within the time limit, a file:line:col message and a caret
bad() {
  local c=$1 what=$2 rc
  timeout 60 "$tine" retarget "$cases/$c" --from arm-64 --to x86-64-avx2 -o "$out/$c.out" 2>"$out/$c.err"
  rc=$?
  [ $rc = 1 ] || fail "$c ($what): exit $rc, want 1"
  grep -qE "$c:[0-9]+:[0-9]+: " "$out/$c.err" || fail "$c ($what): no file:line:col in: $(head -3 "$out/$c.err")"
  grep -q '\^' "$out/$c.err" || fail "$c ($what): no caret under the column"
}
bad bad_syntax.neon.c "malformed C"
bad bad_unknown.neon.c "an unknown intrinsic"
bad bad_asm.neon.c "inline assembly"
# kept CASE WHAT: a construct tine does not rewrite keeps its function as written, with a
# located note; exit 0, and the output (the function's intrinsics emulated) compiles
kept() {
  local c=$1 what=$2 rc
  timeout 60 "$tine" retarget "$cases/$c" --from arm-64 --to x86-64-avx2 -o "$out/$c.x86.c" 2>"$out/$c.err"
  rc=$?
  [ $rc = 0 ] || fail "$c ($what): exit $rc, want 0: $(cat "$out/$c.err")"
  grep -qE "$c:[0-9]+:[0-9]+: " "$out/$c.err" || fail "$c ($what): no file:line:col in: $(head -3 "$out/$c.err")"
  grep -q "is kept as written" "$out/$c.err" || fail "$c ($what): no note that the function is kept"
  compiles "$out/$c.x86.c" x86-64-avx2 || fail "$c ($what): the output does not compile warning-free"
}
kept kept_escape.neon.c "a vector escaping into a call"
kept keep.neon.c "vectors in a struct"
# and it computes what the source does (pair_add through the emulation, add1 rewritten)
timeout 300 "$tine" retarget "$cases/keep.neon.c" --from arm-64 --to x86-64-avx2 -o "$out/k.c" --check 2>"$out/k.err" &&
  grep -q "2 functions, .* the same results" "$out/k.err" || fail "--check of keep.neon.c: $(tail -2 "$out/k.err")"
timeout 60 "$tine" retarget "$cases/no-such-file.c" --from arm-64 --to x86-64-avx2 -o "$out/x" 2>"$out/nofile.err"
[ $? = 1 ] || fail "a missing file: not exit 1"
timeout 60 "$tine" retarget "$cases/qadd.neon.c" --from arm-64 --to x86-64-avx9 -o "$out/x" 2>/dev/null
[ $? = 2 ] || fail "an unknown target: not exit 2"

# ---- a very large file: linear, no crash ------------------------------------------------
{
  echo '#include <arm_neon.h>'
  echo '#include <stdint.h>'
  for i in $(seq 1 400); do
    echo "void f$i(uint8_t *d, const uint8_t *a, const uint8_t *b, int n) {"
    echo "  for (int i = 0; i + 16 <= n; i += 16) {"
    echo "    uint8x16_t x = vld1q_u8(a + i), y = vld1q_u8(b + i);"
    echo "    uint16x8_t lo = vaddl_u8(vget_low_u8(x), vget_low_u8(y));"
    echo "    vst1q_u8(d + i, vcombine_u8(vrshrn_n_u16(lo, 1), vqmovn_u16(vmull_u8(vget_high_u8(x), vget_high_u8(y)))));"
    echo "  }"
    echo "}"
  done
} >"$out/large.neon.c"
start=$(date +%s)
if timeout 300 "$tine" retarget "$out/large.neon.c" --from arm-64 --to x86-64-avx2 -o "$out/large.c" 2>"$out/large.err"; then
  compiles "$out/large.c" x86-64-avx2 || fail "the large file's output does not compile"
else
  fail "the large file: $(head -3 "$out/large.err")"
fi
echo "large file (400 functions, 2,800 lines): $(( $(date +%s) - start )) s"

if [ $fails = 0 ]; then echo "check_cases: all cases as expected"; else echo "check_cases: $fails failures"; fi
[ $fails = 0 ]

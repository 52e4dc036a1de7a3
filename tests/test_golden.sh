#!/usr/bin/env bash
# test_golden.sh — golden `tine compile K --emit stmt` listings (every stage's statement as
# code generation receives it) at x86-64-avx2, for tine's selection and for LLVM's.
#
# Usage: bash tests/test_golden.sh path/to/tine
#        TINE_BLESS=1 bash tests/test_golden.sh path/to/tine   (or: TINE_BLESS=1 ctest -R golden)
#
# Each listing tests/golden/NAME.SEL.stmt must equal the command's output byte for byte;
# a mismatch prints a unified diff (golden, then the output). TINE_BLESS=1 rewrites the
# listings that differ (and writes missing ones) instead of failing: review the diff
# (`git diff tests/golden`) before committing it — partitioned loops, no clamps in the
# steady states, selections as expected.
set -u

TINE=${1:?usage: test_golden.sh path/to/tine}
HERE=$(cd "$(dirname "$0")" && pwd)
GOLDEN=$HERE/golden
TARGET=x86-64-avx2
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# NAME KERNEL-FILE (relative to tests/)
CASES="sobel3x3 ../bench/kernels/sobel3x3.tine
gaussian5x5_materialize data/golden_gaussian5x5_materialize.tine
fully_connected ../bench/kernels/fully_connected.tine
l2norm ../bench/kernels/l2norm.tine
constant data/golden_constant.tine
blur3x3_slide data/golden_blur3x3_slide.tine"

pass=0
fail=0
blessed=0
while read -r name file; do
    for sel in tine llvm; do
        gold=$GOLDEN/$name.$sel.stmt
        what="$name ($sel selection, $TARGET)"
        if ! "$TINE" compile "$HERE/$file" --target "$TARGET" --select "$sel" --emit stmt -o "$TMP/out" 2>"$TMP/err"; then
            echo "FAIL: $what: tine compile --emit stmt: $(cat "$TMP/err")"
            fail=$((fail + 1))
            continue
        fi
        if [ -f "$gold" ] && cmp -s "$gold" "$TMP/out"; then
            pass=$((pass + 1))
        elif [ -n "${TINE_BLESS:-}" ]; then
            mkdir -p "$GOLDEN"
            cp "$TMP/out" "$gold"
            echo "blessed: tests/golden/$name.$sel.stmt"
            blessed=$((blessed + 1))
        else
            echo "FAIL: $what: the listing differs from tests/golden/$name.$sel.stmt" \
                "(TINE_BLESS=1 rewrites it; review the diff):"
            if [ -f "$gold" ]; then
                diff -u --label "tests/golden/$name.$sel.stmt" --label "tine compile --emit stmt" "$gold" "$TMP/out"
            else
                echo "  (no golden file)"
            fi
            fail=$((fail + 1))
        fi
    done
done <<<"$CASES"
echo "test_golden: $pass passed, $fail failed${TINE_BLESS:+, $blessed blessed}"
[ "$fail" -eq 0 ]

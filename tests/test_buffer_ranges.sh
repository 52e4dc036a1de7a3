#!/usr/bin/env bash
# test_buffer_ranges.sh — selection reads a kernel's own buffers with the range their
# stores show (stmt/lower.c supplies it to bounds.c), and the lift groups equal weights.
#
# Usage: bash tests/test_buffer_ranges.sh path/to/tine
#
# gaussian7x7's vertical pass r stores u16 values of at most 16320 (64 * 255), so the
# horizontal pass's symmetric pairs r(x - k) + r(x + k), grouped by their weight
# (lift/factor.c), fit u16 and are pre-added there for one widening multiply
# (widening_add_mul_narrow_s): on arm-64, umull_u16 of a sum of two r loads. In
# tests/data/buffer_range_wide.tine the row holds values up to 51000: a pair does not fit
# u16, so the pair stays a widening add (uaddl_u16) and no umull takes a u16 sum.
set -u
TINE=${1:?usage: test_buffer_ranges.sh path/to/tine}
HERE=$(cd "$(dirname "$0")" && pwd)
fail=0
# the listing wraps long lines (at operators, commas): joined, each expression is one run of text
joined() { tr '\n' ' ' | tr -s ' '; }
narrow=$("$TINE" compile "$HERE/../bench/kernels/gaussian7x7.tine" --target arm-64 --emit stmt -o /dev/stdout 2>&1 | joined)
if ! grep -Eq 'umull_u16\(r_u16\[[^]]*\] \+ r_u16\[' <<<"$narrow"; then
    echo "FAIL: gaussian7x7 on arm-64: no umull_u16 of a pre-added pair of r's u16 values:"
    grep -o 'out\[ramp.\{0,600\}' <<<"$narrow" | head -1
    fail=1
fi
wide=$("$TINE" compile "$HERE/data/buffer_range_wide.tine" --target arm-64 --emit stmt -o /dev/stdout 2>&1 | joined)
if grep -Eq 'umull_u16\(r_u16\[[^]]*\] \+ r_u16\[' <<<"$wide"; then
    echo "FAIL: buffer_range_wide on arm-64: a pair of r's values (up to 102000) pre-added at u16:"
    grep -o 'out\[ramp.\{0,600\}' <<<"$wide" | head -1
    fail=1
fi
if ! grep -Eq 'uaddl_u16\(r_u16\[[^]]*\], r_u16\[' <<<"$wide"; then
    echo "FAIL: buffer_range_wide on arm-64: the pair of r's values is not one widening add:"
    grep -o 'out\[ramp.\{0,600\}' <<<"$wide" | head -1
    fail=1
fi
[ $fail = 0 ] && echo "test_buffer_ranges: 3 checks passed"
exit $fail

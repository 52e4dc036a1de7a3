#!/usr/bin/env bash
# test_bench_mca.sh — `tine bench --target arm-64`, the llvm-mca estimate (tools/bench_mca.c).
#
# Usage: bash tests/test_bench_mca.sh path/to/tine
#
# On two kernels (dilate3x3: one image stage; l2norm: a reduction and an output stage) the
# table has its columns, each kernel a row of eight positive numbers and the loop's header
# and name, a geomean row whose ratios are the geomeans of the rows' ratios, and the list
# of tine's mnemonics; the ratios are the rows' cycles divided. Then with TINE_LLVM_MCA
# naming a program that does not exist, the bench says so and exits 1. Skipped (exit 0)
# when llvm-mca-19 is not installed.
set -u
TINE=${1:?usage: test_bench_mca.sh path/to/tine}
if ! command -v llvm-mca-19 >/dev/null; then
    echo "test_bench_mca: skipped (llvm-mca-19 is not installed; scripts/setup.sh installs llvm-19)"
    exit 0
fi
fail=0
check() { # check CONDITION-STATUS WHAT
    if [ "$1" -ne 0 ]; then echo "FAIL: $2"; fail=$((fail + 1)); fi
}
out=$("$TINE" bench --target arm-64 --filter dilate3x3 2>/dev/null; "$TINE" bench --target arm-64 --filter l2norm 2>/dev/null)
echo "$out"
grep -q 'n1 LLVM *n1 tine *ratio *m1 LLVM *m1 tine *ratio *ins LLVM *ins tine' <<<"$out"; check $? "the header"
for k in dilate3x3 l2norm; do
    row=$(grep "^$k " <<<"$out")
    awk '{ ok = NF >= 11; for (i = 2; i <= 9; i++) ok = ok && $i + 0 > 0;
           # the ratios are LLVM alone / tine of the cycles (two decimals)
           ok = ok && ($4 - $2 / $3) ^ 2 < 0.0001 && ($7 - $5 / $6) ^ 2 < 0.0001;
           ok = ok && $10 ~ /^BB[0-9]+_[0-9]+$/ && $11 ~ /\./; exit !ok }' <<<"$row"
    check $? "$k's row: eight positive numbers, ratios of the cycles, the loop: '$row'"
    grep -q "^$k  *[a-z(]" <<<"$(sed -n '/^instructions in tine/,$p' <<<"$out")"; check $? "$k in the mnemonic list"
done
grep -q '^geomean  *[0-9.]*  *[0-9.]*$' <<<"$out"; check $? "the geomean row"
err=$(TINE_LLVM_MCA=/nonexistent/llvm-mca "$TINE" bench --target arm-64 --filter add 2>&1 >/dev/null)
rc=$?
[ $rc -eq 1 ] && grep -q "estimates with llvm-mca, and '/nonexistent/llvm-mca' does not run" <<<"$err"
check $? "a missing llvm-mca: exit 1 with a message (got $rc: $err)"
echo "$((7 - fail)) passed, $fail failed"
[ $fail -eq 0 ]

#!/usr/bin/env bash
# test_bench_mca.sh — `tine bench --target arm-64`, the llvm-mca estimate (tools/bench_mca.c).
#
# Usage: bash tests/test_bench_mca.sh path/to/tine
#
# On two kernels (dilate3x3: one image stage; l2norm: a reduction and an output stage) the
# table has its columns, each kernel a row of eight positive numbers, the two qemu wall
# times (positive ms; or "-" each when qemu-aarch64, clang-19 or the AArch64 libc is
# missing, with a "qemu: - (not run: ...)" note) and the loop's header and name, a geomean
# row whose ratios are the geomeans of the rows' ratios, and the list of tine's mnemonics;
# the ratios are the rows' cycles divided. With PATH holding llvm-mca-19 alone (no
# clang-19, no qemu-aarch64) the qemu columns are "-", the note says which tool is missing
# and the estimate is still there. With TINE_LLVM_MCA naming a program that does not
# exist, the bench says so and exits 1; with one that prints nothing (`true`) or no cycle
# count, it says which kernel and what it expected, and exits 1 (these two need no
# llvm-mca: they run first). The rest is skipped (exit 0) when llvm-mca-19 is not installed.
set -u
TINE=${1:?usage: test_bench_mca.sh path/to/tine}
fail=0
checks=0
check() { # check CONDITION-STATUS WHAT
    checks=$((checks + 1))
    if [ "$1" -ne 0 ]; then echo "FAIL: $2"; fail=$((fail + 1)); fi
}
# an llvm-mca whose output is empty or not a report: a plain error, exit 1 (once SIGSEGV,
# or a table of nan); PATH without the cross tools skips the qemu columns
fake=$(mktemp -d)
trap 'rm -rf "$fake"' EXIT
printf '#!/bin/sh\necho "llvm-mca, sort of"\necho "Total Cycles: many"\n' >"$fake/odd-mca"
chmod +x "$fake/odd-mca"
for mca in true "$fake/odd-mca"; do
    err=$(PATH=$fake TINE_LLVM_MCA=$mca "$TINE" bench --target arm-64 --filter dilate3x3 2>&1 >/dev/null)
    rc=$?
    [ $rc -eq 1 ] && grep -qF "tine: bench: dilate3x3 (LLVM alone) on neoverse-n1: llvm-mca ('$mca') gave no cycle count: expected its report's line 'Total Cycles: N' with a number N > 0; it printed" <<<"$err"
    check $? "llvm-mca as '$mca': exit 1 naming the kernel and what was expected (got $rc: $err)"
done
if ! command -v llvm-mca-19 >/dev/null; then
    echo "test_bench_mca: the rest skipped (llvm-mca-19 is not installed; scripts/setup.sh installs llvm-19)"
    echo "$((checks - fail)) passed, $fail failed"
    [ $fail -eq 0 ]
    exit
fi
out=$("$TINE" bench --target arm-64 --filter dilate3x3 2>/dev/null; "$TINE" bench --target arm-64 --filter l2norm 2>/dev/null)
echo "$out"
grep -q 'n1 LLVM *n1 tine *ratio *m1 LLVM *m1 tine *ratio *ins LLVM *ins tine *qemu LLVM *qemu tine' <<<"$out"
check $? "the header"
# the qemu columns: numbers when the note does not say they were not run, else "-"
qemu=1
grep -q '^qemu: - (not run: ' <<<"$out" && qemu=0
echo "test_bench_mca: qemu columns $([ $qemu = 1 ] && echo timed || echo 'not run (the note)')"
for k in dilate3x3 l2norm; do
    row=$(grep "^$k " <<<"$out")
    awk -v qemu=$qemu '{ ok = NF >= 13; for (i = 2; i <= 9; i++) ok = ok && $i + 0 > 0;
           # the ratios are LLVM alone / tine of the cycles (two decimals)
           ok = ok && ($4 - $2 / $3) ^ 2 < 0.0001 && ($7 - $5 / $6) ^ 2 < 0.0001;
           for (i = 10; i <= 11; i++) ok = ok && (qemu ? $i ~ /^[0-9]+\.[0-9]$/ && $i + 0 > 0 : $i == "-");
           ok = ok && $12 ~ /^BB[0-9]+_[0-9]+$/ && $13 ~ /\./; exit !ok }' <<<"$row"
    check $? "$k's row: eight positive numbers, ratios of the cycles, two qemu times (or -), the loop: '$row'"
    grep -q "^$k  *[a-z(]" <<<"$(sed -n '/^instructions in tine/,$p' <<<"$out")"; check $? "$k in the mnemonic list"
done
grep -q '^geomean  *[0-9.]*  *[0-9.]*$' <<<"$out"; check $? "the geomean row"
# no cross tools on PATH: the columns say "-", a note says why, the estimate stays
bin=$(mktemp -d)
trap 'rm -rf "$bin" "$fake"' EXIT
ln -s "$(command -v llvm-mca-19)" "$bin/llvm-mca-19"
out=$(PATH=$bin "$TINE" bench --target arm-64 --filter dilate3x3 2>/dev/null)
grep -q "^qemu: - (not run: running arm-64 code needs clang-19 .*not on PATH)" <<<"$out" &&
    awk '$1 == "dilate3x3" && !found { found = 1; ok = $2 + 0 > 0 && $10 == "-" && $11 == "-" } END { exit !(found && ok) }' <<<"$out"
check $? "without the cross tools: '-' columns and the note: $out"
err=$(TINE_LLVM_MCA=/nonexistent/llvm-mca "$TINE" bench --target arm-64 --filter add 2>&1 >/dev/null)
rc=$?
[ $rc -eq 1 ] && grep -q "estimates with llvm-mca, and '/nonexistent/llvm-mca' does not run" <<<"$err"
check $? "a missing llvm-mca: exit 1 with a message (got $rc: $err)"
echo "$((checks - fail)) passed, $fail failed"
[ $fail -eq 0 ]

#!/usr/bin/env bash
# test_verify_peephole.sh — every peephole rule proven: `tine verify --rules peephole-x86`
# and `--rules peephole-arm` (src/peephole/*.peep through the instructions' semantics in
# Z3; common.peep in both) must prove every instantiation, with no counterexample, no
# unknown and no rule that never fires. A few seconds.
set -u
TINE=${1:?usage: test_verify_peephole.sh path/to/tine}
fail=0
for set in peephole-x86 peephole-arm; do
    out=$("$TINE" verify --rules "$set" 2>&1)
    rc=$?
    line=$(grep -E '^[0-9]+ rules, [0-9]+ instantiations:' <<<"$out" | tail -1)
    n=$(sed -E 's/^[0-9]+ rules, ([0-9]+) instantiations.*/\1/' <<<"$line")
    if [ $rc -ne 0 ] || [ -z "$line" ] || ! grep -qE "^[0-9]+ rules, $n instantiations: $n proven, 0 counterexamples, 0 unknown, 0 never fire" <<<"$line"; then
        echo "FAIL: tine verify --rules $set (exit $rc): ${line:-no summary}"
        grep -E 'counterexample|unknown|never' <<<"$out" | head -20
        fail=1
    else
        echo "ok: $set: $line"
    fi
done
exit $fail

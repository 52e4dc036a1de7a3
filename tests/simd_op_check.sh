#!/usr/bin/env bash
# simd_op_check.sh TINE — every case of tests/data/simd_op_check.txt (format at its top):
# the expected instruction in the compiled code, and the compiled code equal to the
# interpreter on random inputs. Cases for features this machine lacks are compiled (the
# assembly is still checked) but not run.
set -uo pipefail
tine=$1
cd "$(dirname "$0")"
host=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
has() { [[ " $host " == *" $1 "* ]]; }
pass=0 failed=0 cases=0
while IFS='|' read -r head expr; do
  [[ -z "${head// /}" || "$head" == \#* ]] && continue
  read -r target lanes mnemonic reg <<<"$head"
  expr="${expr# }"
  cases=$((cases + 1))
  asm=$("$tine" compile -e "$expr" --target "$target" --lanes "$lanes" --emit asm 2>&1)
  # the mnemonic as an instruction (not a label or a comment), on a register of the family
  if grep -E "^[[:space:]]+$mnemonic[[:space:]]" <<<"$asm" | grep -q -- "$reg"; then
    pass=$((pass + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $target x$lanes: no '$mnemonic' on $reg registers for: $expr"
    grep -E '^[[:space:]]+[a-z]' <<<"$asm" | head -20 | sed 's/^/    /'
  fi
  case $target in
    x86-64-sse41) need=sse4_1 ;; x86-64-avx2) need=avx2 ;; x86-64-avx512) need=avx512bw ;; *) need=sse2 ;;
  esac
  if [[ $expr == *vpdp* ]]; then need=avx512_vnni; fi
  if ! has "$need"; then
    echo "note: this machine lacks $need; '$expr' on $target is not run"
    continue
  fi
  run=$("$tine" run -e "$expr" --target "$target" --lanes "$lanes" 2>&1)
  if grep -q "agree bit for bit" <<<"$run"; then
    pass=$((pass + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: $target x$lanes: compiled code differs from the interpreter for: $expr"
    sed 's/^/    /' <<<"$run" | tail -5
  fi
done < data/simd_op_check.txt
echo "simd_op_check: $cases cases; $pass checks passed, $failed failed"
[[ $cases -ge 80 && $failed -eq 0 ]]

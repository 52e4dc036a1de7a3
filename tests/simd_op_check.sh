#!/usr/bin/env bash
# simd_op_check.sh TINE — every case of tests/data/simd_op_check.txt (format at its top):
# the expected instruction in the compiled code, and the compiled code equal to the
# interpreter on random inputs. Cases for features this machine lacks are compiled (the
# assembly is still checked) but not run; AArch64 cases run under qemu-aarch64 (`tine run`
# links them with clang-19 against the AArch64 C library) when those are installed.
set -uo pipefail
tine=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")"
host=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
if command -v qemu-aarch64 >/dev/null && command -v clang-19 >/dev/null && [[ -d /usr/aarch64-linux-gnu ]]; then
  host+=" qemu-aarch64"
else
  echo "note: qemu-aarch64, clang-19 or /usr/aarch64-linux-gnu is missing: AArch64 cases are compiled, not run"
fi
has() { [[ " $host " == *" $1 "* ]]; }
pass=0 failed=0 cases=0 arm=0

# `tine run` on an AArch64 target without the cross tools: a plain message, exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ln -s /bin/true "$tmp/clang-19"
for path in /nonexistent "$tmp"; do
  tool=clang-19 why="(to link it for AArch64)"
  [[ $path == "$tmp" ]] && tool=qemu-aarch64 why="(Debian and Ubuntu: qemu-user)"
  want="tine: running arm-64 code needs $tool $why, which is not on PATH"
  [[ $path == "$tmp" && ! -d /usr/aarch64-linux-gnu ]] &&
    want="tine: running arm-64 code needs the AArch64 C library in /usr/aarch64-linux-gnu (Debian and Ubuntu: libc6-dev-arm64-cross)"
  got=$(PATH=$path "$tine" run -e 'halving_add(a_u8, b_u8)' --target arm-64 2>&1 >"$tmp/out")
  rc=$?
  if [[ $rc -eq 1 && $got == "$want" && ! -s $tmp/out ]]; then
    pass=$((pass + 1))
  else
    failed=$((failed + 1))
    echo "FAIL: without $tool on PATH: exit $rc, '$got' (expected exit 1, '$want')"
  fi
done
while IFS='|' read -r head expr; do
  [[ -z "${head// /}" || "$head" == \#* ]] && continue
  read -r target lanes mnemonic reg <<<"$head"
  expr="${expr# }"
  cases=$((cases + 1))
  [[ $target == arm-* ]] && arm=$((arm + 1))
  case $target in
    x86-64-sse41) need=sse4_1 ;; x86-64-avx2) need=avx2 ;; x86-64-avx512) need=avx512bw ;;
    arm-*) need=qemu-aarch64 ;; *) need=sse2 ;;
  esac
  if [[ $expr == *vpdp* ]]; then need=avx512_vnni; fi
  # SIMD_OP_CHECK_RUN_ONLY (the sanitizer build): a case that runs is not also compiled to
  # assembly, whose text the normal build checks; `tine run` compiles it the same way
  if [[ -z ${SIMD_OP_CHECK_RUN_ONLY:-} ]] || ! has "$need"; then
    asm=$("$tine" compile -e "$expr" --target "$target" --lanes "$lanes" --emit asm 2>&1)
    # the mnemonic as an instruction (not a label or a comment), on a register of the family
    if grep -E "^[[:space:]]+$mnemonic[[:space:]]" <<<"$asm" | grep -qE -- "$reg"; then
      pass=$((pass + 1))
    else
      failed=$((failed + 1))
      echo "FAIL: $target x$lanes: no '$mnemonic' on $reg registers for: $expr"
      grep -E '^[[:space:]]+[a-z]' <<<"$asm" | head -20 | sed 's/^/    /'
    fi
  fi
  if ! has "$need"; then
    [[ $need == qemu-aarch64 ]] && continue # said once above
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
echo "simd_op_check: $cases cases ($arm AArch64); $pass checks passed, $failed failed"
[[ $cases -ge 80 && $arm -ge 80 && $failed -eq 0 ]]

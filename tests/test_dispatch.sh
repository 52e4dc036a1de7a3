#!/usr/bin/env bash
# test_dispatch.sh TINE — multi-target objects (`--target T1,T2,... --emit obj`), as a user
# links them: three benchmark kernels, each one object holding the x86 levels and a
# dispatcher, linked with a plain C program (dispatch_main.c) and run once per forced
# choice (TINE_DISPATCH): each run checks the chosen target and that every kernel equals
# its C reference (bench/ref) bit for bit, the first calls made from several threads at
# once. The same for AArch64 under qemu-aarch64, where the CPU model decides (cortex-a53
# has no dot products, cortex-a76 no i8mm, max has both). Also: the objects need only the
# C library, a C++ program links them through the headers (extern "C"), a list's
# assembly and LLVM text, and the refusals of a bad list (located, the closest name).
#
# Every tool it uses (cc, g++, clang-19, qemu-aarch64, the AArch64 libc) is installed by
# scripts/setup.sh: a missing one fails the test.
set -uo pipefail
tine=$1
here=$(cd "$(dirname "$0")" && pwd)
bench=$here/../bench
kernels="gaussian3x3 l2norm fully_connected"
x86=x86-64-avx512,x86-64-v4,x86-64-avx2,x86-64-sse41,x86-64-sse2
arm=arm-64-i8mm,arm-64-dotprod,arm-64
refs=("$bench"/ref/{cases,image,camera,ml,ml_reduce,user}.c)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
pass() { echo "ok: $*"; }
fail() {
  echo "FAIL: $*"
  failed=1
}
check() { # check WHAT COMMAND...
  local what=$1
  shift
  if "$@" >/dev/null 2>&1; then pass "$what"; else fail "$what"; fi
}

# every kernel's object and header for a list, in dir, two compilations at a time
compile_all() {
  local dir=$1 list=$2 k
  mkdir -p "$dir"
  for k in $kernels; do
    "$tine" compile "$bench/kernels/$k.tine" --target "$list" --emit obj -o "$dir/$k.o" 2>"$dir/$k.err" &
    "$tine" compile "$bench/kernels/$k.tine" --target "$list" --emit h -o "$dir/$k.h" 2>>"$dir/$k.err"
    wait
    [[ -s $dir/$k.o && -s $dir/$k.h ]] || fail "$list: $k does not compile: $(head -3 "$dir/$k.err")"
  done
}

# ---- x86 ----------------------------------------------------------------------------------
compile_all "$tmp/x86" "$x86"
# the objects need the C library only (what the kernels call, and the dispatcher's getenv, strcmp)
undef=$(nm -u "$tmp"/x86/*.o | awk 'NF == 2 { print $2 }' | sort -u | tr '\n' ' ')
check "the objects need only the C library (undefined: $undef)" \
  test -z "$(echo "$undef" | tr ' ' '\n' | grep -vxE 'getenv|strcmp|malloc|calloc|free|memset|memcpy|memmove|')"
check "the header declares the entry point's choice" grep -qF 'const char *l2norm_target(void);' "$tmp/x86/l2norm.h"
if cc -std=c11 -Wall -Wextra -Werror -O1 -pthread -I"$tmp/x86" -I"$bench" -o "$tmp/x86/main" "$here/dispatch_main.c" \
  "$tmp"/x86/*.o "${refs[@]}" -lm 2>"$tmp/cc.err"; then
  # unset: the best level this CPU runs; each level forced; a name not in the list: ignored
  for level in "" x86-64-avx512 x86-64-v4 x86-64-avx2 x86-64-sse41 x86-64-sse2 x86-64-v3; do
    if [[ -n $level ]]; then out=$(TINE_DISPATCH=$level "$tmp/x86/main" 2>&1); else out=$(env -u TINE_DISPATCH "$tmp/x86/main" 2>&1); fi
    check "TINE_DISPATCH=${level:-(unset)}: ${out##*$'\n'}" grep -qE '^dispatch: .*: [0-9]+ checks passed, 0 failed$' <<<"$out"
  done
else
  fail "the x86 program does not build: $(head -5 "$tmp/cc.err")"
fi

# a C++ program: the multi-target header and a single-target one, linked and run
"$tine" compile "$bench/kernels/l2norm.tine" --target x86-64-sse2 --name l2norm_one --emit obj -o "$tmp/one.o" &&
  "$tine" compile "$bench/kernels/l2norm.tine" --target x86-64-sse2 --name l2norm_one --emit h -o "$tmp/one.h"
cat >"$tmp/cxx.cpp" <<'EOF'
#include <cstdio>
#include "gaussian3x3.h"
#include "one.h"
int main() {
    int (*single)(const tine_buffer_t *, uint8_t, int32_t, tine_buffer_t *) = l2norm_one;
    std::printf("%s %d\n", gaussian3x3_target(), single != nullptr);
    return 0;
}
EOF
if g++ -std=c++17 -Wall -Werror -I"$tmp/x86" -I"$tmp" -o "$tmp/cxx" "$tmp/cxx.cpp" "$tmp/x86/gaussian3x3.o" "$tmp/one.o" \
  2>"$tmp/cxx.err"; then
  check "a C++ program links the kernels and runs ($("$tmp/cxx" 2>&1))" grep -qE '^x86-64-[a-z0-9]+ 1$' <<<"$("$tmp/cxx")"
else
  fail "a C++ program does not link the kernels: $(head -5 "$tmp/cxx.err")"
fi

# a list's assembly and LLVM text: every variant and the dispatcher
"$tine" compile "$bench/kernels/l2norm.tine" --target x86-64-v4,x86-64-sse2 --emit asm >"$tmp/l.s" 2>&1
check "a list's assembly has the v4 variant (zmm), the baseline's and the probe (xgetbv)" \
  bash -c "grep -q 'zmm' '$tmp/l.s' && grep -q 'l2norm.x86-64-sse2' '$tmp/l.s' && grep -q xgetbv '$tmp/l.s'"
# x86-64-v4 is AVX-512 without VNNI: matmul's dot products (vpdpbusd, vpdpwssd) are
# x86-64-avx512's only
v4=$("$tine" compile "$bench/kernels/matmul.tine" --target x86-64-v4 --emit asm | grep -c 'vpdp')
v4vnni=$("$tine" compile "$bench/kernels/matmul.tine" --target x86-64-avx512 --emit asm | grep -c 'vpdp')
check "x86-64-v4 has no VNNI (matmul: $v4 VNNI instructions; at x86-64-avx512: $v4vnni)" test "$v4" = 0 -a "$v4vnni" -gt 0
"$tine" compile "$bench/kernels/l2norm.tine" --target x86-64-v3,x86-64-sse2 --emit llvm >"$tmp/l.ll" 2>&1
check "a list's LLVM text defines the entry point and l2norm_target" \
  bash -c "grep -q 'define i32 @l2norm(' '$tmp/l.ll' && grep -q 'define ptr @l2norm_target()' '$tmp/l.ll'"

# tine run given a list: the first target this CPU runs (an AArch64 list: none here)
out=$("$tine" run "$bench/kernels/l2norm.tine" --target x86-64-avx512,x86-64-sse2 2>&1)
check "tine run with a list runs the kernel bit-exact" grep -q '^tine: .*bit-exact with the interpreter' <<<"$out"
out=$("$tine" run "$bench/kernels/l2norm.tine" --target arm-64-dotprod,arm-64 2>&1)
check "tine run with a list of targets this CPU cannot run says so" grep -qF 'this CPU runs none of the targets' <<<"$out"

# refusals: each located, exit 1, nothing written
refused() { # refused WHAT LIST EMIT EXPECTED-TEXT
  local err
  err=$("$tine" compile "$bench/kernels/l2norm.tine" --target "$2" --emit "$3" -o "$tmp/bad.o" 2>&1)
  local rc=$?
  if [[ $rc -eq 1 && ! -e $tmp/bad.o ]] && grep -qF "$4" <<<"$err"; then pass "$1"; else fail "$1 (rc $rc: $err)"; fi
}
refused "a misspelt target names the closest" x86-64-avx512,x86-64-avx3 obj "the 2nd entry, 'x86-64-avx3', is not a target; did you mean 'x86-64-avx2'?"
refused "mixed architectures are refused" x86-64-avx2,arm-64 obj "the 2nd entry, 'arm-64', is arm code but the 1st, 'x86-64-avx2', is x86"
refused "host is refused in a list" host,x86-64-sse2 h "'host' cannot be one of several targets"
refused "a target twice is refused (an alias too)" x86-64-avx2,x86-64-v3 obj "the 2nd entry, 'x86-64-v3', is the 1st again"
refused "an empty entry is refused" x86-64-avx2,,x86-64-sse2 obj "the 2nd entry is empty"
refused "a list makes code only" x86-64-avx2,x86-64-sse2 stmt "the other outputs take one target"

# ---- AArch64 under qemu ---------------------------------------------------------------------
compile_all "$tmp/arm" "$arm"
if clang-19 --target=aarch64-linux-gnu -static -O1 -pthread -I"$tmp/arm" -I"$bench" -o "$tmp/arm/main" \
  "$here/dispatch_main.c" "$tmp"/arm/*.o "${refs[@]}" -lm 2>"$tmp/arm.err"; then
  while read -r cpu cap want; do
    [[ $cap == - ]] && cap=
    out=$(env -u TINE_DISPATCH ${cap:+TINE_DISPATCH=$cap} qemu-aarch64 -cpu "$cpu" "$tmp/arm/main" "$want" 2>&1)
    check "qemu -cpu $cpu${cap:+, TINE_DISPATCH=$cap}: ${out##*$'\n'}" \
      grep -qE '^dispatch: .*: [0-9]+ checks passed, 0 failed$' <<<"$out"
  done <<'EOF'
cortex-a53 - arm-64
cortex-a76 - arm-64-dotprod
max - arm-64-i8mm
max arm-64-dotprod arm-64-dotprod
max arm-64 arm-64
cortex-a53 arm-64-dotprod arm-64
EOF
else
  fail "the AArch64 program does not build: $(head -5 "$tmp/arm.err")"
fi

[[ $failed == 0 ]] && echo "test_dispatch: all passed"
exit $failed

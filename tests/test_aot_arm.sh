#!/usr/bin/env bash
# test_aot_arm.sh TINE [--bench] — the benchmark kernels (bench/kernels, and the user
# kernels of bench/user) compiled ahead of time for AArch64 in five variants: arm-64 and
# arm-64-dotprod, each through tine's
# selection and LLVM alone, and arm-64 (tine) with the output's last loop parallel where
# the schedule allows it (the parallel runtime's threads). They are linked into one static
# AArch64 program (aot_cross.c) with bench/ref's C references and run under qemu-aarch64:
# every kernel, variant, test and quick size and fill pattern must equal its reference bit
# for bit. --bench runs each kernel once at the benchmark size instead and prints wall
# times under qemu (not part of the test).
#
# Skips (exit 0, a "skipped:" line) without qemu-aarch64, clang-19's AArch64 target or
# the AArch64 libc (/usr/aarch64-linux-gnu; scripts/setup.sh installs all three).
# TINE_AOT_ARM_TARGETS overrides the targets of the first four variants (e.g.
# "arm-64 arm-64-dotprod arm-64-i8mm"), TINE_AOT_ARM_JOBS the compilations run at once.
set -uo pipefail
tine=$1
mode=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
bench=$here/../bench
cc=${TINE_AOT_ARM_CC:-clang-19}
sysroot=/usr/aarch64-linux-gnu
targets=${TINE_AOT_ARM_TARGETS:-arm-64 arm-64-dotprod}
# every kernel file (aot_cross.c fails when its table misses one of the harness's kernels)
kernels=$(cd "$bench" && for f in kernels/*.tine user/*.tine; do f=${f#*/}; echo "${f%.tine}"; done)
# a kernel's file: bench/kernels/NAME.tine, or bench/user/NAME.tine
kernel_file() {
  if [[ -f $bench/kernels/$1.tine ]]; then echo "$bench/kernels/$1.tine"; else echo "$bench/user/$1.tine"; fi
}

skip() {
  echo "test_aot_arm: skipped: $*"
  exit 0
}
command -v qemu-aarch64 >/dev/null || skip "no qemu-aarch64 (qemu-user)"
command -v "$cc" >/dev/null || skip "no $cc"
[[ -f $sysroot/include/stdio.h && -f $sysroot/lib/libc.a ]] || skip "no AArch64 libc in $sysroot (libc6-dev-arm64-cross)"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the cross compiler itself: a static AArch64 program that runs under qemu
printf '#include <stdio.h>\nint main(void) { puts("ok"); return 0; }\n' >"$tmp/probe.c"
cflags=(--target=aarch64-linux-gnu -O2 -static)
"$cc" "${cflags[@]}" -o "$tmp/probe" "$tmp/probe.c" >/dev/null 2>&1 || skip "$cc cannot link static AArch64 programs"
[[ $(qemu-aarch64 "$tmp/probe" 2>/dev/null) == ok ]] || skip "qemu-aarch64 does not run a static AArch64 program"

# A kernel with its output's last coordinate made parallel (its outermost loop: the
# parallel runtime's threads), or "" when its schedule does not allow it (a sliding
# window needs its rows in order; --emit schedule checks that without compiling).
parallel_copy() {
  local k=$1 last file
  file=$(kernel_file "$k")
  last=$(awk 'match($0, /^output [A-Za-z_0-9]+\([^)]*\)/) {
      split(substr($0, 8, RLENGTH - 8), a, /[(, ]+/); print a[1] "." a[length(a)]; exit }' "$file")
  { cat "$file"; echo "parallel $last"; } >"$tmp/par_$k.tine"
  if "$tine" compile "$tmp/par_$k.tine" --emit schedule >/dev/null 2>&1; then
    echo "$tmp/par_$k.tine"
  fi
}

# every kernel once per variant (target, selection, and whether its output's last loop
# is parallel where the schedule allows), named <variant>_<kernel>: the header now, the
# object and its header below, TINE_AOT_ARM_JOBS (2) compilations at a time
variant_specs=""
for t in $targets; do variant_specs+="$t tine -"$'\n'"$t llvm -"$'\n'; done
variant_specs+="arm-64 tine parallel"
parallel_kernels=""
jobs=()
{
  variants=""
  while read -r t sel par; do
    v=$(echo "${t}_$sel" | tr -c 'a-z0-9_\n' '_')
    label="$t $sel"
    [[ $par == parallel ]] && v=${v}_par && label="$label parallel"
    variants="$variants V($v, \"$label\")"
    for k in $kernels; do
      src=$(kernel_file "$k")
      if [[ $par == parallel ]]; then
        p=$(parallel_copy "$k")
        [[ -n $p ]] && src=$p && parallel_kernels="$parallel_kernels $k"
      fi
      jobs+=("$src" "$t" "$sel" obj "${v}_$k" "$tmp/${v}_$k.o" "$src" "$t" "$sel" h "${v}_$k" "$tmp/${v}_$k.h")
      echo "#include \"${v}_$k.h\""
    done
  done <<<"$variant_specs"
  echo "#define AOT_VARIANTS(V)$variants"
} >"$tmp/aot_variants.h"
# shellcheck disable=SC2016 # the script's $1.. are xargs's arguments
printf '%s\0' "${jobs[@]}" | xargs -0 -n 6 -P "${TINE_AOT_ARM_JOBS:-2}" sh -c '
  "$0" compile "$1" --target "$2" --select "$3" --emit "$4" --name "$5" -o "$6" 2>"$6.err" ||
    { echo "FAIL: tine compile $1 --target $2 --select $3 --emit $4: $(head -3 "$6.err")" >&2; exit 1; }' "$tine" ||
  exit 1

# -lpthread: kernels with parallel loops carry their own runtime, which creates threads
if ! "$cc" "${cflags[@]}" -std=c11 -Wall -Wextra -Werror -I"$tmp" -I"$bench" -o "$tmp/aot_cross" \
  "$here/aot_cross.c" "$tmp"/*.o "$bench"/ref/{cases,image,camera,ml,ml_reduce,user}.c -lm -lpthread 2>"$tmp/cc.err"; then
  echo "FAIL: the AArch64 program does not build:" >&2
  head -20 "$tmp/cc.err" >&2
  exit 1
fi
echo "test_aot_arm: $(grep -c '^#include' "$tmp/aot_variants.h") kernel objects compiled and linked in ${SECONDS}s"
echo "test_aot_arm: parallel (arm-64 tine parallel, 4 threads):${parallel_kernels:- none}"
[[ -n $parallel_kernels ]] || { echo "FAIL: no kernel takes a parallel schedule" >&2; exit 1; }
# 4 threads whatever the machine has, so that the parallel loops split
start=$SECONDS
TINE_NUM_THREADS=4 qemu-aarch64 "$tmp/aot_cross" ${mode:+"$mode"}
rc=$?
echo "test_aot_arm: run under qemu-aarch64 in $((SECONDS - start))s"
exit $rc

#!/usr/bin/env bash
# test_dot_products.sh TINE — dot products of every signedness, written plainly
# (`sum(k in 0..K) (i32(a(k, n)) * i32(w(k, c)))`, and as users also write them: through
# i16 casts, with a zero point subtracted), reach the dot-product instructions at every
# x86 level and on Arm, and compute what the serial sum does.
#
# Each kernel is built here from its operand types, its product and its schedule: `f4`
# sums 4 adjacent products per accumulator lane (`vectorize dot.k 32`, 8 i32 lanes), `f2`
# sums 2 (`vectorize dot.k 32 acc 16`). For each target, the bodies of the reduction's
# vector loops (codegen names their blocks "dot.k.vec.body...") must hold the expected
# mnemonic and none of the slow forms: the products of the extended operands by a 16- or
# 32-bit multiply (pmullw, pmulld; Arm's mul) summed afterwards. Then every kernel runs:
# at the x86 levels this CPU has, `tine run` against the interpreter (K = 100: three
# vector steps and a tail); on Arm, compiled ahead of time and linked with dot_main.c,
# under qemu-aarch64 (-cpu max), against the serial sum in C, for lengths around the step.
#
# TINE_DOT_QUICK=1 (the sanitizer build, where each compile takes seconds): the five plain
# forms only, and the x86 runs at the widest level this CPU has.
set -uo pipefail
tine=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
host=$(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)
has() { [[ " $host " == *" $1 "* ]]; }
arm_run=1
if ! command -v qemu-aarch64 >/dev/null || ! command -v clang-19 >/dev/null || [[ ! -f /usr/aarch64-linux-gnu/lib/libc.a ]]; then
  arm_run=0
  echo "note: qemu-aarch64, clang-19 or the AArch64 libc is missing: the Arm kernels are compiled, not run"
fi
pass=0 failed=0
ok() { pass=$((pass + 1)); }
fail() {
  failed=$((failed + 1))
  echo "FAIL: $*"
}

# form: name, a's type, w's type, the product
forms="
i8i8 i8 i8 i32(a(k, n)) * i32(w(k, c))
u8i8 u8 i8 i32(a(k, n)) * i32(w(k, c))
i8u8 i8 u8 i32(a(k, n)) * i32(w(k, c))
u8u8 u8 u8 i32(a(k, n)) * i32(w(k, c))
i16i16 i16 i16 i32(a(k, n)) * i32(w(k, c))
i8i8c16 i8 i8 i32(i16(a(k, n))) * i32(i16(w(k, c)))
u8u8c16 u8 u8 i32(i16(a(k, n))) * i32(i16(w(k, c)))
i8i8m16 i8 i8 i32(i16(a(k, n)) * i16(w(k, c)))
u8i8z u8 i8 (i32(a(k, n)) - i32(z)) * i32(w(k, c))
u8i8z16 u8 i8 i32(i16(a(k, n)) - i16(z)) * i32(i16(w(k, c)))
"
quick=${TINE_DOT_QUICK:-0}
[[ $quick == 1 ]] && forms=$(head -6 <<<"$forms")
kernel() { # kernel NAME TA TW SCHEDULE PRODUCT...
  local name=$1 ta=$2 tw=$3 sched=$4
  shift 4
  local acc=""
  [[ $sched == f2 ]] && acc=" acc 16"
  {
    echo "input a: $ta[2]"
    echo "input w: $tw[2]"
    echo "param K: i32"
    [[ $* == *"(z)"* ]] && echo "param z: $ta"
    echo "output dot(c, n): i32 = sum(k in 0..K) ($*)"
    echo "schedule"
    echo "vectorize dot.c natural"
    echo "vectorize dot.k 32$acc"
  } >"$tmp/${name}_$sched.tine"
}
while read -r name ta tw product; do
  [[ -z "$name" ]] && continue
  for s in f4 f2; do kernel "$name" "$ta" "$tw" "$s" "$product"; done
done <<<"$forms"

# The instructions of the reduction's vector loop bodies, one per line.
body() { # body FILE TARGET
  "$tine" compile "$1" --target "$2" --emit asm 2>&1 | awk '
    /^(\.LBB[0-9_]+:|[#\/]+ %bb\.[0-9]+:)/ { inloop = ($0 ~ /[#\/]+ %dot\.k\.vec\.body[0-9]*(\.us)*(\.i)?( |$)/); next }
    inloop && $1 !~ /^[#\/.]/ { print $1 }'
}

# form schedule target mnemonic: the mnemonic in the loop body (forms a space-separated
# list, * every form). Absent everywhere: the slow products.
cases="
* f2 x86-64-sse2 pmaddwd
* f4 x86-64-sse2 pmaddwd
* f2 x86-64-sse41 pmaddwd
* f4 x86-64-sse41 pmaddwd
* f2 x86-64-avx2 vpmaddwd
* f4 x86-64-avx2 vpmaddwd
* f2 x86-64-avx512 vpdpwssd
u8i8 i8u8 f4 x86-64-avx512 vpdpbusd
i8i8 u8u8 i16i16 i8i8c16 u8u8c16 i8i8m16 f4 x86-64-avx512 vpmaddwd
i8i8 i8i8c16 i8i8m16 f4 arm-64-dotprod sdot
i8i8 i8i8c16 i8i8m16 f2 arm-64-dotprod sdot
u8u8 u8u8c16 f4 arm-64-dotprod udot
u8u8 u8u8c16 f2 arm-64-dotprod udot
u8i8 i8u8 f4 arm-64-i8mm usdot
u8i8 i8u8 f2 arm-64-i8mm usdot
u8u8 f4 arm-64-i8mm udot
i8i8 f4 arm-64-i8mm sdot
"
declare -A seen
while read -r line; do
  [[ -z "$line" ]] && continue
  read -r -a f <<<"$line"
  n=${#f[@]}
  insn=${f[n - 1]} target=${f[n - 2]} sched=${f[n - 3]}
  names=("${f[@]:0:n-3}")
  if [[ ${names[0]} == '*' ]]; then
    names=()
    while read -r name _; do [[ -n "$name" ]] && names+=("$name"); done <<<"$forms"
  fi
  for name in "${names[@]}"; do
    file=$tmp/${name}_$sched.tine
    [[ -f $file ]] || continue # a form left out (TINE_DOT_QUICK)
    b=$(body "$file" "$target")
    seen[$name $sched $target]=1
    if [[ -z "$b" ]]; then
      fail "$name $sched on $target: no vector loop body for dot.k in the assembly"
      continue
    fi
    grep -qx "$insn" <<<"$b" && ok || fail "$name $sched on $target: no '$insn' in the reduction's loop body ($(sort <<<"$b" | uniq -c | sort -rn | head -8 | awk '{printf "%s %s, ", $1, $2}'))"
    slow=$(grep -xE '(v?pmull[wd]|mul)' <<<"$b" | sort -u | tr '\n' ' ')
    [[ -z "$slow" ]] && ok || fail "$name $sched on $target: the loop body multiplies the extended operands ($slow)"
  done
done <<<"$cases"

# Runs: x86 through tine run (the JIT against the interpreter), K past one vector step.
for key in "${!seen[@]}"; do
  read -r name sched target <<<"$key"
  file=$tmp/${name}_$sched.tine
  case $target in
    x86-64-sse2) need=sse2 ;; x86-64-sse41) need=sse4_1 ;; x86-64-avx2) need=avx2 ;;
    x86-64-avx512) need=avx512_vnni ;; *) continue ;;
  esac
  has "$need" || continue
  if [[ $quick == 1 ]]; then # the widest level this CPU has
    widest=x86-64-sse2
    for l in sse4_1:x86-64-sse41 avx2:x86-64-avx2 avx512_vnni:x86-64-avx512; do has "${l%%:*}" && widest=${l#*:}; done
    [[ $target == "$widest" ]] || continue
  fi
  for K in 100; do
    zp=()
    [[ $name == *z* ]] && zp=(--param z=3)
    out=$("$tine" run "$file" --target "$target" --param K=$K "${zp[@]}" 2>&1)
    if [[ $(grep -c "^tine: .*bit-exact with the interpreter" <<<"$out") -ge 1 ]] &&
       ! grep -q "differ\|mismatch" <<<"$out"; then
      ok
    else
      fail "$name $sched on $target, K = $K: tine run does not agree with the interpreter"
      tail -4 <<<"$out" | sed 's/^/    /'
    fi
  done
done

# Runs on Arm: one object per kernel and target, with dot_main.c, under qemu-aarch64.
if [[ $arm_run -eq 1 ]]; then
  ctype() { case $1 in i8) echo int8_t ;; u8) echo uint8_t ;; i16) echo int16_t ;; esac; }
  for key in "${!seen[@]}"; do
    read -r name sched target <<<"$key"
    [[ $target == arm-* ]] || continue
    [[ $name == *z* ]] && continue # the harness's reference has no zero point
    read -r _ ta tw _ < <(grep "^$name " <<<"$forms")
    d=$tmp/arm_${name}_${sched}_$target
    mkdir -p "$d"
    "$tine" compile "$tmp/${name}_$sched.tine" --target "$target" --emit obj -o "$d/k.o" --name dot_k &&
      "$tine" compile "$tmp/${name}_$sched.tine" --target "$target" --emit h -o "$d/k.h" --name dot_k &&
      clang-19 --target=aarch64-linux-gnu -O2 -static -DKERNEL=dot_k -DTA="$(ctype "$ta")" -DTW="$(ctype "$tw")" \
        -DHEADER='"k.h"' -I"$d" -o "$d/main" "$here/dot_main.c" "$d/k.o" -pthread 2>"$d/err" ||
      { fail "$name $sched on $target: does not build ($(head -3 "$d/err"))"; continue; }
    out=$(qemu-aarch64 -cpu max "$d/main" 2>&1)
    [[ $out == ok* ]] && ok || fail "$name $sched on $target under qemu-aarch64: $out"
  done
fi

echo "test_dot_products: $pass passed, $failed failed"
[[ $failed -eq 0 && $pass -gt 40 ]]

#!/usr/bin/env bash
# test_cli.sh — the `tine` command line, end to end.
#
# Usage: bash tests/test_cli.sh path/to/tine
# Each check prints nothing when it passes and a FAIL line when it does not; the last line
# is the summary, and the exit status is non-zero if anything failed. Expected outputs are
# derived where possible from independent sources (the definitions `tine ops` prints and
# tine_ops.h holds, the Sobel example and the op table of /work/shared/FPIR.md or its
# copy in this file) rather than pasted from a run.
set -u

TINE=${1:?usage: test_cli.sh path/to/tine}
HERE=$(cd "$(dirname "$0")" && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

. "$HERE/checks.sh"


# ---- demo ------------------------------------------------------------------------------
run demo
check "demo exits 0 (rc $rc)" test "$rc" -eq 0
check "demo says the three forms agree" grep -qF "all three agree bit for bit." "$TMP/out"
check "demo prints no MISMATCH" test "$(grep -c MISMATCH "$TMP/out")" -eq 0

# ---- expand: the definition with a, b substituted --------------------------------------
run ops
ops_out=$out
def_of() { # the definition `tine ops` prints for an FPIR op
    printf '%s\n' "$ops_out" | awk -v op="$1" '$1 == op && $2 == ":=" { sub(/^[^=]*:= /, ""); print; exit }'
}
def_halving=$(def_of halving_add)
def_widening=$(def_of widening_add)
# the definitions as tine_ops.h writes them
check "halving_add is defined as in tine_ops.h ('$def_halving')" \
    test "$def_halving" = "narrow(widening_add(x, y) >> 1)"
check "widening_add is defined as in tine_ops.h ('$def_widening')" test "$def_widening" = "widen(x) + widen(y)"
check "tine_ops.h holds that halving_add definition" \
    grep -qF '"narrow(widening_add(x, y) >> 1)"' "$HERE/../include/tine_ops.h"

# substitute by hand: widening_add(x, y) by its definition, then widen/narrow at u8, x = a_u8, y = b_u8
subst=${def_halving//"widening_add(x, y)"/"($def_widening)"}
subst=${subst//"widen(x)"/"u16(x)"}
subst=${subst//"widen(y)"/"u16(y)"}
subst=${subst//"narrow("/"u8("}
subst=${subst//x/a_u8}
subst=${subst//y/b_u8}
check "the hand substitution is u8((u16(a_u8) + u16(b_u8)) >> 1) (got '$subst')" \
    test "$subst" = "u8((u16(a_u8) + u16(b_u8)) >> 1)"

run expand 'halving_add(a_u8, b_u8)' --lanes 8
expanded=$out
check "expand exits 0 (rc $rc)" test "$rc" -eq 0
check "expand prints exactly 'u8(u16(a_u8) + u16(b_u8) >> 1)' (got '$expanded')" \
    test "$expanded" = "u8(u16(a_u8) + u16(b_u8) >> 1)"
check "expand reports the type u8x8 on stderr (got '$err')" test "$err" = "type: u8x8"
run print "$subst" --lanes 8
check "the hand-substituted definition prints as the expansion ('$out')" test "$out" = "$expanded"
run expand 'halving_add(a_u8, b_u8)' --lanes 8
check "expand is deterministic" test "$out" = "$expanded"

# ---- eval ---------------------------------------------------------------------------------
run eval 'rounding_shr(u8(255), 1)' --lanes 4
check "eval rounding_shr exits 0 (rc $rc)" test "$rc" -eq 0
check "rounding_shr(u8(255), 1) = 128 in 4 lanes (got '$(tail -n 1 "$TMP/out")')" \
    test "$(tail -n 1 "$TMP/out")" = "result u8x4 = [128, 128, 128, 128]"

run eval 'a_u8 + b_u8' --lanes 4 --seed 7
first=$out
check "eval a_u8 + b_u8 exits 0 (rc $rc)" test "$rc" -eq 0
run eval 'a_u8 + b_u8' --lanes 4 --seed 7
check "eval with --seed 7 is deterministic" test "$out" = "$first"
run eval 'a_u8 + b_u8' --lanes 4 --seed 8
check "another seed gives other inputs" test "$out" != "$first"
# the printed result is the lane-wise sum of the printed inputs, mod 256
sum_ok=$(printf '%s\n' "$first" | awk '
    function lanes(s, arr,   t) { t = s; sub(/^[^[]*\[/, "", t); sub(/\].*$/, "", t); return split(t, arr, /, /) }
    /^  a_u8 = \[/ { na = lanes($0, a) }
    /^  b_u8 = \[/ { nb = lanes($0, b) }
    /^result u8x4 = \[/ { nr = lanes($0, r) }
    END {
        if (na != 4 || nb != 4 || nr != 4) { print "lanes " na " " nb " " nr; exit }
        for (i = 1; i <= 4; i++) {
            if (a[i] !~ /^[0-9]+$/ || a[i] > 255 || b[i] !~ /^[0-9]+$/ || b[i] > 255) { print "bad input " a[i] " " b[i]; exit }
            if ((a[i] + b[i]) % 256 != r[i]) { print "lane " i ": " a[i] " + " b[i] " != " r[i]; exit }
        }
        print "ok"
    }')
check "eval result = inputs summed mod 256 ($sum_ok)" test "$sum_ok" = "ok"

# ---- print round trip of the Sobel input of FPIR.md ------------------------------------------
# FPIR.md writes the pixels untyped (a ... l); the CLI types variables by suffix.
fpir_md=/work/shared/FPIR.md
if [ -r "$fpir_md" ]; then
    sobel=$(awk '/^Input \(/ { f = 1; next } f && /^```/ { if (inb) exit; inb = 1; next } inb { print }' "$fpir_md")
else # the same text, for machines without the shared notes
    sobel='u8(min(absd(u16(a) + u16(b)*2 + u16(c), u16(d) + u16(e)*2 + u16(f))
     + absd(u16(g) + u16(h)*2 + u16(i), u16(j) + u16(k)*2 + u16(l)), 255))'
fi
check "found the Sobel input" grep -q 'absd(u16(g)' <<<"$sobel"
sobel=$(sed -E 's/\b([a-l])\b/\1_u8/g' <<<"$sobel")
run print "$sobel"
p1=$out
check "print of the Sobel input exits 0 (rc $rc: $err)" test "$rc" -eq 0
check "print reports type u8x16 (got '$err')" test "$err" = "type: u8x16"
check "printed Sobel is the input up to whitespace" test "$(tr -d ' \n' <<<"$p1")" = "$(tr -d ' \n' <<<"$sobel")"
run print "$p1"
check "print(parse(print(sobel))) is a fixpoint" test "$out" = "$p1"
run eval "$sobel" --seed 3
e1=$out
run eval "$p1" --seed 3
check "the input and its printed form evaluate alike" test -n "$e1" -a "$out" = "$e1"
if [ -r "$fpir_md" ]; then
    lifted=$(awk '/^Lifted:/ { f = 1; next } f && /^```/ { if (inb) exit; inb = 1; next } inb { print }' "$fpir_md")
    lifted=$(sed -E 's/\b([a-l])\b/\1_u8/g' <<<"$lifted")
    run print "$lifted"
    p2=$out
    check "print of the lifted Sobel exits 0 (rc $rc: $err)" test "$rc" -eq 0
    run print "$p2"
    check "the lifted Sobel of FPIR.md round-trips too" test -n "$p2" -a "$out" = "$p2"
    run eval "$lifted" --seed 3
    check "the lifted Sobel evaluates like the input (same seed)" test "$(tail -n 1 <<<"$out")" = "$(tail -n 1 <<<"$e1")"
fi

# ---- malformed input: <input>:1:COL: message, the line, a caret under COL ----------------------
malformed=('a_u8 + (b_u8' 'a_u8 +' 'foo(a_u8)' 'a_u8 + b_i8' 'u8(300)' '  (a_u8 * )' 'min(a_u8)')
for text in "${malformed[@]}"; do
    for cmd in print eval expand; do
        run "$cmd" "$text"
        check "$cmd '$text' exits 1 (rc $rc)" test "$rc" -eq 1
        check "$cmd '$text' prints nothing on stdout" test -z "$out"
        l1=$(sed -n 1p "$TMP/err")
        l2=$(sed -n 2p "$TMP/err")
        l3=$(sed -n 3p "$TMP/err")
        col=$(sed -nE 's/^<input>:1:([0-9]+): .+$/\1/p' <<<"$l1")
        if [ -z "$col" ]; then
            bad "$cmd '$text': first stderr line is not '<input>:1:COL: message': '$l1'"
            continue
        fi
        ok
        check "$cmd '$text': second line is the input ('$l2')" test "$l2" = "$text"
        check "$cmd '$text': column $col is within the line" test "$col" -ge 1 -a "$col" -le $((${#text} + 1))
        caret=$(printf '%*s^' $((col - 1)) '')
        check "$cmd '$text': third line is a caret under column $col ('$l3')" test "$l3" = "$caret"
    done
done

# ---- usage errors exit 2 ----------------------------------------------------------------------
usage_cases=(
    "frobnicate"
    "eval a_u8 --bogus"
    "print a_u8 --lanes"
    "print a_u8 --lanes 0"
    "print a_u8 --lanes 257"
    "print a_u8 --lanes x"
    "eval a_u8 --seed -1"
    "print"
    "eval"
    "print a_u8 b_u8"
)
for args in "${usage_cases[@]}"; do
    # shellcheck disable=SC2086 # split on purpose
    run $args
    check "'tine $args' exits 2 (rc $rc)" test "$rc" -eq 2
    check "'tine $args' says why on stderr" test -n "$err"
done
run
check "'tine' with no command exits 2 (rc $rc)" test "$rc" -eq 2
check "'tine' with no command prints usage" grep -q '^usage: tine' "$TMP/err"

# ---- help and version: stdout, exit 0 -------------------------------------------------------------
for args in "--help" "-h" "help"; do
    run $args
    check "'tine $args' exits 0 (rc $rc)" test "$rc" -eq 0
    check "'tine $args' prints the usage on stdout" grep -q '^usage: tine demo' "$TMP/out"
    check "'tine $args' prints nothing on stderr" test -z "$err"
done
for args in "help run" "run --help" "run -h" "run FILE --help" "run -e a_u8 --help"; do
    # shellcheck disable=SC2086 # split on purpose
    run $args
    check "'tine $args' exits 0 (rc $rc)" test "$rc" -eq 0
    check "'tine $args' gives run's two forms" test "$(grep -cE '^(usage:|      ) tine run ' "$TMP/out")" -eq 2
    check "'tine $args' describes --input-size" grep -qE '^  --input-size NAME=WxH\.\. +an input.s extents' "$TMP/out"
    check "'tine $args' marks --lanes as -e's" grep -qE '^  --lanes N .*; -e EXPR only$' "$TMP/out"
done
# every option a command's usage lines name has its line in that command's help
for cmd in print expand eval lift rules compile run bench bench-ir bench-lift verify isa synth; do
    "$TINE" help $cmd >"$TMP/help" 2>&1
    for o in $(grep -E '^(usage:|      ) tine ' "$TMP/help" | grep -oE '(^| |\[)(--[a-z-]+|-[eo])' | tr -d ' [' | sort -u); do
        check "'tine help $cmd' describes $o" grep -qE "^  $o( |$)" "$TMP/help"
    done
done
run --version
check "'tine --version' exits 0 (rc $rc)" test "$rc" -eq 0
version=$(sed -nE 's/^project\(tine .*VERSION ([0-9.]+).*/\1/p' "$HERE/../CMakeLists.txt")
check "'tine --version' prints the version of CMakeLists.txt ('$out', '${version:-0.1.0}')" test "$out" = "tine ${version:-0.1.0}"

# ---- ops: every FPIR op of FPIR.md's table ------------------------------------------------------
run ops
check "ops exits 0 (rc $rc)" test "$rc" -eq 0
n_defs=$(grep -c ' := ' "$TMP/out")
check "ops lists 22 FPIR ops with definitions (got $n_defs)" test "$n_defs" -eq 22
if [ -r "$fpir_md" ]; then
    names=$(sed -nE 's/^\| `([a-z_]+)[(<].*/\1/p' "$fpir_md")
else
    names="widening_add widening_sub widening_mul widening_shl widening_shr extending_add extending_sub
           extending_mul abs absd saturating_cast saturating_narrow saturating_add saturating_sub halving_add
           halving_sub rounding_halving_add rounding_shr rounding_shl mul_shr rounding_mul_shr saturating_shl"
fi
n_names=$(wc -w <<<"$names")
check "FPIR.md's table names 22 ops (got $n_names)" test "$n_names" -eq 22
for name in $names; do
    check "ops lists $name with its definition" grep -qE "^  $name +:= [^ ]" "$TMP/out"
done
for prim in add sub mul div mod min max shl shr select cast reinterpret broadcast ramp load sqrt; do
    check "ops lists the primitive op $prim" grep -qE "^ .* $prim( |$)" <(sed -n 2p "$TMP/out")
done

# ---- bench-ir ---------------------------------------------------------------------------------
run bench-ir --nodes 20000
check "bench-ir exits 0 (rc $rc: $err)" test "$rc" -eq 0
check "bench-ir prints a bytes/node column" grep -q 'bytes/node' "$TMP/out"
rows=$(awk '/^(expression-shaped|random operands)/ && $NF ~ /^[0-9]+(\.[0-9]+)?$/ && $NF > 0 { n++ } END { print n + 0 }' "$TMP/out")
check "bench-ir prints bytes/node for both workloads (got $rows rows)" test "$rows" -eq 2
check "bench-ir used 20000 constructor calls" grep -q '20000 constructor calls' "$TMP/out"

# ---- bench (smoke: one kernel, one level, quick size) -------------------------------------------
TINE_ABS=$(cd "$(dirname "$TINE")" && pwd)/$(basename "$TINE")
(cd "$TMP" && "$TINE_ABS" bench --quick --filter median3x3 --target x86-64-sse2 >"$TMP/bout" 2>"$TMP/berr")
rc=$?
check "bench exits 0 (rc $rc: $(tail -2 "$TMP/berr"))" test "$rc" -eq 0
check "bench prints a bit-exact median3x3 row" grep -qE '^median3x3 +x86-64-sse2 .* yes$' "$TMP/bout"
check "bench prints compile time by phase" grep -q 'compile time by phase' "$TMP/bout"
check "bench writes the CSV with one row" test "$(wc -l <"$TMP/tine-bench.csv" 2>/dev/null)" = 2
check "bench writes the SVG chart" grep -q '<svg' "$TMP/tine-bench.svg"
check "bench's CSV has every implementation's median and spread" \
  grep -q '^kernel,target,runs,bytes,roof_ms,tine_ms,tine_min_ms,tine_max_ms,.*,halide_ms,.*,gcc_roof_fraction,' "$TMP/tine-bench.csv"
# csv_field NAME: the named column of the CSV's last row
csv_field() { awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) col = i } END { print col ? $col : "no-such-column" }' "$TMP/tine-bench.csv"; }
for impl in tine llvm clang gcc; do
  check "bench times $impl bit-exact (state $(csv_field ${impl}_state))" test "$(csv_field ${impl}_state)" = timed
done
check "bench's medians lie within their ranges" \
  awk -F, 'NR == 2 { exit !($6 > 0 && $7 <= $6 && $6 <= $8) }' "$TMP/tine-bench.csv"
# The OpenCV column when the peer is built (scripts/setup.sh installs libopencv-imgproc-dev):
# medianBlur is exactly the kernel
if ! grep -q 'OpenCV: not built' "$TMP/berr"; then
  check "bench times the OpenCV peer bit-exact (state $(csv_field opencv_state))" test "$(csv_field opencv_state)" = timed
  check "  and reports tine's time over OpenCV's" awk -v r="$(csv_field tine_over_opencv)" 'BEGIN { exit !(r > 0) }'
  check "  and says the library runs the same code in every row" grep -q 'every row times the same code' "$TMP/bout"
fi
# The Halide column when the peer is built (scripts/setup.sh installs Halide 14)
if ! grep -q 'Halide 14: not built' "$TMP/berr"; then
  check "bench times the Halide peer bit-exact (state $(csv_field halide_state))" test "$(csv_field halide_state)" = timed
  check "  and reports tine's time over Halide's" awk -v r="$(csv_field tine_over_halide)" 'BEGIN { exit !(r > 0) }'
  (cd "$TMP" && "$TINE_ABS" bench --quick --filter median3x3 --target x86-64-sse2 --peers halide >"$TMP/bout" 2>"$TMP/berr")
  rc=$?
  check "bench --peers halide exits 0 (rc $rc)" test "$rc" -eq 0
  check "  and leaves the C columns absent" test "$(csv_field clang_state),$(csv_field gcc_state)" = absent,absent
  check "  but times Halide" test "$(csv_field halide_state)" = timed
fi

# ---- kernels: tine run with parameters ----------------------------------------------------------
run run "$HERE/../bench/kernels/l2norm.tine" --param W=40 --param zero=128 --size 40x6
check "run l2norm exits 0 (rc $rc: $err)" test "$rc" -eq 0
check "run l2norm: both selections bit-exact" test "$(grep -c 'bit-exact with the interpreter' "$TMP/out")" -eq 2
run run "$HERE/../bench/kernels/l2norm.tine" --param W=90 --size 40x6
check "run l2norm with rows longer than the output sizes its input by the rows (rc $rc: $err)" test "$rc" -eq 0
check "  90 wide" grep -qF "input in 90x6 at (0, 0)" "$TMP/out"
run run "$HERE/../bench/kernels/l2norm.tine" --param W=90 --size 40x6 --input-size in=40x6
check "run l2norm with a given input narrower than its rows is refused (rc $rc)" test "$rc" -eq 2
check "  saying the size it needs" grep -qF -- "--input-size in=40x6 is too small: $HERE/../bench/kernels/l2norm.tine reads 90x6 ([0, 89] x [0, 5]) with zero=" "$TMP/err"

# ---- tine run: each input sized by bounds inference; parameters drawn by their use ------------------
# reads at scaled coordinates: a 2x2 average needs twice the output in each dimension
cat >"$TMP/down.tine" <<'EOF'
input in: u8[2]
output out(x, y): u8 = u8((u16(in(2 * x, 2 * y)) + u16(in(2 * x + 1, 2 * y)) + u16(in(2 * x, 2 * y + 1))
    + u16(in(2 * x + 1, 2 * y + 1)) + 2) >> 2)
EOF
run run "$TMP/down.tine" --size 30x20
check "run of a 2x downsample exits 0 (rc $rc: $err)" test "$rc" -eq 0
check "  its input twice the output" grep -qF "input in 60x40 at (0, 0)" "$TMP/out"
check "  both selections bit-exact" test "$(grep -c 'bit-exact with the interpreter' "$TMP/out")" -eq 2
# a window sized by a parameter: R sizes the run, so it is drawn small (0 to 16, and the edges 0, 1,
# 16, -1); k is a coefficient, drawn across i16 with its edges
cat >"$TMP/win.tine" <<'EOF'
input in: u8[2]
param R: i32
param k: i16
output out(x, y): i32 = sum(r in 0..R) i32(in(x + r, y - r)) * i32(k)
EOF
: >"$TMP/win.runs"
for seed in 1 2 3 4; do
    run run "$TMP/win.tine" --size 20x10 --seed $seed
    check "run of a window of R elements, seed $seed, exits 0 (rc $rc: $err)" test "$rc" -eq 0
    check "  three runs, each bit-exact both ways" test "$(grep -c 'bit-exact with the interpreter' "$TMP/out")" -eq 6
    cat "$TMP/out" >>"$TMP/win.runs"
done
# every run's input is the output widened by R - 1 to the right and up (nothing read when R <= 0:
# then it keeps the output's size)
bad_sizes=$(sed -nE 's/^run [0-9] of 3: R=(-?[0-9]+) k=(-?[0-9]+); input in ([0-9]+)x([0-9]+) at \(0, (-?[0-9]+)\)$/\1 \3 \4 \5/p' "$TMP/win.runs" |
    awk '{ r = $1 > 0 ? $1 : 1; if ($2 != 20 + r - 1 || $3 != 10 + r - 1 || $4 != -(r - 1)) print }')
check "  each input is exactly the region read ('$bad_sizes')" test -z "$bad_sizes"
check "  12 runs listed" test "$(grep -c '^run [0-9] of 3: R=' "$TMP/win.runs")" -eq 12
check "  R stays in [-1, 16], k reaches its edges" sh -c "! grep -qE 'R=(-[2-9]|1[7-9]|[2-9][0-9])' '$TMP/win.runs' &&
    grep -q 'k=-32768' '$TMP/win.runs' && grep -q 'k=32767' '$TMP/win.runs'"
check "  R takes 0, 1, 16 and -1 over seeds 1 to 4" sh -c "grep -q 'R=0 ' '$TMP/win.runs' && grep -q 'R=1 ' '$TMP/win.runs' &&
    grep -q 'R=16 ' '$TMP/win.runs' && grep -q 'R=-1 ' '$TMP/win.runs'"
run run "$HERE/../bench/kernels/l2norm.tine" --param Q=1
check "run with an unknown parameter is refused (rc $rc)" test "$rc" -ne 0
check "  naming it" grep -qF "no parameter 'Q'" "$TMP/err"

# ---- docs/KERNELS.md: the worked idioms run; the directive table has every directive -------------
# each fenced block of the "Worked idioms" section is a kernel: written out, run small
awk -v dir="$TMP" '/^## /{ on = ($0 == "## Worked idioms") } on && /^```$/ { if (f) { close(f); f = "" } else f = sprintf("%s/idiom%d.tine", dir, ++n); next }
    f { print > f }' "$HERE/../docs/KERNELS.md"
nidioms=$(ls "$TMP"/idiom*.tine 2>/dev/null | wc -l)
check "KERNELS.md has 4 worked idioms (got $nidioms)" test "$nidioms" -eq 4
for f in "$TMP"/idiom*.tine; do
    name=$(sed -nE '1s/^# ([a-z0-9_]+):.*/\1/p' "$f")
    run run "$f" --size 16x8
    check "idiom $name runs (rc $rc: $err)" test "$rc" -eq 0
    runs=$(grep -c '^run [0-9] of' "$TMP/out")
    check "  every run bit-exact both ways" test "$(grep -c 'bit-exact with the interpreter' "$TMP/out")" -eq $((2 * (runs > 0 ? runs : 1)))
    case $name in
    sad8x8) check "  its inputs 8 times the output" grep -qF "inputs a 128x64 at (0, 0), b 128x64 at (0, 0)" "$TMP/out" ;;
    gaussian5x5_separable) check "  its input 2 wider on every side" grep -qF "input in 20x12 at (-2, -2)" "$TMP/out" ;;
    esac
done
# the table's rows against the directives the parser knows (its error lists them all)
printf 'input in: u8[1]\noutput out(x): u8 = in(x)\nschedule\nnone out\n' >"$TMP/nodir.tine"
known=$("$TINE" compile "$TMP/nodir.tine" --emit schedule 2>&1 | sed -nE "s/.*unknown schedule directive 'none' \((.*)\)$/\1/p" | tr -d ',')
table=$(awk '/^## /{ on = ($0 == "## Directives") } on' "$HERE/../docs/KERNELS.md" | sed -nE 's/^\| `([a-z_]+) .*/\1/p' | tr '\n' ' ')
check "KERNELS.md's directive table lists every directive in order ('$table' vs '$known')" test "$(echo $table)" = "$(echo $known)"

# ---- schedule auto: --emit schedule prints the choice; pasted back, the same statement -------------
sed '/^schedule/,$d' "$HERE/../bench/kernels/l2norm.tine" >"$TMP/l2auto.tine"
echo "schedule auto" >>"$TMP/l2auto.tine"
run compile "$TMP/l2auto.tine" --emit schedule
check "compile --emit schedule exits 0 (rc $rc: $err)" test "$rc" -eq 0
check "  auto computes l2norm's inv once per row" grep -qx "materialize inv" "$TMP/out"
sed '/^schedule/,$d' "$HERE/../bench/kernels/l2norm.tine" >"$TMP/l2pasted.tine"
cat "$TMP/out" >>"$TMP/l2pasted.tine"
"$TINE" compile "$TMP/l2auto.tine" --target x86-64-avx2 --emit stmt >"$TMP/s1" 2>&1
"$TINE" compile "$TMP/l2pasted.tine" --target x86-64-avx2 --emit stmt >"$TMP/s2" 2>&1
check "  the printed schedule, pasted in place of auto, gives the same statement" cmp -s "$TMP/s1" "$TMP/s2"

# ---- on arm: a kernel's Arm directives print after `on arm`; pasted back, the same Arm statement -----
run compile "$HERE/../bench/kernels/conv_nn.tine" --emit schedule
check "compile conv_nn --emit schedule exits 0 (rc $rc: $err)" test "$rc" -eq 0
check "  its Arm directives follow 'on arm'" grep -qz $'on arm\nmaterialize fsum\n' "$TMP/out"
sed '/^schedule/,$d' "$HERE/../bench/kernels/conv_nn.tine" >"$TMP/cnn.tine"
cat "$TMP/out" >>"$TMP/cnn.tine"
for t in arm-64 x86-64-avx2; do
    "$TINE" compile "$HERE/../bench/kernels/conv_nn.tine" --target $t --emit stmt >"$TMP/s1" 2>&1
    "$TINE" compile "$TMP/cnn.tine" --target $t --emit stmt >"$TMP/s2" 2>&1
    check "  the printed schedule pasted back gives the same $t statement" cmp -s "$TMP/s1" "$TMP/s2"
done
check "  the Arm statement sums the input's channels (csum), the x86 one does not" \
    sh -c "'$TINE' compile '$TMP/cnn.tine' --target arm-64 --emit stmt | grep -q csum && ! grep -q csum '$TMP/s1'"
for e in fpir lowered; do
    check "  --emit $e --target arm-64 shows the Arm functions, without a target the every-target ones" \
        sh -c "'$TINE' compile '$TMP/cnn.tine' --target arm-64 --emit $e | grep -q csum && ! '$TINE' compile '$TMP/cnn.tine' --emit $e | grep -q csum"
done

# ---- AOT: objects and headers linked into a plain C program ------------------------------------
mkdir -p "$TMP/aot"
for k in gaussian3x3 l2norm camera_pipe; do
    run compile "$HERE/../bench/kernels/$k.tine" --target x86-64-avx2 --emit obj -o "$TMP/aot/$k.o"
    check "compile $k --emit obj (rc $rc: $err)" test "$rc" -eq 0
    run compile "$HERE/../bench/kernels/$k.tine" --target x86-64-avx2 --emit h -o "$TMP/aot/$k.h"
    check "compile $k --emit h (rc $rc: $err)" test "$rc" -eq 0
done
check "the header declares the entry point with typed parameters" \
    grep -qF 'int l2norm(const tine_buffer_t *in /* u8, 2-D */, uint8_t zero, int32_t W, tine_buffer_t *out' "$TMP/aot/l2norm.h"
CC=${CC:-cc}
if $CC -std=c11 -Wall -Wextra -Werror -O1 -I"$TMP/aot" -I"$HERE/../bench" -o "$TMP/aot/main" "$HERE/aot_main.c" \
    "$TMP"/aot/*.o "$HERE"/../bench/ref/{cases,image,camera,ml,ml_reduce,user}.c -lm 2>"$TMP/aot/cc.err"; then
    ok
    if grep -q avx2 /proc/cpuinfo; then
        "$TMP/aot/main" >"$TMP/aot/out" 2>&1
        check "the AOT program matches the references and refuses bad buffers ($(tail -3 "$TMP/aot/out"))" \
            grep -qE '^aot: [0-9]+ checks passed, 0 failed$' "$TMP/aot/out"
    fi
else
    bad "the AOT program does not build: $(head -5 "$TMP/aot/cc.err")"
fi
run compile "$HERE/../bench/kernels/l2norm.tine" --emit obj
check "an object file without -o is refused (rc $rc)" test "$rc" -eq 2
run compile "$HERE/../bench/kernels/l2norm.tine" --emit obj --name 9bad -o "$TMP/x.o"
check "a name that is not a C identifier is refused (rc $rc)" test "$rc" -ne 0
check "  saying so" grep -qF "is not a C identifier" "$TMP/err"
run compile "$HERE/../bench/kernels/l2norm.tine" --emit fpir
check "compile --emit fpir prints both stages" test "$(grep -c '^# stage' "$TMP/out")" -eq 2
check "  with the lifted ops" grep -qF 'rounding_mul_shr' "$TMP/out"
run compile "$HERE/../bench/kernels/l2norm.tine" --emit llvm
check "compile --emit llvm prints the module with the entry point" grep -qE 'define .*i32 @l2norm\(' "$TMP/out"

# ---- --dump-after: what each step of the compile driver produced -------------------------------
# The step names come from the binary (the driver's one table), not from this file.
steps=$("$TINE" compile "$HERE/../bench/kernels/l2norm.tine" --dump-after help)
check "compile --dump-after help lists the driver's steps ($(echo $steps))" test "$(echo "$steps" | wc -l)" -ge 10
for s in $steps; do
    run compile "$HERE/../bench/kernels/conv3x3a16.tine" --target x86-64-avx2 --dump-after "$s"
    check "  --dump-after $s (rc $rc: $(echo "$err" | head -1))" \
        sh -c "test $rc -eq 0 && test \"\$(head -1 '$TMP/out')\" = '# after $s' && test \$(wc -l <'$TMP/out') -gt 1"
done
run compile "$HERE/../bench/kernels/conv3x3a16.tine" --target x86-64-avx2 --dump-after all
check "  --dump-after all shows every step, in the table's order" \
    test "$(sed -n 's/^# after //p' "$TMP/out" | tr '\n' ' ')" = "$(echo $steps) "
run compile "$HERE/../bench/kernels/conv3x3a16.tine" --target x86-64-avx2 --emit asm
asm=$out
run compile "$HERE/../bench/kernels/conv3x3a16.tine" --target x86-64-avx2 --dump-after emit
check "  --dump-after emit shows the code --emit asm gives" test "$(tail -n +2 "$TMP/out")" = "$asm"
run compile "$HERE/../bench/kernels/conv3x3a16.tine" --dump-after nosuchstep
check "an unknown step is a usage error (rc $rc)" test "$rc" -eq 2
for s in $steps; do
    check "  whose message names $s" grep -qE "[(, ]$s[,)]" "$TMP/err"
done

# ---- --emit llvm compiles by itself: the module carries its target's CPU and features -------
# (without them clang compiles AVX2/AVX-512/i8mm intrinsics for the baseline and fails)
if command -v clang-19 >/dev/null; then
    for tk in x86-64-avx2:bench/kernels/conv3x3a16 x86-64-avx512:bench/kernels/conv3x3a16 \
              arm-64:bench/kernels/conv3x3a16 arm-64-i8mm:tests/data/rvec_dot_u8i8; do
        t=${tk%%:*} k=$HERE/../${tk#*:}.tine
        ctarget=
        case $t in arm-*) ctarget=--target=aarch64-linux-gnu ;; esac
        run compile "$k" --emit llvm --target $t -o "$TMP/k.ll"
        check "compile $(basename "$k") --emit llvm --target $t (rc $rc: $err)" test "$rc" -eq 0
        check "  names the target's CPU and features" grep -q '"target-features"="+' "$TMP/k.ll"
        check "  and clang-19 -c compiles it ($(clang-19 $ctarget -Wno-override-module -c "$TMP/k.ll" -o "$TMP/k.o" 2>&1 | head -2))" \
            clang-19 $ctarget -Wno-override-module -c "$TMP/k.ll" -o "$TMP/k.o"
    done
fi

# ---- outputs: user text in generated code, replacing files ----------------------------------
# A kernel file whose path holds "*/", '"' and a newline: the entry point's name is made of
# the file name's letters and digits, the header compiles and declares that one function.
inj="$TMP/inj/a*/b\"c"$'\n'"d"
mkdir -p "$inj"
kfile="$inj/k*\"x"$'\n'"y.tine"
cp "$HERE/../bench/kernels/l2norm.tine" "$kfile"
run compile "$kfile" --emit h -o "$TMP/inj/k.h"
check "compile of a file named with */, \" and a newline --emit h (rc $rc: $err)" test "$rc" -eq 0
check "  declares one function, named from the file's letters and digits" \
    test "$(grep -c '^int ' "$TMP/inj/k.h"),$(grep -o '^int [A-Za-z0-9_]*(' "$TMP/inj/k.h")" = "1,int k__x_y("
printf '#include "k.h"\nint k__x_y(const tine_buffer_t *in, uint8_t zero, int32_t W, tine_buffer_t *out);\n' >"$TMP/inj/main.c"
check "  the header compiles ($(${CC:-cc} -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$TMP/inj" "$TMP/inj/main.c" 2>&1 | head -3))" \
    ${CC:-cc} -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$TMP/inj" "$TMP/inj/main.c"
run compile "$kfile" --emit llvm
check "  --emit llvm holds nothing of the path but the entry point's name" \
    test "$(grep -cF -e '*' -e 'b"c' <<<"$out")" -eq 0 -a "$(grep -c "^; ModuleID = 'k__x_y'$" <<<"$out")" -eq 1
# -o replaces the file whole, through a temporary file beside it: two compiles writing one
# path leave one of their outputs, never a mixture; no temporary file is left
"$TINE" compile "$HERE/../bench/kernels/camera_pipe.tine" --emit stmt -o "$TMP/race.a" 2>/dev/null
"$TINE" compile "$HERE/../bench/kernels/camera_pipe.tine" --emit stmt --select llvm -o "$TMP/race.b" 2>/dev/null
mkdir -p "$TMP/race"
mixed=0
for i in 1 2 3 4 5 6; do
    "$TINE" compile "$HERE/../bench/kernels/camera_pipe.tine" --emit stmt -o "$TMP/race/out" 2>/dev/null &
    "$TINE" compile "$HERE/../bench/kernels/camera_pipe.tine" --emit stmt --select llvm -o "$TMP/race/out" 2>/dev/null
    wait
    cmp -s "$TMP/race/out" "$TMP/race.a" || cmp -s "$TMP/race/out" "$TMP/race.b" || mixed=$((mixed + 1))
done
check "two compiles writing one -o leave one whole output ($mixed of 6 mixed)" test "$mixed" -eq 0
check "  and no temporary file" test "$(ls -A "$TMP/race")" = out
(umask 027 && "$TINE" compile "$HERE/../bench/kernels/l2norm.tine" --emit h -o "$TMP/race/new.h")
check "a new output has the permissions fopen gives (0666 less the umask: $(stat -c %a "$TMP/race/new.h"))" \
    test "$(stat -c %a "$TMP/race/new.h")" = 640
chmod 600 "$TMP/race/out"
"$TINE" compile "$HERE/../bench/kernels/l2norm.tine" --emit h -o "$TMP/race/out"
check "a replaced output keeps its permissions ($(stat -c %a "$TMP/race/out"))" test "$(stat -c %a "$TMP/race/out")" = 600
ln -s out "$TMP/race/link"
"$TINE" compile "$HERE/../bench/kernels/l2norm.tine" --emit fpir -o "$TMP/race/link"
check "-o through a symbolic link writes the file it names" \
    test -L "$TMP/race/link" -a "$(head -c 7 "$TMP/race/out")" = "# stage"

# ---- out of memory: a limit error, exit 1 (not an abort) ---------------------------------------
# The smallest address-space limit (to 4 MB) at which the unscheduled kernel compiles, found
# by bisection (to 256 KB); the same kernel unrolled 32 x 16 (512 copies, within the limit on
# what a schedule copies) needs some 4 MB more.
printf 'input in: u8[2]\noutput out(x, y): u16 = u16(in(x, y)) + u16(in(x + 1, y)) * 3 + u16(in(x + 2, y)) * 5 + u16(in(x, y + 1)) * 7 + u16(in(x + 1, y + 2))\n' >"$TMP/oom.tine"
cp "$TMP/oom.tine" "$TMP/oom_small.tine"
printf 'schedule\nsplit out.x xo xi 32\nsplit out.y yo yi 16\nunroll out.xi 32\nunroll out.yi 16\n' >>"$TMP/oom.tine"
lo=65536 hi=4194304 # KiB: fails, runs (a sanitizer build, which reserves terabytes, runs at neither: skipped)
(ulimit -v $hi && "$TINE" compile "$TMP/oom_small.tine" --emit stmt --target x86-64-avx2 >/dev/null 2>&1) || lo=$hi
while [ $((hi - lo)) -gt 256 ]; do
    mid=$(((lo + hi) / 2))
    if (ulimit -v $mid && "$TINE" compile "$TMP/oom_small.tine" --emit stmt --target x86-64-avx2 >/dev/null 2>&1); then
        hi=$mid
    else
        lo=$mid
    fi
done
if [ $lo -lt $hi ]; then
    (ulimit -v $hi && "$TINE" compile "$TMP/oom.tine" --emit stmt --target x86-64-avx2 >"$TMP/out" 2>"$TMP/err")
    rc=$?
    check "a schedule that exhausts memory (ulimit -v $hi) exits 1 (rc $rc: $(head -2 "$TMP/err"))" test "$rc" -eq 1
    check "  with a limit error" grep -qxE 'tine: out of memory: an allocation( of [0-9]+ bytes)? failed \(this needs more memory than the process may use\)' "$TMP/err"
fi

# ---- x86 lowering from the command line ----------------------------------------------------
avg='u8((u16(a_u8) + u16(b_u8) + 1) >> 1)'
run compile -e "$avg" --target x86-64-avx2 --lanes 32 --emit asm --trace-rules
check "compile --trace-rules exits 0 (rc $rc)" test "$rc" -eq 0
check "  the average is one vpavgb on ymm registers" grep -qE '^[[:space:]]+vpavgb[[:space:]].*%ymm' "$TMP/out"
check "  the trace names the lift rules" grep -qF 'rounding_halving_add_wide (src/lift/lift.rules:' "$TMP/err"
check "  and the lowering rule" grep -qF 'pavgb (src/targets/x86.rules:' "$TMP/err"
run compile -e "$avg" --target x86-64-avx2 --emit fpir
check "compile --emit fpir prints the lifted form" test "$out" = "rounding_halving_add(a_u8, b_u8)"
run compile -e "$avg" --target x86-64-avx2 --emit lowered
check "compile --emit lowered prints the instruction" test "$out" = "pavgb(a_u8, b_u8)"
run compile -e 'min(a_i8, b_i8)' --target x86-64-sse2 --emit lowered
check "min of i8 on SSE2 is emulated through pminub" grep -qF 'pminub(reinterpret<u8>(a_i8) ^ 128' "$TMP/out"
run compile -e 'min(a_i8, b_i8)' --target x86-64-sse41 --emit lowered
check "  and is pminsb from SSE4.1" test "$out" = "pminsb(a_i8, b_i8)"
for q15 in 'i16((i32(a_i16) * i32(b_i16) + 16384) >> 15)' 'i16((i32(a_i16) * i32(b_i16) + 16384) / 32768)'; do
  run compile -e "$q15" --target x86-64-sse41 --emit lowered
  check "the wrapping Q15 product $q15 is a bare pmulhrsw" test "$out" = "pmulhrsw(a_i16, b_i16)"
done
run compile -e "$avg" --target x86-64-avx3 --emit lowered
check "an unknown target is refused (rc $rc)" test "$rc" -ne 0
check "  saying so" grep -qF "unknown target 'x86-64-avx3'" "$TMP/err"
run compile "$HERE/../bench/kernels/sobel3x3.tine" --target x86-64-avx2 --emit lowered
check "a kernel's lowered stages name instructions" grep -qF 'packuswb(' "$TMP/out"
run eval 'pavgb(a_u8, b_u8)' --lanes 4 --seed 2
check "an instruction evaluates through its semantics (rc $rc)" test "$rc" -eq 0
run eval 'pavgb(a_u8, b_i8)' --lanes 4
check "an instruction's operand types are checked" grep -qF 'operand 2 of pavgb is i8, not u8' "$TMP/err"

# ---- isa classes: the similarity classes of the x86 description ------------------------------
run isa classes --isa x86
check "isa classes --isa x86 exits 0 (rc $rc: $err)" test "$rc" -eq 0
n_x86=$(grep -c '^insn ' "$HERE/../src/targets/x86.isa")
members=$(grep -cE '^  [a-z0-9_]+ +x86 ' "$TMP/out")
check "isa classes lists each of the $n_x86 x86 instructions once (got $members)" test "$members" -eq "$n_x86"
summary=$(grep -E '^x86: [0-9]+ instructions, [0-9]+ classes' "$TMP/out")
check "isa classes ends with the x86 counts ('$summary')" test -n "$summary"
n_classes=$(sed -nE 's/^x86: [0-9]+ instructions, ([0-9]+) classes.*/\1/p' <<<"$summary")
check "isa classes counts $n_x86 instructions" grep -qE "^x86: $n_x86 instructions" <<<"$summary"
check "isa classes prints as many classes as it counts ($n_classes)" test "$(grep -c '^class ' "$TMP/out")" -eq "${n_classes:-0}"
check "fewer classes ($n_classes) than instructions ($n_x86)" test "${n_classes:-99999}" -lt "$n_x86"
class_of() { # the class number of an instruction in the last output
    awk -v insn="$1" '/^class / { c = $2 } $1 == insn { print c; exit }' "$TMP/out"
}
check "pavgb and pavgw are one class" test -n "$(class_of pavgb)" -a "$(class_of pavgb)" = "$(class_of pavgw)"
check "paddsb and paddusb are one class (signedness is T's)" test "$(class_of paddsb)" = "$(class_of paddusb)"
check "paddsb and psubsb are two classes" test "$(class_of paddsb)" != "$(class_of psubsb)"
check "pavgb's binding names T and the constants" grep -qE '^  pavgb +x86 +T=u8 x0=a x1=b c0=1 c1=1 ' "$TMP/out"

# ---- isa import: a small data file to fixed entries and the report -----------------------------
cat >"$TMP/guide.xml" <<'XML'
<intrinsics_list version="cli-test" date="2026">
<intrinsic tech="SSE2" name="_mm_avg_epu16">
	<type>Integer</type>
	<CPUID>SSE2</CPUID>
	<return type="__m128i" varname="dst" etype="UI16"/>
	<parameter type="__m128i" varname="a" etype="UI16"/>
	<parameter type="__m128i" varname="b" etype="UI16"/>
	<operation>
FOR j := 0 to 7
	i := j*16
	dst[i+15:i] := (a[i+15:i] + b[i+15:i] + 1) &gt;&gt; 1
ENDFOR
	</operation>
</intrinsic>
<intrinsic tech="SSE2" name="_mm_frob_epi8">
	<type>Integer</type>
	<CPUID>SSE2</CPUID>
	<return type="__m128i" varname="dst" etype="UI8"/>
	<parameter type="__m128i" varname="a" etype="UI8"/>
	<operation>
dst[7:0] := Frobnicate(a[7:0])
	</operation>
</intrinsic>
</intrinsics_list>
XML
run isa import --intel "$TMP/guide.xml" -o "$TMP/guide.isa" --report "$TMP/guide.report"
check "isa import exits 0 (rc $rc: $err)" test "$rc" -eq 0
check "  the average's entry: whole vectors, exact widening" \
    grep -qF 'insn mm_avg_epu16(a:u16x8, b:u16x8) = u16(u32(a) + u32(b) + 1 >> 1)' "$TMP/guide.isa"
check "  its form and C intrinsic" grep -qE '^  forms xmm:sse2$' "$TMP/guide.isa"
check "  the report's summary" grep -qF 'imported 1 of 2 integer SIMD intrinsics (50.0%)' "$TMP/guide.report"
check "  the report locates what stopped the other" \
    grep -qE "guide.xml:21:13: _mm_frob_epi8: the function 'Frobnicate'" "$TMP/guide.report"
run isa import --intel "$TMP/guide.xml" --cpuid SSE2,AVX512BX
check "isa import --cpuid with an unknown extension exits 1 with the closest name ($rc)" \
    grep -qF "did you mean 'AVX512BW'" "$TMP/err"

# ---- isa list: one line per instruction form, and whether this machine runs it ----------------
run isa list --isa x86gen
check "isa list --isa x86gen exits 0 (rc $rc)" test "$rc" -eq 0
gen_forms=$(grep -c '^  forms ' "$HERE/../src/targets/x86.gen.isa")
check "  one line per form of x86.gen.isa ($gen_forms, got $(wc -l <"$TMP/out"))" test "$(wc -l <"$TMP/out")" -eq "$gen_forms"
check "  each line says where it runs" test "$(grep -cE '(runs here|not on this CPU)$' "$TMP/out")" -eq "$gen_forms"
check "  a line names the intrinsic, register and feature" \
    grep -qE '^x86gen +mm_adds_epi8 +xmm +_mm_adds_epi8 +sse2 +runs here$' "$TMP/out"
check "  joined features are listed with '+'" grep -qE '^x86gen +mm256_mask_add_epi16 +ymm .* avx512bw\+avx512vl ' "$TMP/out"
run isa list --isa x86
check "isa list --isa x86: pavgb's three forms" test "$(grep -cE '^x86 +pavgb ' "$TMP/out")" -eq 3
nx86=$(wc -l <"$TMP/out")
run isa list --isa arm
narm=$(wc -l <"$TMP/out")
if [ "$(uname -m)" = x86_64 ]; then
    check "isa list --isa arm: every form under qemu on this x86 machine" \
        test "$(grep -c ' qemu$' "$TMP/out")" -eq "$narm" -a "$narm" -gt 100
fi
run isa list
check "isa list: every description ($nx86 + $narm + $gen_forms lines, got $(wc -l <"$TMP/out"))" \
    test "$(wc -l <"$TMP/out")" -eq $((nx86 + narm + gen_forms))

# ---- synth lift: a small search writes rules that load and prove ------------------------
run synth lift --size 3 --types u8 -o "$TMP/synth.rules"
check "synth lift exits 0 (rc $rc)" test "$rc" -eq 0
check "  and reports its figures" grep -qE '^tine synth lift: [1-9][0-9]* rules .* s; [0-9]+ expressions enumerated' "$TMP/err"
check "  writing rules" test "$(grep -c '^synth_' "$TMP/synth.rules")" -gt 0
run rules --check "$TMP/synth.rules"
check "  that compile (rc $rc)" test "$rc" -eq 0
run verify --rules "$TMP/synth.rules" --quiet
check "  and prove (rc $rc)" test "$rc" -eq 0

# ---- synth lower: a search finds proven lowering rules; --rules synthesized uses them -----
run synth lower --target x86-64-sse2,x86-64-avx2 --op min_u --time-limit 2 -o "$TMP/lower.rules"
check "synth lower exits 0 (rc $rc)" test "$rc" -eq 0
check "  and reports its figures" grep -qE '^tine synth lower: [1-9][0-9]* rules from 8 searches' "$TMP/err"
check "  finding pminub for min of u8" grep -qE '^s_min_u8_sse2: min\(x:u8, y:u8\) -> pminub\(x, y\)' "$TMP/lower.rules"
check "  and SSE4.1's pminuw, at AVX2, for min of u16" grep -qE '^s_min_u16_avx2: min\(x:u16, y:u16\) -> pminuw\(x, y\)' "$TMP/lower.rules"
run verify --rules "$TMP/lower.rules" --isa x86 --quiet
check "  rules that prove (rc $rc)" test "$rc" -eq 0
run verify --rules synthesized --quiet --rule "$(grep -m1 -oE '^s_[a-z0-9_]+' "$HERE/../src/targets/x86.synth.rules")"
check "verify --rules synthesized proves the built-in file's rules (rc $rc)" test "$rc" -eq 0
run compile -e 'min(x_u16, y_u16)' --target x86-64-sse2 --emit lowered --rules synthesized
check "compile --rules synthesized lowers with them (rc $rc)" test "$rc" -eq 0
check "  (min of u16 on SSE2 is not one pminuw)" test "$(grep -c pminuw "$TMP/out")" -eq 0
run run "$HERE/../bench/kernels/max_pool.tine" --target x86-64-sse2 --rules synthesized
check "run FILE --rules synthesized runs and checks the kernel (rc $rc)" test "$rc" -eq 0

# ---- the bad-input corpus: tests/data/bad_cli.txt (format at its top) ---------------------------
# Each case runs in a fresh directory holding copies of bench/kernels/*.tine, so messages
# name files as the case wrote them. With TINE_BLESS=1 in the environment, the file is
# rewritten with the current exit statuses and messages instead: review the diff.
corpus_case() { # runs the case gathered in c_* and compares
    local dir="$TMP/cli/$ncase" args=() cmd
    mkdir -p "$dir"
    cp "$HERE"/../bench/kernels/*.tine "$dir"/
    for cmd in "${c_setup[@]}"; do (cd "$dir" && eval "$cmd") || bad "bad_cli '$c_title': setup '$cmd' failed"; done
    eval "args=($c_args)"
    (cd "$dir" && timeout 60 "$TINE_ABS" "${args[@]}" >"${c_stdout:-$TMP/cli.out}" 2>"$TMP/cli.err")
    local rc=$?
    if [ "${TINE_BLESS:-0}" = 1 ]; then
        { printf '== %s\n' "$c_title"; printf '%s\n' "${c_body[@]}"; echo "-- exit $rc"; cat "$TMP/cli.err"
          echo; } >>"$TMP/bless.txt"
        return
    fi
    local want got
    want=$(printf '%s\n' "${c_err[@]}" | sed -e :a -e '/^\n*$/{$d;N;ba' -e '}')
    got=$(cat "$TMP/cli.err")
    if [ "$rc" != "$c_exit" ]; then
        bad "bad_cli '$c_title': exit $rc, expected $c_exit (stderr: $(head -3 "$TMP/cli.err"))"
    elif [ "$got" != "$want" ]; then
        bad "bad_cli '$c_title': stderr differs:$(diff <(printf '%s\n' "$want") <(printf '%s\n' "$got") | head -8)"
    elif [ "$c_exit" != 0 ] && [ -z "$c_stdout" ] && [ -s "$TMP/cli.out" ]; then
        bad "bad_cli '$c_title': a refused command printed on stdout: $(head -2 "$TMP/cli.out")"
    else
        ok
    fi
}
ncase=0
state=header
: >"$TMP/bless.txt"
while IFS= read -r line || [ -n "$line" ]; do
    if [[ $line == "== "* ]]; then
        [ "$state" = header ] || corpus_case
        ncase=$((ncase + 1))
        c_title=${line#== }
        c_setup=() c_body=() c_args= c_stdout= c_exit= c_err=() state=case
        continue
    elif [ "$state" = header ]; then
        printf '%s\n' "$line" >>"$TMP/bless.txt"
        continue
    elif [ "$state" = stderr ]; then
        c_err+=("$line")
        continue
    fi
    [ -n "$line" ] || [ "$state" = file ] && c_body+=("$line") # blank lines of a file are its own
    if [ "$state" = file ]; then
        if [ "$line" = EOF ]; then state=case; else c_setup+=("printf '%b\\n' $(printf '%q' "$line") >>$(printf '%q' "$c_file")"); fi
    elif [[ $line == "file "* ]]; then
        c_file=${line#file }
        c_setup+=(": >$(printf '%q' "$c_file")")
        state=file
    elif [[ $line == "! "* ]]; then
        c_setup+=("${line#! }")
    elif [[ $line == '$ '* ]]; then
        c_args=${line#\$ }
    elif [[ $line == "> "* ]]; then
        c_stdout=${line#> }
    elif [[ $line == "-- exit "* ]]; then
        c_exit=${line#-- exit }
        unset 'c_body[-1]'
        state=stderr
    elif [ -n "$line" ]; then
        bad "bad_cli.txt: unexpected line in case '$c_title': $line"
    fi
done <"$HERE/data/bad_cli.txt"
[ "$state" = header ] || corpus_case
if [ "${TINE_BLESS:-0}" = 1 ]; then
    sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$TMP/bless.txt" >"$HERE/data/bad_cli.txt"
    echo "test_cli: rewrote tests/data/bad_cli.txt with $ncase cases" >&2
fi
check "bad_cli.txt has at least 60 cases (got $ncase)" test "$ncase" -ge 60

echo "test_cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

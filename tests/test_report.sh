#!/usr/bin/env bash
# test_report.sh — `tine report`, the HTML compile report (tools/report.c, report_html.c),
# loaded in a real browser.
#
# Usage: bash tests/test_report.sh path/to/tine   (from any directory; the pages and the
# screenshots, report-NAME.html and report-NAME.png, stay in the current one as artefacts)
#
# Three pages: sobel3x3 at x86-64-avx2 (one stage, the functions inlined into it), l2norm
# at x86-64-avx512 (a reduction materialized as its own stage) and a small kernel whose
# comments and file name hold HTML's special characters, with --bench (not a benchmark
# kernel: the page says so) and TINE_LLVM_MCA naming no program (the page says there are
# no cycle estimates). In the text of each: the source's lines link to the stages
# that compute them (l2norm's floor_log2 to inv's only, z to both); the selection table
# has lifted and lowered expressions with the lift and x86 rules that made them; the
# innermost loops have llvm-mca's cycles (llvm-mca-19 comes with llvm-19, which
# scripts/setup.sh installs); and the kernel's text is escaped. Then headless Chromium
# (tests/report_check.js, through the DevTools protocol) loads each page from its file:
# every "#x" link has an element of id x, nothing is logged as an error or thrown,
# nothing is fetched, following a link opens the section it leads into; and it takes a
# 1280x2000 screenshot. Chromium and node are required (scripts/setup.sh installs them):
# their absence is a failure. The normal build only (CMake does not register it under
# TINE_SANITIZE: the browser, not tine's memory, is what it checks).
set -u
TINE=${1:?usage: test_report.sh path/to/tine}
TINE=$(cd "$(dirname "$TINE")" && pwd)/$(basename "$TINE") # the hostile kernel is made elsewhere
HERE=$(cd "$(dirname "$0")" && pwd)
KERNELS=$HERE/../bench/kernels
fail=0
checks=0
check() { # check CONDITION-STATUS WHAT
    checks=$((checks + 1))
    if [ "$1" -ne 0 ]; then echo "FAIL: $2"; fail=$((fail + 1)); fi
}
has() { grep -qF -- "$2" "$1"; }

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ] || ! command -v node >/dev/null; then
    echo "FAIL: test_report needs chromium and node (scripts/setup.sh installs them)"
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the pages
"$TINE" report "$KERNELS/sobel3x3.tine" --target x86-64-avx2 -o report-sobel3x3.html 2>"$tmp/err"
check $? "report of sobel3x3: $(cat "$tmp/err")"
"$TINE" report "$KERNELS/l2norm.tine" --target x86-64-avx512 -o report-l2norm.html 2>"$tmp/err"
check $? "report of l2norm: $(cat "$tmp/err")"
hostile="$tmp/a<b&c.tine"
cat >"$hostile" <<'EOF'
# a < b && c > d </script><script>window.hostile = 1</script> "q" 'q' <!-- &amp;
input in: u8[1]
func twice(x) = in(x) + in(x)
output out(x): u8 = twice(x) # </pre></details>
schedule
vectorize out.x natural
EOF
(cd "$tmp" && TINE_LLVM_MCA=/nonexistent/llvm-mca "$TINE" report "a<b&c.tine" --bench) 2>"$tmp/err"
check $? "report of a kernel with HTML in its text: $(cat "$tmp/err")"
cp "$tmp/a<b&c.html" report-hostile.html 2>/dev/null
check $? "the default output is the kernel's name with .html, in the current directory"

# what they say
s=report-sobel3x3.html
l=report-l2norm.html
h=report-hostile.html
for p in $s $l $h; do
    for id in 'id=source' 'id=stages' 'id=selection' 'id=assembly' 'id=steps' 'id="step-parse"' 'id="step-hoist"' 'id="step-emit"'; do
        has $p "$id"
        check $? "$p has $id"
    done
done
# sobel: line 7 (the output) is stage out; line 5 (sx) is inlined into it
has $s '<tr id=src-7><td class=n>7</td><td class=code>output out(x, y): u8 = u8(clamp(sx(x, y) + sy(x, y), 0, 255))</td><td><a class=chip href="#stage-out">stage out</a>'
check $? "sobel3x3: the output's line links to its stage"
grep -q '<tr id=src-5>.*href="#stage-out">in out</a>' $s
check $? "sobel3x3: sx's line links to the stage it is inlined into"
# l2norm: inv is its own stage; floor_log2 is inlined into inv only; z into both
grep -q '<tr id=src-34>.*href="#stage-inv">stage inv</a>' $l
check $? "l2norm: inv's line links to stage inv"
grep '<tr id=src-11>' $l | grep -q 'href="#stage-inv">in inv</a>' && ! grep '<tr id=src-11>' $l | grep -q '#stage-out'
check $? "l2norm: floor_log2 (called by inv, a materialized stage out reads) links to inv only"
grep '<tr id=src-31>' $l | grep -q 'href="#stage-inv">in inv</a>' && grep '<tr id=src-31>' $l | grep -q 'href="#stage-out">in out</a>'
check $? "l2norm: z, inlined into both stages, links to both"
# the selection table: lifted FPIR, x86 instructions and the rules with their places
for p in $s $l; do
    grep -q '<tr id=sel-1>' $p && grep -q 'src/lift/lift.rules:[0-9]' $p && grep -q 'src/targets/x86.rules:[0-9]' $p
    check $? "$p: the selection table names lift and x86 rules with their lines"
    grep -A3 '<b>lifted</b>' $p | grep -q 'widening_\|saturating_\|rounding_\|absd'
    check $? "$p: a lifted expression has FPIR ops"
done
has $s 'packuswb('
check $? "sobel3x3: the lowered expression has x86's packuswb"
has $l 'pmaddwd'
check $? "l2norm: pmaddwd, the sum of squares' instruction, is among the lowered ones"
# innermost loops with llvm-mca's estimate, LLVM alone's beside tine's
for p in $s $l; do
    n=$(grep -o 'cycles per iteration</b>' $p | wc -l)
    [ "$n" -ge 2 ] && grep -q 'id=asm-0-1>' $p && grep -q 'id=asm-1-1>' $p && has $p 'llvm-mca-19 -mcpu=znver4'
    check $? "$p: innermost loops of both selections with llvm-mca's cycles on znver4 (got $n)"
done
# the kernel's text escaped, its --bench section saying it is no benchmark kernel
has $h '# a &lt; b &amp;&amp; c &gt; d &lt;/script&gt;&lt;script&gt;window.hostile = 1&lt;/script&gt; &quot;q&quot; &#39;q&#39; &lt;!-- &amp;amp;'
check $? "the comment's HTML is escaped"
has $h 'a&lt;b&amp;c.tine' && ! has $h '<script>window.hostile'
check $? "the file's name is escaped, the comment's script is text"
has $h 'No bench row: a&lt;b&amp;c is not one of the benchmark kernels'
check $? "--bench on a kernel of no bench row says so"
has $h 'No cycle estimates: <code>/nonexistent/llvm-mca</code> does not run on this machine' && ! has $h 'cycles per iteration</b>'
check $? "without llvm-mca the page says so and shows no cycles"
# bad usage
"$TINE" report 2>"$tmp/err"
[ $? -eq 2 ] && has "$tmp/err" 'tine report: needs a kernel FILE'
check $? "report without a FILE: usage, exit 2"
"$TINE" report "$KERNELS/sobel3x3.tine" --target x86-64-nope 2>"$tmp/err"
[ $? -eq 1 ] && has "$tmp/err" "unknown target 'x86-64-nope'"
check $? "report for an unknown target: exit 1 naming it"

# in the browser
for p in sobel3x3 l2norm hostile; do
    node "$HERE/report_check.js" "$CHROMIUM" report-$p.html report-$p.png
    check $? "report-$p.html in Chromium"
done

echo "test_report: $((checks - fail)) of $checks checks passed"
[ $fail -eq 0 ]

#!/usr/bin/env bash
# test_dense_loads.sh — the steady-state loops of the image kernels load whole vectors.
#
# Usage: bash tests/test_dense_loads.sh path/to/tine
#
# For each kernel below and each of x86-64-avx2 and x86-64-avx512, `tine compile K
# --target T --emit asm` (emitting assembly does not need the CPU) is searched for the
# steady-state loops, and every instruction in them must be free of gathers and per-lane
# inserts: no vpgather*/vgather*, no (v)pinsrb/w/d/q, no (v)insertps, and no scalar
# narrow loads (movzb/movsb/movzw/movsw from memory: a gather LLVM scalarized).
#
# Finding the loops: codegen names a loop's blocks after the loop ("out.x.vec.head",
# "out.x.vec.body", "out.x.vec.done"; the parts of a partitioned loop are "out.x.pro",
# "out.x" and "out.x.epi"), and verbose assembly prints the names on the block labels
# ("# %out.x.vec.body.us") and each block's loop nesting ("# =>  This Inner Loop Header",
# "#   in Loop: Header=BB0_8 Depth=2", "#   Parent Loop BB0_3 Depth=1"). A steady block is
# a block of a vectorized loop that is not a prologue or an epilogue; the loops checked are
# the innermost machine loops containing one, with every block inside them (nested loops
# too). Each kernel and target must have at least one.
#
# The kernels in NOSEXT must also have no sign extension of an index in their steady loops
# (movslq, cltq: an i32 index per access, llvm.c's index_i64 is what prevents them).
#
# Output: a FAIL line per offending loop (the first offending instructions), then a summary.
set -u

TINE=${1:?usage: test_dense_loads.sh path/to/tine}
HERE=$(cd "$(dirname "$0")" && pwd)
# bench/kernels/NAME.tine, or tests/data/NAME.tine; strided_loads and camera_pipe read
# strided and halved coordinates (residue.c, llvm.c's lane offsets)
KERNELS="gaussian3x3 gaussian5x5 gaussian7x7 conv3x3a16 conv3x3a32 dilate3x3 median3x3 sobel3x3 strided_loads camera_pipe blur3x3 add mul"
# kernels whose steady loops must have no index sign extension
NOSEXT="dilate3x3 median3x3 sobel3x3 gaussian3x3 blur3x3 add mul"
# loops exempt, as KERNEL:LOOP: camera_pipe's tone curve is a table lookup (a true gather)
EXEMPT="camera_pipe:curved.x"
TARGETS="x86-64-avx2 x86-64-avx512"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

pass=0
fail=0

# check_asm FILE WHAT EXEMPT NOSEXT: prints FAIL lines and "loops N" for the steady loops
# of FILE (those named EXEMPT, a loop name such as curved.x, are counted but not checked;
# NOSEXT 1: sign extensions fail too)
check_asm() {
    awk -v what="$2" -v exempt="$3" -v nosext="$4" '
    function block_start(id, name) {
        nb++; bid[nb] = id; bname[nb] = name; inner[nb] = ""; loops[nb] = ""; first[nb] = NR
    }
    # a function: its blocks are .LBB<f>_<n> (labelled) or "# %bb.<n>:" (fall-through)
    /^[ \t]*\.type[ \t].*@function/ { fn++ }
    /^\.LBB[0-9]+_[0-9]+:/ {
        id = $1; sub(/^\.L/, "", id); sub(/:$/, "", id)
        name = ""; if (match($0, /# %[^ \t]+/)) name = substr($0, RSTART + 3, RLENGTH - 3)
        block_start(id, name); next
    }
    /^# %bb\.[0-9]+:/ {
        n = $2; sub(/^%bb\./, "", n); sub(/:$/, "", n)
        name = ""; rest = $0; sub(/^# %bb\.[0-9]+:/, "", rest)
        if (match(rest, /# %[^ \t]+/)) name = substr(rest, RSTART + 3, RLENGTH - 3)
        block_start("BB" (fn - 1) "_" n, name); next
    }
    nb && /Loop Header: Depth=/ { inner[nb] = bid[nb]; loops[nb] = loops[nb] " " bid[nb] " "; next }
    nb && /in Loop: Header=BB/ {
        h = $0; sub(/.*Header=/, "", h); sub(/[ \t].*/, "", h)
        inner[nb] = h; loops[nb] = loops[nb] " " h " "; next
    }
    nb && /Parent Loop BB/ {
        h = $0; sub(/.*Parent Loop /, "", h); sub(/[ \t].*/, "", h)
        loops[nb] = loops[nb] " " h " "; next
    }
    nb && /^[ \t]+[a-z]/ { body[nb] = body[nb] "\n" $0 }
    END {
        # the steady loops: innermost loops of blocks of a vectorized loop (".vec.") that
        # is neither a prologue nor an epilogue
        nt = 0
        for (b = 1; b <= nb; b++) {
            if (bname[b] !~ /\.vec\.(head|body)/ || bname[b] ~ /\.(pro|epi)\.vec\./ || inner[b] == "") continue
            if (bname[b] ~ /(lr\.ph|preheader|loopexit|crit_edge)/) continue # outside the loop
            if (!(inner[b] in steady)) { steady[inner[b]] = bname[b]; nt++ }
        }
        for (h in steady) {
            if (exempt != "" && index(steady[h], exempt ".") == 1) continue
            bad = ""; nbad = 0
            for (b = 1; b <= nb; b++) {
                if (index(loops[b], " " h " ") == 0) continue
                m = split(body[b], ins, "\n")
                for (i = 1; i <= m; i++) {
                    op = ins[i]; sub(/^[ \t]+/, "", op); split(op, w, /[ \t]+/)
                    if (w[1] ~ /^v?p?gather/ || w[1] ~ /^v?pinsr[bwdq]$/ || w[1] ~ /^v?insertps$/ ||
                        (w[1] ~ /^mov[sz][bw]/ && op ~ /\(/) || (nosext && w[1] ~ /^(movslq|cltq|cdqe|movsxd)$/)) {
                        nbad++
                        if (nbad <= 5) bad = bad "\n      " op
                    }
                }
            }
            if (nbad) printf "FAIL: %s: the steady loop at %s (%s) has %d gathers, per-lane inserts or index extensions:%s\n",
                              what, h, steady[h], nbad, bad
        }
        printf "loops %d\n", nt
    }' "$1"
}

for k in $KERNELS; do
    for t in $TARGETS; do
        what="$k at $t"
        file="$HERE/../bench/kernels/$k.tine"
        [ -f "$file" ] || file="$HERE/data/$k.tine"
        ex=""
        for e in $EXEMPT; do [ "${e%%:*}" = "$k" ] && ex="${e#*:}"; done
        ns=0
        for e in $NOSEXT; do [ "$e" = "$k" ] && ns=1; done
        if ! "$TINE" compile "$file" --target "$t" --emit asm -o "$TMP/k.s" 2>"$TMP/err"; then
            echo "FAIL: $what: tine compile: $(cat "$TMP/err")"
            fail=$((fail + 1))
            continue
        fi
        out=$(check_asm "$TMP/k.s" "$what" "$ex" "$ns")
        loops=$(printf '%s\n' "$out" | sed -n 's/^loops //p')
        fails=$(printf '%s\n' "$out" | grep -c '^FAIL' || true)
        printf '%s\n' "$out" | grep -v '^loops ' | sed '/^$/d'
        if [ "${loops:-0}" -eq 0 ]; then
            echo "FAIL: $what: no steady-state vector loop found (no block named *.vec.* inside a loop)"
            fail=$((fail + 1))
        elif [ "$fails" -gt 0 ]; then
            fail=$((fail + 1))
        else
            pass=$((pass + 1))
            [ -n "${DENSE_LOADS_VERBOSE:-}" ] && echo "ok: $what: $loops steady loop(s)"
        fi
    done
done
echo "test_dense_loads: $pass passed, $fail failed"
[ "$fail" -eq 0 ]

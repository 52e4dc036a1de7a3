#!/bin/sh
# check_layers.sh — the layering test: calls go down the layers of docs/layers.txt, and no
# two files call each other, even through others.
#
#   scripts/check_layers.sh LAYERS OBJECTS
#
# OBJECTS lists the objects of the library and of the CLI, one path a line (the build
# writes it: BUILD/layers_objects.txt, from the targets' own lists, so objects left over
# from a removed file do not count). Reads with nm the global symbols each object defines
# and uses, maps each object to its source file (the path after CMakeFiles/TARGET.dir/)
# and that file to its layer (the entry of LAYERS naming the file or its longest
# enclosing directory), and fails on
#   (a) a use, in a file, of a symbol defined in a layer later in LAYERS (a call upward);
#   (b) a cycle between files (through any number of them, within a directory too);
# printing each offending symbol with its files. Objects outside src/ and tools/ (the
# embedded rules and descriptions, the benchmarks' C references) are data: not checked.
# A file of src/ or tools/ no entry of LAYERS covers is an error: every one has its place.
# Plain sh, nm and POSIX awk: CI runs it on a bare Debian.
set -eu

if [ $# -ne 2 ]; then
    echo "usage: $0 LAYERS OBJECTS" >&2
    exit 2
fi
layers=$1
objs=$(grep -E '\.dir/(src|tools)/.*\.o$' "$2" | sort) || true
if [ -z "$objs" ]; then
    echo "check_layers: no objects of src/ or tools/ listed in $2" >&2
    exit 2
fi

# One line per symbol: "D file sym" (defined) or "U file sym" (used), file relative to the
# source root (src/ir/expr.c).
for o in $objs; do
    f=${o#*/CMakeFiles/*.dir/}
    f=${f%.o}
    nm -g -P "$o" | awk -v f="$f" '
        $2 == "U" || $2 == "w" { print "U", f, $1; next }
        { print "D", f, $1 }'
done | awk -v layers="$layers" '
function layer_of(f,    p, i) {
    p = f
    while (p != "") {
        if (p in lay) return p
        i = match(p, /\/[^\/]*$/)
        if (!i) break
        p = substr(p, 1, i - 1)
    }
    return ""
}
# A violation: printed and counted.
function report(line) {
    print line
    return 1
}
BEGIN {
    n = 0
    while ((getline line < layers) > 0) {
        sub(/#.*/, "", line)
        k = split(line, w, /[ \t]+/)
        first = 1
        for (i = 1; i <= k; i++) {
            if (w[i] == "") continue
            if (first) { ln = w[i]; n++; rank[ln] = n; first = 0; continue }
            lay[w[i]] = ln
        }
    }
    close(layers)
    if (n == 0) { print "check_layers: no layers in " layers; bad = 1; exit 2 }
}
$1 == "D" { def[$3] = $2; files[$2] = 1; next }
$1 == "U" { nu++; uf[nu] = $2; us[nu] = $3; files[$2] = 1 }
END {
    if (bad) exit 2
    for (f in files) {
        e = layer_of(f)
        if (e == "") { print "check_layers: " f " is in no layer of " layers; fail = 1; continue }
        lof[f] = lay[e]
    }
    # (a) calls upward; and the file graph for (b)
    nf = 0
    for (i = 1; i <= nu; i++) {
        s = us[i]; u = uf[i]
        if (!(s in def)) continue          # libc, LLVM, Z3, the embedded data
        d = def[s]
        if (d == u || !(u in lof) || !(d in lof)) continue
        if (rank[lof[u]] < rank[lof[d]]) {
            up += report("upward: " u " (" lof[u] ") uses " s " of " d " (" lof[d] ")")
        }
        if (!((u, d) in edge)) {
            edge[u, d] = s
            if (!(u in id)) { id[u] = ++nf; name[nf] = u }
            if (!(d in id)) { id[d] = ++nf; name[nf] = d }
            reach[id[u], id[d]] = 1
        } else if (index(" " edge[u, d] " ", " " s " ") == 0) {
            edge[u, d] = edge[u, d] " " s
        }
    }
    # (b) cycles: the transitive closure (a few hundred files at most), then each group of
    # files that reach each other, with the uses that tie them
    for (k = 1; k <= nf; k++)
        for (i = 1; i <= nf; i++)
            if ((i, k) in reach)
                for (j = 1; j <= nf; j++)
                    if ((k, j) in reach) reach[i, j] = 1
    for (i = 1; i <= nf; i++) {
        if (done[i] || !((i, i) in reach)) continue
        m = 0
        for (j = 1; j <= nf; j++)
            if (j == i || ((i, j) in reach && (j, i) in reach)) { done[j] = 1; member[j] = i; g[++m] = name[j] }
        for (a = 2; a <= m; a++)          # sorted: the line is the same whatever the order of nm
            for (b = a; b > 1 && g[b - 1] > g[b]; b--) { t = g[b]; g[b] = g[b - 1]; g[b - 1] = t }
        group = ""
        for (a = 1; a <= m; a++) group = group " " g[a]
        counted = report("cycle:" group)
        cycles += counted
        for (a = 1; a <= nf; a++)
            for (b = 1; b <= nf; b++)
                if (member[a] == i && member[b] == i && (name[a], name[b]) in edge)
                    print "  " name[a] " -> " name[b] ": " edge[name[a], name[b]]
    }
    if (up || cycles || fail) {
        print "check_layers: " up + 0 " upward use(s), " cycles + 0 " cycle(s) (layers: " layers ")"
        exit 1
    }
    print "check_layers: calls go down the layers; no cycles"
}'

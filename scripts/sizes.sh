#!/usr/bin/env bash
# Sizes a reviewer checks: library and tool files over 800 lines, and functions over 120
# lines (a function runs from a line that opens its body at column 0 to the next `}` at
# column 0).
#   bash scripts/sizes.sh [LIMIT_FILE [LIMIT_FUNCTION]]
set -euo pipefail
cd "$(dirname "$0")/.."
fl=${1:-800} fn=${2:-120}
echo "files over $fl lines:"
wc -l src/*.c src/*/*.c tools/*.c | awk -v l="$fl" '$2 != "total" && $1 > l {print "  " $2 ": " $1}'
echo "functions over $fn lines:"
for f in src/*.c src/*/*.c tools/*.c; do
  awk -v f="$f" -v l="$fn" '
    /^[A-Za-z_].*[)] *[{] *$/ && !/^(typedef|struct|enum|union)/ { name = $0; start = NR; next }
    /^}/ && start { if (NR - start + 1 > l) { sub(/\(.*/, "", name); n = split(name, w, /[ *]+/); print "  " f ":" start ": " w[n] " " NR - start + 1 }; start = 0 }
  ' "$f"
done

# checks.sh — the pass/fail counting of the shell tests (sourced by test_cli.sh,
# test_levels.sh and test_package.sh): each failed check prints a FAIL line on stderr; the
# script ends with its summary from $pass and $fail. run runs $TINE into $TMP.
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() {
    fail=$((fail + 1))
    echo "FAIL: $*" >&2
}
check() { # check DESCRIPTION COMMAND... : passes when the command succeeds
    local what=$1
    shift
    if "$@"; then ok; else bad "$what"; fi
}
# run ARGS...: sets $out (stdout), $err (stderr), $rc
run() {
    "$TINE" "$@" >"$TMP/out" 2>"$TMP/err"
    rc=$?
    out=$(cat "$TMP/out")
    err=$(cat "$TMP/err")
}

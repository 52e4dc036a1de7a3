# checks.sh — the pass/fail counting of the shell tests (sourced by test_cli.sh and
# test_package.sh): each failed check prints a FAIL line on stderr; the script ends with
# its summary from $pass and $fail.
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

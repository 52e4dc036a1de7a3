# pool.sh — sourced by the test and bench scripts that build many things at once.
#
# pool CMD...: runs the shell commands (one per argument) at most $jobs at a time, each in
# a subshell; a failing command leaves its text and output in $build/failed/ (the caller
# sets jobs and build).
pool() {
  local cmd i=0
  mkdir -p "$build/failed"
  for cmd in "$@"; do
    while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
    i=$((i + 1))
    ( out=$(eval "$cmd" 2>&1) || printf '%s\n%s\n' "$cmd" "$out" >"$build/failed/$BASHPID.$i" ) &
  done
  wait
}

#!/bin/sh
# timed.sh MS_FILE COMMAND...: runs COMMAND and writes its wall time in milliseconds to
# MS_FILE (the Halide peer's compile times, which `tine bench` reports).
out=$1
shift
t0=$(date +%s%N)
"$@" || exit $?
t1=$(date +%s%N)
echo $(((t1 - t0) / 1000000)) >"$out"

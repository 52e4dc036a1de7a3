#!/usr/bin/env bash
# The libFuzzer harnesses of tests/fuzz: builds build-fuzz with clang-19 (the library
# instrumented too: -fsanitize=fuzzer-no-link,address,undefined), makes seed corpora from
# the project's data, and runs each harness.
#
#   bash scripts/fuzz.sh                  30 s of each harness, JOBS at a time (what scripts/test.sh runs)
#   bash scripts/fuzz.sh -t 600 kernel    10 minutes of one harness (expr kernel rules lower vectorize)
#   bash scripts/fuzz.sh --corpus         only build and make the seed corpora
#
# Seeds go to build-fuzz/seeds/NAME (made again on every run, never committed); what a
# run finds goes to build-fuzz/corpus/NAME (kept between runs, so long runs resume).
# A crash, timeout or OOM leaves its input in build-fuzz/findings/NAME/ and the script
# exits non-zero; a fixed crash's input goes to tests/fuzz/regress/NAME/ (replayed by
# the normal test suite, fuzz_regress_NAME).
set -euo pipefail
cd "$(dirname "$0")/.."

secs=30
only_corpus=0
names=()
while [ $# -gt 0 ]; do
    case "$1" in
    -t) secs="$2"; shift 2 ;;
    --corpus) only_corpus=1; shift ;;
    expr|kernel|rules|lower|vectorize) names+=("$1"); shift ;;
    *) echo "usage: scripts/fuzz.sh [-t SECONDS] [--corpus] [expr|kernel|rules|lower|vectorize]..." >&2; exit 2 ;;
    esac
done
[ ${#names[@]} -gt 0 ] || names=(expr kernel rules lower vectorize)

cc=$(command -v clang-19 || command -v clang || true)
if [ -z "$cc" ]; then
    echo "fuzz.sh: needs clang-19 (apt-get install clang-19)" >&2
    exit 2
fi

echo "== build (libFuzzer, $cc) =="
CC="$cc" cmake -S . -B build-fuzz -DTINE_FUZZ=ON -DTINE_WERROR=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j"${JOBS:-2}" --target $(printf 'fuzz_%s ' "${names[@]}")

# ---- seed corpora: one file per expression, kernel, rule file and rule --------------------
# (only the named harnesses' seeds are made again, so that runs of different harnesses
# can go on side by side)
seeds=build-fuzz/seeds
for h in "${names[@]}"; do rm -rf "${seeds:?}/$h"; done
mkdir -p "$seeds"/{expr,kernel,rules,lower,vectorize}
want() { case " ${names[*]} " in *" $1 "*) return 0 ;; esac; return 1; }
# expressions: the lift corpus (both sides), simd_op_check, the inputs of parse_errors
{
    grep -v '^#\|^@\|^$' tests/data/lift_corpus.txt | sed 's/ *# .*//' | awk -F' => ' '{print $1; if ($2 != "") print $2}'
    grep -v '^#\|^$' tests/data/simd_op_check.txt | sed 's/^[^|]*| //'
    grep '^input: ' tests/data/parse_errors.txt | sed 's/^input: //'
} | sort -u >build-fuzz/seed-exprs.txt
for h in expr lower; do
    want $h || continue
    awk -v d="$seeds/$h" '{ f = d "/s" NR; printf "%s", $0 > f; close(f) }' build-fuzz/seed-exprs.txt
done
# kernels: the benchmark kernels and every case of bad_kernels.txt
if want kernel; then
cp bench/kernels/*.tine "$seeds/kernel/"
awk -v dir="$seeds/kernel" '
    /^== / { if (out) close(out); out = dir "/bad" ++k; body = 1; next }
    /^--$/ { body = 0; next }
    body && out { print > out }' tests/data/bad_kernels.txt
fi
# rules: the shipped rule files whole, and one file per rule; every case of bad_rules.txt
# (a first line "# lower" makes fuzz_rules compile the text as lowering rules)
if want rules; then
cp src/lift/lift.rules src/targets/x86.rules "$seeds/rules/"
for f in src/lift/lift.rules src/targets/x86.rules; do
    awk -v dir="$seeds/rules" -v tag="$(basename "$f" .rules)" '
        /^[A-Za-z_][A-Za-z0-9_]*:/ { if (out) close(out); out = dir "/" tag (++k); if (tag == "x86") print "# lower" > out }
        out && !/^#/ { print > out }' "$f"
done
awk -v dir="$seeds/rules" '
    /^== / { if (out) close(out); out = dir "/bad" ++k; body = 1; next }
    /^-- / { body = 0; next }
    body && out { print > out }' tests/data/bad_rules.txt
fi
# vectorize: the small C kernels of its regression corpus
if want vectorize; then cp tests/fuzz/regress/vectorize/* "$seeds/vectorize/"; fi
for h in "${names[@]}"; do echo "seeds: $h $(ls "$seeds/$h" | wc -l)"; done
[ "$only_corpus" = 0 ] || exit 0

# ---- runs ----------------------------------------------------------------------------------
# JOBS harnesses at a time (default: one per core), each for the full time: the total is
# what one harness gets, not the sum
run_one() {
    local h=$1 corpus=build-fuzz/corpus/$1 findings=build-fuzz/findings/$1
    mkdir -p "$corpus" "$findings"
    # -timeout: one input taking 10 s is a hang; -rss_limit_mb: past 2 GiB is an OOM
    if ! ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        build-fuzz/tests/fuzz/fuzz_"$h" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
        -print_final_stats=1 -artifact_prefix="$findings/" \
        "$corpus" "$seeds/$h" 2>build-fuzz/fuzz_"$h".log; then
        return 1
    fi
}
report_one() {
    local h=$1 rc=$2
    echo "== fuzz_$h for ${secs}s =="
    if [ "$rc" != 0 ]; then
        echo "fuzz_$h: FAILED (see build-fuzz/fuzz_$h.log and build-fuzz/findings/$h/)" >&2
        tail -n 40 build-fuzz/fuzz_"$h".log >&2
    fi
    grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' build-fuzz/fuzz_"$h".log || true
    echo "corpus: $(ls "build-fuzz/corpus/$h" | wc -l) inputs"
}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
rc=0
pending=("${names[@]}")
while [ ${#pending[@]} -gt 0 ]; do
    batch=("${pending[@]:0:$jobs}")
    pending=("${pending[@]:$jobs}")
    pids=()
    for h in "${batch[@]}"; do run_one "$h" & pids+=($!); done
    for i in "${!batch[@]}"; do
        r=0
        wait "${pids[$i]}" || r=$?
        report_one "${batch[$i]}" "$r"
        [ "$r" = 0 ] || rc=1
    done
done
exit $rc

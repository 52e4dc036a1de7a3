#!/usr/bin/env bash
# The whole test suite, twice: a normal build, and an ASan + UBSan build; then a 30-second
# run of each fuzzing harness. Sets up the machine first. This is the README's test
# command and exactly what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)

# Release, the build type users and packagers pick first, with warnings as errors (the
# project's own check; TINE_WERROR is off for users)
echo "== build (Release) =="
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DTINE_WERROR=ON >/dev/null
cmake --build build -j"$jobs"
echo "== tests =="
ctest --test-dir build --output-on-failure -j"$jobs"

echo "== build (ASan + UBSan) =="
cmake -S . -B build-asan -DTINE_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug -DTINE_WERROR=ON >/dev/null
cmake --build build-asan -j"$jobs"
echo "== tests under ASan + UBSan =="
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  ctest --test-dir build-asan --output-on-failure -j"$jobs"

# Each libFuzzer harness for 30 s (clang-19 build in build-fuzz; see DEVELOPERS.md).
echo "== fuzz smoke run =="
bash scripts/fuzz.sh -t 30

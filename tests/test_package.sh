#!/usr/bin/env bash
# test_package.sh — tine as a user sees it after `cmake --install`.
#
# Usage: bash tests/test_package.sh path/to/build
# Installs the build into a temporary prefix, then: the installed files (the SONAME, the
# shared library exporting tine.h's functions and no internal one); examples/ configured
# and built outside the source tree against the prefix (find_package(tine),
# tine_add_kernel for two kernels called from C and C++, tine::tine_static) and run, every
# output element checked against the example's scalar C; tine_add_kernel's errors; then,
# with the prefix moved elsewhere, examples/api/run_kernel.c built with pkg-config against
# the shared and the static library and run. A FAIL line per failed check; the last line
# is the summary; the exit status is non-zero if anything failed.
set -u

BUILD=$(cd "${1:?usage: test_package.sh path/to/build}" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
CC=${CC:-cc}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# a copy of examples/: the user's project is anywhere, and the test edits a kernel file
EXAMPLES=$TMP/src
cp -r "$HERE/../examples" "$EXAMPLES"

. "$HERE/checks.sh"
# logged DESCRIPTION LOG COMMAND...: the command's output to LOG, shown when it fails
logged() {
    local what=$1 log=$2
    shift 2
    if "$@" >"$log" 2>&1; then ok; else
        bad "$what"
        tail -30 "$log" >&2
        return 1
    fi
}
summary() {
    echo "test_package: $pass checks passed, $fail failed"
    [ "$fail" -eq 0 ]
    exit
}

P=$TMP/prefix
logged "cmake --install into $P" "$TMP/install.log" cmake --install "$BUILD" --prefix "$P" || summary

# ---- the installed files -----------------------------------------------------------------
for f in bin/tine include/tine.h include/tine_ops.h lib/libtine.a lib/libtine.so lib/pkgconfig/tine.pc \
         lib/cmake/tine/tineConfig.cmake lib/cmake/tine/tineConfigVersion.cmake share/man/man1/tine.1; do
    check "$f is installed" test -e "$P/$f"
done
soname=$(readelf -d "$P/lib/libtine.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
check "the SONAME is libtine.so.<major> (got '$soname')" test -n "$soname" -a -e "$P/lib/$soname"
case $soname in libtine.so.[0-9]*) ok ;; *) bad "SONAME '$soname' is not libtine.so.N" ;; esac
# every function the library exports is declared in tine.h (internal ones are hidden)
nexported=0
for s in $(nm -D --defined-only "$P/lib/libtine.so" | awk '$2 == "T" {print $3}'); do
    nexported=$((nexported + 1))
    grep -qw "$s" "$P/include/tine.h" || bad "libtine.so exports $s, which tine.h does not declare"
done
check "libtine.so exports tine.h's functions ($nexported)" test "$nexported" -gt 50
logged "the installed tine runs a kernel" "$TMP/tine-run.log" "$P/bin/tine" run "$EXAMPLES/blur3x3.tine" --size 40x20

# ---- examples/: find_package(tine), tine_add_kernel, tine::tine_static ------------------
E=$TMP/example
if logged "examples/ configures against the prefix" "$TMP/example.log" \
       cmake -S "$EXAMPLES" -B "$E" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_BUILD_TYPE=Release; then
    # one program at a time: a C++ caller that fails to link (a generated header without
    # its extern "C" guard) leaves the other program's checks
    logged "examples/ builds run_kernel" "$TMP/run-kernel-build.log" \
        cmake --build "$E" -j2 --target run_kernel run_kernel_shared
    logged "examples/ builds example (a C++ link error: the header has no extern \"C\")" \
        "$TMP/example-build.log" cmake --build "$E" -j2 --target example
    for o in "$E/blur3x3.tine/blur3x3.o" "$E/q15_mul.tine/q15_mul.o"; do
        check "${o##*/} is compiled and calls nothing of tine or LLVM" \
            sh -c "nm -u '$o' >'$TMP/undef' && ! grep -Eq 'tine|LLVM' '$TMP/undef'"
    done
    if [ -x "$E/example" ]; then
        logged "the example's kernels agree with its scalar C, from C and C++" "$TMP/example-run.log" "$E/example"
        # the multi-target objects at each level of their list this CPU runs (TINE_DISPATCH caps it)
        for level in x86-64-avx2 x86-64-sse2; do
            logged "the example agrees at $level (TINE_DISPATCH)" "$TMP/example-run-$level.log" \
                env TINE_DISPATCH=$level "$E/example"
        done
        # the kernels' objects call nothing of tine or LLVM: the example links them alone
        check "the example needs no tine or LLVM library" \
            sh -c "! readelf -d '$E/example' | grep -Eq 'libtine|libLLVM'"
    fi
    [ -x "$E/run_kernel" ] && logged "run_kernel (tine::tine_static) compiles and runs blur3x3" \
        "$TMP/run-static-cmake.log" "$E/run_kernel" "$EXAMPLES/blur3x3.tine"
    check "run_kernel does not need libtine.so" sh -c "! readelf -d '$E/run_kernel' | grep -q libtine"
    [ -x "$E/run_kernel_shared" ] && logged "run_kernel_shared (tine::tine) compiles and runs blur3x3" \
        "$TMP/run-shared-cmake.log" "$E/run_kernel_shared" "$EXAMPLES/blur3x3.tine"
    check "run_kernel_shared needs libtine.so" sh -c "readelf -d '$E/run_kernel_shared' | grep -q 'NEEDED.*libtine'"
    # a changed kernel file is compiled again (its time a second past the object's)
    touch -d "@$(($(stat -c %Y "$E/blur3x3.tine/blur3x3.o") + 1))" "$EXAMPLES/blur3x3.tine"
    cmake --build "$E" --target blur3x3 >"$TMP/rebuild.log" 2>&1
    check "editing a kernel reruns tine" grep -q "tine: compiling blur3x3.tine" "$TMP/rebuild.log"
fi

# ---- tine_add_kernel: PARAMS given to tine; a kernel with a mistake; no SOURCE ------------
B=$TMP/proj
mkdir -p "$B"
printf 'input in: u8[1]\noutput out(x): u8 = in(x) + missing(x)\n' >"$B/wrong.tine"
printf 'input in: u8[1]\noutput out(x): u8 = in(x) / 3\n' >"$B/third.tine"
cat >"$B/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.20)
project(proj C)
find_package(tine CONFIG REQUIRED)
if(NO_SOURCE)
  tine_add_kernel(wrong TARGETS host)
else()
  tine_add_kernel(wrong SOURCE wrong.tine)
  tine_add_kernel(third SOURCE third.tine TARGETS x86-64-sse2 PARAMS --select llvm)
endif()
CMAKE
cmake -S "$B" -B "$B/nosrc" -DCMAKE_PREFIX_PATH="$P" -DNO_SOURCE=ON >"$TMP/nosrc.log" 2>&1
check "tine_add_kernel without SOURCE stops the configure with its reason" grep -q "tine_add_kernel(wrong): needs SOURCE" "$TMP/nosrc.log"
if logged "a project of two kernels configures" "$TMP/proj.log" cmake -S "$B" -B "$B/build" -DCMAKE_PREFIX_PATH="$P"; then
    logged "a kernel with PARAMS builds" "$TMP/third.log" cmake --build "$B/build" --target third
    check "PARAMS reach tine compile (the header of --select llvm)" \
        grep -q "generated by tine for x86-64-sse2 (LLVM alone selection)" "$B/build/third.tine/include/third.h"
    cmake --build "$B/build" --target wrong >"$TMP/wrong-build.log" 2>&1
    check "a wrong kernel fails the build" test $? -ne 0
    check "with tine's located message" grep -q "wrong.tine:2:29: unknown function 'missing'" "$TMP/wrong-build.log"
fi

# ---- pkg-config, from the prefix moved elsewhere (tine.pc finds its own place) ------------
mv "$P" "$TMP/moved"
P=$TMP/moved
export PKG_CONFIG_PATH=$P/lib/pkgconfig
version=$(sed -n 's/^set(PACKAGE_VERSION "\(.*\)")/\1/p' "$P/lib/cmake/tine/tineConfigVersion.cmake")
check "pkg-config --modversion tine is the package's version ($version)" test "$(pkg-config --modversion tine)" = "$version"
incdir=$(pkg-config --variable=includedir tine)
check "pkg-config's includedir is the moved prefix's ($incdir)" test "$(realpath "$incdir")" = "$(realpath "$P/include")"
api=$EXAMPLES/api/run_kernel.c
# shellcheck disable=SC2046 # the flags are words
if logged "run_kernel.c builds with pkg-config --cflags --libs tine" "$TMP/cc-shared.log" \
       $CC -std=c11 -Wall -Wextra "$api" $(pkg-config --cflags --libs tine) -o "$TMP/run_shared"; then
    check "it needs libtine.so.N" sh -c "readelf -d '$TMP/run_shared' | grep -q 'NEEDED.*\[$soname\]'"
    logged "and runs the kernel through the shared library" "$TMP/run-shared.log" \
        env LD_LIBRARY_PATH="$P/lib" "$TMP/run_shared" "$EXAMPLES/blur3x3.tine"
fi
# pkg-config --static lists what libtine.a needs: linked with the archive itself
static_libs=$(pkg-config --libs --static tine | sed 's/-ltine\b/-l:libtine.a/')
# shellcheck disable=SC2046,SC2086
if logged "run_kernel.c links libtine.a with pkg-config --libs --static tine" "$TMP/cc-static.log" \
       $CC -std=c11 -Wall -Wextra "$api" $(pkg-config --cflags tine) $static_libs -o "$TMP/run_static"; then
    check "it does not need libtine.so" sh -c "! readelf -d '$TMP/run_static' | grep -q libtine"
    logged "and runs the kernel" "$TMP/run-static.log" "$TMP/run_static" "$EXAMPLES/blur3x3.tine"
fi

summary

#!/usr/bin/env bash
# fftw_build.sh — FFTW 3.3.10 built with every x86 SIMD extension it has, for `tine bench
# --dft --fftw local`: Debian's libfftw3 is configured with --enable-sse2 --enable-avx only
# (debian/rules: "no avx support in debian yet", kept), so its codelets are AVX without FMA
# and without AVX-512; this build adds --enable-avx2 (FMA codelets) and --enable-avx512,
# single and double precision, static, FFTW's own default CFLAGS (-O3 -fomit-frame-pointer
# -mtune=native ...). The source comes from env.sh's fftw_source (the cache, or apt-get
# source); the build goes to the cache and is reused.
#
#   bash tests/dft/fftw_build.sh          # prints the install prefix (PREFIX/include, PREFIX/lib)
#
# Environment: TINE_DFT_CACHE (default ~/.cache/tine-dft), FFTW_SRC, BENCH_JOBS (make -j, 2).
# About 10 minutes on two cores, once.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=/dev/null
source "$here/env.sh"
prefix=$cache/fftw-3.3.10-x86simd
if [ -f "$prefix/lib/libfftw3f.a" ] && [ -f "$prefix/lib/libfftw3.a" ]; then echo "$prefix"; exit 0; fi
src=$(fftw_source) || exit 1
flags=(--enable-sse2 --enable-avx --enable-avx2 --enable-avx512 --disable-shared --enable-static --disable-fortran
       --disable-doc --prefix="$prefix")
for precision in single double; do
  b=$cache/build-fftw-$precision
  rm -rf "$b" && mkdir -p "$b"
  extra=()
  [ $precision = single ] && extra=(--enable-single)
  echo "fftw_build.sh: configuring and building FFTW ($precision) in $b ..." >&2
  (cd "$b" && "$src/configure" "${flags[@]}" "${extra[@]}" >configure.log 2>&1 &&
     make -j"$jobs" >make.log 2>&1 && make install >install.log 2>&1) ||
    { echo "fftw_build.sh: the $precision build failed: see $b/*.log" >&2; exit 1; }
  rm -rf "$b"
done
echo "$prefix"

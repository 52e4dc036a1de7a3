# shellcheck shell=bash disable=SC2034,SC2154
# env.sh — sourced by tests/dft/bench.sh, bench_arm.sh and fftw_build.sh (after `here` is
# set): the paths and tools they share, each overridable from the environment; pool
# (tests/pool.sh); fftw_source, the FFTW 3.3.10 release tree in the cache; dftpy;
# select_sizes; make_build.
root=$(cd "$here/../.." && pwd)
ddir=$root/bench/dft
tine=${TINE:-$root/build/tine}
cc=${CC_BENCH:-gcc}
clang=${CC_CLANG:-clang-19}
objcopy=${OBJCOPY:-llvm-objcopy-19}
jobs=${BENCH_JOBS:-2}
seed=${SEED:-20240601}
cache=${TINE_DFT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tine-dft}
standin=${TINE_DFT_STANDIN:-0}
# the sizes of issue 36's table: the powers of two, then the mixed and prime radices
all_sizes=(2 4 8 16 32 64 3 5 6 7 9 10 12 15)
# shellcheck source=/dev/null
source "$here/../pool.sh"

dftpy() { python3 "$here/dft.py" "$@"; }

# select_sizes SCRIPT FILTER...: sizes, the transform sizes the filters name (numbers,
# separated by commas or spaces), or the caller's default sizes when there is no filter.
select_sizes() {
  local script=$1 f n fs
  shift
  [ $# -gt 0 ] || return 0
  sizes=()
  for f in "$@"; do
    IFS=', ' read -r -a fs <<<"$f"
    for n in "${fs[@]}"; do
      [[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] || { echo "$script: --filter takes sizes (numbers), not '$n'" >&2; exit 2; }
      sizes+=("$n")
    done
  done
}

# make_build PREFIX: build, the caller's --build-dir wiped, or a temporary directory
# removed at exit.
make_build() {
  if [ -z "$build" ]; then
    build=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
    # shellcheck disable=SC2064
    trap "rm -rf '$build'" EXIT
  else
    rm -rf "$build" && mkdir -p "$build"
  fi
}

# fftw_source: the FFTW 3.3.10 release tree (it holds the generated codelets the git
# repository does not) on stdout, or nothing and a note on stderr. Taken from FFTW_SRC (a
# tree or fftw-3.3.10.tar.gz) when set, else from the cache, else fetched once into the
# cache by apt-get source from Debian bookworm, whose fftw3_3.3.10.orig.tar.gz is FFTW's
# release tarball (its sha256 checked) — apt's own lists untouched: a private source list
# and state directory in the cache. Nothing of FFTW is kept in the repository.
fftw_sha256=56c932549852cddcfafdab3820b0200c7742675be92179e59e6215b340e26467
fftw_source() {
  local dir=$cache/fftw-3.3.10 tgz=$cache/fftw3_3.3.10.orig.tar.gz apt=$cache/apt
  if [ -n "${FFTW_SRC:-}" ]; then
    if [ -d "$FFTW_SRC" ]; then echo "$FFTW_SRC"; return 0; fi
    tgz=$FFTW_SRC
  fi
  if [ -f "$dir/dft/simd/common/n1fv_16.c" ]; then echo "$dir"; return 0; fi
  mkdir -p "$cache"
  if [ ! -f "$tgz" ]; then
    mkdir -p "$apt/lists/partial" "$apt/parts" "$apt/cache/archives/partial"
    printf 'Types: deb-src\nURIs: %s\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$apt/parts/fftw-src.sources"
    local o=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$apt/parts" -o "Dir::State::Lists=$apt/lists"
             -o "Dir::Cache=$apt/cache" -o Debug::NoLocking=1)
    if ! (cd "$cache" && apt-get "${o[@]}" -q update && apt-get "${o[@]}" -q source --download-only fftw3=3.3.10-1) \
        >"$cache/fetch.log" 2>&1; then
      echo "no FFTW source: apt-get source fftw3=3.3.10-1 failed (offline? $cache/fetch.log); set FFTW_SRC to a fftw-3.3.10 tree or tarball" >&2
      return 1
    fi
    rm -rf "$apt"
  fi
  if [ "$(sha256sum "$tgz" | cut -d' ' -f1)" != "$fftw_sha256" ]; then
    echo "no FFTW source: $tgz is not FFTW 3.3.10's release tarball (sha256 differs)" >&2
    return 1
  fi
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp" && tar xzf "$tgz" -C "$dir.tmp" && rm -rf "$dir" && mv "$dir.tmp/fftw-3.3.10" "$dir" &&
    rm -rf "$dir.tmp" || { echo "no FFTW source: cannot unpack $tgz" >&2; return 1; }
  echo "$dir"
}

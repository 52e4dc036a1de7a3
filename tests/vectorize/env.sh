# env.sh — sourced by bench.sh and bench_arm.sh (after `here` is set): the paths and tools
# they share, each overridable from the environment; py, select_kernels, built_obj; and
# pool (tests/pool.sh).
root=$(cd "$here/../.." && pwd)
kdir=$root/bench/vectorize
tine=${TINE:-$root/build/tine}
cc=${CC_CLANG:-clang-19}
cxx=${CXX_CLANG:-clang++-19}
objcopy=${OBJCOPY:-llvm-objcopy-19}
jobs=${BENCH_JOBS:-2}
seed=${SEED:-20240601}
# shellcheck source=/dev/null
source "$here/../pool.sh"

py() { python3 "$here/kernels.py" "$@"; }

# select_kernels SCRIPT: klist, the kernels --quick and the filters pick (kernels.py list),
# and tags, the implementations every row has (tine, tine reassoc unless --no-reassoc,
# the naive C three ways); the caller's quick, filters and use_reassoc.
select_kernels() {
  local quick_arg=()
  [ "$quick" = 1 ] && quick_arg=(--quick)
  mapfile -t klist < <(py list "${quick_arg[@]}" "${filters[@]}")
  [ ${#klist[@]} -gt 0 ] || { echo "$1: no kernel matches ${filters[*]}" >&2; exit 2; }
  tags=(tine)
  [ "$use_reassoc" = 1 ] && tags+=(reassoc)
  tags+=(naive nofma noalias)
}

# built_obj DIR TAG LABEL: the object tine built for TAG (tine, reassoc) in kernel dir DIR,
# or nothing, with a note in DIR/notes.tsv, when its build failed.
built_obj() {
  local rc
  read -r _ _ rc <"$1/$2.measure" 2>/dev/null || rc=1
  if [ "${rc:-1}" = 0 ] && [ -f "$1/$2.o" ]; then echo "$1/$2.o"; return; fi
  printf '%s failed (%s): %s\n' "$3" "$(py exit-text "${rc:-1}")" "$(grep -m1 . "$1/$2.log" | cut -c1-160)" >>"$1/notes.tsv"
}

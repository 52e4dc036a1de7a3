# env.sh — sourced by bench.sh and bench_arm.sh (after `here` is set): the paths and tools
# they share, each overridable from the environment, and pool (tests/pool.sh).
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

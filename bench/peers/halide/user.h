// user.h — what the user kernels' Halide generators (bench/user: sad8x8 ... requant_i8)
// share: tine's rounding shift of an i32 by a constant, and the schedule Halide's apps give
// an elementwise or pointwise stage (vectorized along its dense first dimension at the
// natural width of the output's type, single thread; parallel off: tine's bench is
// single-threaded).
#pragma once
#include "Halide.h"

namespace tine_peer {
using namespace Halide;

// tine's rounding_shr(x, n) for an i32 x and a constant 0 < n < 32: floor((x + 2^(n-1)) /
// 2^n), exact (no wider type): floor(x / 2^n) plus the last bit shifted out.
inline Expr rounding_shr_const(Expr x, int n) { return (x >> n) + ((x >> (n - 1)) & 1); }

// Vectorized along x at `vec` lanes: the last vector shifted inwards when the row holds
// one (an elementwise stage may recompute the overlap), guarded below that.
inline void vectorize_rows(Func f, Var x, int vec) {
    f.specialize(f.output_buffer().dim(0).extent() >= vec).vectorize(x, vec, TailStrategy::ShiftInwards);
    f.vectorize(x, vec, TailStrategy::GuardWithIf);
}

}  // namespace tine_peer

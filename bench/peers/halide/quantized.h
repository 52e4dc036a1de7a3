// quantized.h — the quantized kernels' shared requantization arithmetic, written once for
// the Halide generators (fully_connected, conv_nn, depthwise_conv, matmul), exact to tine's
// definitions and cheap on x86.
#pragma once
#include "Halide.h"

namespace tine_peer {
using namespace Halide;
using namespace Halide::ConciseCasts;

// tine's rounding_shr(x, s) on i32 with an unsigned s: floor((x + 2^(s-1)) / 2^s) rounding
// half up; x for s = 0 and 0 for every s >= 32 (where Halide's rounding_shift_right is not
// defined). Written as floor(x / 2^s) plus the last dropped bit, with the shift amounts and
// the mask chosen per s as scalars (no overflow, no per-lane select): s = 0: x + 0;
// s >= 32: (x >> 31) + (the sign bit) = 0.
inline Expr rounding_shr_u(Expr x, Expr s) {
    Expr s1 = i32(min(s, 31));
    Expr s2 = i32(select(s == 0, 0, s >= 32, 31, s - 1));
    Expr m = select(s == 0, 0, 1);
    return (x >> s1) + ((x >> s2) & m);
}

// tine's rounding_mul_shr(a, b, 31) on i32 (sqrdmulh): sat((a * b + 2^30) >> 31). The
// quotient lies in [-2^31 + 1, 2^31], so bits 31..62 of the i64 sum truncated to i32 are
// exact except 2^31 (a = b = INT_MIN), which truncates to INT_MIN and is saturated back. A
// logical i64 shift is enough for the truncation (AVX2 has no arithmetic one), which makes
// this much cheaper than Halide 14's saturating i64 narrowing for rounding_mul_shift_right.
inline Expr m2h32(Expr a, Expr b) {
    Expr p = reinterpret<uint64_t>(i64(a) * i64(b) + Expr(int64_t(1) << 30));
    Expr r = reinterpret<int32_t>(u32(p >> 31));
    return select(r == Int(32).min(), Int(32).max(), r);
}

// The shared tail of fully_connected, conv_nn and depthwise_conv:
// clamp(u8_sat(saturating_add(i16_sat(rshr(m2h(acc, om), shift)), i16(out_zero))), omin, omax),
// with tine's clamp (max with omin, then min with omax: omax wins if omin > omax).
inline Expr requantize(Expr acc, Expr om, Expr shift, Expr out_zero, Expr omin, Expr omax) {
    Expr t = saturating_cast<int16_t>(rounding_shr_u(m2h32(acc, om), shift));
    return clamp(saturating_cast<uint8_t>(saturating_add(t, i16(out_zero))), omin, omax);
}

}  // namespace tine_peer

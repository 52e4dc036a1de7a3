// depthwise_conv (BENCHMARKS.md 19): hannk's quantized 3x3 depthwise convolution, u8
// (c, x, y, b), VALID (the caller pads). acc = [bias - iz * sum fd] + sum fd * in, wrapping
// i32 (fd = f - fz); out = clamp(u8_sat(sat_add(i16_sat(rshr(m2h(acc, om), osh)), oz)), min, max).
//
// Schedule: TODO
#include "Halide.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;

// tine's rounding_shr(x, s) on i32 with an unsigned s: floor((x + 2^(s-1)) / 2^s) rounding
// half up; x for s = 0 and 0 for every s >= 32 (where Halide's rounding_shift_right is not
// defined). Written as floor(x / 2^s) plus the last dropped bit, with the shift amounts and
// the mask chosen per s as scalars (no overflow, no per-lane select): s = 0: x + 0;
// s >= 32: (x >> 31) + (the sign bit) = 0.
Expr rounding_shr_u(Expr x, Expr s) {
    Expr s1 = i32(min(s, 31));
    Expr s2 = i32(select(s == 0, 0, s >= 32, 31, s - 1));
    Expr m = select(s == 0, 0, 1);
    return (x >> s1) + ((x >> s2) & m);
}

class DepthwiseConv : public Generator<DepthwiseConv> {
public:
    Input<Buffer<uint8_t, 4>> in{"in"};
    Input<Buffer<uint8_t, 3>> f{"f"};
    Input<Buffer<int32_t, 1>> bias{"bias"};
    Input<uint8_t> iz{"iz"};
    Input<uint8_t> fz{"fz"};
    Input<int32_t> om{"om"};
    Input<uint32_t> osh{"osh"};
    Input<uint8_t> out_zero{"out_zero"};
    Input<uint8_t> out_min{"out_min"};
    Input<uint8_t> out_max{"out_max"};
    Output<Buffer<uint8_t, 4>> out{"out"};

    void generate() {
        Var c("c"), x("x"), y("y"), b("b"), fx("fx"), fy("fy");

        // the zeroed filter, i16
        Func fd("fd");
        fd(c, fx, fy) = i16(f(c, fx, fy)) - i16(fz);

        // bias minus the input zero point's share, wrapping (u32)
        Func offset("offset");
        RDom r(0, 3, 0, 3);
        offset(c) = u32(bias(c));
        offset(c) -= u32(i32(iz) * i32(fd(c, r.x, r.y)));

        // the nine taps: |sum| <= 9 * 255 * 255, no overflow in i32
        Expr conv = 0;
        for (int j = 0; j < 3; j++)
            for (int i = 0; i < 3; i++)
                conv += i32(widening_mul(fd(c, i, j), i16(in(c, x + i, y + j, b))));
        Expr acc = reinterpret<int32_t>(offset(c) + u32(conv));
        Expr t = saturating_cast<int16_t>(rounding_shr_u(rounding_mul_shift_right(acc, om, 31), osh));
        out(c, x, y, b) = clamp(saturating_cast<uint8_t>(saturating_add(t, i16(out_zero))), out_min, out_max);

        const int vec = natural_vector_size<uint8_t>();
        out.vectorize(c, vec, TailStrategy::GuardWithIf);
        offset.compute_root();
        fd.compute_root();
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(DepthwiseConv, depthwise_conv)

// mul (BENCHMARKS.md 12): hannk's quantized elementwise multiply on u8 (c, x, y, b):
// a = (i16(in) - i16(z)) << 6; prod = i32(a1) * i32(a2); t = m2h(prod, om) (Halide's
// rounding_mul_shift_right(., ., 31) on i32 = tine's: i64 product, rounded, saturated);
// t = i16_sat(rshr(t, min(15, osh))); out = clamp(u8_sat(i16_sat(t + out_zero)), out_min, out_max).
//
// Schedule: TODO
#include "Halide.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;

class Mul : public Generator<Mul> {
public:
    Input<Buffer<uint8_t, 4>> in1{"in1"};
    Input<Buffer<uint8_t, 4>> in2{"in2"};
    Input<uint8_t> z1{"z1"};
    Input<uint8_t> z2{"z2"};
    Input<uint8_t> out_zero{"out_zero"};
    Input<int32_t> om{"om"};
    Input<uint32_t> osh{"osh"};
    Input<uint8_t> out_min{"out_min"};
    Input<uint8_t> out_max{"out_max"};
    Output<Buffer<uint8_t, 4>> out{"out"};

    void generate() {
        Var c("c"), x("x"), y("y"), b("b");
        Expr a1 = (i16(in1(c, x, y, b)) - i16(z1)) << 6;
        Expr a2 = (i16(in2(c, x, y, b)) - i16(z2)) << 6;
        Expr prod = i32(a1) * i32(a2);  // |prod| <= 16320^2 < 2^31
        Expr h = rounding_mul_shift_right(prod, om, 31);  // |h| <= |prod|
        // rounding shift by 0..15 written out: the rounding term is 0 for a zero shift,
        // and h + 2^14 cannot overflow.
        Expr sh = i32(min(Expr(osh), u32(15)));
        Expr r = (h + ((1 << sh) >> 1)) >> sh;
        Expr t = i16_sat(r);
        Expr s = i16_sat(i32(t) + i32(out_zero));
        out(c, x, y, b) = clamp(u8_sat(s), out_min, out_max);

        const int vec = natural_vector_size<uint8_t>();
        out.specialize(out.dim(0).extent() >= vec).vectorize(c, vec, TailStrategy::ShiftInwards);
        out.vectorize(c, vec, TailStrategy::GuardWithIf);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Mul, mul)

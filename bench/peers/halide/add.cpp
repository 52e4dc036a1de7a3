// add (BENCHMARKS.md 11): hannk's quantized elementwise add on u8 (c, x, y, b):
// a = (i16(in) - i16(z)) << 6; p = i32(a1) * m1 + i32(a2) * m2; t = i16_sat((p + 2^15) >> 16);
// out = clamp(u8_sat(i16_sat(t + out_zero)), out_min, out_max). No boundary.
//
// Schedule (hannk's elementwise ops, single thread): vectorized along the dense channel
// dimension c by twice the natural u8 width (two i16 and four i32 vectors in flight per
// half, which hides the widening multiplies' latency); ShiftInwards when c is at least one
// vector (an elementwise op may recompute the overlap), GuardWithIf below that.
// tried (avx2, 128x128x128): natural width (0.49 ms), 2x (0.46 ms), 4x (0.46 ms); kept 2x.
#include "Halide.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;

class Add : public Generator<Add> {
public:
    Input<Buffer<uint8_t, 4>> in1{"in1"};
    Input<Buffer<uint8_t, 4>> in2{"in2"};
    Input<uint8_t> z1{"z1"};
    Input<int16_t> m1{"m1"};
    Input<uint8_t> z2{"z2"};
    Input<int16_t> m2{"m2"};
    Input<uint8_t> out_zero{"out_zero"};
    Input<uint8_t> out_min{"out_min"};
    Input<uint8_t> out_max{"out_max"};
    Output<Buffer<uint8_t, 4>> out{"out"};

    void generate() {
        Var c("c"), x("x"), y("y"), b("b");
        // |a| <= 255 * 64 fits i16; each product < 2^30, so the i32 sum and the rounding
        // term cannot overflow: the rounding shift is written out exactly.
        Expr a1 = (i16(in1(c, x, y, b)) - i16(z1)) << 6;
        Expr a2 = (i16(in2(c, x, y, b)) - i16(z2)) << 6;
        Expr p = i32(a1) * i32(m1) + i32(a2) * i32(m2);
        Expr t = i16_sat((p + (1 << 15)) >> 16);
        Expr s = i16_sat(i32(t) + i32(out_zero));
        out(c, x, y, b) = clamp(u8_sat(s), out_min, out_max);

        const int vec = 2 * natural_vector_size<uint8_t>();
        out.specialize(out.dim(0).extent() >= vec).vectorize(c, vec, TailStrategy::ShiftInwards);
        out.vectorize(c, vec, TailStrategy::GuardWithIf);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Add, add)

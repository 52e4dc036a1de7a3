// mul (BENCHMARKS.md 12): hannk's quantized elementwise multiply on u8 (c, x, y, b):
// a = (i16(in) - i16(z)) << 6; prod = i32(a1) * i32(a2); h = rounding_mul_shr(prod, om, 31);
// t = i16_sat(rshr(h, min(15, osh))); out = clamp(u8_sat(i16_sat(t + out_zero)), out_min,
// out_max). No boundary.
//
// Halide's rounding_mul_shift_right(prod, om, 31) on i32 has tine's semantics, but on x86
// it works in i64 and needs a 64-bit arithmetic shift (none below AVX-512): the product is
// instead split so that all of it stays in i32 (see generate(); checked against the C
// m2h and rshr for every d1, d2 in -255..255, 14 edge and 100 random om, osh 0..17).
//
// Schedule (hannk's elementwise ops, single thread): vectorized along the dense channel
// dimension c by twice the natural u8 width; ShiftInwards when c is at least one vector,
// GuardWithIf below that.
// tried (avx2, 128x128x128): rounding_mul_shift_right (1.64 ms); the i64 product shifted
// logically, keeping the low 32 bits (1.21 ms; 1.13 ms at 2x the width); the i32 split,
// three 32-bit multiplies (0.76 ms at 2x, 0.82 ms at 1x; 0.82 ms with two multiplies and
// a mask, om split 16+1+15 bits); + the rounding shift folded into the split's floor
// (0.68 ms): kept.
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
        // a = d * 2^6 with d = i16(in) - i16(z), |d| <= 255 (no i16 wrap);
        // h = m2h(prod, om) = floor((prod * om + 2^30) / 2^31), which Halide would compute
        // in i64 (rounding_mul_shift_right). prod = P * 2^12 with P = d1 * d2, |P| <= 255^2
        // < 2^16, so h = floor((P * om + 2^18) / 2^19) (m2h's saturation is unreachable).
        // Split om = oh * 2^16 + o1 * 2^8 + o0 (oh signed, o1 and o0 in 0..255): then
        // h = floor((P * oh + V + 4) / 8) with V = floor(P * (om & 0xffff) / 2^16)
        //   = floor((P * o1 + floor(P * o0 / 2^8)) / 2^8),
        // every product and sum in i32 range (|P * oh| <= 65025 * 2^15 < 2^31 - 2^17).
        // The rounding shift by sh = min(15, osh) folds into the same floor:
        // floor((h + rt) / 2^sh) = floor((P * oh + V + 4 + 8 * rt) / 2^(sh + 3)),
        // rt = 2^sh >> 1 (0 for sh = 0).
        Expr d1 = i16(in1(c, x, y, b)) - i16(z1), d2 = i16(in2(c, x, y, b)) - i16(z2);
        Expr P = i32(d1) * i32(d2);
        Expr oh = om >> 16, o1 = (om >> 8) & 0xff, o0 = om & 0xff;
        Expr V = (P * o1 + ((P * o0) >> 8)) >> 8;
        Expr sh = i32(min(Expr(osh), u32(15)));
        Expr k = 4 + 8 * ((1 << sh) >> 1);
        Expr r = (P * oh + V + k) >> (sh + 3);
        Expr t = i16_sat(r);
        Expr s = i16_sat(i32(t) + i32(out_zero));
        out(c, x, y, b) = clamp(u8_sat(s), out_min, out_max);

        const int vec = 2 * natural_vector_size<uint8_t>();
        out.specialize(out.dim(0).extent() >= vec).vectorize(c, vec, TailStrategy::ShiftInwards);
        out.vectorize(c, vec, TailStrategy::GuardWithIf);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Mul, mul)

// mul (BENCHMARKS.md 12): hannk's quantized elementwise multiply on u8 (c, x, y, b):
// a = (i16(in) - i16(z)) << 6; prod = i32(a1) * i32(a2); h = rounding_mul_shr(prod, om, 31);
// t = i16_sat(rshr(h, min(15, osh))); out = clamp(u8_sat(i16_sat(t + out_zero)), out_min,
// out_max). No boundary. The rounding shift by 0..15 is written out (h + (2^sh >> 1)) >> sh.
//
// Halide's rounding_mul_shift_right(prod, om, 31) on i32 has tine's semantics, but on x86 it
// needs a 64-bit arithmetic shift (none below AVX-512): written out instead as the i64
// product (vpmuldq), rounded, shifted LOGICALLY, low 32 bits kept -- exact because
// |prod| < 2^28 makes the result fit i32 (m2h's saturation is unreachable).
//
// Schedule (hannk's elementwise ops, single thread): vectorized along the dense channel
// dimension c by twice the natural u8 width; ShiftInwards when c is at least one vector,
// GuardWithIf below that.
// tried (avx2, 128x128x128): rounding_mul_shift_right at the natural width (1.64 ms),
// the logical-shift m2h at the natural width (1.21 ms), at 2x (1.13 ms); kept the last.
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
        Expr prod = i32(a1) * i32(a2);  // |prod| <= 16320^2 < 2^28
        // m2h: |prod * om| < 2^59, so the rounded quotient fits i32 (never saturates) and
        // its low 32 bits are the same for a logical as for an arithmetic 64-bit shift
        // (AVX2 has no vpsraq): shift the i64 product logically.
        Expr h = i32(u64(i64(prod) * i64(om) + (i64(1) << 30)) >> 31);
        // rounding shift by 0..15 written out: the rounding term is 0 for a zero shift,
        // and h + 2^14 cannot overflow.
        Expr sh = i32(min(Expr(osh), u32(15)));
        Expr r = (h + ((1 << sh) >> 1)) >> sh;
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

// l2norm (BENCHMARKS.md 15): per row, z = in - zero, ss = sum z^2 (i32), inv = hannk's
// approx_reciprocal_sqrt(15, ss) = approx_exp2(15, -approx_log2(14, ss), 15) in i32;
// out = u8_sat(i16_sat(rshr(z * inv, 8)) + 128). No boundary (the row is read in 0..W).
//
// Schedule (apps/hannk's l2norm, single thread): per row y, the sum of squares, then inv
// (scalar), then the row vectorized by the natural u8 width (GuardWithIf: any W). The sum
// keeps 2 x natural-i32 partial sums in registers over whole blocks, each lane summing a
// pair of adjacent squares (atomic vectorize of the pair: pmaddwd), plus a scalar tail; the
// product is rewritten exactly as m2h(z << 7, i16 inv) (one pmulhrsw per 16 elements, see
// below). Measured avx2 medians at 1024x256 (sse41 in parentheses):
// tried: i32 product + atomic().vectorize(r) sum (hannk's) 0.060 ms; i16 m2h product 0.033;
// + rfactor of a GuardWithIf split for the sum 0.086 (accumulator left in memory, guard per
// block); + explicit partial sums as below 0.029; + pmulhrsw without Halide's MIN * MIN
// fix-up 0.026 (0.038); out vectorized 2x 0.027, natural-i32 partial sums 0.027 (noise);
// kept the last, 0.026 ms (sse41 0.039, sse2 0.078).
#include "Halide.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;

// m2h on i16: rounding_mul_shr(a, b, 15), round half up, saturating. It saturates only for
// MIN * MIN, which none of this kernel's products can be (see each), so it is written with
// a truncating narrow: x86's pmulhrsw exactly, where Halide's rounding_mul_shift_right
// adds a compare and blend per vector for the MIN * MIN lanes. SSE2 has no pmulhrsw:
// there Halide's own lowering of the intrinsic is the faster one (measured).
bool has_pmulhrsw = true;  // set by generate() from the target
Expr m2h16(Expr a, Expr b) {
    return has_pmulhrsw ? i16(rounding_shift_right(widening_mul(a, b), 15)) : rounding_mul_shift_right(a, b, 15);
}

// hannk's approx_log2(q, v) (q = 14 or 15) for v >= 0, i32: floor(log2 v) from the
// leading zeros (-1 for 0), the 15 bits below the leading one through a Q14 cubic
Expr approx_log2(int q, Expr v) {
    Expr fl = 31 - i32(count_leading_zeros(v));
    Expr norm = select(fl <= 15, v << u32(clamp(15 - fl, 0, 16)), v >> u32(clamp(fl - 15, 0, 16)));
    Expr f1 = i16(norm & 0x7fff);
    Expr f2 = m2h16(f1, f1);
    Expr f3 = m2h16(f2, f1);
    Expr poly = m2h16(i16(2555), f3) + m2h16(i16(-9421), f2) + m2h16(i16(23249), f1) + i16(5);
    return i32(clamp(i64(fl) * (1 << q) + i64(poly) * (1 << (q - 14)), Int(32).min(), Int(32).max()));
}

// hannk's approx_exp2(15, v, 15) in i32: 2^floor (0 below 2^0, INT32_MIN at 2^31, 0
// beyond) plus the Q15 fraction's cubic through the 32-bit m2h
Expr approx_exp2_q15_i32(Expr v) {
    Expr fl = v >> 15;
    Expr n = fl + 15;
    Expr p = select(n < 0 || n > 31, 0, n == 31, Int(32).min(), i32(1) << u32(clamp(n, 0, 30)));
    Expr f1 = i16(v & 0x7fff);
    Expr f2 = m2h16(f1, f1);
    Expr f3 = m2h16(f2, f1);
    Expr poly = m2h16(i16(2592), f3) + m2h16(i16(7363), f2) + m2h16(i16(22812), f1);
    Expr m = clamp((i64(p) * (i64(poly) << 16) + (i64(1) << 30)) >> 31, Int(32).min(), Int(32).max());
    return i32(clamp(i64(p) + m, Int(32).min(), Int(32).max()));
}

class L2Norm : public Generator<L2Norm> {
public:
    Input<Buffer<uint8_t, 2>> in{"in"};
    Input<uint8_t> zero{"zero"};
    Input<int32_t> W{"W"};
    Output<Buffer<uint8_t, 2>> out{"out"};

    void generate() {
        has_pmulhrsw = get_target().has_feature(Target::SSE41);
        Var x("x"), y("y");
        Func z("z");
        z(x, y) = i16(in(x, y)) - i16(zero);

        // ss = the row's sum of squares: LANES i32 partial sums, each over pairs of adjacent
        // elements of the whole blocks of 2 * LANES (pmaddwd), then the partial sums and the
        // tail of the row (fewer than 2 * LANES elements)
        Func sq("sq");
        sq(x, y) = i32(z(x, y)) * i32(z(x, y));
        const int lanes = 2 * natural_vector_size<int32_t>();
        Expr whole = (W / (2 * lanes)) * (2 * lanes);
        RDom rb(0, W / (2 * lanes), 0, 2, "rb");
        Var u("u");
        Func part("part");
        part(u, y) = 0;
        part(u, y) += sq(rb.x * (2 * lanes) + 2 * u + rb.y, y);
        RDom ru(0, lanes, "ru"), rt(whole, W - whole, "rt");
        Func ss("ss");
        ss(y) = 0;
        ss(y) += part(ru, y);
        ss(y) += sq(rt, y);

        Func inv("inv");
        inv(y) = approx_exp2_q15_i32(-approx_log2(14, ss(y)));

        // rshr(z * inv, 8) = m2h(z << 7, inv) exactly: |z << 7| <= 32640 and inv <= 32765
        // whenever ss >= 1 (checked for every ss in 1..2^31-1); for ss = 0 every z is 0, so
        // saturating inv to i16 changes nothing. The rounded product fits i16.
        Func inv16("inv16");
        inv16(y) = i16_sat(inv(y));
        Expr t = m2h16(z(x, y) << 7, inv16(y));
        out(x, y) = u8_sat(saturating_add(t, i16(128)));

        const int vec = natural_vector_size<uint8_t>();
        out.vectorize(x, vec, TailStrategy::GuardWithIf);
        inv16.compute_at(out, y);
        ss.compute_at(out, y);
        part.compute_at(out, y).vectorize(u);
        part.update().reorder(rb.y, u, rb.x).atomic().vectorize(rb.y).vectorize(u);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(L2Norm, l2norm)

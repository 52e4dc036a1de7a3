// softmax (BENCHMARKS.md 16): per row, mx = max in; e = approx_exp2(15, m2h((in - mx) << 6,
// beta_mult), beta_shift) in i16; s = sum i32(e); inv = approx_exp2(30, -approx_log2(15, s),
// 15) in i16; out = u8_sat(rshr(m2h(m2h(e, inv), om), osh) + oz). No boundary (rows 0..W).
//
// Schedule (apps/hannk's softmax, single thread): per row y, the max (atomic vectorize of
// the reduction by 2 x the natural u8 width), e computed ONCE into a row buffer (store_root, folded to one row, so it
// is allocated once; vectorized by the natural u8 width; specialized for beta_mult >= 0,
// where e needs no saturation cases), the sum of e as 2 x natural-i32 partial sums in
// registers plus a scalar tail, inv (scalar), then the row from the stored e, vectorized by
// the natural u8 width (GuardWithIf: any W). All m2h are pmulhrsw (exact here, see m2h16),
// the final rounding shift stays in i16. Measured avx2 medians at 1024x256:
// tried: e recomputed for the output (as the .tine), atomic sum, Halide's saturating
// rounding_mul_shift_right, i32 rounding shift 0.30 ms; m2h as pmulhrsw 0.26; e stored per
// row 0.149; sum as pmaddwd-style pair reduction 0.164 (Halide 14 lowers the i16-pair
// vector_reduce with shuffles) vs plain i32 partial sums 0.138; max as u8 partial maxima
// 0.146 (kept the atomic max); beta_mult >= 0 specialization 0.128; e at the i16 width
// 0.130; i16 rounding shift 0.095; e's buffer hoisted (store_root) 0.091 (per-row heap
// allocation before; MemoryType::Stack also 0.091); out vectorized 2x 0.095, partial sums
// 1x / 4x natural-i32 0.090 / 0.101; e vectorized 2x 0.093; the max's vectors 2x 0.089
// (4x 0.090) against 0.092 side by side. Kept the max at 2x: 0.089 ms (sse41 0.170, sse2 0.56).
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

// hannk's approx_log2(15, v) for v >= 0, i32: floor(log2 v) from the leading zeros (-1 for
// 0), the 15 bits below the leading one through a Q14 cubic
Expr approx_log2_q15(Expr v) {
    Expr fl = 31 - i32(count_leading_zeros(v));
    Expr norm = select(fl <= 15, v << u32(clamp(15 - fl, 0, 16)), v >> u32(clamp(fl - 15, 0, 16)));
    Expr f1 = i16(norm & 0x7fff);
    Expr f2 = m2h16(f1, f1);
    Expr f3 = m2h16(f2, f1);
    Expr poly = m2h16(i16(2555), f3) + m2h16(i16(-9421), f2) + m2h16(i16(23249), f1) + i16(5);
    return i32(clamp(i64(fl) * (1 << 15) + i64(poly) * 2, Int(32).min(), Int(32).max()));
}

// 2^f - 1 in Q15 for a Q15 fraction f1 (i16, 0 <= f1 < 2^15)
Expr exp2_poly(Expr f1) {
    Expr f2 = m2h16(f1, f1);
    Expr f3 = m2h16(f2, f1);
    return m2h16(i16(2592), f3) + m2h16(i16(7363), f2) + m2h16(i16(22812), f1);
}

// hannk's approx_exp2(30, v, 15) in i16 for an i32 v (per row: written for any v)
Expr approx_exp2_q30_i16(Expr v) {
    Expr fl = v >> 15;
    Expr n = fl + 30;
    Expr p32 = select(n < 0 || n > 31, 0, n == 31, Int(32).min(), i32(1) << u32(clamp(n, 0, 30)));
    Expr p = i16_sat(p32);
    Expr f1 = i16(v & 0x7fff);
    return saturating_add(p, m2h16(p, exp2_poly(f1)));
}

class Softmax : public Generator<Softmax> {
public:
    Input<Buffer<uint8_t, 2>> in{"in"};
    Input<int16_t> beta_mult{"beta_mult"};
    Input<uint16_t> beta_shift{"beta_shift"};
    Input<int16_t> om{"om"};
    Input<uint16_t> osh{"osh"};
    Input<uint8_t> oz{"oz"};
    Input<int32_t> W{"W"};
    Output<Buffer<uint8_t, 2>> out{"out"};

    void generate() {
        has_pmulhrsw = get_target().has_feature(Target::SSE41);
        Var x("x"), y("y");
        RDom r(0, W, "r");

        Func mx("mx");
        mx(y) = u8(0);
        mx(y) = max(mx(y), in(r, y));

        // e = approx_exp2(15, db, beta_shift) in i16, db = m2h((in - mx) << 6, beta_mult);
        // the reference's shift count is 0..15 (its fraction is shifted by 15 - count; a larger
        // count is undefined there), so the count is clamped to 15
        Expr qx = u16(min(beta_shift, 15));
        Func e("e");
        {
            Expr d = (i16(in(x, y)) - i16(mx(y))) << 6;
            Expr db = m2h16(d, beta_mult);  // d >= -16320: never MIN * MIN
            Expr fl = db >> qx;              // floor(db / 2^qx)
            Expr f1 = (db & ((i16(1) << qx) - 1)) << (u16(15) - qx);
            Expr poly = exp2_poly(f1);       // 0 <= poly < 2^15
            // Any beta_mult: p = 2^(fl + 15) saturated to i16 (0 below 2^0, 32767 for 2^15..2^30,
            // -32768 for 2^31 = INT32_MIN, 0 beyond: the reference's 32-bit power), then
            // sat(p + m2h(p, poly)) (p = -32768 and poly >= 0: never MIN * MIN)
            Expr p = select(fl < -15 || fl > 16, i16(0), fl == 16, i16(-32768), fl >= 0, i16(32767),
                            i16(1) << u16(clamp(fl + 15, 0, 14)));
            Expr general = saturating_add(p, m2h16(p, poly));
            // beta_mult >= 0 (the usual, positive beta): d <= 0, so db <= 0 and fl <= 0, and
            // fl = 0 only for db = 0, where poly = 0. Then p = 2^(fl + 15) as u16 (0 below
            // fl = -15), and p + m2h(p, poly) < 2^15 except at fl = 0, where it is 2^15 + 0 and
            // saturates to 32767 (p = 2^15 read as i16 is -32768, times poly = 0 still 0).
            Expr pu = select(fl < -15, u16(0), u16(1) << u16(clamp(fl + 15, 0, 15)));
            // (reinterpret, not a cast: Halide would fold u16(i16(...)) and lose pmulhrsw)
            Expr nonneg = i16(min(pu + reinterpret<uint16_t>(m2h16(i16(pu), poly)), u16(32767)));
            e(x, y) = select(beta_mult >= 0, nonneg, general);
        }

        // s = the row's sum of e: LANES i32 partial sums over the whole blocks of LANES
        // elements, then the partial sums and the tail of the row (fewer than LANES)
        const int lanes = 2 * natural_vector_size<int32_t>();
        Expr whole = (W / lanes) * lanes;
        RDom rb(0, W / lanes, "rb");
        Var u("u");
        Func part("part");
        part(u, y) = 0;
        part(u, y) += i32(e(rb * lanes + u, y));
        RDom ru(0, lanes, "ru"), rt(whole, W - whole, "rt");
        Func s("s");
        s(y) = 0;
        s(y) += part(ru, y);
        s(y) += i32(e(rt, y));

        Func inv("inv");
        inv(y) = approx_exp2_q30_i16(-approx_log2_q15(s(y)));

        // rshr(v, osh) on an i16 v, in i16: floor(v / 2^n) plus bit n - 1 of v (the rounding
        // half up); n = 0 is v itself, and n >= 16 is 0 as n = 16 is (sign + sign bit), which
        // the arithmetic shifts by min(n, 15) and min(n - 1, 15) give
        Expr v = m2h16(m2h16(e(x, y), inv(y)), om);  // inv >= 0, so the first is > -32768: no MIN * MIN
        Expr s1 = u16(min(osh, 15)), s2 = u16(min(max(i32(osh) - 1, 0), 15));
        Expr bit = select(osh == 0, i16(0), i16(1));
        Expr t = (v >> s1) + ((v >> s2) & bit);
        out(x, y) = u8_sat(saturating_add(t, i16(oz)));

        const int vec = natural_vector_size<uint8_t>();
        out.vectorize(x, vec, TailStrategy::GuardWithIf);
        mx.compute_at(out, y).update().atomic().vectorize(r, 2 * vec);
        s.compute_at(out, y);
        part.compute_at(out, y).vectorize(u);
        part.update().vectorize(u);
        inv.compute_at(out, y);
        e.store_root().compute_at(out, y).vectorize(x, vec, TailStrategy::GuardWithIf).specialize(beta_mult >= 0);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(Softmax, softmax)

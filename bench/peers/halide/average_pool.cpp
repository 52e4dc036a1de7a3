// average_pool (BENCHMARKS.md 13): hannk's 8x8 average pool at stride 2 with SAME padding
// on u8 (c, x, y, b): output (x, y) sums u16 input taps 2x-3..2x+4 x 2y-3..2y+4, taps
// outside the input are 0 (constant_exterior over x and y only); n = valid taps (from
// in_w, in_h); inv = u16_sat((2^17 + n) / 2n); out = clamp(u8_sat(rounding_mul_shr(sum, inv,
// 16)), out_min, out_max) (Halide's u16 rounding_mul_shift_right has tine's semantics).
//
// Schedule: separable, each 8-tap stride-2 window as pairs of taps, pairs of pairs and
// two of those (3 adds instead of 7), down the rows then along the columns, all in u16
// vectorized along c. Channels are tiled by 64 (one cache line of every input pixel) and
// the output walks rows inside a tile: the row pairs and pairs of pairs are stored at the
// tile and computed per output row (sliding windows: each computed once), the column
// stages per output row. ShiftInwards tiles when c >= 64, GuardWithIf otherwise.
// tried (avx2, 1024 x 64 x 64, noisy machine): the 8x8 RDom sum of hannk's reference
// form, vectorized along c (6.6 ms); an 8-row sum per output row without sliding (0.94
// ms); sliding with channel tiles of 32 (1.13 ms), 64 (0.79 ms), 128 (0.87 ms), 256
// (1.10 ms); + prefetch of the input two rows ahead (0.86 ms); the final multiply in u32
// (0.82 ms) vs rounding_mul_shift_right in u16 (0.75 ms); kept tiles of 64, u16.
#include "Halide.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;

class AveragePool : public Generator<AveragePool> {
public:
    Input<Buffer<uint8_t, 4>> in{"in"};
    Input<int32_t> in_w{"in_w"};
    Input<int32_t> in_h{"in_h"};
    Input<uint8_t> out_min{"out_min"};
    Input<uint8_t> out_max{"out_max"};
    Output<Buffer<uint8_t, 4>> out{"out"};

    void generate() {
        Var c("c"), x("x"), y("y"), b("b"), j("j");
        Func z = BoundaryConditions::constant_exterior(
            in, u8(0),
            {{Expr(), Expr()}, {in.dim(1).min(), in.dim(1).extent()}, {in.dim(2).min(), in.dim(2).extent()}, {Expr(), Expr()}});

        // The windows start at odd offsets 2k-3; u16 never wraps (64 * 255 < 2^16).
        Func pr("pr"), qr("qr"), v("v"), px("px"), qx("qx");
        pr(c, x, j, b) = u16(z(c, x, 2 * j - 3, b)) + u16(z(c, x, 2 * j - 2, b));  // rows 2j-3, 2j-2
        qr(c, x, j, b) = pr(c, x, j, b) + pr(c, x, j + 1, b);                     // rows 2j-3 .. 2j
        v(c, x, y, b) = qr(c, x, y, b) + qr(c, x, y + 2, b);                      // rows 2y-3 .. 2y+4
        px(c, j, y, b) = v(c, 2 * j - 3, y, b) + v(c, 2 * j - 2, y, b);
        qx(c, j, y, b) = px(c, j, y, b) + px(c, j + 1, y, b);
        Expr total = qx(c, x, y, b) + qx(c, x + 2, y, b);

        auto taps = [](Expr s, Expr e) { return min(s + 8, e) - max(s, 0); };
        Expr n = taps(2 * x - 3, in_w) * taps(2 * y - 3, in_h);
        Expr inv = u16_sat((131072 + n) / (2 * n));
        Expr avg = rounding_mul_shift_right(total, inv, 16);
        out(c, x, y, b) = clamp(u8_sat(avg), out_min, out_max);

        const int tile = 64;
        const int vec = natural_vector_size<uint8_t>();
        const int vw = natural_vector_size<uint16_t>();
        Var co("co"), ci("ci");
        out.specialize(out.dim(0).extent() >= tile)
            .split(c, co, ci, tile, TailStrategy::ShiftInwards)
            .reorder(ci, x, y, co, b)
            .vectorize(ci, vec);
        out.split(c, co, ci, tile, TailStrategy::GuardWithIf)
            .reorder(ci, x, y, co, b)
            .vectorize(ci, vec, TailStrategy::GuardWithIf);
        for (Func f : {pr, qr}) {
            f.store_at(out, co).compute_at(out, y).vectorize(c, vw, TailStrategy::GuardWithIf);
        }
        for (Func f : {v, px, qx}) {
            f.compute_at(out, y).vectorize(c, vw, TailStrategy::GuardWithIf);
        }
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(AveragePool, average_pool)

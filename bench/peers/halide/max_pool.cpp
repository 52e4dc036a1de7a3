// max_pool (BENCHMARKS.md 14): hannk's 8x8 max pool at stride 2 with SAME padding on u8
// (c, x, y, b): output (x, y) is the max of input taps 2x-3..2x+4 x 2y-3..2y+4, taps
// outside the input read out_min (constant_exterior over x and y only);
// out = min(max(out_min, m), out_max).
//
// Schedule: separable, each 8-tap stride-2 window as the max of pairs of taps, of pairs of
// pairs and of two of those (3 maxes instead of 7), along the columns first (the row maxes
// h are then only as wide as the output), then down the rows; all in u8 vectorized along
// c. Channels are tiled by 128 (whole cache lines of every input pixel) and the output
// walks rows inside a tile: h, the row pairs and pairs of pairs are stored at the tile and
// computed per output row (sliding windows: every input row is reduced once), the column
// pairs per row of h. ShiftInwards tiles when c >= 128, GuardWithIf otherwise.
// tried (avx2, 1024 x 64 x 64, noisy machine, medians): the 8x8 RDom max of hannk's
// reference form vectorized along c (10.3 ms); rows first, an 8-row max per output row
// without sliding (0.90 ms); rows first with sliding and channel tiles of 32 (0.65 ms),
// 64 (0.41 ms), 128 (0.40 ms), 256 (0.41 ms); + prefetch of the input two rows ahead
// (0.52 ms); columns first with tiles of 64 (0.42 ms), 128 (0.39 ms); kept columns
// first, tiles of 128.
#include "Halide.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;

class MaxPool : public Generator<MaxPool> {
public:
    Input<Buffer<uint8_t, 4>> in{"in"};
    Input<uint8_t> out_min{"out_min"};
    Input<uint8_t> out_max{"out_max"};
    Output<Buffer<uint8_t, 4>> out{"out"};

    void generate() {
        Var c("c"), x("x"), y("y"), b("b"), j("j");
        Func z = BoundaryConditions::constant_exterior(
            in, out_min,
            {{Expr(), Expr()}, {in.dim(1).min(), in.dim(1).extent()}, {in.dim(2).min(), in.dim(2).extent()}, {Expr(), Expr()}});

        // The windows start at odd offsets 2k-3.
        Func hp("hp"), hq("hq"), h("h"), pr("pr"), qr("qr");
        hp(c, j, y, b) = max(z(c, 2 * j - 3, y, b), z(c, 2 * j - 2, y, b));  // columns 2j-3, 2j-2
        hq(c, j, y, b) = max(hp(c, j, y, b), hp(c, j + 1, y, b));           // columns 2j-3 .. 2j
        h(c, x, y, b) = max(hq(c, x, y, b), hq(c, x + 2, y, b));            // columns 2x-3 .. 2x+4
        pr(c, x, j, b) = max(h(c, x, 2 * j - 3, b), h(c, x, 2 * j - 2, b)); // rows 2j-3, 2j-2
        qr(c, x, j, b) = max(pr(c, x, j, b), pr(c, x, j + 1, b));           // rows 2j-3 .. 2j
        Expr m = max(qr(c, x, y, b), qr(c, x, y + 2, b));                   // rows 2y-3 .. 2y+4
        out(c, x, y, b) = min(max(out_min, m), out_max);

        const int tile = 128;
        const int vec = natural_vector_size<uint8_t>();
        Var co("co"), ci("ci");
        out.specialize(out.dim(0).extent() >= tile)
            .split(c, co, ci, tile, TailStrategy::ShiftInwards)
            .reorder(ci, x, y, co, b)
            .vectorize(ci, vec);
        out.split(c, co, ci, tile, TailStrategy::GuardWithIf)
            .reorder(ci, x, y, co, b)
            .vectorize(ci, vec, TailStrategy::GuardWithIf);
        for (Func f : {h, pr, qr}) {
            f.store_at(out, co).compute_at(out, y).vectorize(c, vec, TailStrategy::GuardWithIf);
        }
        for (Func f : {hp, hq}) {
            f.compute_at(h, y).vectorize(c, vec, TailStrategy::GuardWithIf);
        }
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(MaxPool, max_pool)

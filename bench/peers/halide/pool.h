// pool.h — the 8x8 stride-2 SAME window of average_pool and max_pool, written once: the
// separable reduction (pairs of taps, pairs of pairs, two of those; columns first, then
// rows) and its schedule (channel tiles of 128, rows sliding). The kernels differ only in
// the combining op, the type it runs in and what they do with the window's value.
#pragma once
#include <functional>

#include "Halide.h"

namespace tine_peer {
using namespace Halide;

struct Pool8x8s2 {
    Var c{"c"}, x{"x"}, y{"y"}, b{"b"}, j{"j"};
    Func hp{"hp"}, hq{"hq"}, h{"h"}, pr{"pr"}, qr{"qr"};

    // in with SAME padding: taps outside x and y read v (c and b are never out of range)
    template <typename In>
    static Func padded(const In &in, Expr v) {
        Region xy = {{Expr(), Expr()},
                     {in.dim(1).min(), in.dim(1).extent()},
                     {in.dim(2).min(), in.dim(2).extent()},
                     {Expr(), Expr()}};
        return BoundaryConditions::constant_exterior(in, v, xy);
    }

    // The window of output (x, y): columns 2x-3 .. 2x+4, rows 2y-3 .. 2y+4 of z, each tap
    // through tap(), combined with op (associative, so the pairing is exact).
    Expr window(Func z, std::function<Expr(Expr, Expr)> op, std::function<Expr(Expr)> tap) {
        hp(c, j, y, b) = op(tap(z(c, 2 * j - 3, y, b)), tap(z(c, 2 * j - 2, y, b)));  // columns 2j-3, 2j-2
        hq(c, j, y, b) = op(hp(c, j, y, b), hp(c, j + 1, y, b));                      // columns 2j-3 .. 2j
        h(c, x, y, b) = op(hq(c, x, y, b), hq(c, x + 2, y, b));                       // columns 2x-3 .. 2x+4
        pr(c, x, j, b) = op(h(c, x, 2 * j - 3, b), h(c, x, 2 * j - 2, b));            // rows 2j-3, 2j-2
        qr(c, x, j, b) = op(pr(c, x, j, b), pr(c, x, j + 1, b));                      // rows 2j-3 .. 2j
        return op(qr(c, x, y, b), qr(c, x, y + 2, b));                                // rows 2y-3 .. 2y+4
    }

    // out vectorized along c by vec in channel tiles of 128 (ShiftInwards when C >= 128,
    // GuardWithIf below); inside a tile the output walks rows and h, pr, qr are stored at
    // the tile and computed per output row (sliding: each input row reduced once), the
    // column pairs per row of h; the intermediates vectorized by vw (their type's width).
    void schedule(Func out, int vec, int vw) {
        const int tile = 128;
        Var co("co"), ci("ci");
        out.specialize(out.output_buffer().dim(0).extent() >= tile)
            .split(c, co, ci, tile, TailStrategy::ShiftInwards)
            .reorder(ci, x, y, co, b)
            .vectorize(ci, vec);
        out.split(c, co, ci, tile, TailStrategy::GuardWithIf)
            .reorder(ci, x, y, co, b)
            .vectorize(ci, vec, TailStrategy::GuardWithIf);
        for (Func f : {h, pr, qr}) f.store_at(out, co).compute_at(out, y).vectorize(c, vw, TailStrategy::GuardWithIf);
        for (Func f : {hp, hq}) f.compute_at(h, y).vectorize(c, vw, TailStrategy::GuardWithIf);
    }
};

}  // namespace tine_peer

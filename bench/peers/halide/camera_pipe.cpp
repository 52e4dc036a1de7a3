// camera_pipe: placeholder header, rewritten below once the schedule is chosen.
#include "Halide.h"

namespace {
using namespace Halide;
using namespace Halide::ConciseCasts;

class CameraPipe : public Generator<CameraPipe> {
public:
    GeneratorParam<int> tile_w{"tile_w", 128};
    GeneratorParam<int> tile_h{"tile_h", 32};
    GeneratorParam<int> sched{"sched", 2};

    Input<Buffer<uint16_t, 2>> raw{"raw"};
    Input<Buffer<int16_t, 2>> matrix{"matrix"};
    Input<Buffer<uint8_t, 1>> curve{"curve"};
    Output<Buffer<uint8_t, 3>> out{"out"};

    // i16((i32(a) + i32(b) + 1) / 2), the division rounding down (Halide's and tine's)
    static Expr avg(Expr a, Expr b) { return i16((i32(a) + i32(b) + 1) / 2); }
    static Expr avg8(Expr a, Expr b) { return u8((u16(a) + u16(b) + 1) / 2); }

    void generate() {
        Var x("x"), y("y"), c("c");

        Func s("s"), denoised("denoised"), deint("deint");
        s(x, y) = i16(raw(x + 16, y + 12));
        denoised(x, y) = max(min(s(x, y), max(max(s(x - 2, y), s(x + 2, y)), max(s(x, y - 2), s(x, y + 2)))), i16(0));
        // the four Bayer channels at quad resolution: 0 gr, 1 r, 2 b, 3 gb
        deint(x, y, c) = select(c == 0, denoised(2 * x, 2 * y), c == 1, denoised(2 * x + 1, 2 * y),
                                c == 2, denoised(2 * x, 2 * y + 1), denoised(2 * x + 1, 2 * y + 1));
        auto g_gr = [&](Expr X, Expr Y) { return deint(X, Y, 0); };
        auto r_r = [&](Expr X, Expr Y) { return deint(X, Y, 1); };
        auto b_b = [&](Expr X, Expr Y) { return deint(X, Y, 2); };
        auto g_gb = [&](Expr X, Expr Y) { return deint(X, Y, 3); };

        Func g_r("g_r"), g_b("g_b");
        {
            Expr gv0 = g_gb(x, y - 1), gv1 = g_gb(x, y), gh0 = g_gr(x + 1, y), gh1 = g_gr(x, y);
            g_r(x, y) = select(absd(gh0, gh1) < absd(gv0, gv1), avg(gh0, gh1), avg(gv0, gv1));
        }
        {
            Expr gv0 = g_gr(x, y + 1), gv1 = g_gr(x, y), gh0 = g_gb(x - 1, y), gh1 = g_gb(x, y);
            g_b(x, y) = select(absd(gh0, gh1) < absd(gv0, gv1), avg(gh0, gh1), avg(gv0, gv1));
        }
        Expr r_gr = g_gr(x, y) - avg(g_r(x, y), g_r(x - 1, y)) + avg(r_r(x - 1, y), r_r(x, y));
        Expr b_gr = g_gr(x, y) - avg(g_b(x, y), g_b(x, y - 1)) + avg(b_b(x, y), b_b(x, y - 1));
        Expr r_gb = g_gb(x, y) - avg(g_r(x, y), g_r(x, y + 1)) + avg(r_r(x, y), r_r(x, y + 1));
        Expr b_gb = g_gb(x, y) - avg(g_b(x, y), g_b(x + 1, y)) + avg(b_b(x, y), b_b(x + 1, y));
        Expr rp = g_b(x, y) - avg(g_r(x, y), g_r(x - 1, y + 1)) + avg(r_r(x, y), r_r(x - 1, y + 1));
        Expr rn = g_b(x, y) - avg(g_r(x - 1, y), g_r(x, y + 1)) + avg(r_r(x - 1, y), r_r(x, y + 1));
        Expr r_b = select(absd(r_r(x, y), r_r(x - 1, y + 1)) < absd(r_r(x - 1, y), r_r(x, y + 1)), rp, rn);
        Expr bp = g_r(x, y) - avg(g_b(x, y), g_b(x + 1, y - 1)) + avg(b_b(x, y), b_b(x + 1, y - 1));
        Expr bn = g_r(x, y) - avg(g_b(x + 1, y), g_b(x, y - 1)) + avg(b_b(x + 1, y), b_b(x, y - 1));
        Expr b_r = select(absd(b_b(x, y), b_b(x + 1, y - 1)) < absd(b_b(x + 1, y), b_b(x, y - 1)), bp, bn);

        // quad-resolution values as Funcs so the full-resolution planes can read them at x / 2
        Func q_r_gr("q_r_gr"), q_b_gr("q_b_gr"), q_r_gb("q_r_gb"), q_b_gb("q_b_gb"), q_r_b("q_r_b"), q_b_r("q_b_r");
        q_r_gr(x, y) = r_gr;
        q_b_gr(x, y) = b_gr;
        q_r_gb(x, y) = r_gb;
        q_b_gb(x, y) = b_gb;
        q_r_b(x, y) = r_b;
        q_b_r(x, y) = b_r;

        Func red("red"), green("green"), blue("blue");
        Expr X = x / 2, Y = y / 2;
        Expr ex = x % 2 == 0, ey = y % 2 == 0;
        red(x, y) = select(ey, select(ex, q_r_gr(X, Y), r_r(X, Y)), select(ex, q_r_b(X, Y), q_r_gb(X, Y)));
        green(x, y) = select(ey, select(ex, g_gr(X, Y), g_r(X, Y)), select(ex, g_b(X, Y), g_gb(X, Y)));
        blue(x, y) = select(ey, select(ex, q_b_gr(X, Y), q_b_r(X, Y)), select(ex, b_b(X, Y), q_b_gb(X, Y)));

        Func curved("curved");
        Expr corrected = i16((i32(matrix(3, c)) + i32(matrix(0, c)) * i32(red(x, y)) + i32(matrix(1, c)) * i32(green(x, y)) +
                              i32(matrix(2, c)) * i32(blue(x, y))) /
                             256);
        curved(x, y, c) = curve(i32(clamp(corrected, i16(0), i16(1023))));

        Func blur_y("blur_y");
        blur_y(x, y, c) = avg8(avg8(curved(x, y - 1, c), curved(x, y + 1, c)), curved(x, y, c));
        Expr blur = avg8(avg8(blur_y(x - 1, y, c), blur_y(x + 1, y, c)), blur_y(x, y, c));
        Expr v = i16(curved(x, y, c));
        out(x, y, c) = saturating_cast<uint8_t>(v + ((v - i16(blur)) * 32) / 32);

        // ---- schedule
        const int v8 = natural_vector_size<uint8_t>(), v16 = natural_vector_size<int16_t>();
        const TailStrategy G = TailStrategy::GuardWithIf;
        Var xo("xo"), yo("yo"), xi("xi"), yi("yi"), xv("xv");
        out.bound(c, 0, 3);
        if (sched == 2) {
            // strips of rows, every stage a sliding window over the strip, two rows a step
            Var yii("yii");
            out.split(y, yo, y, tile_h, G)
                .split(y, y, yii, 2, G)
                .split(x, x, xv, v8, G)
                .reorder(xv, c, x, yii, y, yo)
                .vectorize(xv)
                .unroll(c)
                .unroll(yii);
            curved.compute_at(out, y).store_at(out, yo)
                .align_bounds(x, 2)
                .align_bounds(y, 2)
                .split(y, y, yi, 2, G)
                .split(x, x, xi, 2 * v16, G)
                .reorder(xi, c, yi, x, y)
                .vectorize(xi)
                .unroll(c)
                .unroll(yi);
            for (Func f : {red, green, blue}) {
                f.compute_at(out, y).store_at(out, yo).align_bounds(x, 2).align_bounds(y, 2)
                    .vectorize(x, 2 * v16, G).unroll(y, 2, G);
            }
            for (Func f : {g_r, g_b}) {
                f.compute_at(out, y).store_at(out, yo).vectorize(x, v16, G);
            }
            deint.compute_at(out, y).store_at(out, yo).bound(c, 0, 4).reorder(x, c, y).vectorize(x, v16, G).unroll(c);
            denoised.compute_at(out, y).store_at(out, yo).vectorize(x, v16, G);
            return;
        }
        out.tile(x, y, xo, yo, xi, yi, tile_w, tile_h, G)
            .split(xi, xi, xv, v8, G)
            .reorder(xv, c, xi, yi, xo, yo)
            .vectorize(xv)
            .unroll(c);

        curved.compute_at(out, xo)
            .align_bounds(x, 2)
            .align_bounds(y, 2)
            .tile(x, y, xo, yo, xi, yi, 2 * v16, 2, G)
            .reorder(xi, c, yi, xo, yo)
            .vectorize(xi)
            .unroll(c)
            .unroll(yi);
        for (Func f : {red, green, blue}) {
            if (sched == 0) f.compute_at(out, xo); else f.compute_at(curved, xo);
            f.align_bounds(x, 2).align_bounds(y, 2).vectorize(x, 2 * v16, G).unroll(y, 2, G);
        }
        for (Func f : {g_r, g_b}) {
            f.compute_at(out, xo).vectorize(x, v16, G);
        }
        deint.compute_at(out, xo).bound(c, 0, 4).reorder(x, c, y).vectorize(x, v16, G).unroll(c);
        denoised.compute_at(out, xo).vectorize(x, v16, G);
    }
};

}  // namespace

HALIDE_REGISTER_GENERATOR(CameraPipe, camera_pipe)
